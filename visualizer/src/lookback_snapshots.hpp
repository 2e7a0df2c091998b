// Chapter 07's look-back snapshots: the partition descriptors of every tile at one moment of a
// traced run, drawn like Fig. 6 of Merrill and Garland (NVR-2016-002): per tile its status flag
// (X, A, P), aggregate and inclusive prefix, with an arrow for each predecessor the tile has read;
// plus a histogram of look-back depths. Built from the events of ch07's traced build ("ticket",
// "word", "value", "flag", "read"; see chapters/07_decoupled_lookback/lookback_probe.cuh).
//
// Node attributes, for tests that parse the DOT with Graphviz: descriptor cells carry tile, field
// (flag / aggregate / inclusive) and value ("-" when nothing is recorded yet); arrows carry
// reader, predecessor and status (the status the reader saw).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dot.hpp"
#include "trace_io.hpp"

namespace scanlab::viz {

struct LookbackRead {
  long long predecessor;
  int status;  // 0 X, 1 A, 2 P
  long long value;
  long long seq;
};

struct TileDescriptor {
  int flag = 0;  // 0 X, 1 A, 2 P
  std::optional<long long> aggregate;
  std::optional<long long> inclusive;
  std::vector<LookbackRead> reads;  // in the order they happened
};

// The descriptors after every protocol event with seq <= at (at < 0: the end of the run).
std::vector<TileDescriptor> lookback_state(const Trace& trace, long long at);

// The sequence numbers of the protocol events (value/flag/word stores and reads), in order.
std::vector<long long> lookback_steps(const Trace& trace);

// Look-back depth of each tile > 0 that finished: tile - (the nearest predecessor it read as P).
std::vector<int> lookback_depths(const Trace& trace);

DotGraph lookback_snapshot(const Trace& trace, long long at, const std::string& title);
DotGraph lookback_depth_histogram(const Trace& trace);

// What `scanlab-viz 07` does, for main.cpp: the traced program's arguments for a schedule, and the
// drawing of a trace (the snapshot at `at`, -1 = Fig. 6's step or the end; eight snapshots spread over
// the run; the depth histogram). Returns the files written.
struct LookbackVizOptions {
  std::string schedule = "fig6";  // fig6 (the paper's example, scripted), in-order, reverse, random
  std::string variant = "serial-fenced";
  long long n = 1024;     // elements, in tiles of 64 (not for fig6)
  unsigned resident = 0;  // emulator resident slots, 0 = default
  unsigned long long seed = 1;
};
std::vector<std::string> lookback_program_args(const LookbackVizOptions& o, const std::string& trace_path);
std::vector<std::string> draw_lookback(const std::string& trace_path, long long at, const std::string& out_dir);

// Text form of a state, one line: "P A A P A P X A | 2 2 2 2 2 2 - 2 | 2 4 - 8 - 12 - -".
std::string lookback_state_text(const std::vector<TileDescriptor>& tiles);

}  // namespace scanlab::viz
