// Chapter 09, given: what the Onesweep radix sort's pieces share. The 8-bit digits, the keys as
// bits in sorting order, the tile's shape, the layout of a digit-count word, and chapter 07's
// look-back from the single-pass library. Your code (onesweep.cuh, in exercises/09_radix_sort/ or
// solutions/) builds on these; nothing here needs changing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include <scanlab/monoid.hpp>
#include <scanlab/single_pass/lookback.cuh>  // chapter 07's decoupled look-back, as a library
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/warp_scan.cuh>

namespace ch09 {

// A digit-count word (onesweep.cuh, "The descriptors"): the status in the top 2 bits, the count in
// the low kCountBits.
constexpr unsigned kCountBits = 30;
constexpr unsigned kCountMask = (1u << kCountBits) - 1u;

// Onesweep sorts by 8-bit digits: 4 passes for 32-bit keys, 8 for 64-bit ones.
constexpr int kOnesweepDigitBits = 8;
constexpr unsigned kOnesweepDigits = 1u << kOnesweepDigitBits;  // 256 bins
// The digit of a key past the end of the input: in no bin.
constexpr unsigned kNoDigit = kOnesweepDigits;

// How many predecessors' words a look-back loads at once (scanlab::single_pass::lookback_window).
// A thread's look-back read about nine words on average in a pass over 2^26 uniform keys, one L2
// round trip each when it reads them one at a time; two at once took the keys' sort from 0.89 to
// 0.91 x CUB's at 2^28 on an H200, four to 0.92 but slowed the pairs' (book, chapter 09, "The last
// tenth on an H200").
constexpr int kLookBackWindow = 2;

// ---- keys as bits in sorting order (the "bit twiddle") ------------------------------------------
// A radix sort compares bit patterns as unsigned numbers, most significant digit last. Unsigned keys
// are already in that order. For signed integers, flipping the sign bit moves the negative ones
// below the positive ones. For IEEE floats, a positive number's bits grow with its value, a negative
// number's bits grow as it falls: flip the sign bit of a positive, all bits of a negative.
// (So -0.0 sorts before +0.0, and NaNs with the sign bit set first, the others last: the order of
// the bits, as CUB's DeviceRadixSort gives too.) The sort moves the keys themselves; only the digits
// come from the twiddled bits.
template <class Key>
struct RadixKey {
  static_assert(sizeof(Key) == 4 || sizeof(Key) == 8, "Onesweep sorts 32-bit and 64-bit keys");
  static_assert(std::is_arithmetic_v<Key>, "Onesweep sorts integers and floating-point numbers");
  using Bits = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  static constexpr int kBits = 8 * static_cast<int>(sizeof(Key));
  static constexpr int kPasses = kBits / kOnesweepDigitBits;
  static constexpr Bits kSignBit = Bits(1) << (kBits - 1);

  __host__ __device__ static Bits ordered_bits(Key key) {
    Bits b;
    memcpy(&b, &key, sizeof(Key));
    if constexpr (std::is_floating_point_v<Key>) {
      return (b & kSignBit) ? ~b : (b | kSignBit);
    } else if constexpr (std::is_signed_v<Key>) {
      return b ^ kSignBit;
    } else {
      return b;
    }
  }

  __host__ __device__ static unsigned digit(Key key, int shift) {
    return static_cast<unsigned>(ordered_bits(key) >> shift) & (kOnesweepDigits - 1u);
  }
};

// ---- the tile -----------------------------------------------------------------------------------
// A tile is BLOCK_THREADS x ITEMS keys. Warp w owns the ITEMS x 32 consecutive keys from
// w x ITEMS x 32 on, and loads them warp-striped: its item j is key w x ITEMS x 32 + j x 32 + lane,
// so that every load of a warp is 32 consecutive keys. The tile's order of its keys, (warp, item,
// lane), is then the input order, which is what makes the sort stable.
// The minimum blocks per SM go to __launch_bounds__ (a cap on the registers per thread), one for
// sorting keys and one for pairs (which hold a value beside every key).
template <int THREADS, int ITEMS, int MIN_BLOCKS_KEYS = 1, int MIN_BLOCKS_PAIRS = MIN_BLOCKS_KEYS>
struct OnesweepShape {
  static constexpr int BLOCK_THREADS = THREADS;
  static constexpr int ITEMS_PER_THREAD = ITEMS;
  static constexpr int MIN_BLOCKS_PER_SM_KEYS = MIN_BLOCKS_KEYS;
  static constexpr int MIN_BLOCKS_PER_SM_PAIRS = MIN_BLOCKS_PAIRS;
  static constexpr int WARPS = THREADS / scanlab::kWarpThreads;
  static constexpr int TILE_ITEMS = THREADS * ITEMS;
  static_assert(THREADS % scanlab::kWarpThreads == 0, "whole warps");
  static_assert(THREADS >= static_cast<int>(kOnesweepDigits), "one thread per digit publishes and looks back");
};

}  // namespace ch09
