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
// Global data movement for n elements (the input read, the output written, the sums negligible):
//   scan-then-propagate  read n + write n (scan tiles) + read n + write n (uniform add)  = ~4n
//   reduce-then-scan     read n (reduce)  + read n + write n (scan with spine prefix)  = ~3n
// against 2n for a copy (and for chapter 07's single-pass scan). Memory-bound, so the time follows.
//
// Types: the input may be narrower than the result (int32 in, int64 sums: In != Op::value_type);
// every element is converted when loaded. Positions and counts are 64-bit (std::size_t) everywhere,
// so n > 2^31 works; in-place (d_out == d_in) works when In is the result type.
//
// Op is a monoid from <scanlab/monoid.hpp>; it need not be commutative: whatever lies further left
// (a tile's prefix, a block's spine value) is always the LEFT operand.
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
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>
#include <scanlab/block_scan.cuh>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/trace.hpp>

namespace ch05 {

// A tile: THREADS threads with ITEMS items each, moved with the given TileIo.
template <int THREADS, int ITEMS, scanlab::TileIo IO = scanlab::TileIo::transpose>
struct TilePolicy {
  static constexpr int kThreads = THREADS;
  static constexpr int kItems = ITEMS;
  static constexpr int kTile = THREADS * ITEMS;
  static constexpr scanlab::TileIo kIo = IO;
};

// 4096 items per tile: 256 threads x 16 (64 bytes of int32 per thread, four 16-byte vectors).
using LargeTiles = TilePolicy<256, 16>;
// 32 items per tile, one warp with one item per lane: many blocks and several recursion levels at
// small n, for pictures and for tests.
using WarpTiles = TilePolicy<32, 1>;
// The spine: one block of 1024 threads x 4.
using SpinePolicy = TilePolicy<1024, 4>;

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

// ---------------------------------------------------------------------------------------------
// Tile kernels shared by both algorithms
// ---------------------------------------------------------------------------------------------

namespace detail {

// Shared memory that the load and the store of a tile take turns with (a barrier between them).
template <class A, class B>
union SharedUnion {
  A first;
  B second;
};

template <class Acc, class In, int N>
__device__ __forceinline__ void convert(const In (&from)[N], Acc (&to)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) to[i] = static_cast<Acc>(from[i]);
}

// Loads tile `tile` of in[0, n) into items (converted to Acc), full or ragged.
template <class Policy, class In, class Acc, class Load>
__device__ __forceinline__ void load_tile(Load& load, const In* in, std::size_t n, std::size_t tile,
                                          Acc (&items)[Policy::kItems], Acc identity, int& valid) {
  const std::size_t begin = tile * Policy::kTile;
  const std::size_t left = n - begin;
  valid = left < static_cast<std::size_t>(Policy::kTile) ? static_cast<int>(left) : Policy::kTile;
  if constexpr (std::is_same_v<In, Acc>) {
    if (valid == Policy::kTile) load.load(in + begin, items);
    else load.load(in + begin, items, valid, identity);
  } else {
    In raw[Policy::kItems];
    if (valid == Policy::kTile) load.load(in + begin, raw);
    else load.load(in + begin, raw, valid, static_cast<In>(identity));
    convert(raw, items);
  }
}

}  // namespace detail

// Scan-then-propagate, phase 1: block b scans tile b on its own (inclusive or exclusive) into out
// and writes the tile's total to tile_sums[b].
// --8<-- [start:scan_tiles_kernel]
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kThreads)
    scan_tiles_kernel(const In* in, typename Op::value_type* out, std::size_t n, bool inclusive,
                      typename Op::value_type* tile_sums, Op op, scanlab::TraceLog log, int level) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kThreads, Policy::kItems, Policy::kIo>;
  using Store = scanlab::BlockStore<Acc, Policy::kThreads, Policy::kItems, Policy::kIo>;
  using Scan = scanlab::BlockScan<Acc, Policy::kThreads, Policy::kItems>;
  // The load's and the store's shared memory overlap: the scan's barriers separate their uses.
  __shared__ detail::SharedUnion<typename Load::TempStorage, typename Store::TempStorage> io_temp;
  __shared__ typename Scan::TempStorage scan_temp;

  const std::size_t tile = blockIdx.x;
  const std::size_t begin = tile * Policy::kTile;
  Acc items[Policy::kItems];
  int valid;
  Load load(io_temp.first);
  detail::load_tile<Policy>(load, in, n, tile, items, Op::identity(), valid);
  SCANLAB_TRACE_BLOCK_ARRAY(log, "tile_in", level, in + begin, valid);

  Acc tile_total;
  Scan scan(scan_temp);
  if (inclusive) scan.inclusive_scan(items, op, tile_total);
  else scan.exclusive_scan(items, op, tile_total);

  if constexpr (Scan::kWarps == 1) __syncthreads();  // a one-warp scan has no barrier of its own
  Store store(io_temp.second);
  if (valid == Policy::kTile) store.store(out + begin, items);
  else store.store(out + begin, items, valid);
  // BEGIN TODO
  // TODO(student): thread 0 writes the tile's total (tile_total) to tile_sums[tile]: phase 2
  //   scans these block sums.
  (void)tile_sums;
  // END TODO
  SCANLAB_TRACE_BLOCK_ARRAY(log, "tile_scan", level, out + begin, valid);
  if (threadIdx.x == 0) SCANLAB_TRACE_ARRAY(log, "tile_sum", level, &tile_total, 1);
}
// --8<-- [end:scan_tiles_kernel]

// Scan-then-propagate, phase 3: block b adds prefixes[b + 1] (the scanned block sum of tile b + 1:
// everything left of that tile) on the LEFT of every element of tile b + 1. Tile 0 has nothing on
// its left and is not touched.
// --8<-- [start:uniform_add_kernel]
template <class Policy, class Op>
__global__ void __launch_bounds__(Policy::kThreads)
    uniform_add_kernel(typename Op::value_type* out, std::size_t n, const typename Op::value_type* prefixes, Op op,
                       scanlab::TraceLog log, int level) {
  using Acc = typename Op::value_type;
  const std::size_t tile = static_cast<std::size_t>(blockIdx.x) + 1;
  const std::size_t begin = tile * Policy::kTile;
  const std::size_t left = n - begin;
  const int valid = left < static_cast<std::size_t>(Policy::kTile) ? static_cast<int>(left) : Policy::kTile;
  // BEGIN TODO
  // TODO(student): every element i < valid of this tile becomes op(prefix, out[begin + i]) with
  //   prefix = prefixes[tile] (everything left of the tile: the prefix is the LEFT operand).
  //   Let thread t take i = k * Policy::kThreads + t for k = 0 .. Policy::kItems - 1: in each
  //   iteration the block touches consecutive elements (coalesced).
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

// Phase 1 (reduce): block b owns tiles [b * tiles_per_block, (b + 1) * tiles_per_block) (the last
// block fewer) and writes the total of its range, in order, to partials[b]. Reads only.
// --8<-- [start:reduce_kernel]
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kThreads)
    reduce_ranges_kernel(const In* in, std::size_t n, std::size_t tiles_per_block,
                         typename Op::value_type* partials, Op op, scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kThreads, Policy::kItems, Policy::kIo>;
  using Reduce = scanlab::BlockReduce<Acc, Policy::kThreads, Policy::kItems>;
  __shared__ typename Load::TempStorage load_temp;
  // Two, used alternately: a tile's warp totals are still being read while faster threads already
  // write the next tile's.
  __shared__ typename Reduce::TempStorage reduce_temp[2];

  const std::size_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * tiles_per_block;
  const std::size_t last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
  Load load(load_temp);
  // BEGIN TODO
  // TODO(student): fold the block's tiles [first, last) in order into one value.
  //   range_total starts at Op::identity(). For each tile: Acc items[Policy::kItems]; int valid;
  //   detail::load_tile<Policy>(load, in, n, tile, items, Op::identity(), valid); then
  //   Reduce reduce(reduce_temp[(tile - first) & 1]) and range_total = op(range_total,
  //   reduce.reduce(items, op)). Thread 0 writes range_total to partials[blockIdx.x].
  Acc range_total = Op::identity();
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

// Phase 2 (spine): one block scans partials[0, count) exclusively, in place, tile after tile,
// carrying the running total from one tile to the next.
template <class Op>
__global__ void __launch_bounds__(SpinePolicy::kThreads)
    spine_exclusive_scan_kernel(typename Op::value_type* partials, std::size_t count, Op op,
                                scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Policy = SpinePolicy;
  using Scan = scanlab::BlockScan<Acc, Policy::kThreads, Policy::kItems>;
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

// Phase 3 (scan): block b scans its tiles in order, seeded with partials[b] (the spine's exclusive
// prefix of its range); warp 0 carries the running prefix from tile to tile.
// --8<-- [start:scan_ranges_kernel]
template <class Policy, class In, class Op>
__global__ void __launch_bounds__(Policy::kThreads)
    scan_ranges_kernel(const In* in, typename Op::value_type* out, std::size_t n, bool inclusive,
                       std::size_t tiles_per_block, const typename Op::value_type* partials, Op op,
                       scanlab::TraceLog log) {
  using Acc = typename Op::value_type;
  using Load = scanlab::BlockLoad<In, Policy::kThreads, Policy::kItems, Policy::kIo>;
  using Store = scanlab::BlockStore<Acc, Policy::kThreads, Policy::kItems, Policy::kIo>;
  using Scan = scanlab::BlockScan<Acc, Policy::kThreads, Policy::kItems>;
  // The load and the store share their shared memory (int32 in, int64 out would not fit twice in
  // the 48 KiB of static shared memory). Barriers order every reuse: the scan's own between load
  // and store (one more when a one-warp scan has none), and one at the top of each later tile.
  __shared__ detail::SharedUnion<typename Load::TempStorage, typename Store::TempStorage> io_temp;
  __shared__ typename Scan::TempStorage scan_temp;

  const std::size_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * tiles_per_block;
  const std::size_t last = first + tiles_per_block < tiles ? first + tiles_per_block : tiles;
  Load load(io_temp.first);
  Store store(io_temp.second);
  Scan scan(scan_temp);
  // BEGIN TODO
  // TODO(student): scan the block's tiles [first, last) in order, carrying the prefix.
  //   scanlab::RunningBlockPrefix<Acc, Op> running{partials[blockIdx.x], op} starts at the
  //   spine's value for this block; for each tile: __syncthreads() unless it is the first (the
  //   shared memory of the previous tile must be free), load it with detail::load_tile<Policy>,
  //   scan with scan.inclusive_scan_prefixed(items, op, running) (or exclusive_), add a
  //   __syncthreads() when Scan::kWarps == 1, and store it (full tile: store.store(out + begin,
  //   items); ragged: store.store(out + begin, items, valid)).
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
void scan_then_propagate_level(const In* d_in, typename Op::value_type* d_out, std::size_t n, bool inclusive,
                               Op op, typename Op::value_type* d_sums, cudaStream_t s, scanlab::TraceLog log,
                               int level) {
  // BEGIN TODO
  // TODO(student): the three phases of scan-then-propagate, recursively.
  //   tiles = detail::tiles_for(n, Policy::kTile); grid = detail::grid_for(tiles, "...").
  //   1. scan_tiles_kernel<Policy><<<grid, Policy::kThreads, 0, s>>>(d_in, d_out, n, inclusive,
  //      d_sums, op, log, level); SCANLAB_CHECK_LAUNCH(). One tile: done.
  //   2. scan the tile sums d_sums[0, tiles) EXCLUSIVELY in place with this same function one
  //      level up, its own sums at d_sums + tiles.
  //   3. uniform_add_kernel<Policy><<<grid - 1, Policy::kThreads, 0, s>>>(d_out, n, d_sums, op,
  //      log, level); SCANLAB_CHECK_LAUNCH().
  (void)d_in;
  (void)d_out;
  (void)n;
  (void)inclusive;
  (void)op;
  (void)d_sums;
  (void)s;
  (void)log;
  (void)level;
  // END TODO
}
// --8<-- [end:scan_then_propagate_levels]

template <class Policy = LargeTiles, class In, class Op>
void scan_then_propagate(const In* d_in, typename Op::value_type* d_out, std::size_t n, bool inclusive, Op op,
                         Scratch<typename Op::value_type>& scratch, cudaStream_t s = 0,
                         scanlab::TraceLog log = {}) {
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
  static const std::size_t device_blocks = [] {
    int device = 0;
    int sms = 0;
    int per_sm = 0;
    SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
    SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SCANLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scan_ranges_kernel<Policy, In, Op>,
                                                                     Policy::kThreads, 0));
    return static_cast<std::size_t>(std::max(sms, 1)) * static_cast<std::size_t>(std::max(per_sm, 1));
  }();
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
  reduce_ranges_kernel<Policy><<<blocks, Policy::kThreads, 0, s>>>(d_in, n, tiles_per_block, partials, op, log);
  SCANLAB_CHECK_LAUNCH();
  spine_exclusive_scan_kernel<<<1, SpinePolicy::kThreads, 0, s>>>(partials, static_cast<std::size_t>(blocks), op,
                                                                  log);
  SCANLAB_CHECK_LAUNCH();
  scan_ranges_kernel<Policy><<<blocks, Policy::kThreads, 0, s>>>(d_in, d_out, n, inclusive, tiles_per_block,
                                                                 partials, op, log);
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

}  // namespace ch05
