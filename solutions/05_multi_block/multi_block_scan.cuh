// Chapter 05, reference solution of exercises/05_multi_block/multi_block_scan.cuh: read that file
// for the teaching notes and the hints. The comments here say why the answers are written as they
// are.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>
#include <scanlab/block_scan.cuh>

#include "tiles.cuh"  // given: Policy, detail::load_tile

namespace ch05 {

// --8<-- [start:scan_tile]
// load_tile pads the tile past n with the identity, so the block scan needs no bounds. The scan's
// own barrier separates the load from the store; a one-warp scan, which has none, gets one. Thread
// 0 publishes the tile's total.
template <class Policy, class Load, class Scan, class Store, class In, class Acc, class Op>
__device__ Acc scan_tile(Load& load, Scan& scan, Store& store, const In* in, Acc* out, std::size_t n, std::size_t tile,
                         bool inclusive, Acc* tile_sums, Op op) {
  // BEGIN TODO
  Acc items[Policy::kItems];
  int valid;  // elements of this tile inside [0, n)
  detail::load_tile<Policy>(load, in, n, tile, items, Op::identity(), valid);
  Acc tile_total;
  if (inclusive) scan.inclusive_scan(items, op, tile_total);
  else scan.exclusive_scan(items, op, tile_total);
  if constexpr (Scan::kWarps == 1) __syncthreads();  // a one-warp scan has no barrier of its own
  const std::size_t begin = tile * Policy::kTile;
  if (valid == Policy::kTile) store.store(out + begin, items);
  else store.store(out + begin, items, valid);
  if (threadIdx.x == 0) tile_sums[tile] = tile_total;
  return tile_total;
  // END TODO
}
// --8<-- [end:scan_tile]

// --8<-- [start:uniform_add_tile]
// Striped indices (k * kBlockThreads + thread): in each iteration the block's threads touch
// consecutive elements. The tile's prefix is the LEFT operand.
template <class Policy, class Acc, class Op>
__device__ void uniform_add_tile(Acc* out, std::size_t tile, int valid, const Acc* prefixes, Op op) {
  // BEGIN TODO
  const Acc prefix = prefixes[tile];
  const std::size_t begin = tile * Policy::kTile;
#pragma unroll
  for (int k = 0; k < Policy::kItems; ++k) {
    const int i = k * Policy::kBlockThreads + static_cast<int>(threadIdx.x);
    if (i < valid) out[begin + i] = op(prefix, out[begin + i]);
  }
  // END TODO
}
// --8<-- [end:uniform_add_tile]

// --8<-- [start:reduce_range]
// A reduction per tile, folded left to right into range_total. The two reduce storages alternate
// with the tile's parity, so that the next tile's warp totals never overwrite ones still being read.
template <class Policy, class Reduce, class Load, class In, class Acc, class Op>
__device__ Acc reduce_range(Load& load, typename Reduce::TempStorage* reduce_temp, const In* in, std::size_t n,
                            std::size_t first, std::size_t last, std::size_t block, Acc* partials, Op op) {
  // BEGIN TODO
  Acc range_total = Op::identity();  // the total of the tiles so far
  for (std::size_t tile = first; tile < last; ++tile) {
    Acc items[Policy::kItems];
    int valid;
    detail::load_tile<Policy>(load, in, n, tile, items, Op::identity(), valid);
    Reduce reduce(reduce_temp[(tile - first) & 1]);
    range_total = op(range_total, reduce.reduce(items, op));
  }
  if (threadIdx.x == 0) partials[block] = range_total;
  return range_total;
  // END TODO
}
// --8<-- [end:reduce_range]

// --8<-- [start:scan_range]
// RunningBlockPrefix starts at the spine's prefix partials[block] and adds each tile's total when
// the scan asks it for the tile's prefix, so every tile is seeded with everything left of it. The
// barrier at the top of each later tile: no thread loads the next tile into the shared memory that
// slower threads still store the previous one from.
template <class Policy, class Load, class Scan, class Store, class In, class Acc, class Op>
__device__ void scan_range(Load& load, Scan& scan, Store& store, const In* in, Acc* out, std::size_t n, bool inclusive,
                           std::size_t first, std::size_t last, std::size_t block, const Acc* partials, Op op) {
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
  }
  // END TODO
}
// --8<-- [end:scan_range]

}  // namespace ch05
