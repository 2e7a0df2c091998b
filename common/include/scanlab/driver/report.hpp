// scanlab/driver/report.hpp: timing a scan, the line that reports the time, and the JSON report
// (scanlab::Json, written by the scanlab_driver library).
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scanlab/device_info.hpp"
#include "scanlab/driver/names.hpp"
#include "scanlab/json.hpp"
#include "scanlab/stats.hpp"
#include "scanlab/timing.hpp"
#include "scanlab/verify.hpp"

namespace scanlab {

// ---- timing ---------------------------------------------------------------------------------

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
inline void add_timing(Json& row, const Bandwidth& b) {
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

// ---- the JSON report ------------------------------------------------------------------------

// The fields every scan chapter's report starts with (the chapter adds its own, and the timing).
template <class T>
Json scan_report(const char* chapter, std::size_t n, std::uint64_t seed, ScanKind kind, const std::string& op,
                 bool in_place) {
  return {{"chapter", chapter},
          {"backend", backend_name()},
          {"n", n},
          {"seed", seed},
          {"kind", to_string(kind)},
          {"op", op},
          {"type", type_label<T>()},
          {"in_place", in_place}};
}

// --json FILE: the report, or nothing when no file was asked for.
inline void write_json_report(const std::string& path, const Json& report) {
  if (path.empty()) return;
  std::ofstream file(path);
  file << report.dump(2) << "\n";
  if (!file) throw std::runtime_error("cannot write the JSON report to '" + path + "'");
}

}  // namespace scanlab
