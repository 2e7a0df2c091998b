// Chapter 08, reference solution of exercises/08_stream_compaction/stream_compaction_single_pass.cuh:
// read that file for the teaching notes and the hints. The comments here say why the answer is
// written as it is.
#pragma once

#include <cuda_runtime.h>

#include <scanlab/monoid.hpp>
#include <scanlab/single_pass/lookback.cuh>  // chapter 07's decoupled look-back, as a library
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/warp_scan.cuh>

namespace ch08 {

using CountDescriptors = scanlab::single_pass::TileDescriptors<unsigned, scanlab::single_pass::Descriptors::fused>;

// --8<-- [start:look_back_kept]
// The library's look-back with counts for values, by the calling warp (the warp variant returns
// the prefix in every lane); lane 0 leaves it in shared memory for the kernel's next barrier.
__device__ inline void look_back_kept_count(CountDescriptors& desc, unsigned tile, unsigned count,
                                            scanlab::single_pass::PollSchedule polls, unsigned& tile_prefix) {
  // BEGIN TODO
  const unsigned before = scanlab::single_pass::publish_and_look_back<scanlab::single_pass::Lookback::warp>(
      desc, tile, count, scanlab::Plus<unsigned>{}, polls);
  if (scanlab::lane_id() == 0) tile_prefix = before;
  // END TODO
}
// --8<-- [end:look_back_kept]

}  // namespace ch08
