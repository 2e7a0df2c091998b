// Chapter 05, given: the kernels of both multi-block scans, the spine kernel and the host side.
// Your code, what one block does in each phase, is in multi_block_scan.cuh
// (exercises/05_multi_block/, or solutions/ for the reference build); the kernels here make the
// shared memory and the block's collectives it works with, say which tile or range of tiles the
// block owns, and record the traces (CUB's agent and dispatch split). Nothing here needs changing.
//
//   scan_then_propagate  scan_tiles_kernel (scan_tile), then the block sums scanned by the same
//                        function one level up (recursively, until they fit one tile), then
//                        uniform_add_kernel (uniform_add_tile)
//   reduce_then_scan     reduce_ranges_kernel (reduce_range), spine_exclusive_scan_kernel,
//                        scan_ranges_kernel (scan_range)
//
// Global data movement for n elements (the input read, the output written, the sums negligible):
//   scan-then-propagate  read n + write n (scan tiles) + read n + write n (uniform add)  = ~4n
//   reduce-then-scan     read n (reduce)  + read n + write n (scan with spine prefix)  = ~3n
// against 2n for a copy (and for chapter 07's single-pass scan). Memory-bound, so the time follows.
//
// Tracing (traced builds, -DSCANLAB_TRACE; see book/docs/traces.md), per recursion level `step`:
//   scan-then-propagate  "tile_in" (a tile's input), "tile_scan" (the tile scanned on its own),
//                        "tile_sum" (its total, 1 value), "uniform_add" (the tile after the add)
//                        and "add_prefix" (the value added, 1 value; both recorded by block b
//                        of the add kernel, which handles tile b + 1). Level 1's tiles are
//                        level 0's block sums, so level 1's "tile_in" is the block-sum array and
//                        its final values are the scanned sums.
//   reduce-then-scan     "range_sum" (a block's reduction, 1 value, step 0), "spine" (the
//                        scanned block totals, step 1), "range_scan" (each tile after the scan,
//                        step = the tile's index).
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>
#include <scanlab/block_scan.cuh>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/trace.hpp>

#include "multi_block_scan.cuh"

namespace ch05 {

// The spine: one block of 1024 threads x 4.
using SpinePolicy = Policy<1024, 4>;

// Device memory for block sums / partials, reused from call to call (it grows, never shrinks).
template <class Acc>
class Scratch {
 public:
  Acc* reserve(std::size_t elems) {
    if (buffer_.size() < elems) buffer_ = scanlab::DeviceBuffer<Acc>(elems);
    return buffer_.data();
  }

 private:
  scanlab::DeviceBuffer<Acc> buffer_;
};

// Reduce-then-scan, phase 2 (spine): one block scans partials[0, count) exclusively, in place,
// tile after tile, carrying the running total from one tile to the next.
template <class Op>
__global__ void __launch_bounds__(SpinePolicy::kBlockThreads)
    spine_exclusive_scan_kernel(typename Op::value_type* partials, std::size_t count, Op op, scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Policy = SpinePolicy;
  using Scan = scanlab::BlockScan<Acc, Policy::kBlockThreads, Policy::kItems>;
  __shared__ typename Scan::TempStorage scan_temp;
  scanlab::RunningBlockPrefix<Acc, Op> running{Op::identity(), op};
  const std::size_t tiles = (count + Policy::kTile - 1) / Policy::kTile;
  for (std::size_t tile = 0; tile < tiles; ++tile) {
    Acc items[Policy::kItems];
    const std::size_t begin = tile * Policy::kTile;
    const std::size_t left = count - begin;
    const int valid = left < static_cast<std::size_t>(Policy::kTile) ? static_cast<int>(left) : Policy::kTile;
    scanlab::load_blocked_direct(partials + begin, items, valid, Op::identity());
    if (tile > 0) __syncthreads();  // the previous tile's scan_temp readers are done
    Scan(scan_temp).exclusive_scan_prefixed(items, op, running);
    scanlab::store_blocked_direct(partials + begin, items, valid);
  }
  SCANLAB_TRACE_BLOCK_ARRAY(log, "spine", 1, partials, static_cast<int>(count));
}

// ---------------------------------------------------------------------------------------------
// The tile kernels around your code: shared memory, the block's collectives, its tile or range
// ---------------------------------------------------------------------------------------------

// Scan-then-propagate, phase 1: block b scans tile first_tile + b (scan_tile).
// --8<-- [start:scan_tiles_kernel]
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    scan_tiles_kernel(const In* in, typename Op::value_type* out, std::size_t n, std::size_t first_tile, bool inclusive,
                      typename Op::value_type* tile_sums, Op op, scanlab::TraceLog log, int level) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Store = scanlab::BlockStore<Acc, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Scan = scanlab::BlockScan<Acc, Policy::kBlockThreads, Policy::kItems>;
  // The load and the store take turns with the same shared memory.
  __shared__ detail::SharedUnion<typename Load::TempStorage, typename Store::TempStorage> io_temp;
  __shared__ typename Scan::TempStorage scan_temp;
  Load load(io_temp.first);
  Store store(io_temp.second);
  Scan scan(scan_temp);

  const std::size_t tile = first_tile + blockIdx.x;
  const std::size_t begin = tile * Policy::kTile;
  const int valid = detail::valid_in_tile<Policy>(n, tile);
  SCANLAB_TRACE_BLOCK_ARRAY(log, "tile_in", level, in + begin, valid);
  const Acc tile_total = scan_tile<Policy>(load, scan, store, in, out, n, tile, inclusive, tile_sums, op);
  SCANLAB_TRACE_BLOCK_ARRAY(log, "tile_scan", level, out + begin, valid);
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "tile_sum", level, &tile_total, 1);
}
// --8<-- [end:scan_tiles_kernel]

// Scan-then-propagate, phase 3: block b adds the scanned block sum of tile first_tile + b
// (uniform_add_tile); first_tile >= 1.
template <class Policy, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    uniform_add_kernel(typename Op::value_type* out, std::size_t n, std::size_t first_tile,
                       const typename Op::value_type* prefixes, Op op, scanlab::TraceLog log, int level) {
  const std::size_t tile = first_tile + blockIdx.x;
  const int valid = detail::valid_in_tile<Policy>(n, tile);
  uniform_add_tile<Policy>(out, tile, valid, prefixes, op);
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "add_prefix", level, prefixes + tile, 1);
  SCANLAB_TRACE_BLOCK_ARRAY(log, "uniform_add", level, out + tile * Policy::kTile, valid);
}

// Reduce-then-scan, phases 1 and 3: block b of the launch is block first_block + b of the scan
// (the dispatch launches them all, from first_block = 0; the grading runs only the last blocks of
// arrays past 2^31 elements), and owns tiles_per_block tiles from block * tiles_per_block on.
template <class Policy>
__device__ __forceinline__ void range_of_block(std::size_t n, std::size_t tiles_per_block, std::size_t block,
                                               std::size_t& first, std::size_t& last) {
  const std::size_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  first = block * tiles_per_block;
  last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
}

template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kBlockThreads)
    reduce_ranges_kernel(const In* in, std::size_t n, std::size_t tiles_per_block, std::size_t first_block,
                         typename Op::value_type* partials, Op op, scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kBlockThreads, Policy::kItems, Policy::kIo>;
  using Reduce = scanlab::BlockReduce<Acc, Policy::kBlockThreads, Policy::kItems>;
  __shared__ typename Load::TempStorage load_temp;
  __shared__ typename Reduce::TempStorage reduce_temp[2];  // used alternately, tile after tile
  Load load(load_temp);

  const std::size_t block = first_block + blockIdx.x;
  std::size_t first, last;
  range_of_block<Policy>(n, tiles_per_block, block, first, last);
  const Acc range_total = reduce_range<Policy, Reduce>(load, reduce_temp, in, n, first, last, block, partials, op);
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "range_sum", 0, &range_total, 1);
}

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
  // the 48 KiB of static shared memory).
  __shared__ detail::SharedUnion<typename Load::TempStorage, typename Store::TempStorage> io_temp;
  __shared__ typename Scan::TempStorage scan_temp;
  Load load(io_temp.first);
  Store store(io_temp.second);
  Scan scan(scan_temp);

  const std::size_t block = first_block + blockIdx.x;
  std::size_t first, last;
  range_of_block<Policy>(n, tiles_per_block, block, first, last);
  scan_range<Policy>(load, scan, store, in, out, n, inclusive, first, last, block, partials, op);
  if constexpr (scanlab::trace_enabled()) {  // each tile as scanned: final once scan_range returns
    for (std::size_t tile = first; tile < last; ++tile) {
      SCANLAB_TRACE_BLOCK_ARRAY(log, "range_scan", static_cast<int>(tile), out + tile * Policy::kTile,
                                detail::valid_in_tile<Policy>(n, tile));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

namespace detail {

inline std::size_t tiles_for(std::size_t n, std::size_t tile) { return (n + tile - 1) / tile; }

inline unsigned grid_for(std::size_t blocks, const char* who) {
  if (blocks > 0x7fffffffu) {
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(blocks) +
                                " blocks are more than a grid holds (2^31 - 1); use larger tiles");
  }
  return static_cast<unsigned>(blocks);
}

// Block sums of every recursion level, one after the other: ceil(n / T) + ceil(n / T^2) + ...
// down to the level that fits one tile.
template <class Policy>
std::size_t scan_then_propagate_scratch_elems(std::size_t n) {
  std::size_t total = 0;
  for (std::size_t level_n = n; level_n > 0;) {
    const std::size_t tiles = tiles_for(level_n, Policy::kTile);
    total += tiles;
    if (tiles <= 1) break;
    level_n = tiles;
  }
  return total;
}

}  // namespace detail

// Scan-then-propagate of in[0, n) into out (inclusive or exclusive), recursively over the block
// sums; sums points at scratch for detail::scan_then_propagate_scratch_elems<Policy>(n) values.
// --8<-- [start:scan_then_propagate_levels]
template <class Policy, class In, class Op>
void scan_then_propagate_level(const In* d_in, typename Op::value_type* d_out, std::size_t n, bool inclusive, Op op,
                               typename Op::value_type* d_sums, cudaStream_t s, scanlab::TraceLog log, int level) {
  if (n == 0) return;
  const std::size_t tiles = detail::tiles_for(n, Policy::kTile);
  const unsigned grid = detail::grid_for(tiles, "ch05::scan_then_propagate");
  // 1. Every tile on its own; tile b's total goes to d_sums[b].
  scan_tiles_kernel<Policy>
      <<<grid, Policy::kBlockThreads, 0, s>>>(d_in, d_out, n, 0, inclusive, d_sums, op, log, level);
  SCANLAB_CHECK_LAUNCH();
  if (tiles == 1) return;  // one tile: its own scan is the answer
  // 2. The block sums, scanned exclusively in place: d_sums[b] becomes everything left of tile b.
  //    The same function one level up; its own sums go right after these.
  scan_then_propagate_level<Policy>(d_sums, d_sums, tiles, /*inclusive=*/false, op, d_sums + tiles, s, log, level + 1);
  // 3. Add d_sums[b] on the left of every element of tile b >= 1.
  uniform_add_kernel<Policy><<<grid - 1, Policy::kBlockThreads, 0, s>>>(d_out, n, 1, d_sums, op, log, level);
  SCANLAB_CHECK_LAUNCH();
}
// --8<-- [end:scan_then_propagate_levels]

template <class Policy = LargeTiles, class In, class Op>
void scan_then_propagate(const In* d_in, typename Op::value_type* d_out, std::size_t n, bool inclusive, Op op,
                         Scratch<typename Op::value_type>& scratch, cudaStream_t s = 0, scanlab::TraceLog log = {}) {
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch05::scan_then_propagate");
  auto* sums = scratch.reserve(detail::scan_then_propagate_scratch_elems<Policy>(n));
  scan_then_propagate_level<Policy>(d_in, d_out, n, inclusive, op, sums, s, log, 0);
}

// As above with scratch memory of its own (allocated and freed on every call).
template <class Policy = LargeTiles, class In, class Op>
void scan_then_propagate(const In* d_in, typename Op::value_type* d_out, std::size_t n, bool inclusive, Op op,
                         cudaStream_t s = 0, scanlab::TraceLog log = {}) {
  Scratch<typename Op::value_type> scratch;
  scan_then_propagate<Policy>(d_in, d_out, n, inclusive, op, scratch, s, log);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));  // the scratch is freed on return
}

// How many blocks reduce-then-scan uses for n elements: enough to fill the device (every SM with
// as many blocks as fit), never more than there are tiles, at most max_blocks when that is > 0.
// The device's answer is asked once per kernel type (per process, for the current device at that
// time): the host calls cost microseconds, which a timed scan of 2^16 elements would notice.
template <class Policy, class In, class Op>
unsigned reduce_then_scan_blocks(std::size_t n, unsigned max_blocks = 0) {
  const std::size_t tiles = detail::tiles_for(n, Policy::kTile);
  static const std::size_t device_blocks =
      std::max<std::size_t>(1, scanlab::resident_blocks(scan_ranges_kernel<Policy, In, Op>, Policy::kBlockThreads));
  std::size_t blocks = device_blocks;
  if (max_blocks > 0) blocks = std::min<std::size_t>(blocks, max_blocks);
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(blocks, tiles)));
}

// Reduce-then-scan of in[0, n) into out. max_blocks > 0 caps the grid (tests use it to give every
// block several tiles).
// --8<-- [start:reduce_then_scan]
template <class Policy = LargeTiles, class In, class Op>
void reduce_then_scan(const In* d_in, typename Op::value_type* d_out, std::size_t n, bool inclusive, Op op,
                      Scratch<typename Op::value_type>& scratch, cudaStream_t s = 0, unsigned max_blocks = 0,
                      scanlab::TraceLog log = {}) {
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch05::reduce_then_scan");
  const std::size_t tiles = detail::tiles_for(n, Policy::kTile);
  unsigned blocks = reduce_then_scan_blocks<Policy, In, Op>(n, max_blocks);
  // Whole tiles per block; the grid shrinks so that no block is left without a tile.
  const std::size_t tiles_per_block = detail::tiles_for(tiles, blocks);
  blocks = static_cast<unsigned>(detail::tiles_for(tiles, tiles_per_block));
  auto* partials = scratch.reserve(blocks);
  reduce_ranges_kernel<Policy><<<blocks, Policy::kBlockThreads, 0, s>>>(d_in, n, tiles_per_block, 0, partials, op, log);
  SCANLAB_CHECK_LAUNCH();
  spine_exclusive_scan_kernel<<<1, SpinePolicy::kBlockThreads, 0, s>>>(partials, static_cast<std::size_t>(blocks), op,
                                                                       log);
  SCANLAB_CHECK_LAUNCH();
  scan_ranges_kernel<Policy>
      <<<blocks, Policy::kBlockThreads, 0, s>>>(d_in, d_out, n, inclusive, tiles_per_block, 0, partials, op, log);
  SCANLAB_CHECK_LAUNCH();
}
// --8<-- [end:reduce_then_scan]

template <class Policy = LargeTiles, class In, class Op>
void reduce_then_scan(const In* d_in, typename Op::value_type* d_out, std::size_t n, bool inclusive, Op op,
                      cudaStream_t s = 0, unsigned max_blocks = 0, scanlab::TraceLog log = {}) {
  Scratch<typename Op::value_type> scratch;
  reduce_then_scan<Policy>(d_in, d_out, n, inclusive, op, scratch, s, max_blocks, log);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));  // the scratch is freed on return
}

// ---------------------------------------------------------------------------------------------
// The phases one at a time, from a later tile or block on
// ---------------------------------------------------------------------------------------------
// Each launches one phase over the tiles [first_tile, ceil(n / tile)) (or the blocks
// [first_block, blocks)) only: elements before the first of them are neither read nor written, so
// d_in and d_out need only be valid from there on, and the sums or partials from index first_tile
// (first_block) on. The grading runs the last tiles of arrays past 2^31 elements with them.

template <class Policy, class In, class Op>
void scan_tiles_from(const In* d_in, typename Op::value_type* d_out, std::size_t n, std::size_t first_tile,
                     bool inclusive, typename Op::value_type* d_sums, Op op, cudaStream_t s = 0) {
  const std::size_t tiles = detail::tiles_for(n, Policy::kTile);
  if (first_tile >= tiles) return;
  const unsigned grid = detail::grid_for(tiles - first_tile, "ch05::scan_tiles_from");
  scan_tiles_kernel<Policy><<<grid, Policy::kBlockThreads, 0, s>>>(d_in, d_out, n, first_tile, inclusive, d_sums, op,
                                                                   scanlab::TraceLog{}, 0);
  SCANLAB_CHECK_LAUNCH();
}

// first_tile >= 1: tile 0 has nothing on its left.
template <class Policy, class Op>
void uniform_add_from(typename Op::value_type* d_out, std::size_t n, std::size_t first_tile,
                      const typename Op::value_type* d_prefixes, Op op, cudaStream_t s = 0) {
  if (first_tile == 0) throw std::invalid_argument("ch05::uniform_add_from: tile 0 has nothing to add");
  const std::size_t tiles = detail::tiles_for(n, Policy::kTile);
  if (first_tile >= tiles) return;
  const unsigned grid = detail::grid_for(tiles - first_tile, "ch05::uniform_add_from");
  uniform_add_kernel<Policy>
      <<<grid, Policy::kBlockThreads, 0, s>>>(d_out, n, first_tile, d_prefixes, op, scanlab::TraceLog{}, 0);
  SCANLAB_CHECK_LAUNCH();
}

// Blocks of tiles_per_block tiles each (the last one fewer).
template <class Policy, class In, class Op>
void reduce_ranges_from(const In* d_in, std::size_t n, std::size_t tiles_per_block, std::size_t first_block,
                        typename Op::value_type* d_partials, Op op, cudaStream_t s = 0) {
  const std::size_t blocks = detail::tiles_for(detail::tiles_for(n, Policy::kTile), tiles_per_block);
  if (first_block >= blocks) return;
  const unsigned grid = detail::grid_for(blocks - first_block, "ch05::reduce_ranges_from");
  reduce_ranges_kernel<Policy><<<grid, Policy::kBlockThreads, 0, s>>>(d_in, n, tiles_per_block, first_block, d_partials,
                                                                      op, scanlab::TraceLog{});
  SCANLAB_CHECK_LAUNCH();
}

template <class Policy, class In, class Op>
void scan_ranges_from(const In* d_in, typename Op::value_type* d_out, std::size_t n, bool inclusive,
                      std::size_t tiles_per_block, std::size_t first_block, const typename Op::value_type* d_partials,
                      Op op, cudaStream_t s = 0) {
  const std::size_t blocks = detail::tiles_for(detail::tiles_for(n, Policy::kTile), tiles_per_block);
  if (first_block >= blocks) return;
  const unsigned grid = detail::grid_for(blocks - first_block, "ch05::scan_ranges_from");
  scan_ranges_kernel<Policy><<<grid, Policy::kBlockThreads, 0, s>>>(d_in, d_out, n, inclusive, tiles_per_block,
                                                                    first_block, d_partials, op, scanlab::TraceLog{});
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch05
