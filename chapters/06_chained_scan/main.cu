// Chapter 06 driver: the chained scan (single pass, each tile waits for its predecessor's prefix).
//
// Generates a random input, runs chained_scan.cuh (the exercise's or the solution's) into a poisoned
// output, checks it against scanlab's oracle and, on a GPU, times it (flag reset included). Exit
// code 0 only when verified.
//
//   ch06_chained_scan_solution -n 16777219                   int32 exclusive sum
//   ch06_chained_scan_solution --op affine --inclusive       a non-commutative operator
//   ch06_chained_scan_solution --schedules                   (emulator) every dispatch order
//   ch06_chained_scan_solution --order blockidx --emu-schedule reverse --emu-resident 4
//                                                            (emulator) tiles by blockIdx.x: deadlock

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
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

#include "chained_scan_dispatch.cuh"

namespace {

using scanlab::ScanKind;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::exclusive;
  std::string type = "int";
  std::string op = "plus";
  std::string order = "ticket";
  bool in_place = false;
  scanlab::EmulatorScheduleOptions emu;  // --schedules, --emu-schedule, --emu-resident
};

ch06::TileOrder tile_order(const Config& cfg) {
  return cfg.order == "blockidx" ? ch06::TileOrder::block_index : ch06::TileOrder::ticket;
}

using Launch = std::function<void(const void* in, void* out, std::size_t n)>;

template <class T, class Op>
Launch make_scan(const Config& cfg, std::size_t n, Op op) {
  auto scan = std::make_shared<ch06::ChainedScan<T>>(n);
  const ScanKind kind = cfg.kind;
  const ch06::TileOrder order = tile_order(cfg);
  return [scan, kind, order, op](const void* in, void* out, std::size_t count) {
    const T* i = static_cast<const T*>(in);
    T* d = static_cast<T*>(out);
    if (kind == ScanKind::inclusive) scan->inclusive(i, d, count, op, 0, order);
    else scan->exclusive(i, d, count, op, 0, order);
  };
}

// ---- the run ---------------------------------------------------------------------------------

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool verbose = !cfg.common.quiet;
  std::vector<T> in;
  {
    SCANLAB_NVTX_RANGE("input");
    in = scanlab::single_pass_input<T>(n, cfg.common.seed);
  }
  const std::string what = std::to_string(n) + " elements, " + scanlab::to_string(cfg.kind) + " " + cfg.op + ", " +
                           scanlab::type_label<T>() + (cfg.in_place ? ", in place" : "");
  scanlab::Json report = scanlab::scan_report<T>("06_chained_scan", n, cfg.common.seed, cfg.kind, cfg.op, cfg.in_place);
  report["order"] = cfg.order;

  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out_storage(cfg.in_place ? 0 : n);
  scanlab::DeviceBuffer<T>& d_out = cfg.in_place ? d_in : d_out_storage;
  const Launch launch = make_scan<T>(cfg, n, op);

  auto run_once = [&]() -> scanlab::VerifyResult {
    const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out_storage, cfg.in_place, [&] {
      launch(d_in.data(), d_out.data(), n);
    });
    SCANLAB_NVTX_RANGE("verify");
    return scanlab::verify_scan(in, got, cfg.kind, op);
  };

  // --schedules: the ticket makes the scan independent of the order in which blocks start and of
  // how many can be resident at once.
  const scanlab::SinglePassRun checked =
      scanlab::run_single_pass_checked(run_once, what, cfg.emu, cfg.common.seed, cfg.order == "blockidx", report);
  if (checked.finished) {
    scanlab::write_json_report(cfg.common.json, report);
    return checked.check.ok ? 0 : 1;
  }
  const bool ok = checked.check.ok;

  if (!scanlab::on_emulator() && ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b = scanlab::time_bandwidth(
        [&] {
          launch(d_in.data(), d_out.data(), n);
        },
        3, cfg.common.repeat, 2.0 * static_cast<double>(n) * sizeof(T), "2*n*sizeof(T) bytes; flag reset included");
    report["median_ms"] = b.stats.median_ms;
    report["gbps"] = b.gbps;
  } else if (verbose && scanlab::on_emulator()) {
    scanlab::say_not_timed();
  }
  scanlab::write_json_report(cfg.common.json, report);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 06: chained scan (single pass, a chain of tile prefixes)", "ch06_chained_scan"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, 16777219);
  scanlab::ScanKindFlags kind_flags;
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::exclusive);
  scanlab::add_single_pass_element_options(cli, cfg.type, cfg.op);
  scanlab::add_tile_order_option(cli, cfg.order);
  cli.flag("--in-place", cfg.in_place, "scan in place (out == in)");
  scanlab::add_emulator_schedule_options(cli, cfg.emu);
  cli.parse(argc, argv);
  cfg.kind = kind_flags.kind();

  auto usage_error = [&](const std::string& message) {
    return cli.usage_error(message);
  };
  if (const std::string error = scanlab::single_pass_element_options_error(cfg.type, cfg.op); !error.empty()) {
    return usage_error(error);
  }
  if (const std::string error = scanlab::tile_order_error(cfg.order); !error.empty()) return usage_error(error);
  if (const std::string error = scanlab::apply_emulator_schedule_options(cfg.emu); !error.empty()) {
    return usage_error(error);
  }

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 06: chained scan. One pass, ~2n data movement; each tile waits for the inclusive prefix\n"
                   "of the tile before it and passes its own on, so prefixes travel one tile per message latency.\n"
                << "backend: " << scanlab::backend_description() << "\n";
    }
    return scanlab::with_single_pass_operator(cfg.type, cfg.op, [&](auto op) {
      return run<typename decltype(op)::value_type>(cfg, op);
    });
  });
}
