// Chapter 12: scan across devices. The hierarchy of chapter 05 (scan the tiles, scan the tiles'
// totals, add each tile's offset) one level up: the array is cut into one slice per device (a
// rank), and
//   1. every rank finds the total of its slice                      (on its device)
//   2. the ranks exchange their totals: one allgather of one value per rank
//   3. every rank combines the totals of the ranks BEFORE it, in rank order: its offset
//   4. every rank scans its slice with that offset as the seed        (on its device)
// The fused form (this chapter's main one) reads the slice twice and writes it once: step 1 is a
// reduction, step 4 chapter 07's single-pass scan started from the seed. The other form scans
// first (its total comes out of the scan) and adds the offset afterwards: it reads and writes the
// slice twice.
//
// Your code is here: step 3 (combine_preceding, host code) and the seed in step 4
// (seeded_publish_and_look_back, the look-back of chapter 07 with a seed). The kernel around it,
// the reduction, the exchange and the host side are given in
// chapters/12_multi_gpu_scan/multi_gpu_scan_dispatch.cuh; the decoupled look-back itself is
// chapter 07's, from the single-pass library (scanlab/single_pass/lookback.cuh), which
// chapters/12_multi_gpu_scan/lookback_library.cuh brings in as single_pass.
#pragma once

#include "lookback_library.cuh"  // given: the single-pass library's look-back, as single_pass

namespace ch12 {

// Step 3. totals[q] is rank q's slice total, for every rank q (the allgather's result). Returns the
// offset of `rank`: the totals of ranks 0, 1, ..., rank - 1 combined in that order (the identity
// for rank 0). Op need not be commutative: a total from further left is always the LEFT operand.
// --8<-- [start:combine_preceding]
template <class T, class Op>
SCANLAB_HD T combine_preceding(const T* totals, int rank, Op op) {
  // BEGIN TODO
  // TODO(student): the totals of ranks 0 .. rank - 1, combined in rank order (rank 0: the identity).
  (void)totals;
  (void)rank;
  (void)op;
  return Op::identity();
  // END TODO
}
// --8<-- [end:combine_preceding]

// Step 4: chapter 07's steps 3 to 5 (publish the aggregate, look back, publish the inclusive
// prefix) for a scan whose every element has `seed` combined in on its left. Called by ALL 32
// lanes of the block's warp 0 with the tile's aggregate in every lane; returns the tile's
// exclusive prefix, seed included (in lane 0; in every lane for Lookback::warp). Each descriptor
// store is made by one lane.
//
// The look-back of tile t > 0 ends at the nearest inclusive prefix (P) before it, and tile 0's
// P ends every chain. single_pass::publish_and_look_back(desc, tile, aggregate, op, polls) is
// chapter 07's unseeded version; desc.publish(tile, single_pass::kPrefix, value) publishes a P.
// --8<-- [start:seeded_look_back]
template <single_pass::Lookback L, class T, class Desc, class Op>
__device__ T seeded_publish_and_look_back(Desc& desc, unsigned tile, const T& aggregate, const T& seed, Op op,
                                          single_pass::PollSchedule polls) {
  // BEGIN TODO
  // TODO(student): put the seed into the scan. As it stands this is chapter 07's look-back, which
  //   ignores the seed: every rank's slice comes out scanned on its own.
  (void)seed;
  return single_pass::publish_and_look_back<L>(desc, tile, aggregate, op, polls);
  // END TODO
}
// --8<-- [end:seeded_look_back]

}  // namespace ch12
