// Chapter 09, reference solution of exercises/09_radix_sort/onesweep.cuh: read that file for the
// teaching notes and the hints. The comments here say why the answers are written as they are.
#pragma once

#include "onesweep_tile.cuh"  // given: digits, keys as bits, the tile's shape, kCountBits, the look-back

namespace ch09 {

struct DigitCountDescriptors {
  unsigned* words;  // tiles x 256, zero (X) before the launch
  unsigned digit;   // the digit this thread publishes and looks back for

  // --8<-- [start:digit_descriptors]
  // The status and the count share one aligned 32-bit word, written and read with one volatile
  // access each: single-copy atomic, so neither needs a fence.
  __device__ void publish(unsigned tile, scanlab::single_pass::Status status, unsigned count) {
    // BEGIN TODO
    const unsigned word = (static_cast<unsigned>(status) << kCountBits) | count;
    scanlab::single_pass::store_volatile(&words[static_cast<std::size_t>(tile) * kOnesweepDigits + digit], word);
    // END TODO
  }

  __device__ scanlab::single_pass::Status read(long long pred, unsigned& count) const {
    // BEGIN TODO
    const unsigned word =
        scanlab::single_pass::load_volatile(&words[static_cast<std::size_t>(pred) * kOnesweepDigits + digit]);
    count = word & kCountMask;
    return static_cast<scanlab::single_pass::Status>(word >> kCountBits);
    // END TODO
  }
  // --8<-- [end:digit_descriptors]
};

// --8<-- [start:rank_in_warp]
// Two __syncwarp around the read of the match word: every peer's bit is in before anyone reads,
// and every lane has read before the leader clears. Invalid lanes set no bit and read only their own
// bit, but still reach every __syncwarp and the __shfl_sync, which need all 32 lanes.
__device__ inline unsigned rank_in_warp(unsigned digit, unsigned* warp_counts, unsigned* warp_match) {
  const bool valid = digit < kOnesweepDigits;
  const unsigned me = 1u << scanlab::lane_id();
  // BEGIN TODO
  if (valid) atomicOr(&warp_match[digit], me);
  __syncwarp();
  const unsigned peers = valid ? warp_match[digit] : me;
  __syncwarp();  // every lane has read its word before a leader clears it
  const int leader = __ffs(static_cast<int>(peers)) - 1;
  unsigned first = 0;  // the first peer's rank
  if (valid && scanlab::lane_id() == leader) {
    first = warp_counts[digit];
    warp_counts[digit] = first + static_cast<unsigned>(__popc(peers));
    warp_match[digit] = 0;
  }
  first = __shfl_sync(scanlab::kFullWarpMask, first, leader);
  __syncwarp();  // this item's counters and cleared words before the next item
  return first + static_cast<unsigned>(__popc(peers & (me - 1u)));
  // END TODO
}
// --8<-- [end:rank_in_warp]

// --8<-- [start:look_back_digit]
// Tile 0 published P already (the kernel does it); every other tile takes chapter 07's serial
// look-back over its digit's column, kLookBackWindow predecessors a round, then publishes its
// inclusive count, which ends the later tiles' look-backs at this tile.
__device__ inline unsigned look_back_digit(DigitCountDescriptors desc, unsigned tile, unsigned count,
                                           scanlab::single_pass::PollSchedule polls) {
  // BEGIN TODO
  if (tile == 0) return 0;
  const unsigned before =
      scanlab::single_pass::lookback_window<unsigned, kLookBackWindow>(desc, tile, scanlab::Plus<unsigned>{}, polls);
  desc.publish(tile, scanlab::single_pass::kPrefix, before + count);
  return before;
  // END TODO
}
// --8<-- [end:look_back_digit]

}  // namespace ch09
