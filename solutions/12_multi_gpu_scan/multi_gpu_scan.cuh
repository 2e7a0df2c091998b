// Chapter 12, reference solution of exercises/12_multi_gpu_scan/multi_gpu_scan.cuh: read that file
// for the teaching notes and the hints. The comments here say why the answers are written as they
// are.
#pragma once

#include "lookback_library.cuh"  // given: the single-pass library's look-back, as single_pass

namespace ch12 {

// --8<-- [start:combine_preceding]
// A left fold from the identity: the running offset stays the LEFT operand, so a non-commutative
// op sees the ranks in order.
template <class T, class Op>
SCANLAB_HD T combine_preceding(const T* totals, int rank, Op op) {
  // BEGIN TODO
  T offset = Op::identity();
  for (int q = 0; q < rank; ++q) offset = op(offset, totals[q]);
  return offset;
  // END TODO
}
// --8<-- [end:combine_preceding]

// --8<-- [start:seeded_look_back]
// Only tile 0 changes: its P carries the seed, and every other look-back ends at a P that
// descends from it.
template <single_pass::Lookback L, class T, class Desc, class Op>
__device__ T seeded_publish_and_look_back(Desc& desc, unsigned tile, const T& aggregate, const T& seed, Op op,
                                          single_pass::PollSchedule polls) {
  // BEGIN TODO
  // Tile 0 starts the chain with the seed: its inclusive prefix is seed op aggregate. Every later
  // tile's look-back ends at a P that already holds the seed, so nothing else changes.
  if (tile == 0) {
    if (scanlab::lane_id() == 0) desc.publish(0, single_pass::kPrefix, op(seed, aggregate));
    return seed;
  }
  return single_pass::publish_and_look_back<L>(desc, tile, aggregate, op, polls);
  // END TODO
}
// --8<-- [end:seeded_look_back]

}  // namespace ch12
