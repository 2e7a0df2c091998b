// Chapter 01, given: the host side of the Hillis-Steele scans, the launch wrappers that the driver,
// the grading tests and the benchmark call (block size, shared memory, argument checks). The device
// code is your code, in hillis_steele.cuh (exercises/01_hillis_steele/ or, for the reference,
// solutions/01_hillis_steele/: the build's include path picks which one this file includes); the
// deliberately broken in-place kernel is in hillis_steele_racy.cuh.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>

#include "hillis_steele.cuh"
#include "hillis_steele_racy.cuh"

namespace ch01 {

// One thread per element and at most 1024 threads in a block.
constexpr int kMaxBlockScan = 1024;

// Threads per block for n elements: n rounded up to whole warps. The extra threads hold the
// identity, so they change no prefix; they exist so that every warp is full.
constexpr int hillis_steele_block_threads(int n) { return (n + 31) / 32 * 32; }

// The most blocks one grid's x dimension holds.
constexpr std::size_t kMaxGridBlocks = 0x7fffffffu;

// ---------------------------------------------------------------------------------------------
// Launch wrappers (host). Device pointers; the launch is checked, kernel faults surface at the
// caller's next synchronisation.
// ---------------------------------------------------------------------------------------------

namespace detail {
inline void check_block_scan_size(int n, const char* who) {
  if (n < 0 || n > kMaxBlockScan) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) + " is outside [0, " +
                                std::to_string(kMaxBlockScan) +
                                "]; one block scans at most kMaxBlockScan elements "
                                "(use hillis_steele_inclusive_scan_tiles, or chapter 05, for more)");
  }
}

inline void check_tile_size(int tile) {
  if (tile < 1 || tile > kMaxBlockScan) {
    throw std::invalid_argument("hillis_steele_inclusive_scan_tiles: tile = " + std::to_string(tile) +
                                " is outside [1, " + std::to_string(kMaxBlockScan) + "]");
  }
}

// Two buffers of one value per thread.
template <class T>
constexpr std::size_t double_buffer_bytes(int threads) {
  return 2 * static_cast<std::size_t>(threads) * sizeof(T);
}
}  // namespace detail

// --8<-- [start:block_launch]
template <class T, class Op>
void hillis_steele_inclusive_scan_block(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0) {
  detail::check_block_scan_size(n, "hillis_steele_inclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch01::hillis_steele_inclusive_scan_block");
  const int threads = hillis_steele_block_threads(n);
  hillis_steele_inclusive_scan_block_kernel<T, Op>
      <<<1, threads, detail::double_buffer_bytes<T>(threads), s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}
// --8<-- [end:block_launch]

template <class T, class Op>
void hillis_steele_exclusive_scan_block(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0) {
  detail::check_block_scan_size(n, "hillis_steele_exclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch01::hillis_steele_exclusive_scan_block");
  const int threads = hillis_steele_block_threads(n);
  hillis_steele_exclusive_scan_block_kernel<T, Op>
      <<<1, threads, detail::double_buffer_bytes<T>(threads), s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}

// The tiles [first_tile, ceil(n / tile)) of in[0, n), each scanned on its own: elements before
// first_tile * tile are neither read nor written (d_in and d_out need only be valid from there on).
// One launch per at most kMaxGridBlocks tiles, each told its first tile.
template <class T, class Op>
void hillis_steele_inclusive_scan_tiles_from(const T* d_in, T* d_out, std::size_t n, int tile, std::size_t first_tile,
                                             Op op, cudaStream_t s = 0) {
  detail::check_tile_size(tile);
  const std::size_t tiles = (n + static_cast<std::size_t>(tile) - 1) / static_cast<std::size_t>(tile);
  if (first_tile >= tiles) return;
  SCANLAB_NVTX_RANGE("ch01::hillis_steele_inclusive_scan_tiles");
  const int threads = hillis_steele_block_threads(tile);
  for (std::size_t start = first_tile; start < tiles; start += kMaxGridBlocks) {
    const std::size_t blocks = tiles - start < kMaxGridBlocks ? tiles - start : kMaxGridBlocks;
    hillis_steele_inclusive_scan_tiles_kernel<T, Op>
        <<<static_cast<unsigned>(blocks), threads, detail::double_buffer_bytes<T>(threads), s>>>(d_in, d_out, n, tile,
                                                                                                 start, op);
    SCANLAB_CHECK_LAUNCH();
  }
}

// Every tile of in[0, n).
template <class T, class Op>
void hillis_steele_inclusive_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, Op op, cudaStream_t s = 0) {
  hillis_steele_inclusive_scan_tiles_from(d_in, d_out, n, tile, 0, op, s);
}

// The deliberately broken in-place scan of hillis_steele_racy.cuh, launched like the others.
template <class T, class Op>
void hillis_steele_inplace_inclusive_scan_block_racy(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0) {
  detail::check_block_scan_size(n, "hillis_steele_inplace_inclusive_scan_block_racy");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch01::hillis_steele_inplace_inclusive_scan_block_racy");
  const int threads = hillis_steele_block_threads(n);
  hillis_steele_inplace_inclusive_scan_block_racy_kernel<T, Op>
      <<<1, threads, static_cast<std::size_t>(threads) * sizeof(T), s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch01
