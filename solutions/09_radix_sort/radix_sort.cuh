// Chapter 09, reference solution of exercises/09_radix_sort/radix_sort.cuh: read that file for the
// teaching notes and the hints. The comments here say why the answers are written as they are.
#pragma once

#include "radix_sort_tile.cuh"  // chapters/09_radix_sort: the tile, LocalSortStorage, count_false_keys

namespace ch09 {

// --8<-- [start:split_scatter]
// f[n] is the number of false keys; a true key's place counts the true keys before it
// (i - f[i]) after all the false ones, which keeps both sides in input order.
__device__ __forceinline__ std::size_t split_destination(const unsigned* f, std::size_t n, std::size_t i,
                                                         std::uint32_t key, int bit) {
  // BEGIN TODO
  const std::size_t total_falses = f[n];
  const bool b = ((key >> bit) & 1u) != 0;
  return b ? i - f[i] + total_falses : f[i];
  // END TODO
}
// --8<-- [end:split_scatter]

// --8<-- [start:block_split]
// The device-wide formula inside the tile: f starts at the false keys before this thread's first
// slot and grows with each false key of its own, so the thread's slots are placed in order.
template <bool kPairs>
__device__ void block_split_by_bit(LocalSortStorage& s, int src, int bit) {
  unsigned total_falses;  // the tile's false keys
  const unsigned falses_before_me = count_false_keys(s, src, bit, total_falses);
  // BEGIN TODO
  const int first = static_cast<int>(threadIdx.x) * kSortItems;
  unsigned f = falses_before_me;  // false keys before the slot i below
  for (int k = 0; k < kSortItems; ++k) {
    const int i = first + k;
    const std::uint32_t key = s.keys[src][i];
    const bool b = ((key >> bit) & 1u) != 0;
    const int d = b ? i - static_cast<int>(f) + static_cast<int>(total_falses) : static_cast<int>(f);
    s.keys[1 - src][d] = key;
    if (kPairs) s.values[1 - src][d] = s.values[src][i];
    if (!b) ++f;
  }
  // END TODO
  __syncthreads();  // the split tile is complete, and s.scan may be reused
}
// --8<-- [end:block_split]

// --8<-- [start:scatter_destination]
// The key's rank among its digit in the sorted tile (p - digit_start[d]) plus the keys of digit d
// before this tile and of all smaller digits: the digit-major scan, entry d * tiles + tile.
__device__ inline std::size_t scatter_destination(const unsigned* digit_offsets, std::size_t tiles, std::size_t tile,
                                                  unsigned d, int p, const LocalSortStorage& s) {
  // BEGIN TODO
  return static_cast<std::size_t>(digit_offsets[d * tiles + tile]) +
         static_cast<std::size_t>(p - static_cast<int>(s.digit_start[d]));
  // END TODO
}
// --8<-- [end:scatter_destination]

}  // namespace ch09
