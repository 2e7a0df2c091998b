// Chapter 03, given: the host side of the layout scans, the launch wrappers that the driver, the
// grading tests, the benchmark and sim_banks.cu call (tile size, threads, padded shared memory,
// argument checks). The padding macro, the sweeps and the kernel are your code, in
// bank_conflicts.cuh (exercises/03_bank_conflicts/ or, for the reference,
// solutions/03_bank_conflicts/: the build's include path picks which one this file includes); the
// layouts are in bank_layouts.cuh.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>

#include "bank_conflicts.cuh"
#include "bank_layouts.cuh"

namespace ch03 {

constexpr int kMaxBlockThreads = 1024;
constexpr int kMaxBlockScan = 2 * kMaxBlockThreads;

// Shared words a tile of m elements needs under a layout (the slot of the last element, plus one).
template <class Layout>
constexpr int shared_words(int m) {
  return Layout::slot(m - 1) + 1;
}

// The tile for n elements: the next power of two >= n, at least 2 (chapter 02's rule).
constexpr int blelloch_tile_for(int n) {
  int m = 2;
  while (m < n) m *= 2;
  return m;
}

constexpr bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

// ---------------------------------------------------------------------------------------------
// Launch wrappers (host)
// ---------------------------------------------------------------------------------------------

namespace detail {
// The most blocks one grid's x dimension holds.
constexpr std::size_t kMaxGridBlocks = 0x7fffffffu;

inline void check_block_scan_size(int n, const char* who) {
  if (n < 0 || n > kMaxBlockScan) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) + " is outside [0, " +
                                std::to_string(kMaxBlockScan) + "]");
  }
}

inline void check_tile(int tile, const char* who) {
  if (tile < 2 || tile > kMaxBlockScan || !is_power_of_two(tile)) {
    throw std::invalid_argument(std::string(who) + ": tile = " + std::to_string(tile) +
                                " must be a power of two in [2, " + std::to_string(kMaxBlockScan) + "]");
  }
}

template <class Layout, class T, class Op>
void launch_tiles(const T* d_in, T* d_out, std::size_t n, int tile, std::size_t first_tile, bool inclusive, Op op,
                  cudaStream_t s) {
  const std::size_t tiles = (n + static_cast<std::size_t>(tile) - 1) / static_cast<std::size_t>(tile);
  const std::size_t shared = static_cast<std::size_t>(shared_words<Layout>(tile)) * sizeof(T);
  // A grid holds at most 2^31 - 1 blocks: one launch per that many tiles, each told its first tile.
  for (std::size_t start = first_tile; start < tiles; start += kMaxGridBlocks) {
    const std::size_t blocks = tiles - start < kMaxGridBlocks ? tiles - start : kMaxGridBlocks;
    blelloch_layout_scan_tiles_kernel<Layout, T, Op>
        <<<static_cast<unsigned>(blocks), tile / 2, shared, s>>>(d_in, d_out, n, start, inclusive, op);
    SCANLAB_CHECK_LAUNCH();
  }
}
}  // namespace detail

// One block scans d_in[0, n), n <= 2048, in the tile of blelloch_tile_for(n) elements, under a
// layout (Padded: this chapter; Unpadded: chapter 02's, for comparison).
// --8<-- [start:block_launch]
template <class Layout = Padded, class T, class Op>
void blelloch_layout_exclusive_scan_block(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0) {
  detail::check_block_scan_size(n, "blelloch_layout_exclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch03::blelloch_layout_exclusive_scan_block");
  detail::launch_tiles<Layout>(d_in, d_out, static_cast<std::size_t>(n), blelloch_tile_for(n), 0, false, op, s);
}
// --8<-- [end:block_launch]

template <class Layout = Padded, class T, class Op>
void blelloch_layout_inclusive_scan_block(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0) {
  detail::check_block_scan_size(n, "blelloch_layout_inclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch03::blelloch_layout_inclusive_scan_block");
  detail::launch_tiles<Layout>(d_in, d_out, static_cast<std::size_t>(n), blelloch_tile_for(n), 0, true, op, s);
}

// Many independent tiles of `tile` elements (a power of two, 2..2048), the last one ragged.
template <class Layout = Padded, class T, class Op>
void blelloch_layout_exclusive_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, Op op, cudaStream_t s = 0) {
  detail::check_tile(tile, "blelloch_layout_exclusive_scan_tiles");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch03::blelloch_layout_exclusive_scan_tiles");
  detail::launch_tiles<Layout>(d_in, d_out, n, tile, 0, false, op, s);
}

template <class Layout = Padded, class T, class Op>
void blelloch_layout_inclusive_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, Op op, cudaStream_t s = 0) {
  detail::check_tile(tile, "blelloch_layout_inclusive_scan_tiles");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch03::blelloch_layout_inclusive_scan_tiles");
  detail::launch_tiles<Layout>(d_in, d_out, n, tile, 0, true, op, s);
}

// The tiles [first_tile, ceil(n / tile)) only, exclusive or inclusive: elements before
// first_tile * tile are neither read nor written (d_in and d_out need only be valid from there on).
// The grading uses it to scan the last tiles of an array longer than 2^31 elements.
template <class Layout = Padded, class T, class Op>
void blelloch_layout_scan_tiles_from(const T* d_in, T* d_out, std::size_t n, int tile, std::size_t first_tile,
                                     bool inclusive, Op op, cudaStream_t s = 0) {
  detail::check_tile(tile, "blelloch_layout_scan_tiles_from");
  SCANLAB_NVTX_RANGE("ch03::blelloch_layout_scan_tiles_from");
  detail::launch_tiles<Layout>(d_in, d_out, n, tile, first_tile, inclusive, op, s);
}

}  // namespace ch03
