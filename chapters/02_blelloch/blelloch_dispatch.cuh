// Chapter 02, given: the host side of the Blelloch scans, the launch wrappers that the driver, the
// grading tests, the benchmark and chapter 03's demo call (tile size, threads, shared memory,
// argument checks). The sweeps and the kernel are your code, in blelloch.cuh
// (exercises/02_blelloch/ or, for the reference, solutions/02_blelloch/: the build's include path
// picks which one this file includes).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/trace.hpp>

#include "blelloch.cuh"

namespace ch02 {

// At most 1024 threads in a block, two elements each.
constexpr int kMaxBlockThreads = 1024;
constexpr int kMaxBlockScan = 2 * kMaxBlockThreads;

// The tree needs a power-of-two tile. n elements are scanned in the tile of the next power of two
// >= n (at least 2: one thread, two elements); slots n .. m-1 hold the identity, which changes no
// prefix of the first n elements, and nothing from them is stored.
constexpr int blelloch_tile_for(int n) {
  int m = 2;
  while (m < n) m *= 2;
  return m;
}

constexpr bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

// ---------------------------------------------------------------------------------------------
// Launch wrappers (host). Device pointers; the launch is checked, kernel faults surface at the
// caller's next synchronisation. `log` is used by traced builds only (default: record nothing).
// ---------------------------------------------------------------------------------------------

namespace detail {
// The most blocks one grid's x dimension holds.
constexpr std::size_t kMaxGridBlocks = 0x7fffffffu;

inline void check_block_scan_size(int n, const char* who) {
  if (n < 0 || n > kMaxBlockScan) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) + " is outside [0, " +
                                std::to_string(kMaxBlockScan) +
                                "]; one block scans at most 2 elements per thread of 1024 "
                                "(use the tiles form, or chapter 05, for more)");
  }
}

inline void check_tile(int tile, const char* who) {
  if (tile < 2 || tile > kMaxBlockScan || !is_power_of_two(tile)) {
    throw std::invalid_argument(std::string(who) + ": tile = " + std::to_string(tile) +
                                " must be a power of two in [2, " + std::to_string(kMaxBlockScan) + "]");
  }
}

template <class T, class Op>
void launch_tiles(const T* d_in, T* d_out, std::size_t n, int tile, std::size_t first_tile, bool inclusive, Op op,
                  cudaStream_t s, scanlab::TraceLog log) {
  const std::size_t tiles = (n + static_cast<std::size_t>(tile) - 1) / static_cast<std::size_t>(tile);
  const int threads = tile / 2;
  // A grid holds at most 2^31 - 1 blocks: one launch per that many tiles, each told its first tile.
  for (std::size_t start = first_tile; start < tiles; start += kMaxGridBlocks) {
    const std::size_t blocks = tiles - start < kMaxGridBlocks ? tiles - start : kMaxGridBlocks;
    blelloch_scan_tiles_kernel<T, Op>
        <<<static_cast<unsigned>(blocks), threads, static_cast<std::size_t>(tile) * sizeof(T), s>>>(
            d_in, d_out, n, start, inclusive, op, log);
    SCANLAB_CHECK_LAUNCH();
  }
}
}  // namespace detail

// One block scans d_in[0, n), n <= 2048, in a tile of blelloch_tile_for(n) elements.
// --8<-- [start:block_launch]
template <class T, class Op>
void blelloch_exclusive_scan_block(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0,
                                   scanlab::TraceLog log = {}) {
  detail::check_block_scan_size(n, "blelloch_exclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch02::blelloch_exclusive_scan_block");
  detail::launch_tiles(d_in, d_out, static_cast<std::size_t>(n), blelloch_tile_for(n), 0, false, op, s, log);
}
// --8<-- [end:block_launch]

template <class T, class Op>
void blelloch_inclusive_scan_block(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0,
                                   scanlab::TraceLog log = {}) {
  detail::check_block_scan_size(n, "blelloch_inclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch02::blelloch_inclusive_scan_block");
  detail::launch_tiles(d_in, d_out, static_cast<std::size_t>(n), blelloch_tile_for(n), 0, true, op, s, log);
}

// Many independent tiles of `tile` elements (a power of two, 2..2048): block b scans
// [b*tile, (b+1)*tile) on its own; the last tile may be ragged. A throughput workload, and the
// per-block phase that chapter 05 completes into a scan of the whole array.
template <class T, class Op>
void blelloch_exclusive_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, Op op, cudaStream_t s = 0) {
  detail::check_tile(tile, "blelloch_exclusive_scan_tiles");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch02::blelloch_exclusive_scan_tiles");
  detail::launch_tiles(d_in, d_out, n, tile, 0, false, op, s, scanlab::TraceLog{});
}

template <class T, class Op>
void blelloch_inclusive_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, Op op, cudaStream_t s = 0) {
  detail::check_tile(tile, "blelloch_inclusive_scan_tiles");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch02::blelloch_inclusive_scan_tiles");
  detail::launch_tiles(d_in, d_out, n, tile, 0, true, op, s, scanlab::TraceLog{});
}

// The tiles [first_tile, ceil(n / tile)) only, exclusive or inclusive: elements before
// first_tile * tile are neither read nor written (d_in and d_out need only be valid from there on).
// The grading uses it to scan the last tiles of an array longer than 2^31 elements.
template <class T, class Op>
void blelloch_scan_tiles_from(const T* d_in, T* d_out, std::size_t n, int tile, std::size_t first_tile, bool inclusive,
                              Op op, cudaStream_t s = 0) {
  detail::check_tile(tile, "blelloch_scan_tiles_from");
  SCANLAB_NVTX_RANGE("ch02::blelloch_scan_tiles_from");
  detail::launch_tiles(d_in, d_out, n, tile, first_tile, inclusive, op, s, scanlab::TraceLog{});
}

}  // namespace ch02
