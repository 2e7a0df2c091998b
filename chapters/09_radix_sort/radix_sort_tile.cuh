// Chapter 09, given: the tile of the 4-bit radix sort's local sort, in shared memory: its shape,
// its storage, how a block loads it, counts the keys a split sends to the front and finds where each
// digit starts once it is sorted. Your code (radix_sort.cuh, in exercises/09_radix_sort/ or
// solutions/) builds on these; nothing here needs changing.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include <scanlab/block_scan.cuh>
#include <scanlab/monoid.hpp>

namespace ch09 {

constexpr int kKeyBits = 32;
constexpr int kDigitBits = 4;
constexpr int kDigits = 1 << kDigitBits;  // 16 bins
constexpr int kSortThreads = 256;
constexpr int kSortItems = 8;  // consecutive keys per thread in the local sort
constexpr int kSortTile = kSortThreads * kSortItems;

// The block scan of the local sort: one count per thread.
using SortScan = scanlab::BlockScan<unsigned, kSortThreads>;

__device__ inline unsigned digit_of(std::uint32_t key, int shift) { return (key >> shift) & (kDigits - 1u); }

// Shared memory of the local sort: keys (and values) twice, read from one copy, written to the
// other; the block scan's storage; and, once the tile is sorted by the digit, digit_start[d] = the
// first sorted position whose digit is d (find_digit_starts sets it for every digit a key has).
struct LocalSortStorage {
  std::uint32_t keys[2][kSortTile];
  std::uint32_t values[2][kSortTile];
  SortScan::TempStorage scan;
  unsigned digit_start[kDigits];
};

// Tile blockIdx.x of keys_in (and values_in) into s.keys[0] (s.values[0]), by coalesced loads;
// past n the keys are all ones, which sort last in every digit. Returns the number of real keys.
template <bool kPairs>
__device__ __forceinline__ int load_sort_tile(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                              std::size_t n, LocalSortStorage& s) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kSortTile;
  const int valid = static_cast<int>(n - base < static_cast<std::size_t>(kSortTile) ? n - base : kSortTile);
  for (int r = 0; r < kSortItems; ++r) {  // coalesced loads into the blocked layout
    const int j = r * kSortThreads + static_cast<int>(threadIdx.x);
    s.keys[0][j] = j < valid ? keys_in[base + j] : 0xffffffffu;
    if (kPairs) s.values[0][j] = j < valid ? values_in[base + j] : 0u;
  }
  __syncthreads();
  return valid;
}

// The start of a block-wide split of the tile in s.keys[src] by bit `bit`: thread t counts the false
// keys (bit `bit` is 0) among its kSortItems consecutive slots t * kSortItems ..., and one block
// scan of the counts gives the false keys in the slots before its first (returned) and in the whole
// tile (total_falses). Your block_split_by_bit places the keys from these.
__device__ __forceinline__ unsigned count_false_keys(LocalSortStorage& s, int src, int bit, unsigned& total_falses) {
  const int first = static_cast<int>(threadIdx.x) * kSortItems;
  unsigned falses = 0;  // false keys among mine
  for (int k = 0; k < kSortItems; ++k) falses += ((s.keys[src][first + k] >> bit) & 1u) ^ 1u;
  return SortScan(s.scan).exclusive_scan(falses, scanlab::Plus<unsigned>{}, total_falses);
}

// s.digit_start for the tile in s.keys[src], sorted by the digit at `shift`: a sorted tile is runs
// of equal digits, so the start of digit d is the first position whose digit is d (or later).
__device__ __forceinline__ void find_digit_starts(LocalSortStorage& s, int src, int shift) {
  for (int r = 0; r < kSortItems; ++r) {
    const int p = r * kSortThreads + static_cast<int>(threadIdx.x);
    const unsigned d = digit_of(s.keys[src][p], shift);
    const unsigned prev = p == 0 ? 0xffffffffu : digit_of(s.keys[src][p - 1], shift);
    if (p == 0 || d != prev) {
      for (unsigned e = (p == 0 ? 0u : prev + 1u); e <= d; ++e) s.digit_start[e] = static_cast<unsigned>(p);
    }
  }
  __syncthreads();
}

}  // namespace ch09
