// Chapter 09: radix sort of 32-bit keys (and key-value pairs) built on scan, least significant
// digit first, stable, multi-block.
//
// Builds on GPU Gems 3, ch. 39, section 39.3.3 (the split primitive: one scan of the "bit is 0"
// flags places every key; Blelloch 1990) and on Satish, Harris and Garland, "Designing Efficient
// Sorting Algorithms for Manycore GPUs" (IPDPS 2009): each pass sorts a tile locally by a 4-bit digit
// with four block-wide splits, writes a digit histogram per tile, scans the histograms digit-major
// (so that all tiles' 0s come before all 1s, tile by tile), and scatters.
//
// Two sorts share that structure:
//   radix_sort_*_split   32 passes of the device-wide split (flags, scan, scatter): the idea in
//                        its plainest form;
//   radix_sort_keys / _pairs   8 passes of 4-bit digits with per-tile local sorts.
// LSD radix sort is correct only because every pass is STABLE: keys with equal digits keep the
// order the earlier passes gave them. The grading tests check positions, not only order.
//
// Your code is here: a key's position in the split, the block-wide split of the local sort and the
// global position of a key of a sorted tile. Given: the tile's shape, its shared memory and the
// count of its false keys (chapters/09_radix_sort/radix_sort_tile.cuh), and the flags, the scans,
// the kernels that scatter the keys and the host functions (radix_sort_keys, radix_sort_pairs,
// radix_sort_split, split_by_bit) in chapters/09_radix_sort/radix_sort_dispatch.cuh.
#pragma once

#include "radix_sort_tile.cuh"  // chapters/09_radix_sort: the tile, LocalSortStorage, count_false_keys

namespace ch09 {

// ---------------------------------------------------------------------------------------------
// 1. The split primitive, device-wide: a scan of flags and a scatter
// ---------------------------------------------------------------------------------------------

// f = exclusive scan of the flags "bit `bit` of key i is 0" (n + 1 values, f[n] = all false keys).
// A false key i goes to f[i], a true key to i - f[i] + total_falses: after all the false keys, in
// order, because i - f[i] is the number of true keys before i. The given split_scatter_kernel
// (chapters/09_radix_sort/radix_sort_dispatch.cuh) writes key i, and its value, where this says.
// --8<-- [start:split_scatter]
__device__ __forceinline__ std::size_t split_destination(const unsigned* f, std::size_t n, std::size_t i,
                                                         std::uint32_t key, int bit) {
  // BEGIN TODO
  // TODO(student): the position of key i in the split (see above). f holds n + 1 values.
  (void)f;
  (void)n;
  (void)key;
  (void)bit;
  return i;  // wrong on purpose: replace
  // END TODO
}
// --8<-- [end:split_scatter]

// ---------------------------------------------------------------------------------------------
// 2. Radix sort by 4-bit digits: tile histograms, a scan of them, local sort and scatter
// ---------------------------------------------------------------------------------------------

// One block-wide split of the tile in s.keys[src] (and values) by bit `bit` into s.keys[1 - src].
// Thread t owns the kSortItems consecutive slots t * kSortItems ... . Stable on both sides. The
// given count_false_keys counts the false keys (bit `bit` is 0) of every thread and scans the
// counts across the block.
// --8<-- [start:block_split]
template <bool kPairs>
__device__ void block_split_by_bit(LocalSortStorage& s, int src, int bit) {
  unsigned total_falses;  // the tile's false keys
  const unsigned falses_before_me = count_false_keys(s, src, bit, total_falses);
  // BEGIN TODO
  // TODO(student): the same split inside the block: write each of my keys (and, with kPairs, its
  //   value) from s.keys[src] to its place in s.keys[1 - src], stably. My first slot is
  //   threadIdx.x * kSortItems; falses_before_me counts the false keys (bit `bit` is 0) in the
  //   slots before it, total_falses those of the tile.
  (void)falses_before_me;
  (void)total_falses;
  // END TODO
  __syncthreads();  // the split tile is complete, and s.scan may be reused
}
// --8<-- [end:block_split]

// The global position of the key at sorted local position p of tile `tile`, whose digit is d:
//   digit_offsets[d * tiles + tile]  (keys of digit d in all earlier tiles, plus all smaller digits)
//   + its rank among the tile's keys of digit d (its local position - where digit d starts).
// Called by the given tile_sort_scatter_kernel (chapters/09_radix_sort/radix_sort_dispatch.cuh),
// which sorts the tile in s by the digit, then writes every key of it to this position.
// --8<-- [start:scatter_destination]
__device__ inline std::size_t scatter_destination(const unsigned* digit_offsets, std::size_t tiles, std::size_t tile,
                                                  unsigned d, int p, const LocalSortStorage& s) {
  // BEGIN TODO
  // TODO(student): the global position described above. digit_offsets holds the exclusive scan of
  //   the digit-major table (entry d * tiles + tile); s.digit_start[d] is where digit d starts in
  //   the sorted tile. Add in std::size_t.
  (void)digit_offsets;
  (void)tiles;
  (void)d;
  (void)s;
  return tile * kSortTile + static_cast<std::size_t>(p);  // wrong on purpose: replace
  // END TODO
}
// --8<-- [end:scatter_destination]

}  // namespace ch09
