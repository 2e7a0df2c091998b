// scanlab_bench: plain data passed between the harness (harness.cu), the reports (report.cpp)
// and main. No CUDA types here, so report.cpp compiles as ordinary C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace scanlab::bench {

struct Config {
  std::vector<size_t> sizes;            // element counts, in the order they are run
  std::vector<std::string> types;       // "int32", "float"
  std::vector<std::string> algorithms;  // rows printed; copy and cub are measured regardless
  int reps = 20;
  int warmup = 3;
  uint64_t seed = 20240601;
  double spin_us = 50.0;          // spin kernel before each timed repetition (keeps launch latency out)
  bool l2_warm = false;           // true: one buffer pair, so sizes that fit stay in L2 between repetitions
  double l2_rotate_factor = 4.0;  // otherwise rotate over buffer pairs spanning this many x L2
  int device = 0;
};

struct DeviceMeta {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_mhz = -1;  // -1: not readable
  int mem_clock_mhz = -1;
  int bus_width_bits = -1;
  size_t l2_bytes = 0;
  size_t global_mem_bytes = 0;
  int runtime_version = 0;  // CUDA's encoding, 13000 = 13.0
  int driver_version = 0;
  int cub_version = 0;  // CUB_VERSION, 300001 = 3.0.1
  std::string nvcc_version;
  std::string built_for;  // the -arch the binary carries, e.g. "sm_90"

  double theoretical_gbps() const {  // 2 transfers per memory clock (DDR/HBM) x bus width
    if (mem_clock_mhz <= 0 || bus_width_bits <= 0) return 0.0;
    return 2.0 * mem_clock_mhz * 1e6 * (bus_width_bits / 8.0) / 1e9;
  }
};

enum class Status { ok, failed, skipped };

struct Measurement {
  std::string algorithm;
  std::string type;
  size_t n = 0;
  size_t elem_bytes = 0;
  size_t written = 0;  // elements the row writes: n, or fewer (a select-if writes the kept ones)
  size_t arrays = 1;   // arrays read and written side by side (2: a key-value sort's keys and values)
  Status status = Status::skipped;
  bool shown = true;  // false for a baseline measured only to give the ratios
  std::string note;   // why skipped/failed, or the row's limit note
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
  size_t slots = 0;             // buffer pairs rotated over
  bool l2_resident = false;     // consecutive repetitions may find their input in L2
  double ratio_copy = -1;       // copy time / row time at the same (type, n); -1: not available
  double ratio_cub = -1;        // cub time / row time
  std::string cub_row;          // the row ratio_cub is taken against ("cub", or the row's counterpart)
  bool cub_row_picked = false;  // cub_row is the faster of several counterparts (a sort's item-count types)

  // n elements read, `written` written, of each array: the least traffic the operation needs (a
  // sort's passes move the keys several times over; this counts one read and one write).
  double bytes_moved() const {
    return static_cast<double>(n + written) * static_cast<double>(elem_bytes) * static_cast<double>(arrays);
  }
  double elements_per_s() const { return median_ms > 0 ? static_cast<double>(n) / (median_ms * 1e-3) : 0.0; }
  double gbps() const { return median_ms > 0 ? bytes_moved() / (median_ms * 1e-3) / 1e9 : 0.0; }
};

inline const char* status_name(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::failed: return "FAILED";
    case Status::skipped: return "skipped";
  }
  return "?";
}

}  // namespace scanlab::bench
