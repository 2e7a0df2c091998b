// Chapter 08: stream compaction (select-if) and stable partition (partition-if) in three phases.
//
// Builds on GPU Gems 3, ch. 39, section 39.3.1 (compaction = scan of keep-flags + scatter) and on
// Billeter, Olsson and Assarsson, "Efficient Stream Compaction on Wide SIMD Many-Core Architectures"
// (2009), as the compaction article presents it for CUDA:
//   1. count:   every tile counts the elements it keeps; __syncthreads_count does a block's count
//               in one barrier;
//   2. scan:    an exclusive scan of the tile counts gives each tile its first output position;
//   3. scatter: every tile recomputes its flags and writes the kept elements. Inside a warp,
//               __ballot_sync gives the flags of all 32 lanes as one word and __popc of the bits
//               below a lane is that lane's rank; the warps' offsets inside the block come from a
//               scan of the warp totals done one bit at a time, again with ballots and popc.
// Reads 2n (the input twice) and writes k (the kept elements); the order of the kept elements is
// the input order. Partition-if writes the rejected elements after the kept ones, also in input
// order (CUB's DevicePartition::If writes them reversed).
//
// Your code is here: the bit-sliced warp offsets, the count kernel (phase 1) and one round of the
// scatter (phase 3). The scatter kernel that calls your round, the scan of phase 2 and the host
// functions (select_if, partition_if) are given in chapters/08_stream_compaction/
// stream_compaction_dispatch.cuh; the single-pass version is in stream_compaction_single_pass.cuh.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/warp_scan.cuh>  // kWarpThreads, kFullWarpMask, lanes_below_mask

#include "compaction_tile.cuh"  // given: the tile's constants, ScatterStorage

namespace ch08 {

// A tile is kCompactRounds rounds of one element per thread: round r covers kCompactThreads
// consecutive elements (tile t, round r, thread x: element t * kCompactTile + r * kCompactThreads + x).
// These constants, kWarpTotalBits and ScatterStorage are given in
// chapters/08_stream_compaction/compaction_tile.cuh.

// Exclusive scan of warp totals by bit slices. Called by all 32 lanes of one warp; lane w holds the
// total of warp w (0..32; 0 in lanes with no warp). Returns the sum of the totals of the lanes
// below: the first output position of warp w inside the round.
//
// Bit j of the answer's terms: __ballot_sync of "bit j of my total is set" is column j of the
// totals written in binary, one bit per lane. __popc of that column restricted to the lanes below
// counts how many earlier totals have bit j set, and each contributes 2^j. Summing over the six
// columns adds up the earlier totals exactly: six ballots instead of five shuffle steps.
// --8<-- [start:bit_sliced]
__device__ inline unsigned warp_offsets_bit_sliced(unsigned total) {
  // BEGIN TODO
  // TODO(student): return this lane's exclusive prefix of the warp totals (the sum of the totals
  //   of the lanes below it), one bit column at a time as described above. All 32 lanes call this
  //   function, with totals in [0, 32]; lane 0 returns 0.
  (void)total;
  return 0u;
  // END TODO
}
// --8<-- [end:bit_sliced]

// Phase 1: block b counts tile t = first_tile + b: tile_counts[t] = how many elements of tile t
// satisfy pred. (A launch covers the tiles [first_tile, first_tile + gridDim.x); the dispatch
// starts at 0, the grading runs only the last tiles of arrays past 2^31 elements.) Every thread
// reaches every __syncthreads_count, also past the end of the input (it passes 0 there): a barrier
// that only some threads of a block reach is undefined.
// --8<-- [start:count_kernel]
template <class T, class Pred>
__global__ void compact_count_kernel(const T* in, std::size_t n, std::size_t first_tile, unsigned* tile_counts,
                                     Pred pred) {
  // BEGIN TODO
  // TODO(student): tile_counts[t] = the number of elements of tile t = first_tile + blockIdx.x
  //   (the rounds described at the top of this file) for which pred is true, with positions in
  //   std::size_t (n may exceed 2^31). Every thread of the block must reach every barrier, also
  //   past the end of the input.
  (void)in;
  (void)n;
  (void)first_tile;
  (void)tile_counts;
  (void)pred;
  // END TODO
}
// --8<-- [end:count_kernel]

// One round of the scatter, for every thread of the block: x is element i, `keep` its flag,
// `running` the number of kept elements before the round. A kept x goes to out[before], where
// `before` counts the kept elements ahead of i; with kPartition a rejected x (i < n) goes to
// out[total_kept + (i - before)]: it is rejected element number i - before, and the rejected ones
// start after all kept ones. Returns the round's number of kept elements, in every thread.
// --8<-- [start:scatter_round]
template <bool kPartition, class T>
__device__ unsigned scatter_round(const T& x, bool keep, bool in_range, std::size_t i, unsigned running,
                                  std::size_t total_kept, ScatterStorage& s, T* out) {
  // BEGIN TODO
  // TODO(student): place x (see above) and return the round's number of kept elements, the same in
  //   every thread. Ranks follow the input order: warp by warp, lane by lane. All threads of the
  //   block call this function and reach every barrier in it; when it returns, s may be reused.
  (void)x;
  (void)keep;
  (void)in_range;
  (void)i;
  (void)running;
  (void)total_kept;
  (void)s;
  (void)out;
  return 0u;
  // END TODO
}
// --8<-- [end:scatter_round]

}  // namespace ch08
