// scanlab/chapter_driver.hpp: what the chapter drivers (chapters/NN_slug/main.cu) have in common.
//
// Each driver builds an input, runs its chapter's scan into a poisoned output, checks it against
// the oracle, prints one verdict line, times the scan on a GPU and writes a JSON report. The
// pieces of that which do not depend on the chapter live here, so that a driver's main.cu shows
// only what its chapter adds: its kernels, its variants, its explanations. Host code only.
//
//   const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out, in_place, launch);
//   const scanlab::VerifyResult check = scanlab::verify_scan(in, got, kind, op);
//   std::cout << scanlab::verdict_line(check, scanlab::describe_scan<T, Op>(n, kind)) << "\n";
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/device_info.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/nvtx.hpp"
#include "scanlab/oracle.hpp"
#include "scanlab/random.hpp"
#include "scanlab/stats.hpp"
#include "scanlab/timing.hpp"
#include "scanlab/trace_writer.hpp"
#include "scanlab/verify.hpp"

#if defined(SCANLAB_EMU)
// Host side only: chapters 06 and 07 rerun their scan under the emulator's dispatch orders.
#include <scanlab_emu/options.hpp>
#endif

namespace scanlab {

// ---- names for what is scanned, as the reports print them ----------------------------------

template <class T>
constexpr const char* type_label() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else {
    // A new element type needs a name here before a report can print it.
    static_assert(std::is_same_v<T, Affine<std::uint32_t>>, "type_label: no name for this type");
    return "affine<uint32>";
  }
}

template <class Op>
constexpr const char* op_label() {
  if constexpr (std::is_same_v<Op, AffineCompose<std::uint32_t>>) return "affine composition";
  else if constexpr (std::is_same_v<Op, Max<typename Op::value_type>>) return "max";
  else return "sum";
}

// "100000 elements, inclusive sum, int32"
template <class T, class Op>
std::string describe_scan(std::size_t n, ScanKind kind) {
  return std::to_string(n) + (n == 1 ? " element, " : " elements, ") + to_string(kind) + " " +
         op_label<Op>() + ", " + type_label<T>();
}

// ---- the command line of the scan chapters ---------------------------------------------------

// --inclusive and --exclusive: at most one of them; neither means the chapter's default kind.
struct ScanKindFlags {
  ScanKind default_kind = ScanKind::inclusive;
  bool inclusive = false;
  bool exclusive = false;
  CLI::Option* inclusive_option = nullptr;
  CLI::Option* exclusive_option = nullptr;

  ScanKind kind() const {
    if (inclusive) return ScanKind::inclusive;
    if (exclusive) return ScanKind::exclusive;
    return default_kind;
  }
};

// The help text names the default, so it depends on which kind that is.
inline void add_scan_kind_flags(CLI::App& app, ScanKindFlags& flags, ScanKind default_kind) {
  flags.default_kind = default_kind;
  const bool inclusive_default = default_kind == ScanKind::inclusive;
  flags.inclusive_option = app.add_flag("--inclusive", flags.inclusive,
                                        inclusive_default ? "inclusive scan (the default)" : "inclusive scan");
  flags.exclusive_option =
      app.add_flag("--exclusive", flags.exclusive,
                   inclusive_default ? "exclusive scan: out[0] = identity"
                                     : "exclusive scan: out[0] = identity (the default)");
  flags.inclusive_option->excludes(flags.exclusive_option);
}

// --type int|float and --op plus|max|affine: the element types and operators of chapters 00-04.
inline void add_element_options(CLI::App& app, std::string& type, std::string& op) {
  app.add_option("--type", type, "element type")
      ->check(CLI::IsMember({"int", "float"}))
      ->capture_default_str();
  app.add_option("--op", op, "operator: plus, max, or affine (composition of affine maps over uint32)")
      ->check(CLI::IsMember({"plus", "max", "affine"}))
      ->capture_default_str();
}

// Why --type and --op do not go together, or "" when they do.
inline std::string element_options_error(const std::string& type, const std::string& op) {
  if (op == "affine" && type != "int") {
    return "--op affine composes affine maps over uint32; it takes no --type float";
  }
  return std::string();
}

// Calls f(op) with the operator object that add_element_options' --type and --op name, so that a
// driver instantiates its run once per combination: f(Plus<float>{}), f(Max<std::int32_t>{}), ...
template <class F>
int with_element_operator(const std::string& type, const std::string& op, F&& f) {
  if (op == "affine") return f(AffineCompose<std::uint32_t>{});
  if (type == "float") return op == "max" ? f(Max<float>{}) : f(Plus<float>{});
  return op == "max" ? f(Max<std::int32_t>{}) : f(Plus<std::int32_t>{});
}

// ---- checking a scan -----------------------------------------------------------------------

// One scan's output against the oracle: exactly, except float sums, which a parallel scan adds in
// another order than the sequential loop (float64 reference with a tolerance: see verify.hpp).
template <class T, class Op>
VerifyResult verify_scan(const T* in, const T* got, std::size_t n, ScanKind kind, Op op) {
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    return verify_float_scan(in, got, n, kind);
  } else {
    std::vector<T> expected(n);
    if (kind == ScanKind::inclusive) inclusive_scan_oracle(in, expected.data(), n, op);
    else exclusive_scan_oracle(in, expected.data(), n, op);
    return verify_exact(expected.data(), got, n);
  }
}

template <class T, class Op>
VerifyResult verify_scan(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op) {
  return verify_scan(in.data(), got.data(), in.size(), kind, op);
}

// Tile by tile, for kernels whose every tile restarts its prefixes (tile == 0: the whole array as
// one scan). Reports the first failing tile, with indices into the whole array, and counts the
// wrong elements of all tiles.
template <class T, class Op>
VerifyResult verify_tiles(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op,
                          std::size_t tile) {
  if (tile == 0) return verify_scan(in, got, kind, op);
  VerifyResult total;
  total.n = in.size();
  for (std::size_t begin = 0; begin < in.size(); begin += tile) {
    const std::size_t len = in.size() - begin < tile ? in.size() - begin : tile;
    VerifyResult r = verify_scan(in.data() + begin, got.data() + begin, len, kind, op);
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

// "verified: <what>" or "FAILED: <what>: <first mismatch>": the line tests and the book look for.
inline std::string verdict_line(const VerifyResult& r, const std::string& what) {
  return r.ok ? "verified: " + what : "FAILED: " + what + ": " + r.message();
}

// ---- one checked run -----------------------------------------------------------------------

// Uploads the input, poisons the output (so that an element the kernel never writes shows up as a
// mismatch), runs launch() once and downloads the result: one NVTX range each, so that a profile
// shows the phases. In place the output is the input buffer: nothing to poison, and the result is
// read back from d_in.
template <class In, class Out, class Launch>
std::vector<Out> upload_run_download(const std::vector<In>& in, DeviceBuffer<In>& d_in, DeviceBuffer<Out>& d_out,
                                     bool in_place, Launch&& launch) {
  {
    SCANLAB_NVTX_RANGE("upload");
    d_in.upload(in);
    if (!in_place) d_out.fill_poison();
  }
  {
    SCANLAB_NVTX_RANGE("scan");
    launch();
    SCANLAB_CHECK_SYNC();
  }
  SCANLAB_NVTX_RANGE("download");
  if constexpr (std::is_same_v<In, Out>) {
    if (in_place) return d_in.download();
  }
  return d_out.download();
}

// ---- timing and the report ---------------------------------------------------------------

struct Bandwidth {
  TimingStats stats;
  double gbps = 0.0;
};

// Times launch() (after `warmup` untimed runs) and prints the line the chapters report a time with:
// "<indent>median M ms over R run(s), G GB/s (<counting>)", `counting` saying which bytes count.
template <class F>
Bandwidth time_bandwidth(F&& launch, int warmup, int reps, double bytes, const std::string& counting,
                         const std::string& indent = "") {
  Bandwidth b;
  b.stats = time_ms(launch, warmup, reps);
  b.gbps = gbps(bytes, b.stats.median_ms);
  std::cout << indent << "median " << b.stats.median_ms << " ms over " << b.stats.reps << " run(s), " << b.gbps
            << " GB/s (" << counting << ")\n";
  return b;
}

// The timing fields of a JSON report (or of one row of it).
inline void add_timing(nlohmann::json& row, const Bandwidth& b) {
  row["median_ms"] = b.stats.median_ms;
  row["min_ms"] = b.stats.min_ms;
  row["max_ms"] = b.stats.max_ms;
  row["reps"] = b.stats.reps;
  row["gbps"] = b.gbps;
}

// The emulator runs every thread on the CPU and instruments memory: its times would mislead.
inline void say_not_timed(const std::string& indent = "") {
  std::cout << indent << "(not timed: the emulator's times say nothing about a GPU)\n";
}

// The end of a traced run's file: a "result" line, with the input and the output when they are
// plain numbers (kWithValues), so that a reader can check the last recorded level against what was
// stored; then the writer's end record.
template <bool kWithValues, class In, class Out>
void finish_trace_with_result(TraceWriter& writer, const std::vector<In>& in, const std::vector<Out>& got) {
  nlohmann::json result = {{"type", "result"}, {"label", "output"}};
  if constexpr (kWithValues) {
    result["input"] = in;
    result["values"] = got;
  }
  writer.line(result);
  writer.finish();
}

// --json FILE: the report, or nothing when no file was asked for.
inline void write_json_report(const std::string& path, const nlohmann::json& report) {
  if (path.empty()) return;
  std::ofstream file(path);
  file << report.dump(2) << "\n";
  if (!file) throw std::runtime_error("cannot write the JSON report to '" + path + "'");
}

// main()'s body after the command line: an exception (a CUDA error, a file that cannot be
// written) becomes "<program>: error: <what>" on stderr and exit code 1.
template <class F>
int run_reporting_errors(const CLI::App& app, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": error: " << e.what() << "\n";
    return 1;
  }
}

// ---- the single-pass chapters (06 chained scan, 07 decoupled look-back) -----------------------

// Their --type int|float|int64 and --op plus|max|affine.
inline void add_single_pass_element_options(CLI::App& app, std::string& type, std::string& op) {
  app.add_option("--type", type, "element type")->check(CLI::IsMember({"int", "float", "int64"}))->capture_default_str();
  app.add_option("--op", op, "operator: plus, max (int), affine (composition of affine maps over uint32)")
      ->check(CLI::IsMember({"plus", "max", "affine"}))
      ->capture_default_str();
}

inline std::string single_pass_element_options_error(const std::string& type, const std::string& op) {
  if (op == "affine" && type != "int") return "--op affine takes no --type";
  if (op == "max" && type != "int") return "--op max is built for int32";
  return std::string();
}

// As with_element_operator, for add_single_pass_element_options.
template <class F>
int with_single_pass_operator(const std::string& type, const std::string& op, F&& f) {
  if (op == "affine") return f(AffineCompose<std::uint32_t>{});
  if (type == "float") return f(Plus<float>{});
  if (type == "int64") return f(Plus<std::int64_t>{});
  if (op == "max") return f(Max<std::int32_t>{});
  return f(Plus<std::int32_t>{});
}

// Random input as random_scan_input, but int64 values up to 10^9, so that the sums need 64 bits.
template <class T>
std::vector<T> single_pass_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    return random_vector<T>(n, seed, -1000000000, 1000000000);
  } else {
    return random_scan_input<T>(n, seed);
  }
}

// --order ticket|blockidx: where a tile takes its number from.
inline void add_tile_order_option(CLI::App& app, std::string& order) {
  app.add_option("--order", order, "tile order: ticket, or blockidx (deadlocks; emulator only)")
      ->check(CLI::IsMember({"ticket", "blockidx"}))
      ->capture_default_str();
}

// A deadlocked GPU stays hung, while the emulator reports the deadlock and goes on.
inline std::string tile_order_error(const std::string& order) {
  if (order == "blockidx" && !on_emulator()) {
    return "--order blockidx can hang a GPU for good; it is offered on the emulator only, which reports "
           "the deadlock";
  }
  return std::string();
}

// The verdict when the scan threw instead of finishing (the emulator's deadlock report, a CUDA
// error), and, when tiles were numbered by blockIdx.x, why that deadlocks.
inline void print_launch_failure(const std::string& what, const std::exception& e, bool block_index_order) {
  std::cout << "FAILED: " << what << ": " << e.what() << "\n";
  if (block_index_order) {
    std::cout << "Tiles ordered by blockIdx.x: a resident block waited for a tile whose block could not\n"
                 "become resident. Take the tile number from an atomic ticket (--order ticket).\n";
  }
}

// --schedules, --emu-schedule and --emu-resident: the emulator's block dispatch, which a
// single-pass scan must not depend on.
struct EmulatorScheduleOptions {
  bool sweep = false;    // --schedules
  std::string schedule;  // --emu-schedule (empty: the emulator's default)
  unsigned resident = 0; // --emu-resident (0: the emulator's default)
};

inline void add_emulator_schedule_options(CLI::App& app, EmulatorScheduleOptions& emu) {
  app.add_flag("--schedules", emu.sweep,
               "emulator: run under every dispatch order (in order, reverse, random) with 1, 3 and the default "
               "number of resident blocks");
  app.add_option("--emu-schedule", emu.schedule, "emulator: dispatch order")
      ->check(CLI::IsMember({"in-order", "reverse", "random"}));
  app.add_option("--emu-resident", emu.resident, "emulator: resident block slots (0: default)");
}

// Sets the emulator's dispatch as asked. A GPU build has no emulator to set: the options are then
// a usage error, returned as its message ("" when all is well).
inline std::string apply_emulator_schedule_options(const EmulatorScheduleOptions& emu) {
#if defined(SCANLAB_EMU)
  if (!emu.schedule.empty()) {
    scanlab_emu::options().schedule = emu.schedule == "reverse"  ? scanlab_emu::Schedule::reverse
                                      : emu.schedule == "random" ? scanlab_emu::Schedule::random
                                                                 : scanlab_emu::Schedule::in_order;
  }
  if (emu.resident > 0) scanlab_emu::options().resident = emu.resident;
  return std::string();
#else
  if (emu.sweep || !emu.schedule.empty() || emu.resident > 0) {
    return "--schedules, --emu-schedule and --emu-resident are emulator options";
  }
  return std::string();
#endif
}

#if defined(SCANLAB_EMU)
// --schedules: run_once() (a checked run, returning its VerifyResult) under every dispatch order
// (in order, reverse, random) with 1, 3 and the default number of resident blocks, one line each;
// a CudaError (the emulator's deadlock report) counts as a failure. A ticket makes a correct scan
// pass under all of them. Restores the emulator's options; returns the first failure, or ok.
template <class F>
VerifyResult run_under_every_schedule(F&& run_once, std::uint64_t seed) {
  struct Restore {
    scanlab_emu::Options saved = scanlab_emu::options();
    ~Restore() { scanlab_emu::options() = saved; }
  } restore;
  VerifyResult first_failure;
  for (const auto schedule : {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse,
                              scanlab_emu::Schedule::random}) {
    for (const unsigned resident : {1u, 3u, 0u}) {
      scanlab_emu::options().schedule = schedule;
      scanlab_emu::options().resident = resident;
      scanlab_emu::options().seed = seed;
      VerifyResult r;
      try {
        r = run_once();
      } catch (const CudaError& e) {
        r.ok = false;
        r.note = e.what();
      }
      std::cout << "dispatch " << scanlab_emu::to_string(schedule) << ", "
                << (resident ? std::to_string(resident) : std::string("default")) << " resident slot(s): "
                << (r.ok ? "verified" : "FAILED: " + r.message()) << "\n";
      if (!r.ok && first_failure.ok) first_failure = r;
    }
  }
  return first_failure;
}
#endif

// The checked run of chapters 06 and 07: under every dispatch order for --schedules (emulator),
// else once, printing the verdict line, or the launch failure when the scan threw (a deadlock).
// Sets the report's "verified" and "message". `finished`: nothing is left to do but write the
// report and exit (a sweep, or a scan that did not finish); otherwise the driver goes on to time it.
struct SinglePassRun {
  VerifyResult check;
  bool finished = false;
};

template <class F>
SinglePassRun run_single_pass_checked(F&& run_once, const std::string& what, const EmulatorScheduleOptions& emu,
                                      std::uint64_t seed, bool block_index_order, nlohmann::json& report) {
  SinglePassRun run;
#if defined(SCANLAB_EMU)
  if (emu.sweep) {
    run.check = run_under_every_schedule(run_once, seed);
    run.finished = true;
    report["verified"] = run.check.ok;
    report["message"] = run.check.message();
    return run;
  }
#else
  static_cast<void>(emu);  // no sweep on a GPU: main() rejected --schedules
  static_cast<void>(seed);
#endif
  try {
    run.check = run_once();
  } catch (const CudaError& e) {
    print_launch_failure(what, e, block_index_order);
    run.check.ok = false;
    run.finished = true;
    report["verified"] = false;
    report["message"] = e.what();
    return run;
  }
  std::cout << verdict_line(run.check, what) << "\n";
  report["verified"] = run.check.ok;
  report["message"] = run.check.message();
  return run;
}

}  // namespace scanlab
