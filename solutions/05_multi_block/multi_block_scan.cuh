// Chapter 05, reference solution of exercises/05_multi_block/multi_block_scan.cuh: read that file
// for the teaching notes and the hints. The comments here say why the answers are written as they
// are.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>
#include <scanlab/block_scan.cuh>
#include <scanlab/trace.hpp>

#include "tiles.cuh"  // given: Policy, detail::load_tile, detail::SharedUnion

namespace ch05 {

// --8<-- [start:scan_tiles_kernel]
// load_tile pads the tile past n with the identity, so the block scan needs no bounds. The load
// and the store share shared memory: the scan's own barrier separates them, and a one-warp scan,
// which has none, gets one. Thread 0 publishes the tile's total.
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    scan_tiles_kernel(const In* in, typename Op::value_type* out, std::size_t n, std::size_t first_tile, bool inclusive,
                      typename Op::value_type* tile_sums, Op op, scanlab::TraceLog log, int level) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Store = scanlab::BlockStore<Acc, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Scan = scanlab::BlockScan<Acc, Policy::kBlockThreads, Policy::kItems>;
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
  detail::load_tile<Policy>(load, in, n, tile, items, Op::identity(), valid);
  SCANLAB_TRACE_BLOCK_ARRAY(log, "tile_in", level, in + begin, valid);
  if (inclusive) scan.inclusive_scan(items, op, tile_total);
  else scan.exclusive_scan(items, op, tile_total);
  if constexpr (Scan::kWarps == 1) __syncthreads();  // a one-warp scan has no barrier of its own
  if (valid == Policy::kTile) store.store(out + begin, items);
  else store.store(out + begin, items, valid);
  if (threadIdx.x == 0) tile_sums[tile] = tile_total;
  // END TODO
  SCANLAB_TRACE_BLOCK_ARRAY(log, "tile_scan", level, out + begin, valid);
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "tile_sum", level, &tile_total, 1);
}
// --8<-- [end:scan_tiles_kernel]

// --8<-- [start:uniform_add_kernel]
// Striped indices (k * kThreads + thread): in each iteration the block's threads touch
// consecutive elements. The tile's prefix is the LEFT operand.
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
  const Acc prefix = prefixes[tile];
  // Striped: in each iteration the block touches kThreads consecutive elements (coalesced).
#pragma unroll
  for (int k = 0; k < Policy::kItems; ++k) {
    const int i = k * Policy::kBlockThreads + static_cast<int>(threadIdx.x);
    if (i < valid) out[begin + i] = op(prefix, out[begin + i]);
  }
  // END TODO
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "add_prefix", level, prefixes + tile, 1);
  SCANLAB_TRACE_BLOCK_ARRAY(log, "uniform_add", level, out + begin, valid);
}
// --8<-- [end:uniform_add_kernel]

// --8<-- [start:reduce_kernel]
// A reduction per tile, folded left to right into range_total. The two reduce storages alternate
// with the tile's parity, so that the next tile's warp totals never overwrite ones still being read.
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    reduce_ranges_kernel(const In* in, std::size_t n, std::size_t tiles_per_block, std::size_t first_block,
                         typename Op::value_type* partials, Op op, scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Reduce = scanlab::BlockReduce<Acc, Policy::kBlockThreads, Policy::kItems>;
  __shared__ typename Load::TempStorage load_temp;
  __shared__ typename Reduce::TempStorage reduce_temp[2];

  const std::size_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  const std::size_t block = first_block + blockIdx.x;
  const std::size_t first = block * tiles_per_block;
  const std::size_t last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
  Load load(load_temp);
  Acc range_total = Op::identity();  // the total of the tiles so far
  // BEGIN TODO
  for (std::size_t tile = first; tile < last; ++tile) {
    Acc items[Policy::kItems];
    int valid;
    detail::load_tile<Policy>(load, in, n, tile, items, Op::identity(), valid);
    Reduce reduce(reduce_temp[(tile - first) & 1]);
    range_total = op(range_total, reduce.reduce(items, op));
  }
  if (threadIdx.x == 0) partials[block] = range_total;
  // END TODO
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "range_sum", 0, &range_total, 1);
}
// --8<-- [end:reduce_kernel]

// --8<-- [start:scan_ranges_kernel]
// RunningBlockPrefix starts at the spine's prefix partials[block] and adds each tile's total when
// the scan asks it for the tile's prefix, so every tile is seeded with everything left of it. The
// barrier at the top of each later tile: no thread loads the next tile into the shared memory that
// slower threads still store the previous one from.
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    scan_ranges_kernel(const In* in, typename Op::value_type* out, std::size_t n, bool inclusive,
                       std::size_t tiles_per_block, std::size_t first_block, const typename Op::value_type* partials,
                       Op op, scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Store = scanlab::BlockStore<Acc, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Scan = scanlab::BlockScan<Acc, Policy::kBlockThreads, Policy::kItems>;
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
  scanlab::RunningBlockPrefix<Acc, Op> running{partials[block], op};
  for (std::size_t tile = first; tile < last; ++tile) {
    if (tile > first) __syncthreads();  // everyone is done with the previous tile's shared memory
    Acc items[Policy::kItems];
    int valid;
    detail::load_tile<Policy>(load, in, n, tile, items, Op::identity(), valid);
    if (inclusive) scan.inclusive_scan_prefixed(items, op, running);
    else scan.exclusive_scan_prefixed(items, op, running);
    if constexpr (Scan::kWarps == 1) __syncthreads();
    const std::size_t begin = tile * Policy::kTile;
    if (valid == Policy::kTile) store.store(out + begin, items);
    else store.store(out + begin, items, valid);
    SCANLAB_TRACE_BLOCK_ARRAY(log, "range_scan", static_cast<int>(tile), out + begin, valid);
  }
  // END TODO
}
// --8<-- [end:scan_ranges_kernel]

}  // namespace ch05
