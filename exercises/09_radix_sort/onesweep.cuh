// Chapter 09, second half: Onesweep, one pass over the keys per 8-bit digit.
//
// Builds on Adinets and Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for GPUs"
// (2022; CUB's DeviceRadixSort is Onesweep today) and on Merrill and Garland's decoupled look-back
// (chapter 07). The digit sort of the first half needs three kernels per digit (histograms, a scan
// of the digit table, the scatter) and reads the keys twice. Onesweep reads them once per digit:
//   - one kernel, before the passes, counts every digit of every pass at once (the keys are read
//     once for all the histograms), and an exclusive scan of each histogram says where each digit's
//     keys start in the output;
//   - then one kernel per digit: a tile ranks its keys by digit, publishes its 256 digit counts and
//     finds, for each digit, how many keys of that digit all earlier tiles hold, with chapter 07's
//     decoupled look-back: 256 look-backs at once, one thread per digit. Then it scatters.
//   (A sort of at most one tile skips all that: one block runs every pass on it in shared memory,
//   ranking with your rank_in_warp.)
//
// Your code is here: the descriptors the look-back reads (a tile's count of one digit and its
// status in one 32-bit word), the ranking of a warp's keys by digit, and the look-back. The kernels
// and the host side are given in chapters/09_radix_sort/onesweep_dispatch.cuh.
#pragma once

#include "onesweep_tile.cuh"  // given: digits, keys as bits, the tile's shape, kCountBits, the look-back

namespace ch09 {

// ---------------------------------------------------------------------------------------------
// 1. The descriptors: one 32-bit word per (tile, digit)
// ---------------------------------------------------------------------------------------------

// Tile t's count of digit d and its status (X, A or P as in chapter 07) live in ONE 32-bit word,
// the d-th of tile t's 256 consecutive words (the tiles' words one after another from `words`):
// the status in the top 2 bits, the count in the low kCountBits = 30 (onesweep_tile.cuh). X is 0,
// so a zeroed word is X: every word is zero when its launch starts (the host zeroes the words before
// their first use, and after that the launch before clears them). One aligned 32-bit store or load
// is single-copy atomic, so, as with chapter 07's fused descriptors, a reader sees the whole old
// word or the whole new one and no fence is needed. 256 counters per tile at 4 bytes each are 1 KiB
// per tile; 30 bits hold counts below 2^30, so the host sorts at most 2^28 keys per launch (a
// "portion"; CUB does the same). The look-back of scanlab/single_pass/lookback.cuh reads any
// descriptor with this publish/read.
struct DigitCountDescriptors {
  unsigned* words;  // tiles x 256, zero (X) before the launch
  unsigned digit;   // the digit this thread publishes and looks back for

  // --8<-- [start:digit_descriptors]
  __device__ void publish(unsigned tile, scanlab::single_pass::Status status, unsigned count) {
    // BEGIN TODO
    // TODO(student): afterwards tile `tile`'s word of this digit holds `status` and `count` (count
    //   < 2^30), laid out as above, written by ONE store that other blocks see while this kernel
    //   runs (a volatile store: the library's store_volatile).
    (void)tile;
    (void)status;
    (void)count;
    // END TODO
  }

  __device__ scanlab::single_pass::Status read(long long pred, unsigned& count) const {
    // BEGIN TODO
    // TODO(student): from ONE load of tile pred's word of this digit that sees other blocks' stores
    //   (volatile: the library's load_volatile), return the word's status and leave its count, and
    //   nothing else, in `count`.
    (void)pred;
    count = 0;
    return scanlab::single_pass::kPrefix;  // a placeholder: "no keys before", right only for tile 0
    // END TODO
  }
  // --8<-- [end:digit_descriptors]
};

// ---------------------------------------------------------------------------------------------
// 2. Ranking a warp's keys by digit
// ---------------------------------------------------------------------------------------------

// Called by all 32 lanes of a warp, once per item j, in order (the warp's keys j x 32 + lane).
// warp_counts[d] (the warp's 256 counters in shared memory, which only this warp touches) counts
// the warp's keys of digit d in the items before this one: the kernel sets every counter to zero
// before item 0. Returns this lane's key's rank: the counter of its digit plus the keys of the same
// digit in the lower lanes of this item; and advances each counter past this item's keys of its
// digit. After the last item the counters hold the warp's count of each digit, and the kernel puts
// each key at its rank past where its warp's keys of its digit start in the sorted tile. So the
// keys of one digit keep their input order: the sort is stable. A lane past the end of the input
// has digit kNoDigit: it takes part in no count, and its result is not used.
//
// The lanes with the same digit ("peers") meet in warp_match[digit] (256 words of the warp, zero
// between calls): every lane sets its bit there with an atomic OR, and once all have, the word
// holds all of them. One peer, the leader, speaks for them all: it moves the counter on by the
// number of peers and clears the word for the next item. (CUB's BlockRadixRankMatch can do the same with
// WARP_MATCH_ATOMIC_OR, or find the peers with 8 ballots, one per bit of the digit; measured on an
// H100, the two are about as fast here: the book's chapter 09, "Onesweep on an H100".)
// A pass in which at most two digits occur in the whole input does not call this function: the
// given kernel ranks it with ballots (except in a sort of at most one tile, which always calls it).
// Test yours with keys of three different digits or more.
// --8<-- [start:rank_in_warp]
__device__ inline unsigned rank_in_warp(unsigned digit, unsigned* warp_counts, unsigned* warp_match) {
  const bool valid = digit < kOnesweepDigits;
  const unsigned me = 1u << scanlab::lane_id();
  // BEGIN TODO
  // TODO(student): return this lane's rank (the contract above); afterwards warp_counts[digit] is
  //   past this item's keys of the digit and warp_match[digit] is zero. A lane's shared-memory
  //   writes reach the other lanes only across a __syncwarp: the word must hold every peer's bit
  //   before anyone reads it, and every peer must have read it before it is cleared. Every lane
  //   of the warp, valid or not, reaches every __syncwarp and __shfl_sync.
  (void)me;
  (void)warp_match;
  return valid ? warp_counts[digit] : 0;  // wrong on purpose: every peer gets the same rank
  // END TODO
}
// --8<-- [end:rank_in_warp]

// ---------------------------------------------------------------------------------------------
// 3. The look-back, 256 at once
// ---------------------------------------------------------------------------------------------

// Called by thread d < 256 of the tile's block, after it published the tile's count of digit d
// (A, or P for tile 0): returns how many keys of digit d all earlier tiles of this launch hold,
// and publishes this tile's inclusive count (P). Chapter 07's serial look-back over this digit's
// descriptors: every thread of the first 256 walks back over its own digit's column. The library's
// lookback_window is that look-back with kLookBackWindow loads in flight at once instead of one:
// the same answer, sooner (onesweep_tile.cuh says why the window is what it is).
// --8<-- [start:look_back_digit]
__device__ inline unsigned look_back_digit(DigitCountDescriptors desc, unsigned tile, unsigned count,
                                           scanlab::single_pass::PollSchedule polls) {
  // BEGIN TODO
  // TODO(student): return the keys of this digit in the tiles before `tile`, and leave this tile's
  //   word of the digit at P with the keys of the digit in the tiles up to and including this one.
  //   Tile 0 has nothing before it, and the kernel published its P already. The library's
  //   look-backs (scanlab/single_pass/lookback.cuh) walk any descriptors with a read like yours;
  //   use a window of kLookBackWindow and these `polls`.
  (void)desc;
  (void)tile;
  (void)count;
  (void)polls;
  return 0;  // a placeholder, right only for tile 0
  // END TODO
}
// --8<-- [end:look_back_digit]

}  // namespace ch09
