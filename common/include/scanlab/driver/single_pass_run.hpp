// scanlab/driver/single_pass_run.hpp: the checked run of the single-pass chapters (06 chained scan,
// 07 decoupled look-back): their input, the verdict when a scan deadlocks, and on the emulator the
// --schedules sweep over block dispatch orders, which a single-pass scan must not depend on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include "scanlab/command_line.hpp"
#include "scanlab/cuda_check.hpp"
#include "scanlab/driver/checking.hpp"
#include "scanlab/json.hpp"
#include "scanlab/random.hpp"
#include "scanlab/verify.hpp"

#if defined(SCANLAB_EMU)
// Host side only: the sweep sets the emulator's dispatch between runs.
#include <scanlab_emu/options.hpp>
#endif

namespace scanlab {

// Random input as random_scan_input, but int64 values up to 10^9, so that the sums need 64 bits.
template <class T>
std::vector<T> single_pass_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, std::int64_t>) {
    return random_vector<T>(n, seed, -1000000000, 1000000000);
  } else {
    return random_scan_input<T>(n, seed);
  }
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
  bool sweep = false;     // --schedules
  std::string schedule;   // --emu-schedule (empty: the emulator's default)
  unsigned resident = 0;  // --emu-resident (0: the emulator's default)
};

inline void add_emulator_schedule_options(CommandLine& cli, EmulatorScheduleOptions& emu) {
  cli.flag("--schedules", emu.sweep,
           "emulator: run under every dispatch order (in order, reverse, random) with 1, 3 and the default "
           "number of resident blocks");
  cli.option("--emu-schedule", emu.schedule, "emulator: dispatch order").one_of({"in-order", "reverse", "random"});
  cli.option("--emu-resident", emu.resident, "emulator: resident block slots (0: default)");
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
  for (const auto schedule :
       {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse, scanlab_emu::Schedule::random}) {
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
                << (resident ? std::to_string(resident) : std::string("default"))
                << " resident slot(s): " << (r.ok ? "verified" : "FAILED: " + r.message()) << "\n";
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
                                      std::uint64_t seed, bool block_index_order, Json& report) {
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
