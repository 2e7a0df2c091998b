// Chapter 00 driver: the sequential scan, as a host loop and on a single GPU thread.
//
// Generates a random input, runs both scans of sequential_scan.cuh (the exercise's or the
// solution's, whichever this program was built against) into poisoned outputs, checks them with
// scanlab's oracle and, on a GPU, times the one-thread kernel. Exit code 0 only when both verified.
//
//   ch00_sequential_solution                     100000 int32, inclusive sum
//   ch00_sequential_solution -n 2^20 --exclusive --type float
//   ch00_sequential_solution --op affine         non-commutative: affine maps over uint32
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
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

#include "sequential_scan.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

constexpr std::uint64_t kDefaultN = 100000;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::inclusive;
  std::string type = "int";
  std::string op = "plus";
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

// "100000 elements, inclusive sum, int32"
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

// Exact comparison with the oracle, except float sums: float64 reference with a tolerance.
template <class T, class Op>
scanlab::VerifyResult verify_scan(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind,
                                  Op op) {
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    return scanlab::verify_float_scan(in, got, kind);
  } else {
    const std::vector<T> expected = kind == ScanKind::inclusive ? scanlab::inclusive_scan_oracle(in, op)
                                                                : scanlab::exclusive_scan_oracle(in, op);
    return scanlab::verify_exact(expected, got);
  }
}

// "verified: <what>" or "FAILED: <first mismatch>".
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

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool inclusive = cfg.kind == ScanKind::inclusive;
  const bool verbose = !cfg.common.quiet;
  const std::string what = describe<T, Op>(n, cfg.kind);
  nlohmann::json report = {{"chapter", "00_sequential"}, {"backend", scanlab::backend_name()},
                           {"n", n}, {"seed", cfg.common.seed}, {"kind", scanlab::to_string(cfg.kind)},
                           {"op", cfg.op}, {"type", type_label<T>()}, {"results", nlohmann::json::array()}};

  const std::vector<T> in = make_input<T>(n, cfg.common.seed);

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
  const scanlab::VerifyResult host_check = verify_scan(in, host_out, cfg.kind, op);
  std::cout << "host loop:       " << outcome(host_check, what) << "\n";
  nlohmann::json host_row = {{"variant", "host_loop"}, {"verified", host_check.ok},
                             {"message", host_check.message()}};
  // The emulator build instruments this file's memory accesses, so host times mean nothing there.
  if (!scanlab::on_emulator()) {
    host_row["ms"] = host_ms;
    if (verbose) std::cout << "                 " << host_ms << " ms (one run, wall clock)\n";
  }
  report["results"].push_back(host_row);

  // 2. One GPU thread.
  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out(n);
  {
    SCANLAB_NVTX_RANGE("upload");
    d_in.upload(in);
    d_out.fill_poison();
  }
  auto launch = [&] {
    if (inclusive) ch00::one_thread_inclusive_scan(d_in.data(), d_out.data(), n, op);
    else ch00::one_thread_exclusive_scan(d_in.data(), d_out.data(), n, op);
  };
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
  scanlab::VerifyResult check;
  {
    SCANLAB_NVTX_RANGE("verify");
    check = verify_scan(in, got, cfg.kind, op);
  }
  std::cout << "one GPU thread:  " << outcome(check, what) << "\n";
  nlohmann::json device_row = {{"variant", "one_thread"}, {"verified", check.ok},
                               {"message", check.message()}};

  // 3. Timing: only a GPU's times mean anything, and only a correct kernel is worth timing.
  if (!scanlab::on_emulator() && check.ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::TimingStats t = scanlab::time_ms(launch, /*warmup=*/1, cfg.common.repeat);
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
    const double gbps = scanlab::gbps(bytes, t.median_ms);
    std::cout << "                 median " << t.median_ms << " ms over " << t.reps << " run(s), "
              << gbps << " GB/s (counting 2*n*sizeof(T) bytes)\n";
    device_row["median_ms"] = t.median_ms;
    device_row["min_ms"] = t.min_ms;
    device_row["max_ms"] = t.max_ms;
    device_row["reps"] = t.reps;
    device_row["gbps"] = gbps;
  } else if (verbose && scanlab::on_emulator()) {
    std::cout << "                 (not timed: the emulator's times say nothing about a GPU)\n";
  }
  report["results"].push_back(device_row);

  write_json(cfg, report);
  return host_check.ok && check.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Chapter 00: sequential scan on the host and on one GPU thread", "ch00_sequential"};
  Config cfg;
  scanlab::add_common_options(app, cfg.common, kDefaultN);
  bool inclusive_flag = false;
  bool exclusive_flag = false;
  auto* inclusive_opt = app.add_flag("--inclusive", inclusive_flag, "inclusive scan (the default)");
  auto* exclusive_opt = app.add_flag("--exclusive", exclusive_flag, "exclusive scan: out[0] = identity");
  inclusive_opt->excludes(exclusive_opt);
  app.add_option("--type", cfg.type, "element type")
      ->check(CLI::IsMember({"int", "float"}))
      ->capture_default_str();
  app.add_option("--op", cfg.op, "operator: plus, max, or affine (composition of affine maps over uint32)")
      ->check(CLI::IsMember({"plus", "max", "affine"}))
      ->capture_default_str();
  scanlab::run_cli(app, argc, argv);
  cfg.kind = exclusive_flag ? ScanKind::exclusive : ScanKind::inclusive;
  if (cfg.op == "affine" && cfg.type != "int") {
    std::cerr << app.get_name() << ": error: --op affine composes affine maps over uint32; "
              << "it takes no --type float\n\n" << app.help();
    return 2;
  }

  try {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 00: one loop carries the running prefix, out[i] = out[i-1] op in[i]: "
                   "O(n) work, the baseline\nevery parallel scan is checked and measured against. "
                   "It runs on the host and on a single GPU thread.\n"
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
