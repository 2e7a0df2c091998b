// Chapter 04 driver: warp-shuffle scans, the block scan built from warp scans, and items per
// thread with 16-byte loads, each scanning independent tiles.
//
// Generates a random input, runs one scan of warp_and_registers.cuh (the exercise's or the
// solution's, whichever this program was built against; launched by the given
// warp_and_registers_dispatch.cuh) into a poisoned output, checks every tile with scanlab's oracle
// and, on a GPU, times it. Exit code 0 only when verified.
//
//   ch04_warp_and_registers_solution                       2^20 int32, items, tiles of 4096
//   ch04_warp_and_registers_solution --variant warp        tiles of 32, one warp each
//   ch04_warp_and_registers_solution --variant block       tiles of 1024, one value per thread
//   ch04_warp_and_registers_solution --tile 8192 --exclusive --op affine
//   ch04_warp_and_registers_solution --in-place            output over the input

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

#include "warp_and_registers_dispatch.cuh"

namespace {

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

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool inclusive = cfg.kind == ScanKind::inclusive;
  const std::size_t tile = static_cast<std::size_t>(tile_of(cfg));
  const std::string what = scanlab::describe_scan<T, Op>(n, cfg.kind) + ", tiles of " + std::to_string(tile) +
                           (cfg.in_place ? ", in place" : "");
  scanlab::Json report =
      scanlab::scan_report<T>("04_warp_and_registers", n, cfg.common.seed, cfg.kind, cfg.op, cfg.in_place);
  report["variant"] = variant_label(cfg.variant);
  report["tile"] = tile;
  if (cfg.variant == Variant::items) {
    report["threads"] = ch04::items_threads_for_tile(cfg.tile);
    report["items_per_thread"] = ch04::items_per_thread_for_tile(cfg.tile);
  }

  const std::vector<T> in = scanlab::random_scan_input<T>(n, cfg.common.seed);
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

  const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out, cfg.in_place, launch);
  scanlab::VerifyResult check;
  {
    SCANLAB_NVTX_RANGE("verify");
    check = scanlab::verify_tiles(in, got, cfg.kind, op, tile);
  }
  std::cout << variant_label(cfg.variant) << ": " << scanlab::verdict_line(check, what) << "\n";
  report["verified"] = check.ok;
  report["message"] = check.message();

  // Timing: only a GPU's times mean anything, and only a correct kernel is worth timing. In place
  // the input changes with every run, which does not change the time.
  if (!scanlab::on_emulator() && check.ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b =
        scanlab::time_bandwidth(launch, /*warmup=*/3, cfg.common.repeat, 2.0 * static_cast<double>(n) * sizeof(T),
                                "counting 2*n*sizeof(T) bytes");
    scanlab::add_timing(report, b);
  } else if (!cfg.common.quiet && scanlab::on_emulator()) {
    scanlab::say_not_timed();
  }
  scanlab::write_json_report(cfg.common.json, report);
  return check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 04: warp-shuffle scans, block scans from warp scans, items per thread",
                           "ch04_warp_and_registers"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, kDefaultN);
  scanlab::ScanKindFlags kind_flags;
  std::string variant = "items";
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::inclusive);
  cli.option("--variant", variant,
             "warp: tiles of 32, one per warp; block: tiles of 1024, one value per thread; "
             "items: tiles of --tile, several values per thread")
      .one_of({"warp", "block", "items"})
      .show_default();
  scanlab::Option tile_opt = cli.option("--tile", cfg.tile,
                                        "tile of the items variant: 1024 (128 threads x 8), 2048 (256 x 8), "
                                        "4096 (256 x 16) or 8192 (512 x 16)")
                                 .one_of({1024, 2048, 4096, 8192})
                                 .show_default();
  scanlab::add_element_options(cli, cfg.type, cfg.op);
  cli.flag("--in-place", cfg.in_place, "write the result over the input");
  cli.parse(argc, argv);

  cfg.kind = kind_flags.kind();
  cfg.variant = variant == "warp" ? Variant::warp : variant == "block" ? Variant::block : Variant::items;
  auto usage_error = [&](const std::string& message) {
    return cli.usage_error(message);
  };
  if (const std::string error = scanlab::element_options_error(cfg.type, cfg.op); !error.empty()) {
    return usage_error(error);
  }
  if (tile_opt.given() && cfg.variant != Variant::items) {
    return usage_error("--tile sets the items variant's tile; the warp variant scans tiles of 32 and the "
                       "block variant tiles of 1024");
  }
  // Host memory: the input, the output and the oracle's copy of one tile; on the emulator the
  // device buffers are host memory too.
  constexpr std::uint64_t kMaxN = std::uint64_t(1) << 30;
  if (cfg.common.n > kMaxN) {
    return usage_error("n = " + std::to_string(cfg.common.n) + " is more than this driver handles (2^30)");
  }

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 04: warp-shuffle scans. A warp scans 32 values in 5 shuffle steps (Kogge-Stone);\n"
                   "a block scans its warps' totals with one more warp scan; with several values per "
                   "thread,\neach thread scans its own values sequentially in registers (Brent).\n"
                << "backend: " << scanlab::backend_description() << "\n";
    }
    return scanlab::with_element_operator(cfg.type, cfg.op, [&](auto op) {
      return run<typename decltype(op)::value_type>(cfg, op);
    });
  });
}
