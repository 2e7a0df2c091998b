// Chapter 10, given: the segmented scans on the device-wide scan of scanlab/device_scan.cuh (the
// head-flag rules, the loads and the inclusive store), the transpose, the summed-area table, the
// box filter's launch and the tilt-shift radius. Your code, the lifted operator, the exclusive
// store and the box filter kernel, is in segmented_scan.cuh (exercises/10_segmented_scan/, or
// solutions/ for the reference build); nothing here needs changing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/hd.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>

// By its path, in quotes: the emulator's translator rewrites the kernels of quoted includes only,
// and it searches the including file's folder and the chapter's folders, not common/include.
#include "../../common/include/scanlab/device_scan.cuh"
#include "segmented_scan.cuh"
#include "segmented_scan_warp_only.cuh"  // the scan article's version, for --warp-only

namespace ch10 {

template <class T>
SCANLAB_HD_INLINE bool operator==(const Flagged<T>& a, const Flagged<T>& b) {
  return a.value == b.value && a.head == b.head;
}

// ---------------------------------------------------------------------------------------------
// Where the head flags come from, and how the scan reads and writes
// ---------------------------------------------------------------------------------------------

// Head flags from an array (non-zero: a segment starts there). Element 0 always starts one.
struct HeadFlagArray {
  const std::uint8_t* flags;
  __device__ unsigned operator()(std::size_t i) const { return flags[i] != 0 ? 1u : 0u; }
};

// A head at every multiple of `width`: the rows of a row-major width x height image.
struct RowHeads {
  std::size_t width;
  __device__ unsigned operator()(std::size_t i) const { return i % width == 0 ? 1u : 0u; }
};

template <class T, class Heads>
struct FlaggedLoad {
  const T* values;
  Heads heads;
  __device__ Flagged<T> operator()(std::size_t i) const { return Flagged<T>{values[i], heads(i)}; }
};

// Inclusive: the value part of the lifted prefix is the segment's prefix through i.
template <class T>
struct InclusiveValueStore {
  T* out;
  __device__ void operator()(std::size_t i, Flagged<T> p) const { out[i] = p.value; }
};

// ---------------------------------------------------------------------------------------------
// Segmented scans (host)
// ---------------------------------------------------------------------------------------------

// Scratch for segmented scans of up to n elements of T.
template <class T>
struct SegmentedScanWorkspace {
  explicit SegmentedScanWorkspace(std::size_t n)
      : capacity(n), partials(scanlab::device_scan_tiles<Flagged<T>>(n) + 1) {}
  std::size_t capacity;
  scanlab::DeviceBuffer<Flagged<T>> partials;
};

namespace detail {
template <class T>
void check_segmented_size(std::size_t n, const SegmentedScanWorkspace<T>& ws, const char* who) {
  if (n > ws.capacity) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is more than the workspace was made for (" + std::to_string(ws.capacity) + ")");
  }
}
}  // namespace detail

// out[i] = in[s] op ... op in[i], where s is the last head at or before i (or 0). Any Heads
// functor: HeadFlagArray, RowHeads, ... In place (d_in == d_out) is allowed.
// --8<-- [start:segmented_host]
template <class T, class Op, class Heads>
void segmented_inclusive_scan(const T* d_in, Heads heads, T* d_out, std::size_t n, Op op,
                              SegmentedScanWorkspace<T>& ws, cudaStream_t s = 0) {
  detail::check_segmented_size(n, ws, "ch10::segmented_inclusive_scan");
  (void)op;
  SCANLAB_NVTX_RANGE("ch10::segmented_inclusive_scan");
  scanlab::device_scan<Flagged<T>>(FlaggedLoad<T, Heads>{d_in, heads}, InclusiveValueStore<T>{d_out}, n,
                                   ws.partials.data(), Segmented<Op>{}, /*inclusive=*/true, s);
}
// --8<-- [end:segmented_host]

// out[i] = in[s] op ... op in[i - 1] (the identity at a head).
template <class T, class Op, class Heads>
void segmented_exclusive_scan(const T* d_in, Heads heads, T* d_out, std::size_t n, Op op,
                              SegmentedScanWorkspace<T>& ws, cudaStream_t s = 0) {
  detail::check_segmented_size(n, ws, "ch10::segmented_exclusive_scan");
  (void)op;
  SCANLAB_NVTX_RANGE("ch10::segmented_exclusive_scan");
  scanlab::device_scan<Flagged<T>>(FlaggedLoad<T, Heads>{d_in, heads},
                                   ExclusiveValueStore<T, Op, Heads>{d_out, heads}, n, ws.partials.data(),
                                   Segmented<Op>{}, /*inclusive=*/false, s);
}

// Conveniences with their own workspace and head-flag array.
template <class T, class Op>
void segmented_inclusive_scan(const T* d_in, const std::uint8_t* d_heads, T* d_out, std::size_t n, Op op) {
  SegmentedScanWorkspace<T> ws(n);
  segmented_inclusive_scan(d_in, HeadFlagArray{d_heads}, d_out, n, op, ws);
  SCANLAB_CHECK_SYNC();
}

template <class T, class Op>
void segmented_exclusive_scan(const T* d_in, const std::uint8_t* d_heads, T* d_out, std::size_t n, Op op) {
  SegmentedScanWorkspace<T> ws(n);
  segmented_exclusive_scan(d_in, HeadFlagArray{d_heads}, d_out, n, op, ws);
  SCANLAB_CHECK_SYNC();
}

// ---------------------------------------------------------------------------------------------
// Summed-area tables
// ---------------------------------------------------------------------------------------------

constexpr int kTransposeTile = 32;
constexpr int kTransposeRows = 8;  // a 32 x 8 block moves a 32 x 32 tile, 4 elements per thread

// out (width x height, row-major) = the transpose of in (height x width). Through a shared tile
// with one column of padding, so that reading a column of the tile hits 32 different banks
// (chapter 03), and both the global loads and the global stores are coalesced.
// --8<-- [start:transpose]
template <class T>
__global__ void transpose_kernel(const T* in, T* out, int width, int height) {
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];
  const int x = static_cast<int>(blockIdx.x) * kTransposeTile + static_cast<int>(threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.y) * kTransposeTile;
  for (int dy = static_cast<int>(threadIdx.y); dy < kTransposeTile; dy += kTransposeRows) {
    const int y = y0 + dy;
    if (x < width && y < height) tile[dy][threadIdx.x] = in[static_cast<std::size_t>(y) * width + x];
  }
  __syncthreads();
  // Output row = input column: block (bx, by) writes rows bx*32.. of out, columns by*32.. .
  const int ox = y0 + static_cast<int>(threadIdx.x);  // column in out = row in in
  for (int dy = static_cast<int>(threadIdx.y); dy < kTransposeTile; dy += kTransposeRows) {
    const int oy = static_cast<int>(blockIdx.x) * kTransposeTile + dy;  // row in out = column in in
    if (ox < height && oy < width) out[static_cast<std::size_t>(oy) * height + ox] = tile[threadIdx.x][dy];
  }
}
// --8<-- [end:transpose]

template <class T>
void transpose(const T* d_in, T* d_out, int width, int height, cudaStream_t s = 0) {
  const dim3 block(kTransposeTile, kTransposeRows);
  const dim3 grid(static_cast<unsigned>((width + kTransposeTile - 1) / kTransposeTile),
                  static_cast<unsigned>((height + kTransposeTile - 1) / kTransposeTile));
  transpose_kernel<T><<<grid, block, 0, s>>>(d_in, d_out, width, height);
  SCANLAB_CHECK_LAUNCH();
}

// Scratch for the table of a width x height image: one image-sized buffer and the scan's.
template <class T>
struct SatWorkspace {
  SatWorkspace(int width, int height)
      : pixels(static_cast<std::size_t>(width) * static_cast<std::size_t>(height)),
        tmp(pixels),
        scan(pixels) {}
  std::size_t pixels;
  scanlab::DeviceBuffer<T> tmp;
  SegmentedScanWorkspace<T> scan;
};

// sat[y][x] = sum of image[0..y][0..x] (row-major, width x height; sums in T, which must hold the
// whole image's sum: uint32 for 8-bit images up to 2^24 pixels). d_sat may not be d_image.
// --8<-- [start:sat]
template <class T>
void summed_area_table(const T* d_image, T* d_sat, int width, int height, SatWorkspace<T>& ws, cudaStream_t s = 0) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("ch10::summed_area_table: empty image");
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  if (pixels > ws.pixels) throw std::invalid_argument("ch10::summed_area_table: image larger than the workspace");
  SCANLAB_NVTX_RANGE("ch10::summed_area_table");
  const scanlab::Plus<T> plus;
  // 1. every row: a segmented scan with a head at each row start
  segmented_inclusive_scan(d_image, RowHeads{static_cast<std::size_t>(width)}, d_sat, pixels, plus, ws.scan, s);
  // 2. columns become rows
  transpose(d_sat, ws.tmp.data(), width, height, s);
  // 3. every row of the transpose (every column of the image)
  segmented_inclusive_scan(ws.tmp.data(), RowHeads{static_cast<std::size_t>(height)}, ws.tmp.data(), pixels, plus,
                           ws.scan, s);
  // 4. back to the image's layout
  transpose(ws.tmp.data(), d_sat, height, width, s);
}
// --8<-- [end:sat]

// ---------------------------------------------------------------------------------------------
// A variable-width box filter from the table
// ---------------------------------------------------------------------------------------------

// The radius grows with the distance from a sharp focus row: 0 there, max_radius at the top and
// bottom edges (a "tilt-shift" blur).
struct TiltShiftRadius {
  int focus_row;
  int max_radius;
  int height;
  SCANLAB_HD int operator()(int x, int y) const {
    (void)x;
    const int d = y > focus_row ? y - focus_row : focus_row - y;
    const int span = focus_row > height - 1 - focus_row ? focus_row : height - 1 - focus_row;
    return span == 0 ? 0 : (max_radius * d + span / 2) / span;
  }
};

template <class T, class Radius>
void box_filter(const T* d_sat, std::uint8_t* d_out, int width, int height, Radius radius, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch10::box_filter");
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((width + 31) / 32), static_cast<unsigned>((height + 7) / 8));
  box_filter_kernel<T, Radius><<<grid, block, 0, s>>>(d_sat, d_out, width, height, radius);
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch10
