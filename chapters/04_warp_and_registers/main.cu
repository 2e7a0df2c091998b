// Chapter 04 driver: warp-shuffle scans, the block scan built from warp scans, and items per
// thread with 16-byte loads, each scanning independent tiles.
//
// Generates a random input, runs one scan of warp_and_registers.cuh (the exercise's or the
// solution's, whichever this program was built against) into a poisoned output, checks every tile
// with scanlab's oracle and, on a GPU, times it. Exit code 0 only when verified.
//
//   ch04_warp_and_registers_solution                       2^20 int32, items, tiles of 4096
//   ch04_warp_and_registers_solution --variant warp        tiles of 32, one warp each
//   ch04_warp_and_registers_solution --variant block       tiles of 1024, one value per thread
//   ch04_warp_and_registers_solution --tile 8192 --exclusive --op affine
//   ch04_warp_and_registers_solution --in-place            output over the input
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

#include "warp_and_registers.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

constexpr std::uint64_t kDefaultN = std::uint64_t(1) << 20;

enum class Variant { warp, block, items };

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::inclusive;
  std::string type = "int";
  std::string op = "plus";
  Variant variant = Variant::items;
  int tile = 4096;
  bool in_place = false;
};

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
    case Variant::warp: return "warp";
    case Variant::block: return "block";
    default: return "items";
  }
}

int tile_of(const Config& cfg) {
  switch (cfg.variant) {
    case Variant::warp: return ch04::kWarp;
    case Variant::block: return ch04::kBlockScanThreads;
    default: return cfg.tile;
  }
}

// Random input, never all zeros; affine maps get odd multipliers so that an operand swap anywhere
// changes every later element.
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

// Tile by tile (every tile restarts its prefixes); reports the first failing tile with indices
// into the whole array, and counts wrong elements over all tiles.
template <class T, class Op>
scanlab::VerifyResult verify_tiles(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op,
                                   std::size_t tile) {
  scanlab::VerifyResult total;
  total.n = in.size();
  for (std::size_t begin = 0; begin < in.size(); begin += tile) {
    const std::size_t len = in.size() - begin < tile ? in.size() - begin : tile;
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

void write_json(const Config& cfg, const nlohmann::json& report) {
  if (cfg.common.json.empty()) return;
  std::ofstream file(cfg.common.json);
  file << report.dump(2) << "\n";
  if (!file) throw std::runtime_error("cannot write the JSON report to '" + cfg.common.json + "'");
}

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool inclusive = cfg.kind == ScanKind::inclusive;
  const std::size_t tile = static_cast<std::size_t>(tile_of(cfg));
  const std::string what = std::to_string(n) + (n == 1 ? " element, " : " elements, ") +
                           scanlab::to_string(cfg.kind) + " " + op_label<Op>() + ", " + type_label<T>() +
                           ", tiles of " + std::to_string(tile) + (cfg.in_place ? ", in place" : "");
  nlohmann::json report = {{"chapter", "04_warp_and_registers"}, {"backend", scanlab::backend_name()},
                           {"variant", variant_label(cfg.variant)}, {"n", n}, {"tile", tile},
                           {"seed", cfg.common.seed}, {"kind", scanlab::to_string(cfg.kind)},
                           {"op", cfg.op}, {"type", type_label<T>()}, {"in_place", cfg.in_place}};
  if (cfg.variant == Variant::items) {
    report["threads"] = ch04::items_threads_for_tile(cfg.tile);
    report["items_per_thread"] = ch04::items_per_thread_for_tile(cfg.tile);
  }

  const std::vector<T> in = make_input<T>(n, cfg.common.seed);
  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out(cfg.in_place ? 0 : n);
  T* out_ptr = cfg.in_place ? d_in.data() : d_out.data();
  const std::function<void()> launch = [&] {
    switch (cfg.variant) {
      case Variant::warp: ch04::warp_scan_tiles(d_in.data(), out_ptr, n, inclusive, op); break;
      case Variant::block: ch04::block_scan_tiles(d_in.data(), out_ptr, n, inclusive, op); break;
      default: ch04::items_scan_tiles(d_in.data(), out_ptr, n, cfg.tile, inclusive, op);
    }
  };

  {
    SCANLAB_NVTX_RANGE("upload");
    d_in.upload(in);
    if (!cfg.in_place) d_out.fill_poison();
  }
  {
    SCANLAB_NVTX_RANGE("scan");
    launch();
    SCANLAB_CHECK_SYNC();
  }
  std::vector<T> got;
  {
    SCANLAB_NVTX_RANGE("download");
    got = cfg.in_place ? d_in.download() : d_out.download();
  }
  scanlab::VerifyResult check;
  {
    SCANLAB_NVTX_RANGE("verify");
    check = verify_tiles(in, got, cfg.kind, op, tile);
  }
  std::cout << variant_label(cfg.variant) << ": " << (check.ok ? "verified: " : "FAILED: ") << what
            << (check.ok ? "" : ": " + check.message()) << "\n";
  report["verified"] = check.ok;
  report["message"] = check.message();

  // Timing: only a GPU's times mean anything, and only a correct kernel is worth timing. In place
  // the input changes with every run, which does not change the time.
  if (!scanlab::on_emulator() && check.ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::TimingStats t = scanlab::time_ms(launch, /*warmup=*/3, cfg.common.repeat);
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
    const double gbps = scanlab::gbps(bytes, t.median_ms);
    std::cout << "median " << t.median_ms << " ms over " << t.reps << " run(s), " << gbps
              << " GB/s (counting 2*n*sizeof(T) bytes)\n";
    report["median_ms"] = t.median_ms;
    report["min_ms"] = t.min_ms;
    report["max_ms"] = t.max_ms;
    report["reps"] = t.reps;
    report["gbps"] = gbps;
  } else if (!cfg.common.quiet && scanlab::on_emulator()) {
    std::cout << "(not timed: the emulator's times say nothing about a GPU)\n";
  }
  write_json(cfg, report);
  return check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Chapter 04: warp-shuffle scans, block scans from warp scans, items per thread",
               "ch04_warp_and_registers"};
  Config cfg;
  scanlab::add_common_options(app, cfg.common, kDefaultN);
  bool inclusive_flag = false;
  bool exclusive_flag = false;
  std::string variant = "items";
  auto* inclusive_opt = app.add_flag("--inclusive", inclusive_flag, "inclusive scan (the default)");
  auto* exclusive_opt = app.add_flag("--exclusive", exclusive_flag, "exclusive scan: out[0] = identity");
  inclusive_opt->excludes(exclusive_opt);
  app.add_option("--variant", variant,
                 "warp: tiles of 32, one per warp; block: tiles of 1024, one value per thread; "
                 "items: tiles of --tile, several values per thread")
      ->check(CLI::IsMember({"warp", "block", "items"}))
      ->capture_default_str();
  auto* tile_opt = app.add_option("--tile", cfg.tile,
                                  "tile of the items variant: 1024 (128 threads x 8), 2048 (256 x 8), "
                                  "4096 (256 x 16) or 8192 (512 x 16)")
                       ->check(CLI::IsMember({1024, 2048, 4096, 8192}))
                       ->capture_default_str();
  app.add_option("--type", cfg.type, "element type")->check(CLI::IsMember({"int", "float"}))->capture_default_str();
  app.add_option("--op", cfg.op, "operator: plus, max, or affine (composition of affine maps over uint32)")
      ->check(CLI::IsMember({"plus", "max", "affine"}))
      ->capture_default_str();
  app.add_flag("--in-place", cfg.in_place, "write the result over the input");
  scanlab::run_cli(app, argc, argv);

  cfg.kind = exclusive_flag ? ScanKind::exclusive : ScanKind::inclusive;
  cfg.variant = variant == "warp" ? Variant::warp : variant == "block" ? Variant::block : Variant::items;
  auto usage_error = [&](const std::string& message) {
    std::cerr << app.get_name() << ": error: " << message << "\n\n" << app.help();
    return 2;
  };
  if (cfg.op == "affine" && cfg.type != "int") {
    return usage_error("--op affine composes affine maps over uint32; it takes no --type float");
  }
  if (*tile_opt && cfg.variant != Variant::items) {
    return usage_error("--tile sets the items variant's tile; the warp variant scans tiles of 32 and the "
                       "block variant tiles of 1024");
  }
  // Host memory: the input, the output and the oracle's copy of one tile; on the emulator the
  // device buffers are host memory too.
  constexpr std::uint64_t kMaxN = std::uint64_t(1) << 30;
  if (cfg.common.n > kMaxN) {
    return usage_error("n = " + std::to_string(cfg.common.n) + " is more than this driver handles (2^30)");
  }

  try {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 04: warp-shuffle scans. A warp scans 32 values in 5 shuffle steps (Kogge-Stone);\n"
                   "a block scans its warps' totals with one more warp scan; with several values per "
                   "thread,\neach thread scans its own values sequentially in registers (Brent).\n"
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
