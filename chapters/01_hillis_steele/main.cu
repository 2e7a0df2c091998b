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

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <scanlab/json.hpp>
#include <scanlab/chapter_driver.hpp>
#include <scanlab/command_line.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
// Host-side only: the racy demonstration reruns the kernel under each of the emulator's thread
// orders. Kernels never depend on the backend.
#include <scanlab_emu/options.hpp>
#endif

#include "hillis_steele_dispatch.cuh"

namespace {

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

const char* variant_label(Variant v) {
  switch (v) {
    case Variant::tiles: return "tiles";
    case Variant::racy: return "in-place (racy)";
    default: return "block";
  }
}

// ---- the run -------------------------------------------------------------------------------

// One checked run of `launch`, verified tile by tile for --tile.
template <class T, class Op>
scanlab::VerifyResult run_once(const std::vector<T>& in, scanlab::DeviceBuffer<T>& d_in,
                               scanlab::DeviceBuffer<T>& d_out, const std::function<void()>& launch, const Config& cfg,
                               Op op) {
  const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out, /*in_place=*/false, launch);
  SCANLAB_NVTX_RANGE("verify");
  const std::size_t tile = cfg.variant == Variant::tiles ? static_cast<std::size_t>(cfg.tile) : 0;
  return scanlab::verify_tiles(in, got, cfg.kind, op, tile);
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
  const std::string what = scanlab::describe_scan<T, Op>(n, cfg.kind);
  scanlab::Json report = {{"chapter", "01_hillis_steele"},
                          {"backend", scanlab::backend_name()},
                          {"variant", variant_label(cfg.variant)},
                          {"n", n},
                          {"seed", cfg.common.seed},
                          {"kind", scanlab::to_string(cfg.kind)},
                          {"op", cfg.op},
                          {"type", scanlab::type_label<T>()}};
  if (cfg.variant == Variant::tiles) report["tile"] = cfg.tile;

  const std::vector<T> in = scanlab::random_scan_input<T>(n, cfg.common.seed);
  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out(n);
  const int block_n = static_cast<int>(n);  // checked against kMaxBlockScan in main
  const std::function<void()> launch = [&] {
    switch (cfg.variant) {
      case Variant::tiles: ch01::hillis_steele_inclusive_scan_tiles(d_in.data(), d_out.data(), n, cfg.tile, op); break;
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
    for (const auto order :
         {scanlab_emu::ThreadOrder::forward, scanlab_emu::ThreadOrder::reverse, scanlab_emu::ThreadOrder::random}) {
      emu.thread_order = order;
      const scanlab::VerifyResult r = run_once(in, d_in, d_out, launch, cfg, op);
      std::cout << "thread order " << scanlab_emu::to_string(order) << ": " << scanlab::verdict_line(r, what) << "\n";
      all_ok = all_ok && r.ok;
      if (!r.ok && check.ok) check = r;
    }
    emu.thread_order = saved;
    explain_racy(all_ok);
    report["verified"] = all_ok;
    report["message"] = check.message();
    scanlab::write_json_report(cfg.common.json, report);
    return all_ok ? 0 : 1;
  }
#endif
  check = run_once(in, d_in, d_out, launch, cfg, op);
  std::cout << variant_label(cfg.variant) << ": " << scanlab::verdict_line(check, what)
            << (cfg.variant == Variant::tiles ? " (tiles of " + std::to_string(cfg.tile) + ")" : "") << "\n";
  if (cfg.variant == Variant::racy) explain_racy(check.ok);
  report["verified"] = check.ok;
  report["message"] = check.message();

  // Timing: only a GPU's times mean anything, and only a correct kernel is worth timing.
  if (!scanlab::on_emulator() && check.ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b =
        scanlab::time_bandwidth(launch, /*warmup=*/3, cfg.common.repeat, 2.0 * static_cast<double>(n) * sizeof(T),
                                "counting 2*n*sizeof(T) bytes");
    if (verbose && cfg.variant == Variant::block) {
      std::cout << "(one block on one SM: the time is mostly launch latency; --tile fills the GPU)\n";
    }
    scanlab::add_timing(report, b);
  } else if (verbose && scanlab::on_emulator()) {
    scanlab::say_not_timed();
  }

  scanlab::write_json_report(cfg.common.json, report);
  return check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 01: Hillis-Steele scan in one thread block (double-buffered)",
                           "ch01_hillis_steele"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, kDefaultN);
  scanlab::ScanKindFlags kind_flags;
  bool racy_flag = false;
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::inclusive);
  scanlab::add_element_options(cli, cfg.type, cfg.op);
  scanlab::Option tile_opt = cli.option("--tile", cfg.tile,
                                        "scan independent tiles of this many elements (1..1024), any n; "
                                        "inclusive only")
                                 .range(1, ch01::kMaxBlockScan);
  scanlab::Option racy_opt =
      cli.flag("--racy", racy_flag, "run the single-buffer (in-place) version that races, and watch it fail");
  racy_opt.excludes(tile_opt);
  racy_opt.excludes(*kind_flags.exclusive_option);
  tile_opt.excludes(*kind_flags.exclusive_option);
  cli.parse(argc, argv);

  cfg.kind = kind_flags.kind();
  cfg.variant = racy_flag ? Variant::racy : (tile_opt.given() ? Variant::tiles : Variant::block);
  if (const std::string error = scanlab::element_options_error(cfg.type, cfg.op); !error.empty()) {
    return cli.usage_error(error);
  }
  if (cfg.variant != Variant::tiles && cfg.common.n > static_cast<std::uint64_t>(ch01::kMaxBlockScan)) {
    return cli.usage_error("n = " + std::to_string(cfg.common.n) + " is more than one block scans (at most " +
                           std::to_string(ch01::kMaxBlockScan) +
                           " elements, one per thread). Use --tile 1024 to scan independent tiles of any "
                           "length; chapter 05 scans long arrays as a whole.");
  }

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 01: Hillis-Steele scan. In each step every element combines the one "
                   "`offset` places to its left\ninto itself, offset = 1, 2, 4, ...: one block scans n "
                   "elements in ceil(log2 n) steps, with O(n log n) work\nand two shared-memory "
                   "buffers.\n"
                << "backend: " << scanlab::backend_description() << "\n";
    }
    return scanlab::with_element_operator(cfg.type, cfg.op, [&](auto op) {
      return run<typename decltype(op)::value_type>(cfg, op);
    });
  });
}
