// Chapter 08: select-if in ONE pass, the count fused into chapter 07's decoupled look-back, and
// in place.
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002), section 4.4 ("in-place compaction behavior") and 5.2: a compaction is a prefix
// sum over keep-flags, so the look-back can carry the tiles' kept counts instead of a scan's
// aggregates. Each tile loads its elements into registers once, counts its kept ones
// (__syncthreads_count), publishes the count, looks back for the number kept before it, and
// scatters from its registers exactly like the three-phase version's phase 3. The input is read
// once: n reads and k writes, against 2n reads of the three phases.
//
// In place: a tile publishes its count only after it has read all of its input, and it learns its
// own exclusive prefix only after every predecessor has published. So when a tile writes, every
// earlier tile has already read its input; and it writes only below its own end, never into a
// later tile's input. With the three phases there is no such order: the scatter kernel's blocks
// run in any order, and a tile could overwrite an input an earlier tile has not read yet.
//
// Your code is here: the look-back call inside the kernel. The host side (the workspace, the
// launch, select_if_single_pass and its in-place form) is given in
// chapters/08_stream_compaction/stream_compaction_single_pass_dispatch.cuh.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/monoid.hpp>
#include <scanlab/single_pass/lookback.cuh>  // chapter 07's decoupled look-back, as a library
#include <scanlab/warp_scan.cuh>

#include "stream_compaction.cuh"  // the tile shape, scatter_round

namespace ch08 {

// Tiles' kept counts as chapter 07's fused descriptors: {status, count} in one 64-bit word.
using CountDescriptors = scanlab::single_pass::TileDescriptors<unsigned, scanlab::single_pass::Descriptors::fused>;

// --8<-- [start:single_pass_kernel]
template <class T, class Pred>
__global__ void __launch_bounds__(kCompactThreads)
    select_if_single_pass_kernel(const T* in, T* out, std::size_t n, CountDescriptors descriptors,
                                 unsigned* ticket, unsigned* d_num_selected, Pred pred) {
  __shared__ unsigned tile_slot;
  __shared__ unsigned tile_prefix;
  __shared__ ScatterStorage storage;
  CountDescriptors desc = descriptors;
  const unsigned tile = scanlab::single_pass::dynamic_tile_index(ticket, scanlab::single_pass::TileOrder::ticket, tile_slot);
  const std::size_t base = static_cast<std::size_t>(tile) * kCompactTile;

  // The whole tile into registers, and its count: after this loop the tile never reads `in` again.
  T items[kCompactRounds];
  bool keep[kCompactRounds];
  unsigned count = 0;
  for (int r = 0; r < kCompactRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kCompactThreads + threadIdx.x;
    items[r] = i < n ? in[i] : T{};
    keep[r] = i < n && pred(items[r]);
    count += static_cast<unsigned>(__syncthreads_count(keep[r] ? 1 : 0));
  }

  // BEGIN TODO
  // TODO(student): the look-back, with the tile's kept count as its aggregate: every thread must
  //   leave this region with `running` = the number of kept elements in all tiles before this one.
  //   Warp 0, all 32 lanes, does the look-back with scanlab::single_pass::publish_and_look_back
  //   (fused descriptors, Lookback::warp, kDefaultPolls; see scanlab/single_pass/lookback.cuh); the
  //   other warps learn the result through tile_prefix.
  (void)desc;
  (void)tile_prefix;
  unsigned running = 0;
  // END TODO
  if (tile == gridDim.x - 1 && threadIdx.x == 0) *d_num_selected = running + count;

  for (int r = 0; r < kCompactRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kCompactThreads + threadIdx.x;
    running += scatter_round<false>(items[r], keep[r], i < n, i, running, 0, storage, out);
  }
}
// --8<-- [end:single_pass_kernel]

}  // namespace ch08
