// Chapter 00 driver: the sequential scan, as a host loop and on a single GPU thread.
//
// Generates a random input, runs both scans of sequential_scan.cuh (the exercise's or the
// solution's, whichever this program was built against) into poisoned outputs, checks them with
// scanlab's oracle and, on a GPU, times the one-thread kernel. Exit code 0 only when both verified.
//
//   ch00_sequential_solution                     100000 int32, inclusive sum
//   ch00_sequential_solution -n 2^20 --exclusive --type float
//   ch00_sequential_solution --op affine         non-commutative: affine maps over uint32

#include <chrono>
#include <cstddef>
#include <cstdint>
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

#include "sequential_scan_dispatch.cuh"

namespace {

using scanlab::ScanKind;

constexpr std::uint64_t kDefaultN = 100000;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::inclusive;
  std::string type = "int";
  std::string op = "plus";
};

// ---- the run -------------------------------------------------------------------------------

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool inclusive = cfg.kind == ScanKind::inclusive;
  const bool verbose = !cfg.common.quiet;
  const std::string what = scanlab::describe_scan<T, Op>(n, cfg.kind);
  scanlab::Json report = {{"chapter", "00_sequential"},       {"backend", scanlab::backend_name()},   {"n", n},
                          {"seed", cfg.common.seed},          {"kind", scanlab::to_string(cfg.kind)}, {"op", cfg.op},
                          {"type", scanlab::type_label<T>()}, {"results", scanlab::Json::array()}};

  const std::vector<T> in = scanlab::random_scan_input<T>(n, cfg.common.seed);

  // 1. The host loop.
  std::vector<T> host_out(n);
  scanlab::fill_poison(host_out);
  const auto host_start = std::chrono::steady_clock::now();
  {
    SCANLAB_NVTX_RANGE("ch00 host loop");
    if (inclusive) ch00::sequential_inclusive_scan(in.data(), host_out.data(), n, op);
    else ch00::sequential_exclusive_scan(in.data(), host_out.data(), n, op);
  }
  const double host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();
  const scanlab::VerifyResult host_check = scanlab::verify_scan(in, host_out, cfg.kind, op);
  std::cout << "host loop:       " << scanlab::verdict_line(host_check, what) << "\n";
  scanlab::Json host_row = {{"variant", "host_loop"}, {"verified", host_check.ok}, {"message", host_check.message()}};
  // The emulator build instruments this file's memory accesses, so host times mean nothing there.
  if (!scanlab::on_emulator()) {
    host_row["ms"] = host_ms;
    if (verbose) std::cout << "                 " << host_ms << " ms (one run, wall clock)\n";
  }
  report["results"].push_back(host_row);

  // 2. One GPU thread.
  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out(n);
  auto launch = [&] {
    if (inclusive) ch00::one_thread_inclusive_scan(d_in.data(), d_out.data(), n, op);
    else ch00::one_thread_exclusive_scan(d_in.data(), d_out.data(), n, op);
  };
  const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out, /*in_place=*/false, launch);
  scanlab::VerifyResult check;
  {
    SCANLAB_NVTX_RANGE("verify");
    check = scanlab::verify_scan(in, got, cfg.kind, op);
  }
  std::cout << "one GPU thread:  " << scanlab::verdict_line(check, what) << "\n";
  scanlab::Json device_row = {{"variant", "one_thread"}, {"verified", check.ok}, {"message", check.message()}};

  // 3. Timing: only a GPU's times mean anything, and only a correct kernel is worth timing.
  if (!scanlab::on_emulator() && check.ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b =
        scanlab::time_bandwidth(launch, /*warmup=*/1, cfg.common.repeat, 2.0 * static_cast<double>(n) * sizeof(T),
                                "counting 2*n*sizeof(T) bytes", "                 ");
    scanlab::add_timing(device_row, b);
  } else if (verbose && scanlab::on_emulator()) {
    scanlab::say_not_timed("                 ");
  }
  report["results"].push_back(device_row);

  scanlab::write_json_report(cfg.common.json, report);
  return host_check.ok && check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 00: sequential scan on the host and on one GPU thread", "ch00_sequential"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, kDefaultN);
  scanlab::ScanKindFlags kind_flags;
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::inclusive);
  scanlab::add_element_options(cli, cfg.type, cfg.op);
  cli.parse(argc, argv);
  cfg.kind = kind_flags.kind();
  if (const std::string error = scanlab::element_options_error(cfg.type, cfg.op); !error.empty()) {
    return cli.usage_error(error);
  }

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 00: one loop carries the running prefix, out[i] = out[i-1] op in[i]: "
                   "O(n) work, the baseline\nevery parallel scan is checked and measured against. "
                   "It runs on the host and on a single GPU thread.\n"
                << "backend: " << scanlab::backend_description() << "\n";
    }
    return scanlab::with_element_operator(cfg.type, cfg.op, [&](auto op) {
      return run<typename decltype(op)::value_type>(cfg, op);
    });
  });
}
