// Chapter 01 driver: the Hillis-Steele scan in one thread block, many independent tiles, and the
// in-place version that races.
//
// Generates a random input, runs one scan of hillis_steele.cuh (the exercise's or the solution's,
// whichever this program was built against) into a poisoned output, checks it with scanlab's
// oracle and, on a GPU, times it. Exit code 0 only when verified.
//
//   ch01_hillis_steele_solution                   1024 int32, inclusive sum, one block
//   ch01_hillis_steele_solution -n 1000 --exclusive --op affine
//   ch01_hillis_steele_solution -n 2^24 --tile 1024   independent 1024-element tiles
//   ch01_hillis_steele_solution --racy            the single-buffer version, going wrong
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/cli.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
// Host-side only: the racy demonstration reruns the kernel under each of the emulator's thread
// orders. Kernels never depend on the backend.
#include <scanlab_emu/options.hpp>
#endif

#include "hillis_steele.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

constexpr std::uint64_t kDefaultN = ch01::kMaxBlockScan;

enum class Variant { block, tiles, racy };

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::inclusive;
  std::string type = "int";
  std::string op = "plus";
  Variant variant = Variant::block;
  int tile = 0;
};

// ---- names for what is scanned, as the reports print them ----------------------------------

template <class T>
const char* type_label() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else return "affine<uint32>";
}

template <class Op>
const char* op_label() {
  if constexpr (std::is_same_v<Op, AffineCompose<std::uint32_t>>) return "affine composition";
  else if constexpr (std::is_same_v<Op, Max<typename Op::value_type>>) return "max";
  else return "sum";
}

const char* variant_label(Variant v) {
  switch (v) {
    case Variant::tiles: return "tiles";
    case Variant::racy: return "in-place (racy)";
    default: return "block";
  }
}

// "1024 elements, inclusive sum, int32"
template <class T, class Op>
std::string describe(std::size_t n, ScanKind kind) {
  return std::to_string(n) + (n == 1 ? " element, " : " elements, ") + scanlab::to_string(kind) +
         " " + op_label<Op>() + ", " + type_label<T>();
}

// ---- input and verification ----------------------------------------------------------------

// Random input, never all zeros. Affine maps get odd multipliers, so composed prefixes stay
// invertible and an operand swap anywhere changes every later element.
template <class T>
std::vector<T> make_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, Affine<std::uint32_t>>) {
    auto maps = scanlab::random_vector<T>(n, seed, 0u, 0xffffffffu);
    for (auto& f : maps) f.a |= 1u;
    return maps;
  } else {
    return scanlab::random_vector<T>(n, seed);
  }
}

// One segment: exact comparison with the oracle, except float sums (float64 with a tolerance).
template <class T, class Op>
scanlab::VerifyResult verify_segment(const T* in, const T* got, std::size_t n, ScanKind kind, Op op) {
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    return scanlab::verify_float_scan(in, got, n, kind);
  } else {
    std::vector<T> expected(n);
    if (kind == ScanKind::inclusive) scanlab::inclusive_scan_oracle(in, expected.data(), n, op);
    else scanlab::exclusive_scan_oracle(in, expected.data(), n, op);
    return scanlab::verify_exact(expected.data(), got, n);
  }
}

// The whole output, or tile by tile when every tile restarts its prefixes (tile > 0). Reports
// the first failing tile, with indices into the whole array.
template <class T, class Op>
scanlab::VerifyResult verify_scan(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind,
                                  Op op, int tile) {
  if (tile <= 0) return verify_segment(in.data(), got.data(), in.size(), kind, op);
  scanlab::VerifyResult total;
  total.n = in.size();
  const std::size_t step = static_cast<std::size_t>(tile);
  for (std::size_t begin = 0; begin < in.size(); begin += step) {
    const std::size_t len = in.size() - begin < step ? in.size() - begin : step;
    scanlab::VerifyResult r = verify_segment(in.data() + begin, got.data() + begin, len, kind, op);
    if (!r.ok && total.ok) {
      total = r;
      total.first_index += begin;
      total.note = "in the tile starting at " + std::to_string(begin) + (r.note.empty() ? "" : "; " + r.note);
      total.mismatches = 0;
    }
    if (!r.ok) total.mismatches += r.mismatches;
  }
  total.n = in.size();
  return total;
}

std::string outcome(const scanlab::VerifyResult& r, const std::string& what) {
  return r.ok ? "verified: " + what : "FAILED: " + what + ": " + r.message();
}

void write_json(const Config& cfg, const nlohmann::json& report) {
  if (cfg.common.json.empty()) return;
  std::ofstream file(cfg.common.json);
  file << report.dump(2) << "\n";
  if (!file) throw std::runtime_error("cannot write the JSON report to '" + cfg.common.json + "'");
}

// ---- the run -------------------------------------------------------------------------------

// Uploads, poisons the output, runs `launch` once, downloads and verifies: one NVTX range each.
template <class T, class Op>
scanlab::VerifyResult run_once(const std::vector<T>& in, scanlab::DeviceBuffer<T>& d_in,
                               scanlab::DeviceBuffer<T>& d_out, const std::function<void()>& launch,
                               const Config& cfg, Op op) {
  {
    SCANLAB_NVTX_RANGE("upload");
    d_in.upload(in);
    d_out.fill_poison();
  }
  {
    SCANLAB_NVTX_RANGE("scan");
    launch();
    SCANLAB_CHECK_SYNC();
  }
  std::vector<T> got;
  {
    SCANLAB_NVTX_RANGE("download");
    got = d_out.download();
  }
  SCANLAB_NVTX_RANGE("verify");
  return verify_scan(in, got, cfg.kind, op, cfg.variant == Variant::tiles ? cfg.tile : 0);
}

void explain_racy(bool ok) {
  std::cout << (ok ? "Right this time, but the race is still there.\n" : "The in-place scan is wrong.\n")
            << "In each step thread i reads buf[i - offset] while thread i - offset may already have\n"
               "overwritten it:"
               " "
               "a read-after-write hazard between two barriers, so the answer depends on the\n"
               "order in which threads run. The emulator's race checker reports it (SCANLAB_EMU_RACECHECK=1, or\n"
               "lab sim --racecheck), and so does compute-sanitizer --tool racecheck on a GPU.\n";
}

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool verbose = !cfg.common.quiet;
  const std::string what = describe<T, Op>(n, cfg.kind);
  nlohmann::json report = {{"chapter", "01_hillis_steele"}, {"backend", scanlab::backend_name()},
                           {"variant", variant_label(cfg.variant)}, {"n", n}, {"seed", cfg.common.seed},
                           {"kind", scanlab::to_string(cfg.kind)}, {"op", cfg.op},
                           {"type", type_label<T>()}};
  if (cfg.variant == Variant::tiles) report["tile"] = cfg.tile;

  const std::vector<T> in = make_input<T>(n, cfg.common.seed);
  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out(n);
  const int block_n = static_cast<int>(n);  // checked against kMaxBlockScan in main
  const std::function<void()> launch = [&] {
    switch (cfg.variant) {
      case Variant::tiles:
        ch01::hillis_steele_inclusive_scan_tiles(d_in.data(), d_out.data(), n, cfg.tile, op);
        break;
      case Variant::racy:
        ch01::hillis_steele_inplace_inclusive_scan_block_racy(d_in.data(), d_out.data(), block_n, op);
        break;
      default:
        if (cfg.kind == ScanKind::inclusive) {
          ch01::hillis_steele_inclusive_scan_block(d_in.data(), d_out.data(), block_n, op);
        } else {
          ch01::hillis_steele_exclusive_scan_block(d_in.data(), d_out.data(), block_n, op);
        }
    }
  };

  scanlab::VerifyResult check;
#if defined(SCANLAB_EMU)
  if (cfg.variant == Variant::racy) {
    // The same kernel under each order in which the emulator can run a block's threads between
    // barriers. A correct kernel gives one answer under all of them.
    auto& emu = scanlab_emu::options();
    const scanlab_emu::ThreadOrder saved = emu.thread_order;
    bool all_ok = true;
    for (const auto order : {scanlab_emu::ThreadOrder::forward, scanlab_emu::ThreadOrder::reverse,
                             scanlab_emu::ThreadOrder::random}) {
      emu.thread_order = order;
      const scanlab::VerifyResult r = run_once(in, d_in, d_out, launch, cfg, op);
      std::cout << "thread order " << scanlab_emu::to_string(order) << ": " << outcome(r, what) << "\n";
      all_ok = all_ok && r.ok;
      if (!r.ok && check.ok) check = r;
    }
    emu.thread_order = saved;
    explain_racy(all_ok);
    report["verified"] = all_ok;
    report["message"] = check.message();
    write_json(cfg, report);
    return all_ok ? 0 : 1;
  }
#endif
  check = run_once(in, d_in, d_out, launch, cfg, op);
  std::cout << variant_label(cfg.variant) << ": " << outcome(check, what)
            << (cfg.variant == Variant::tiles ? " (tiles of " + std::to_string(cfg.tile) + ")" : "")
            << "\n";
  if (cfg.variant == Variant::racy) explain_racy(check.ok);
  report["verified"] = check.ok;
  report["message"] = check.message();

  // Timing: only a GPU's times mean anything, and only a correct kernel is worth timing.
  if (!scanlab::on_emulator() && check.ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::TimingStats t = scanlab::time_ms(launch, /*warmup=*/3, cfg.common.repeat);
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
    const double gbps = scanlab::gbps(bytes, t.median_ms);
    std::cout << "median " << t.median_ms << " ms over " << t.reps << " run(s), " << gbps
              << " GB/s (counting 2*n*sizeof(T) bytes)\n";
    if (verbose && cfg.variant == Variant::block) {
      std::cout << "(one block on one SM: the time is mostly launch latency; --tile fills the GPU)\n";
    }
    report["median_ms"] = t.median_ms;
    report["min_ms"] = t.min_ms;
    report["max_ms"] = t.max_ms;
    report["reps"] = t.reps;
    report["gbps"] = gbps;
  } else if (verbose && scanlab::on_emulator()) {
    std::cout << "(not timed: the emulator's times say nothing about a GPU)\n";
  }

  write_json(cfg, report);
  return check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Chapter 01: Hillis-Steele scan in one thread block (double-buffered)",
               "ch01_hillis_steele"};
  Config cfg;
  scanlab::add_common_options(app, cfg.common, kDefaultN);
  bool inclusive_flag = false;
  bool exclusive_flag = false;
  bool racy_flag = false;
  auto* inclusive_opt = app.add_flag("--inclusive", inclusive_flag, "inclusive scan (the default)");
  auto* exclusive_opt = app.add_flag("--exclusive", exclusive_flag, "exclusive scan: out[0] = identity");
  inclusive_opt->excludes(exclusive_opt);
  app.add_option("--type", cfg.type, "element type")
      ->check(CLI::IsMember({"int", "float"}))
      ->capture_default_str();
  app.add_option("--op", cfg.op, "operator: plus, max, or affine (composition of affine maps over uint32)")
      ->check(CLI::IsMember({"plus", "max", "affine"}))
      ->capture_default_str();
  auto* tile_opt = app.add_option("--tile", cfg.tile,
                                  "scan independent tiles of this many elements (1..1024), any n; "
                                  "inclusive only")
                       ->check(CLI::Range(1, ch01::kMaxBlockScan));
  auto* racy_opt = app.add_flag("--racy", racy_flag,
                                "run the single-buffer (in-place) version that races, and watch it fail");
  racy_opt->excludes(tile_opt);
  racy_opt->excludes(exclusive_opt);
  tile_opt->excludes(exclusive_opt);
  scanlab::run_cli(app, argc, argv);

  cfg.kind = exclusive_flag ? ScanKind::exclusive : ScanKind::inclusive;
  cfg.variant = racy_flag ? Variant::racy : (*tile_opt ? Variant::tiles : Variant::block);
  auto usage_error = [&](const std::string& message) {
    std::cerr << app.get_name() << ": error: " << message << "\n\n" << app.help();
    return 2;
  };
  if (cfg.op == "affine" && cfg.type != "int") {
    return usage_error("--op affine composes affine maps over uint32; it takes no --type float");
  }
  if (cfg.variant != Variant::tiles && cfg.common.n > static_cast<std::uint64_t>(ch01::kMaxBlockScan)) {
    return usage_error("n = " + std::to_string(cfg.common.n) + " is more than one block scans (at most " +
                       std::to_string(ch01::kMaxBlockScan) +
                       " elements, one per thread). Use --tile 1024 to scan independent tiles of any "
                       "length; chapter 05 scans long arrays as a whole.");
  }

  try {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 01: Hillis-Steele scan. In each step every element combines the one "
                   "`offset` places to its left\ninto itself, offset = 1, 2, 4, ...: one block scans n "
                   "elements in ceil(log2 n) steps, with O(n log n) work\nand two shared-memory "
                   "buffers.\n"
                << "backend: "
                << (scanlab::on_emulator() ? std::string("emulator (CPU SIMT emulator)")
                                           : scanlab::device_description())
                << "\n";
    }
    if (cfg.op == "affine") return run<Affine<std::uint32_t>>(cfg, AffineCompose<std::uint32_t>{});
    if (cfg.type == "float") {
      return cfg.op == "max" ? run<float>(cfg, Max<float>{}) : run<float>(cfg, Plus<float>{});
    }
    return cfg.op == "max" ? run<std::int32_t>(cfg, Max<std::int32_t>{})
                           : run<std::int32_t>(cfg, Plus<std::int32_t>{});
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": error: " << e.what() << "\n";
    return 1;
  }
}
