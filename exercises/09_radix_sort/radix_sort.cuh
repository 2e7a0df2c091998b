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

// The split by bit `bit` puts every key whose bit is 0 (a "false" key) before every key whose bit
// is 1 (a "true" key), each side in input order.
//   In:  f, the exclusive scan of the flags "bit `bit` of key j is 0": f[j] is the number of false
//        keys before key j, for j = 0 .. n (n + 1 values); i < n; key, the key at i; bit < 32.
//   Out: where key i goes, below n. The false keys take the first places in input order, the true
//        keys the places after them in input order: no two keys share a place.
// The given split_scatter_kernel (chapters/09_radix_sort/radix_sort_dispatch.cuh) writes key i, and
// its value, there.
// --8<-- [start:split_scatter]
__device__ __forceinline__ std::size_t split_destination(const unsigned* f, std::size_t n, std::size_t i,
                                                         std::uint32_t key, int bit) {
  // BEGIN TODO
  // TODO(student): key i's place in the split (the contract above).
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

// One block-wide split of the tile by bit `bit`, the device-wide split's contract inside a tile.
//   In:  the tile in s.keys[src] (and, with kPairs, s.values[src]); thread t owns the kSortItems
//        consecutive slots from t * kSortItems on. The given count_false_keys has counted the false
//        keys (bit `bit` is 0): falses_before_me in the slots before this thread's first,
//        total_falses in the whole tile.
//   Out: s.keys[1 - src] (and s.values[1 - src]) holds every key of the tile once, the false keys
//        first, each side in the order of the slots; each value beside its key.
// --8<-- [start:block_split]
template <bool kPairs>
__device__ void block_split_by_bit(LocalSortStorage& s, int src, int bit) {
  unsigned total_falses;  // the tile's false keys
  const unsigned falses_before_me = count_false_keys(s, src, bit, total_falses);
  // BEGIN TODO
  // TODO(student): write each of this thread's keys (and values) to its place in the split tile
  //   (the contract above).
  (void)falses_before_me;
  (void)total_falses;
  // END TODO
  __syncthreads();  // the split tile is complete, and s.scan may be reused
}
// --8<-- [end:block_split]

// The global position of a key of a tile sorted by the digit.
//   In:  digit_offsets, the exclusive scan of the digit table: kDigits x tiles counts, digit-major
//        (every tile's count of digit 0, tile by tile, then every tile's count of digit 1, ...; the
//        given tile_digit_histogram_kernel writes it), so an entry counts the keys of all smaller
//        digits and the keys of its digit in the tiles before its tile; tile < tiles; d, the key's
//        digit; p, its place in the sorted tile; s.digit_start[d], where the run of digit d's keys
//        starts in the sorted tile.
//   Out: a position below n. The keys of digit d follow the keys of all smaller digits and those of
//        digit d in earlier tiles, in their order in the tile: every key gets its own position.
// Called by the given tile_sort_scatter_kernel (chapters/09_radix_sort/radix_sort_dispatch.cuh),
// which sorts the tile in s by the digit, then writes every key of it to this position.
// --8<-- [start:scatter_destination]
__device__ inline std::size_t scatter_destination(const unsigned* digit_offsets, std::size_t tiles, std::size_t tile,
                                                  unsigned d, int p, const LocalSortStorage& s) {
  // BEGIN TODO
  // TODO(student): the key's global position (the contract above).
  (void)digit_offsets;
  (void)tiles;
  (void)d;
  (void)s;
  return tile * kSortTile + static_cast<std::size_t>(p);  // wrong on purpose: replace
  // END TODO
}
// --8<-- [end:scatter_destination]

}  // namespace ch09
