// Chapter 04, given: the kernels that scan independent tiles with the student's warp and block
// scans, and their host-side launch wrappers. Your code is in warp_and_registers.cuh
// (exercises/04_warp_and_registers/, or solutions/ for the reference build); nothing here needs
// changing.
//
//   warp_scan_tiles    tiles of 32, one warp each          (warp_kogge_stone_*_scan)
//   block_scan_tiles   tiles of 1024 (or 32 to 1024), one value per thread
//                                                          (block_exclusive_scan_from_warps)
//   items_scan_tiles   tiles of 1024 to 8192, ITEMS values per thread, 16-byte loads
//                                                          (block_scan_items)
// Each tile is scanned on its own; chapter 05 joins them. The block and items kernels can also
// write the block_total each thread received (d_thread_totals), so that a test sees it: nothing in
// a tile's output depends on it, but chapter 05's carries will.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>
#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>

#include "warp_and_registers.cuh"

namespace ch04 {

// The tile sizes of the items-per-thread scan and the (threads, items per thread) behind each.
constexpr int kItemsTiles[] = {1024, 2048, 4096, 8192};

// Threads per block of the one-value-per-thread block scan.
constexpr int kBlockScanThreads = 1024;

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

// Block tiles of blockDim.x values, one per thread. With thread_totals (not null), every thread
// writes the block_total it received to thread_totals[blockIdx.x * blockDim.x + threadIdx.x].
template <bool INCLUSIVE, class T, class Op>
__global__ void block_scan_tiles_kernel(const T* in, T* out, std::size_t n, Op op, T* thread_totals) {
  __shared__ T warp_totals[kMaxWarps + 1];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const T x = i < n ? in[i] : Op::identity();
  T block_total;
  const T exclusive = block_exclusive_scan_from_warps(x, warp_totals, op, block_total);
  if (i < n) out[i] = INCLUSIVE ? op(exclusive, x) : exclusive;
  if (thread_totals) thread_totals[i] = block_total;
}

// Tiles of BLOCK_THREADS * ITEMS values. A full tile moves through 16-byte vector loads and
// stores (scanlab::load_blocked_direct: each thread reads its ITEMS consecutive values as
// ITEMS * sizeof(T) / 16 vectors when the tile is 16-byte aligned); the ragged last tile loads
// element by element, padding with the identity, and stores only its valid elements.
// thread_totals as in block_scan_tiles_kernel.
// --8<-- [start:items_kernel]
template <bool INCLUSIVE, int BLOCK_THREADS, int ITEMS, class T, class Op>
__global__ void __launch_bounds__(BLOCK_THREADS)
    items_scan_tiles_kernel(const T* in, T* out, std::size_t n, Op op, T* thread_totals) {
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
  if (thread_totals) thread_totals[static_cast<std::size_t>(blockIdx.x) * BLOCK_THREADS + threadIdx.x] = block_total;
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
void launch_items(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s, T* d_thread_totals) {
  const unsigned tiles = tiles_for(n, static_cast<std::size_t>(BLOCK_THREADS) * ITEMS, "ch04::items_scan_tiles");
  items_scan_tiles_kernel<INCLUSIVE, BLOCK_THREADS, ITEMS, T, Op>
      <<<tiles, BLOCK_THREADS, 0, s>>>(d_in, d_out, n, op, d_thread_totals);
  SCANLAB_CHECK_LAUNCH();
}

template <bool INCLUSIVE, class T, class Op>
void launch_items_tile(const T* d_in, T* d_out, std::size_t n, int tile, Op op, cudaStream_t s, T* d_thread_totals) {
  switch (tile) {
    case 1024: launch_items<INCLUSIVE, 128, 8>(d_in, d_out, n, op, s, d_thread_totals); break;
    case 2048: launch_items<INCLUSIVE, 256, 8>(d_in, d_out, n, op, s, d_thread_totals); break;
    case 4096: launch_items<INCLUSIVE, 256, 16>(d_in, d_out, n, op, s, d_thread_totals); break;
    case 8192: launch_items<INCLUSIVE, 512, 16>(d_in, d_out, n, op, s, d_thread_totals); break;
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

// Independent tiles of `threads` elements (a multiple of 32 from 32 to 1024; by default
// kBlockScanThreads), one value per thread. With d_thread_totals, thread t of block b writes the
// block_total it received to d_thread_totals[b * threads + t] (room for every thread of every
// block, past n too).
template <class T, class Op>
void block_scan_tiles(const T* d_in, T* d_out, std::size_t n, bool inclusive, Op op, cudaStream_t s = 0,
                      int threads = kBlockScanThreads, T* d_thread_totals = nullptr) {
  if (threads < kWarp || threads > kWarp * kMaxWarps || threads % kWarp != 0) {
    throw std::invalid_argument("ch04::block_scan_tiles: threads = " + std::to_string(threads) +
                                " is not a multiple of 32 from 32 to 1024");
  }
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch04::block_scan_tiles");
  const unsigned blocks = detail::tiles_for(n, static_cast<std::size_t>(threads), "ch04::block_scan_tiles");
  if (inclusive) block_scan_tiles_kernel<true, T, Op><<<blocks, threads, 0, s>>>(d_in, d_out, n, op, d_thread_totals);
  else block_scan_tiles_kernel<false, T, Op><<<blocks, threads, 0, s>>>(d_in, d_out, n, op, d_thread_totals);
  SCANLAB_CHECK_LAUNCH();
}

// Independent tiles of `tile` elements (1024, 2048, 4096 or 8192), ITEMS per thread.
// d_thread_totals as in block_scan_tiles, items_threads_for_tile(tile) threads per block.
// --8<-- [start:items_launch]
template <class T, class Op>
void items_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, bool inclusive, Op op, cudaStream_t s = 0,
                      T* d_thread_totals = nullptr) {
  if (tile != 1024 && tile != 2048 && tile != 4096 && tile != 8192) {
    throw std::invalid_argument("ch04::items_scan_tiles: tile = " + std::to_string(tile) +
                                " is not one of 1024, 2048, 4096, 8192");
  }
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch04::items_scan_tiles");
  if (inclusive) detail::launch_items_tile<true>(d_in, d_out, n, tile, op, s, d_thread_totals);
  else detail::launch_items_tile<false>(d_in, d_out, n, tile, op, s, d_thread_totals);
}
// --8<-- [end:items_launch]

}  // namespace ch04
