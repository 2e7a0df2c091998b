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
// Your code: the kernels below, the device side of both algorithms:
//   scan-then-propagate  scan_tiles_kernel (phase 1), uniform_add_kernel (phase 3)
//   reduce-then-scan     reduce_ranges_kernel (phase 1), scan_ranges_kernel (phase 3)
// Given, in chapters/05_multi_block/: tiles.cuh (Policy, detail::load_tile) and
// multi_block_scan_dispatch.cuh (the spine kernel, the recursion over the block sums, the grid
// sizes, scratch memory and the launches).
//
// Types: the input may be narrower than the result (int32 in, int64 sums: In != Op::value_type);
// every element is converted when loaded. Positions and counts are 64-bit (std::size_t) everywhere,
// so n > 2^31 works; in-place (out == in) works when In is the result type.
//
// Op is a monoid from <scanlab/monoid.hpp>; it need not be commutative: whatever lies further left
// (a tile's prefix, a block's spine value) is always the LEFT operand.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>
#include <scanlab/block_scan.cuh>
#include <scanlab/trace.hpp>

#include "tiles.cuh"  // given: Policy, detail::load_tile, detail::SharedUnion

namespace ch05 {

// Scan-then-propagate, phase 1: block b scans tile t = first_tile + b of in[0, n) on its own
// (inclusive or exclusive) into the same place of out and writes the tile's total to tile_sums[t];
// nothing else. (A launch covers the tiles [first_tile, first_tile + gridDim.x): a grid holds at
// most 2^31 - 1 blocks, and the grading runs only the last tiles of arrays past 2^31 elements.)
// load, scan and store are block-wide operations: every thread calls them.
// --8<-- [start:scan_tiles_kernel]
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    scan_tiles_kernel(const In* in, typename Op::value_type* out, std::size_t n, std::size_t first_tile, bool inclusive,
                      typename Op::value_type* tile_sums, Op op, scanlab::TraceLog log, int level) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Store = scanlab::BlockStore<Acc, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Scan = scanlab::BlockScan<Acc, Policy::kBlockThreads, Policy::kItems>;
  // The load's and the store's shared memory overlap: a barrier must come between the load and the
  // store. The block scan has its own, except with a single warp (Scan::kWarps == 1).
  __shared__ detail::SharedUnion<typename Load::TempStorage, typename Store::TempStorage> io_temp;
  __shared__ typename Scan::TempStorage scan_temp;

  Load load(io_temp.first);
  Store store(io_temp.second);
  Scan scan(scan_temp);

  const std::size_t tile = first_tile + blockIdx.x;
  const std::size_t begin = tile * Policy::kTile;
  Acc items[Policy::kItems];
  int valid;       // elements of this tile inside [0, n)
  Acc tile_total;  // the tile's total
  // BEGIN TODO
  // TODO(student): phase 1 for this tile: load it, scan it (inclusive or exclusive) with its
  //   total in tile_total, store it, and publish the total in tile_sums.
  (void)load;
  (void)store;
  (void)scan;
  (void)in;
  (void)out;
  (void)n;
  (void)inclusive;
  (void)tile_sums;
  (void)op;
  (void)begin;
  (void)items;
  valid = 0;
  tile_total = Op::identity();
  // END TODO
  SCANLAB_TRACE_BLOCK_ARRAY(log, "tile_scan", level, out + begin, valid);
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "tile_sum", level, &tile_total, 1);
}
// --8<-- [end:scan_tiles_kernel]

// Scan-then-propagate, phase 3: block b adds prefixes[t] (the scanned block sum of tile
// t = first_tile + b: everything left of that tile) on the LEFT of every element of tile t that
// lies inside [0, n). Tile 0 has nothing on its left: the launch starts at first_tile >= 1. One
// read and one write per element; the block's accesses should be coalesced (neighbouring threads,
// neighbouring elements).
// --8<-- [start:uniform_add_kernel]
template <class Policy, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    uniform_add_kernel(typename Op::value_type* out, std::size_t n, std::size_t first_tile,
                       const typename Op::value_type* prefixes, Op op, scanlab::TraceLog log, int level) {
  using Acc = typename Op::value_type;
  const std::size_t tile = first_tile + blockIdx.x;
  const std::size_t begin = tile * Policy::kTile;
  const std::size_t left = n - begin;
  const int valid = left < static_cast<std::size_t>(Policy::kTile) ? static_cast<int>(left) : Policy::kTile;
  // BEGIN TODO
  // TODO(student): the uniform add of phase 3 for the `valid` elements of this tile, from begin.
  (void)sizeof(Acc);
  (void)out;
  (void)prefixes;
  (void)op;
  (void)valid;
  // END TODO
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "add_prefix", level, prefixes + tile, 1);
  SCANLAB_TRACE_BLOCK_ARRAY(log, "uniform_add", level, out + begin, valid);
}
// --8<-- [end:uniform_add_kernel]

// ---------------------------------------------------------------------------------------------
// Reduce-then-scan
// ---------------------------------------------------------------------------------------------

// Reduce-then-scan, phase 1 (reduce): block b of the launch is block `block` = first_block + b of
// the scan (the dispatch launches them all, from first_block = 0; the grading runs only the last
// blocks of arrays past 2^31 elements). It owns tiles [first, last) =
// [block * tiles_per_block, (block + 1) * tiles_per_block) (the last block fewer) and writes the
// total of its range, in order, to partials[block]. Reads only. Every thread of the block takes
// part in every load and reduce (BlockReduce::reduce returns the tile's total to every thread).
// --8<-- [start:reduce_kernel]
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    reduce_ranges_kernel(const In* in, std::size_t n, std::size_t tiles_per_block, std::size_t first_block,
                         typename Op::value_type* partials, Op op, scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Reduce = scanlab::BlockReduce<Acc, Policy::kBlockThreads, Policy::kItems>;
  __shared__ typename Load::TempStorage load_temp;
  // Two, used alternately: a tile's warp totals are still being read while faster threads already
  // write the next tile's.
  __shared__ typename Reduce::TempStorage reduce_temp[2];

  const std::size_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  const std::size_t block = first_block + blockIdx.x;
  const std::size_t first = block * tiles_per_block;
  const std::size_t last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
  Load load(load_temp);
  Acc range_total = Op::identity();  // the total of the tiles so far
  // BEGIN TODO
  // TODO(student): fold the block's tiles into range_total and publish it in partials.
  (void)block;
  (void)reduce_temp;
  (void)range_total;
  (void)in;
  (void)n;
  (void)partials;
  (void)op;
  (void)first;
  (void)last;
  // END TODO
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "range_sum", 0, &range_total, 1);
}
// --8<-- [end:reduce_kernel]

// Reduce-then-scan, phase 3 (scan): block `block` (= first_block + b, as in phase 1) scans its
// tiles [first, last) of in into out, in order (inclusive or exclusive), each tile's results
// prefixed on the LEFT by everything left of that tile: partials[block] (the spine's exclusive
// prefix of the block's range) combined with the totals of the block's earlier tiles. The
// prefixed scans of BlockScan take that prefix from a callback (scanlab::RunningBlockPrefix
// carries a running total).
// --8<-- [start:scan_ranges_kernel]
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    scan_ranges_kernel(const In* in, typename Op::value_type* out, std::size_t n, bool inclusive,
                       std::size_t tiles_per_block, std::size_t first_block, const typename Op::value_type* partials,
                       Op op, scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Store = scanlab::BlockStore<Acc, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Scan = scanlab::BlockScan<Acc, Policy::kBlockThreads, Policy::kItems>;
  // The load and the store share their shared memory (int32 in, int64 out would not fit twice in
  // the 48 KiB of static shared memory). Barriers order every reuse: the scan's own between load
  // and store (one more when a one-warp scan has none), and one at the top of each later tile.
  __shared__ detail::SharedUnion<typename Load::TempStorage, typename Store::TempStorage> io_temp;
  __shared__ typename Scan::TempStorage scan_temp;

  const std::size_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  const std::size_t block = first_block + blockIdx.x;
  const std::size_t first = block * tiles_per_block;
  const std::size_t last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
  Load load(io_temp.first);
  Store store(io_temp.second);
  Scan scan(scan_temp);
  // BEGIN TODO
  // TODO(student): scan the block's tiles in order, each seeded with everything to its left.
  (void)block;
  (void)log;
  (void)in;
  (void)out;
  (void)inclusive;
  (void)partials;
  (void)op;
  (void)first;
  (void)last;
  (void)load;
  (void)store;
  (void)scan;
  // END TODO
}
// --8<-- [end:scan_ranges_kernel]

}  // namespace ch05
