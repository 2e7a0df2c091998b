// Chapter 04: warp-shuffle scans, a block scan built from warp scans, and items per thread.
//
// Builds on: Kogge and Stone (1973), the minimum-depth scan network, run inside a warp with
// __shfl_up_sync (Merrill and Garland, NVR-2016-002, section 3: warp-synchronous Kogge-Stone scans
// are the GPU's usual innermost building block); the block scan from warp scans of CUB's
// BLOCK_SCAN_WARP_SCANS; and GPU Gems 3, ch. 39.2.5: each thread loads several elements with wide
// (16-byte) loads and scans them sequentially in registers, so that only one value per thread takes
// part in the parallel scan (Brent's theorem).
//
// Three constructions, each scanning independent tiles (chapter 05 joins the tiles into one scan):
//   warp   32 values per tile, one per lane:            5 steps, 129 combines (sequential: 31)
//   block  one value per thread, P threads:              warp scans (5 steps), warp totals through
//          shared memory, one warp scans them (5 steps), every thread adds its warp's prefix:
//          ~4P + 129 combines, 2 barriers
//   items  I values per thread, P threads, tile N = P*I: sequential reduce (I - 1 steps), the block
//          scan of the P thread totals, sequential rescan seeded with the thread's prefix (I steps):
//          ~2N + 4P combines, depth ~2I + 11, 2 barriers
//
// Op is a monoid from <scanlab/monoid.hpp>; it need not be commutative: the value from further
// left is always the LEFT operand. Blocks are 1-D with a multiple of 32 threads.
//
// The same constructions, with CUB-style TempStorage and prefix callbacks for multi-block scans,
// live in common/include/scanlab/{warp_scan,block_scan,block_load_store}.cuh; chapter 05 onwards
// uses those.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>
#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/warp_scan.cuh>

namespace ch04 {

constexpr int kWarp = 32;
constexpr int kMaxWarps = 32;  // 1024 threads

// The tile sizes of the items-per-thread scan and the (threads, items per thread) behind each.
constexpr int kItemsTiles[] = {1024, 2048, 4096, 8192};

// Threads per block of the one-value-per-thread block scan.
constexpr int kBlockScanThreads = 1024;

// ---------------------------------------------------------------------------------------------
// Device building blocks
// ---------------------------------------------------------------------------------------------

// Inclusive scan across the 32 lanes of a warp: lane i returns x_0 op ... op x_i.
// Kogge-Stone: for d = 1, 2, 4, 8, 16, every lane receives the value of the lane d below it
// (scanlab::warp_shuffle_up, a __shfl_up_sync for any type) and, when lane >= d, combines it on the
// LEFT. Every lane must call it.
// --8<-- [start:warp_inclusive]
template <class T, class Op>
__device__ T warp_kogge_stone_inclusive_scan(T x, Op op) {
  // BEGIN TODO
  const int lane = scanlab::lane_id();
  for (int d = 1; d < kWarp; d *= 2) {
    const T left = scanlab::warp_shuffle_up(x, static_cast<unsigned>(d));
    if (lane >= d) x = op(left, x);
  }
  return x;
  // END TODO
}
// --8<-- [end:warp_inclusive]

// Exclusive scan across the warp: lane 0 returns Op::identity(), lane i > 0 returns
// x_0 op ... op x_{i-1}; warp_total receives x_0 op ... op x_31 in every lane.
// The inclusive scan shifted up one lane. ("inclusive minus x" would need an inverse, which max
// and affine maps do not have.)
// --8<-- [start:warp_exclusive]
template <class T, class Op>
__device__ T warp_kogge_stone_exclusive_scan(T x, Op op, T& warp_total) {
  // BEGIN TODO
  const T inclusive = warp_kogge_stone_inclusive_scan(x, op);
  warp_total = scanlab::warp_shuffle(inclusive, kWarp - 1);
  const T shifted = scanlab::warp_shuffle_up(inclusive, 1u);
  return scanlab::lane_id() == 0 ? Op::identity() : shifted;
  // END TODO
}
// --8<-- [end:warp_exclusive]

// Exclusive scan of one value per thread across the whole block, in thread order. Returns this
// thread's exclusive prefix (the identity in thread 0); block_total receives the block's total in
// every thread. `warp_totals` is shared memory for kMaxWarps + 1 values. Every thread of the block
// must call it (it has two barriers); call it once per kernel (a second call would overwrite
// warp_totals while slower threads still read them).
//
//   1. each warp scans its 32 values (warp_kogge_stone_exclusive_scan);
//   2. lane 31 writes its warp's total, x_lane31 combined on the right of its exclusive prefix,
//      into warp_totals[warp]; __syncthreads();
//   3. warp 0 scans warp_totals[0 .. warps) (lanes past the last warp hold the identity), writes
//      each warp's exclusive prefix back to warp_totals[warp] and the block total to
//      warp_totals[kMaxWarps]; __syncthreads();
//   4. every thread combines its warp's prefix on the LEFT of its own exclusive prefix.
// --8<-- [start:block_exclusive]
template <class T, class Op>
__device__ T block_exclusive_scan_from_warps(T x, T* warp_totals, Op op, T& block_total) {
  // BEGIN TODO
  const int lane = scanlab::lane_id();
  const int warp = scanlab::warp_id();
  const int warps = static_cast<int>(blockDim.x) / kWarp;

  T warp_total;
  const T lane_prefix = warp_kogge_stone_exclusive_scan(x, op, warp_total);
  if (lane == kWarp - 1) warp_totals[warp] = op(lane_prefix, x);
  __syncthreads();

  if (warp == 0) {
    const T total_of_warp = lane < warps ? warp_totals[lane] : Op::identity();
    T all;
    const T warp_prefix = warp_kogge_stone_exclusive_scan(total_of_warp, op, all);
    if (lane < warps) warp_totals[lane] = warp_prefix;
    if (lane == 0) warp_totals[kMaxWarps] = all;
  }
  __syncthreads();

  block_total = warp_totals[kMaxWarps];
  return lane == 0 ? warp_totals[warp] : op(warp_totals[warp], lane_prefix);
  // END TODO
}
// --8<-- [end:block_exclusive]

// Scan of ITEMS values per thread, the block's tile in the blocked arrangement (thread t holds
// tile items [t * ITEMS, (t + 1) * ITEMS)), in place: inclusive or exclusive. block_total receives
// the tile's total in every thread. Same rules as block_exclusive_scan_from_warps.
//
//   1. fold the thread's ITEMS values sequentially into its total (ITEMS - 1 combines);
//   2. block_exclusive_scan_from_warps of the thread totals gives each thread the combination of everything
//      to its left in the tile;
//   3. rescan the ITEMS values sequentially, seeded with that prefix on the left.
// --8<-- [start:block_items]
template <bool INCLUSIVE, int ITEMS, class T, class Op>
__device__ void block_scan_items(T (&items)[ITEMS], T* warp_totals, Op op, T& block_total) {
  // BEGIN TODO
  T thread_total = items[0];
#pragma unroll
  for (int i = 1; i < ITEMS; ++i) thread_total = op(thread_total, items[i]);

  T running = block_exclusive_scan_from_warps(thread_total, warp_totals, op, block_total);

#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const T x = items[i];
    if constexpr (INCLUSIVE) {
      running = op(running, x);
      items[i] = running;
    } else {
      items[i] = running;
      running = op(running, x);
    }
  }
  // END TODO
}
// --8<-- [end:block_items]

// ---------------------------------------------------------------------------------------------
// Kernels: each block scans independent tiles
// ---------------------------------------------------------------------------------------------

// Warp tiles: warp w of the grid scans elements [32 w, 32 w + 32); lanes past n hold the identity
// and store nothing.
// --8<-- [start:warp_kernel]
template <bool INCLUSIVE, class T, class Op>
__global__ void warp_scan_tiles_kernel(const T* in, T* out, std::size_t n, Op op) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const T x = i < n ? in[i] : Op::identity();
  T result;
  if constexpr (INCLUSIVE) {
    result = warp_kogge_stone_inclusive_scan(x, op);
  } else {
    T warp_total;
    result = warp_kogge_stone_exclusive_scan(x, op, warp_total);
  }
  if (i < n) out[i] = result;
}
// --8<-- [end:warp_kernel]

// Block tiles of blockDim.x values, one per thread.
template <bool INCLUSIVE, class T, class Op>
__global__ void block_scan_tiles_kernel(const T* in, T* out, std::size_t n, Op op) {
  __shared__ T warp_totals[kMaxWarps + 1];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const T x = i < n ? in[i] : Op::identity();
  T block_total;
  const T exclusive = block_exclusive_scan_from_warps(x, warp_totals, op, block_total);
  if (i < n) out[i] = INCLUSIVE ? op(exclusive, x) : exclusive;
}

// Tiles of BLOCK_THREADS * ITEMS values. A full tile moves through 16-byte vector loads and
// stores (scanlab::load_blocked_direct: each thread reads its ITEMS consecutive values as
// ITEMS * sizeof(T) / 16 vectors when the tile is 16-byte aligned); the ragged last tile loads
// element by element, padding with the identity, and stores only its valid elements.
// --8<-- [start:items_kernel]
template <bool INCLUSIVE, int BLOCK_THREADS, int ITEMS, class T, class Op>
__global__ void __launch_bounds__(BLOCK_THREADS)
    items_scan_tiles_kernel(const T* in, T* out, std::size_t n, Op op) {
  __shared__ T warp_totals[kMaxWarps + 1];
  constexpr int kTile = BLOCK_THREADS * ITEMS;
  const std::size_t tile_begin = static_cast<std::size_t>(blockIdx.x) * kTile;
  const std::size_t left = n - tile_begin;
  const int valid = left < static_cast<std::size_t>(kTile) ? static_cast<int>(left) : kTile;

  T items[ITEMS];
  if (valid == kTile) scanlab::load_blocked_direct(in + tile_begin, items);
  else scanlab::load_blocked_direct(in + tile_begin, items, valid, Op::identity());

  T block_total;
  block_scan_items<INCLUSIVE>(items, warp_totals, op, block_total);

  if (valid == kTile) scanlab::store_blocked_direct(out + tile_begin, items);
  else scanlab::store_blocked_direct(out + tile_begin, items, valid);
}
// --8<-- [end:items_kernel]

// ---------------------------------------------------------------------------------------------
// Launch wrappers (host). Device pointers; in == out (in place) is allowed for all of them: each
// thread reads all its inputs before any thread of its block can have written (the barriers sit
// between loads and stores), and no block touches another block's tile.
// ---------------------------------------------------------------------------------------------

namespace detail {
inline unsigned tiles_for(std::size_t n, std::size_t tile, const char* who) {
  const std::size_t tiles = (n + tile - 1) / tile;
  if (tiles > 0x7fffffffu) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " needs more than 2^31 - 1 blocks of " + std::to_string(tile));
  }
  return static_cast<unsigned>(tiles);
}

template <bool INCLUSIVE, int BLOCK_THREADS, int ITEMS, class T, class Op>
void launch_items(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s) {
  const unsigned tiles = tiles_for(n, static_cast<std::size_t>(BLOCK_THREADS) * ITEMS, "ch04::items_scan_tiles");
  items_scan_tiles_kernel<INCLUSIVE, BLOCK_THREADS, ITEMS, T, Op><<<tiles, BLOCK_THREADS, 0, s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}

template <bool INCLUSIVE, class T, class Op>
void launch_items_tile(const T* d_in, T* d_out, std::size_t n, int tile, Op op, cudaStream_t s) {
  switch (tile) {
    case 1024: launch_items<INCLUSIVE, 128, 8>(d_in, d_out, n, op, s); break;
    case 2048: launch_items<INCLUSIVE, 256, 8>(d_in, d_out, n, op, s); break;
    case 4096: launch_items<INCLUSIVE, 256, 16>(d_in, d_out, n, op, s); break;
    case 8192: launch_items<INCLUSIVE, 512, 16>(d_in, d_out, n, op, s); break;
    default:
      throw std::invalid_argument("ch04::items_scan_tiles: tile = " + std::to_string(tile) +
                                  " is not one of 1024, 2048, 4096, 8192");
  }
}
}  // namespace detail

// The (threads, items per thread) behind each tile size of items_scan_tiles.
inline int items_threads_for_tile(int tile) { return tile <= 1024 ? 128 : tile <= 4096 ? 256 : 512; }
inline int items_per_thread_for_tile(int tile) { return tile / items_threads_for_tile(tile); }

// Independent 32-element tiles, one warp each.
template <class T, class Op>
void warp_scan_tiles(const T* d_in, T* d_out, std::size_t n, bool inclusive, Op op, cudaStream_t s = 0) {
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch04::warp_scan_tiles");
  constexpr int kThreads = 256;  // 8 warps per block; each warp is its own tile
  const unsigned blocks = detail::tiles_for(n, kThreads, "ch04::warp_scan_tiles");
  if (inclusive) warp_scan_tiles_kernel<true, T, Op><<<blocks, kThreads, 0, s>>>(d_in, d_out, n, op);
  else warp_scan_tiles_kernel<false, T, Op><<<blocks, kThreads, 0, s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}

// Independent tiles of kBlockScanThreads (1024) elements, one value per thread.
template <class T, class Op>
void block_scan_tiles(const T* d_in, T* d_out, std::size_t n, bool inclusive, Op op, cudaStream_t s = 0) {
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch04::block_scan_tiles");
  const unsigned blocks = detail::tiles_for(n, kBlockScanThreads, "ch04::block_scan_tiles");
  if (inclusive) block_scan_tiles_kernel<true, T, Op><<<blocks, kBlockScanThreads, 0, s>>>(d_in, d_out, n, op);
  else block_scan_tiles_kernel<false, T, Op><<<blocks, kBlockScanThreads, 0, s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}

// Independent tiles of `tile` elements (1024, 2048, 4096 or 8192), ITEMS per thread.
// --8<-- [start:items_launch]
template <class T, class Op>
void items_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, bool inclusive, Op op,
                      cudaStream_t s = 0) {
  if (tile != 1024 && tile != 2048 && tile != 4096 && tile != 8192) {
    throw std::invalid_argument("ch04::items_scan_tiles: tile = " + std::to_string(tile) +
                                " is not one of 1024, 2048, 4096, 8192");
  }
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch04::items_scan_tiles");
  if (inclusive) detail::launch_items_tile<true>(d_in, d_out, n, tile, op, s);
  else detail::launch_items_tile<false>(d_in, d_out, n, tile, op, s);
}
// --8<-- [end:items_launch]

}  // namespace ch04
