// scanlab_bench: the measuring part (harness.cu). Methodology in design.md §7 and at the top of
// harness.cu; the same text is printed in the output header (method_lines).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench_types.hpp"
#include "registry.hpp"

namespace scanlab::bench {

// Fills meta for `device` and makes it current. Returns false, with the reason in why_not,
// when no CUDA device can be used at all (the caller reports it and exits 0: CPU-only machine).
// Throws std::invalid_argument when `device` is not a valid ordinal.
bool query_device(int device, DeviceMeta& meta, std::string& why_not);

// How the numbers were taken, one sentence per line, for the output header and the JSON.
std::vector<std::string> method_lines(const Config& cfg, const DeviceMeta& meta);

struct BenchResult {
  std::vector<Measurement> rows;  // every (type, n, row), baselines included (shown=false if not asked for)
  std::string fatal;              // non-empty: a CUDA error left the device unusable; rows stop there
};

// Runs every selected row at every size and type. on_size is called with the rows of one
// (type, n) as soon as they are measured, so the table can be printed while the run goes on.
BenchResult run_benchmark(const Config& cfg, const Registry& reg, const DeviceMeta& meta,
                          const std::function<void(const std::vector<Measurement>&)>& on_size);

}  // namespace scanlab::bench
