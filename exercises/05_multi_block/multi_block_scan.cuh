// Chapter 05: scans of any length across many thread blocks.
//
// Builds on: GPU Gems 3, ch. 39.2.4 (Harris, Sengupta, Owens), after Blelloch (1990): scan every
// tile in its own block, write each tile's total to an array of block sums, scan that array (the
// same algorithm, recursively, until it fits one tile) and add each tile's scanned block sum to all
// of its elements: SCAN-THEN-PROPAGATE. And Merrill and Garland (NVR-2016-002, section 2) and
// Merrill and Grimshaw (2009): REDUCE-THEN-SCAN, which reads the input twice instead of writing
// and re-reading the output: each block first only reduces its range of tiles, one block scans
// those few totals (the spine), and each block then scans its range again, seeded with its spine
// prefix. Tiles are scanned with scanlab's BlockScan (chapter 04's construction: items per thread,
// warp scans), loaded through BlockLoad/BlockStore (16-byte vectors, a padded shared-memory
// transpose).
//
// Your code: what one block does in each phase, the device side of both algorithms:
//   scan-then-propagate  scan_tile (phase 1), uniform_add_tile (phase 3)
//   reduce-then-scan     reduce_range (phase 1), scan_range (phase 3)
// Given, in chapters/05_multi_block/: tiles.cuh (Policy, detail::load_tile) and
// multi_block_scan_dispatch.cuh: the kernels that call your functions (their shared memory, the
// block's load, store, scan and reduce objects made on it, which tile or range of tiles the block
// owns, the traces), the spine kernel, the recursion over the block sums, the grid sizes, scratch
// memory and the launches. CUB splits its scans the same way: an agent per block, a dispatch.
//
// Types: the input may be narrower than the result (int32 in, int64 sums: In != Acc, the monoid's
// value_type); every element is converted when loaded. Positions and counts are 64-bit
// (std::size_t) everywhere, so n > 2^31 works; in-place (out == in) works when In is Acc.
//
// Op is a monoid from <scanlab/monoid.hpp>; it need not be commutative: whatever lies further left
// (a tile's prefix, a block's spine value) is always the LEFT operand. load, scan, store and
// reduce are block-wide operations (with barriers inside): every thread of the block calls them.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>
#include <scanlab/block_scan.cuh>

#include "tiles.cuh"  // given: Policy, detail::load_tile

namespace ch05 {

// Scan-then-propagate, phase 1: scans tile `tile` of in[0, n) on its own (inclusive or
// exclusive) into the same place of out, writes the tile's total to tile_sums[tile] and returns
// it (to every thread); nothing else. The kernel runs it once per block, for tile
// first_tile + blockIdx.x (a grid holds at most 2^31 - 1 blocks: the grading runs only the last
// tiles of arrays past 2^31 elements). The load's and the store's shared memory overlap: a
// barrier must come between the load and the store. The block scan has its own, except with a
// single warp (Scan::kWarps == 1).
// --8<-- [start:scan_tile]
template <class Policy, class Load, class Scan, class Store, class In, class Acc, class Op>
__device__ Acc scan_tile(Load& load, Scan& scan, Store& store, const In* in, Acc* out, std::size_t n, std::size_t tile,
                         bool inclusive, Acc* tile_sums, Op op) {
  // BEGIN TODO
  // TODO(student): phase 1 for this tile: load it (detail::load_tile), scan it (inclusive or
  //   exclusive) with its total, store it, and publish the total in tile_sums.
  (void)load;
  (void)scan;
  (void)store;
  (void)in;
  (void)out;
  (void)n;
  (void)tile;
  (void)inclusive;
  (void)tile_sums;
  (void)op;
  return Op::identity();
  // END TODO
}
// --8<-- [end:scan_tile]

// Scan-then-propagate, phase 3: adds prefixes[tile] (the scanned block sum of tile `tile`:
// everything left of that tile) on the LEFT of each of the tile's `valid` elements (those inside
// [0, n)). Tile 0 has nothing on its left: the kernel starts at tile 1. One read and one write per
// element; the block's accesses should be coalesced (neighbouring threads, neighbouring elements).
// --8<-- [start:uniform_add_tile]
template <class Policy, class Acc, class Op>
__device__ void uniform_add_tile(Acc* out, std::size_t tile, int valid, const Acc* prefixes, Op op) {
  // BEGIN TODO
  // TODO(student): the uniform add of phase 3 for the `valid` elements of this tile.
  (void)out;
  (void)tile;
  (void)valid;
  (void)prefixes;
  (void)op;
  // END TODO
}
// --8<-- [end:uniform_add_tile]

// ---------------------------------------------------------------------------------------------
// Reduce-then-scan
// ---------------------------------------------------------------------------------------------

// Reduce-then-scan, phase 1 (reduce): block `block` of the scan owns the tiles [first, last) =
// [block * tiles_per_block, (block + 1) * tiles_per_block) of in[0, n) (the last block fewer; the
// kernel works them out). Writes the total of the range, in order, to partials[block] and returns
// it. Reads only. BlockReduce::reduce returns the tile's total to every thread; reduce_temp holds
// two Reduce::TempStorage, for the block to use alternately: a tile's warp totals are still being
// read while faster threads already write the next tile's.
// --8<-- [start:reduce_range]
template <class Policy, class Reduce, class Load, class In, class Acc, class Op>
__device__ Acc reduce_range(Load& load, typename Reduce::TempStorage* reduce_temp, const In* in, std::size_t n,
                            std::size_t first, std::size_t last, std::size_t block, Acc* partials, Op op) {
  // BEGIN TODO
  // TODO(student): fold the block's tiles into the range's total and publish it in partials.
  (void)load;
  (void)reduce_temp;
  (void)in;
  (void)n;
  (void)first;
  (void)last;
  (void)block;
  (void)partials;
  (void)op;
  return Op::identity();
  // END TODO
}
// --8<-- [end:reduce_range]

// Reduce-then-scan, phase 3 (scan): block `block` (as in phase 1) scans its tiles [first, last) of
// in into out, in order (inclusive or exclusive), each tile's results prefixed on the LEFT by
// everything left of that tile: partials[block] (the spine's exclusive prefix of the block's
// range) combined with the totals of the block's earlier tiles. The prefixed scans of BlockScan
// take that prefix from a callback (scanlab::RunningBlockPrefix carries a running total). The
// load and the store share their shared memory (int32 in, int64 out would not fit twice in the
// 48 KiB of static shared memory): barriers must order every reuse.
// --8<-- [start:scan_range]
template <class Policy, class Load, class Scan, class Store, class In, class Acc, class Op>
__device__ void scan_range(Load& load, Scan& scan, Store& store, const In* in, Acc* out, std::size_t n, bool inclusive,
                           std::size_t first, std::size_t last, std::size_t block, const Acc* partials, Op op) {
  // BEGIN TODO
  // TODO(student): scan the block's tiles in order, each seeded with everything to its left.
  (void)load;
  (void)scan;
  (void)store;
  (void)in;
  (void)out;
  (void)n;
  (void)inclusive;
  (void)first;
  (void)last;
  (void)block;
  (void)partials;
  (void)op;
  // END TODO
}
// --8<-- [end:scan_range]

}  // namespace ch05
