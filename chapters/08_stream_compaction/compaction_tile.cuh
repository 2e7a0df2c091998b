// Chapter 08, given: the shape of a compaction tile and the shared memory of a scatter round.
// stream_compaction.cuh, where your code is, includes this file; nothing here needs changing.
#pragma once

#include <cstddef>

#include <scanlab/warp_scan.cuh>  // kWarpThreads

namespace ch08 {

// A tile is kCompactRounds rounds of one element per thread: round r covers kCompactThreads
// consecutive elements, so loads and stores of a warp are coalesced and a tile's output keeps the
// input order (round by round, warp by warp, lane by lane).
constexpr int kCompactThreads = 512;
constexpr int kCompactWarps = kCompactThreads / scanlab::kWarpThreads;
constexpr int kCompactRounds = 8;
constexpr std::size_t kCompactTile = static_cast<std::size_t>(kCompactThreads) * kCompactRounds;
// A warp keeps 0..32 elements: 33 values, so a warp total needs 6 bits (32 = 0b100000), one more
// than log2(32).
constexpr int kWarpTotalBits = 6;
// Fewer warps than lanes: lane kCompactWarps of the warp-offset scan (a warp that does not exist,
// total 0) then receives the sum of all warp totals, the round's total.
static_assert(kCompactWarps < scanlab::kWarpThreads, "the warp-offset scan needs fewer warps than lanes");

// Shared memory of one scatter round.
struct ScatterStorage {
  unsigned warp_totals[kCompactWarps];
  unsigned warp_offsets[scanlab::kWarpThreads];
};

}  // namespace ch08
