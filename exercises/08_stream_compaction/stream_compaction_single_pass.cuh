// Chapter 08: select-if and partition-if in ONE pass, the count fused into chapter 07's decoupled
// look-back.
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002), section 4.4 ("in-place compaction behavior") and 5.2: a compaction is a prefix
// sum over keep-flags, so the look-back can carry the tiles' kept counts instead of a scan's
// aggregates. A tile loads its elements, ranks its kept ones and packs them into shared memory;
// then it needs one number, how many elements all earlier tiles kept, to know where its own go.
//
// Your code is here: that look-back. The kernel around it (the tile, the ranks, the exchange and
// the stores) and the host side (the workspace, the launch, select_if_single_pass, its in-place form
// and partition_if_single_pass) are given in
// chapters/08_stream_compaction/stream_compaction_single_pass_dispatch.cuh; large inputs run
// the two-tile kernel of compact_two_tile.cuh there, which calls your look-back too.
#pragma once

#include <cuda_runtime.h>

#include <scanlab/monoid.hpp>
#include <scanlab/single_pass/lookback.cuh>  // chapter 07's decoupled look-back, as a library
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/warp_scan.cuh>

namespace ch08 {

// Tiles' kept counts as chapter 07's fused descriptors: {status, count} in one 64-bit word.
using CountDescriptors = scanlab::single_pass::TileDescriptors<unsigned, scanlab::single_pass::Descriptors::fused>;

// Called by the one warp that looks back for the tile (all 32 lanes of it; the kernel picks the
// warp) once the tile's kept `count` is known: publishes it and leaves in `tile_prefix` (shared
// memory) the number of elements kept by all tiles before this one. The kernel's next barrier makes
// it visible to every thread.
// --8<-- [start:look_back_kept]
__device__ inline void look_back_kept_count(CountDescriptors& desc, unsigned tile, unsigned count,
                                            scanlab::single_pass::PollSchedule polls, unsigned& tile_prefix) {
  // BEGIN TODO
  // TODO(student): the look-back described above: this tile's `count` published in `desc` for the
  //   tiles after it, and the counts of all tiles before it summed into tile_prefix, by chapter
  //   07's decoupled look-back as the single-pass library gives it (scanlab/single_pass/lookback.cuh,
  //   a warp's look-back with the poll schedule `polls`). What must hold: all 32 lanes take part
  //   (the warp's look-back is collective), and one lane writes tile_prefix.
  (void)desc;
  (void)tile;
  (void)count;
  (void)polls;
  if (scanlab::lane_id() == 0) tile_prefix = 0;  // a placeholder, right only for tile 0
  // END TODO
}
// --8<-- [end:look_back_kept]

}  // namespace ch08
