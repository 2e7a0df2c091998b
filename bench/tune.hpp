// scanlab_bench --tune (./lab tune): measures chapters 07 and 11 with each of their tuned tile
// shapes (chapters/07_decoupled_lookback/decoupled_lookback_tuned.cuh,
// chapters/11_async_copy_scan/async_copy_scan_tuned.cuh) and each poll schedule of one grid, on the GPU it runs
// on, and keeps the best of each chapter in the tuning file (scanlab/tuning.hpp) that the chapters
// read at run time.
#pragma once

#include <string>
#include <vector>

#include "bench_types.hpp"
#include "registry.hpp"

namespace scanlab::bench {

// One configuration of one chapter, registered as a row named `row`.
struct TuneCandidate {
  std::string chapter;  // "07_decoupled_lookback"
  std::string shape;    // one of the chapter's tuned shapes, "128x32"
  unsigned first_poll_ns = 0;
  unsigned poll_every_ns = 0;
  bool is_default = false;  // the chapter's built-in shape and schedule
  std::string row;
  std::vector<size_t> sizes;  // where the chapter is tuned when --sizes is not given: where it runs its tuned kernel
};

struct PollPair {
  unsigned first_ns, every_ns;
};

// The poll schedules tried with every shape: the sleep before the first read from none to 2x the
// built-in 2.8 us, the sleep between reads from 0.3 to 2x the built-in 0.9 us; the built-in pair
// is one of them.
std::vector<PollPair> tune_poll_grid();

// rows_chapters.cu and rows_ch11.cu: one row per shape x schedule, each recorded in `out`.
void register_ch07_tune_rows(Registry& reg, std::vector<TuneCandidate>& out);
void register_ch11_tune_rows(Registry& reg, std::vector<TuneCandidate>& out);

// Measures every candidate (cfg's types and reps; cfg's sizes, or when it has none each chapter's
// own), re-measures each chapter's best against its default, and writes the winners to `path`.
// Prints what it does; returns the exit code.
int run_tuning(const Config& cfg, const DeviceMeta& meta, const std::string& path);

}  // namespace scanlab::bench
