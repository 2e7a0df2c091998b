// Chapter 10, given: the segmented scans (the head-flag rules, a single-pass kernel on chapter 07's
// tile machinery and look-back, the inclusive store), the transpose, the summed-area table, the box
// filter's launch and the tilt-shift radius. Your code, the lifted operator, the exclusive
// store and the box filter kernel, is in segmented_scan.cuh (exercises/10_segmented_scan/, or
// solutions/ for the reference build); nothing here needs changing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/hd.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/lookback.cuh>  // chapter 07's decoupled look-back, as a library
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>      // chapter 06's tile work

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

// ---------------------------------------------------------------------------------------------
// The single-pass segmented scan
// ---------------------------------------------------------------------------------------------

// Chapter 07's decoupled look-back scan with the lifted operator: the tiles, the ticket, the
// look-back and the poll schedule are the single-pass library's, and nothing in them knows about
// segments. A tile loads its values with 16-byte streaming loads, pairs each with its head flag,
// scans the pairs (the look-back carries (value, head) pairs: a predecessor whose range holds a head
// ends the look-back's contribution at once, because the lifted operator drops everything to its
// left), and stores only the values. n values and n flags read, n values written: one pass.
namespace single_pass = scanlab::single_pass;

// 128 threads x 16 elements a tile (2048).
constexpr int kSegmentedThreads = 128;
constexpr int kSegmentedItems = 16;
template <class T>
using SegmentedShape = single_pass::TileShape<T, kSegmentedThreads, kSegmentedItems>;

// A pair of a value of at most 32 bits and its head bit fits beside the status in ONE 64-bit word,
// as chapter 07's fused descriptors: bits 0-31 the value, bit 32 the head, bits 33 and up the status.
// Stored and loaded whole, so a reader sees all of a tile's publication or none of it, with no fence.
// Wider values take chapter 07's fenced descriptors (value, fence, flag).
template <class T>
struct FusedFlaggedDescriptors {
  unsigned long long* words;

  __device__ void publish(unsigned tile, single_pass::Status status, const Flagged<T>& p) {
    unsigned bits = 0;
    memcpy(&bits, &p.value, sizeof(T));
    const unsigned long long word = (static_cast<unsigned long long>(status) << 33) |
                                    (static_cast<unsigned long long>(p.head != 0u) << 32) | bits;
    *reinterpret_cast<volatile unsigned long long*>(&words[tile]) = word;
  }

  __device__ single_pass::Status read(long long pred, Flagged<T>& p) const {
    const unsigned long long word = *reinterpret_cast<const volatile unsigned long long*>(&words[pred]);
    const unsigned bits = static_cast<unsigned>(word);
    memcpy(&p.value, &bits, sizeof(T));
    p.head = static_cast<unsigned>(word >> 32) & 1u;
    return static_cast<single_pass::Status>(word >> 33);
  }
};
template <class T>
using FlaggedDescriptors =
    std::conditional_t<sizeof(T) <= 4, FusedFlaggedDescriptors<T>,
                       single_pass::TileDescriptors<Flagged<T>, single_pass::Descriptors::fenced>>;

// INCLUSIVE: out[i] = the value of the lifted inclusive prefix. Exclusive: `store(i, prefix)` with the
// lifted exclusive prefix (ExclusiveValueStore, which knows where segments start).
// --8<-- [start:single_pass_kernel]
template <class Shape, bool INCLUSIVE, class T, class Op, class Heads, class ExclusiveStore>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS)
    segmented_scan_single_pass_kernel(const T* in, T* out, std::size_t n, Heads heads, ExclusiveStore store,
                                      FlaggedDescriptors<T> descriptors, unsigned* ticket, bool vectorized,
                                      single_pass::PollSchedule polls) {
  using F = Flagged<T>;
  const Segmented<Op> seg;
  __shared__ single_pass::WarpTotals<Shape, F> warp_totals;
  __shared__ unsigned tile_slot;
  __shared__ F tile_prefix;
  FlaggedDescriptors<T> desc = descriptors;
  const unsigned tile = single_pass::dynamic_tile_index(ticket, single_pass::TileOrder::ticket, tile_slot);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = single_pass::valid_in_tile<Shape>(n, tile);
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();

  T values[Shape::ITEMS];
  if (valid == Shape::TILE_ITEMS) single_pass::load_full_tile<Shape>(in + start, values, vectorized);
  else single_pass::load_partial_tile<Shape>(in + start, values, valid, Op::identity());
  // Each value with its head flag. From a flag array, a run's 4 flags are 4 consecutive bytes: one
  // 4-byte streaming load per row (the host checked the array's alignment; tiles start at multiples
  // of TILE_ITEMS). Measured on an H100: 1.36 ms with one byte load per element at 2^28, 1.01 ms so.
  constexpr bool kFlagWords = std::is_same_v<Heads, HeadFlagArray> && Shape::VEC == 4;
  const bool flag_words = kFlagWords && valid == Shape::TILE_ITEMS && vectorized;
  F items[Shape::ITEMS];
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    unsigned run = 0;
    if constexpr (kFlagWords) {
      if (flag_words) run = __ldcs(reinterpret_cast<const unsigned*>(heads.flags + start + Shape::offset(warp, lane, r, 0)));
    }
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int i = Shape::offset(warp, lane, r, k);
      const int j = r * Shape::VEC + k;
      const unsigned head = flag_words ? ((run >> (8 * k)) & 0xffu) != 0u
                            : i < valid ? heads(start + static_cast<std::size_t>(i))
                                        : 0u;
      items[j] = F{values[j], head};
    }
  }

  single_pass::ThreadSeeds<Shape, F> seeds;
  const F warp_total = single_pass::warp_segment_scan<Shape>(items, seeds, seg);
  F warp_prefix;
  const F aggregate = single_pass::block_aggregate_and_warp_prefix<Shape>(warp_total, warp_totals, seg, warp_prefix);
  if (warp == 0) {
    const F before = single_pass::publish_and_look_back<single_pass::Lookback::warp>(
        desc, tile, aggregate, seg, polls);
    if (lane == 0) tile_prefix = before;
  }
  __syncthreads();
  single_pass::scan_thread_runs<INCLUSIVE, Shape>(items, seeds, seg(tile_prefix, warp_prefix), seg);

  if constexpr (INCLUSIVE) {
#pragma unroll
    for (int j = 0; j < Shape::ITEMS; ++j) values[j] = items[j].value;
    if (valid == Shape::TILE_ITEMS) single_pass::store_full_tile<Shape>(out + start, values, vectorized);
    else single_pass::store_partial_tile<Shape>(out + start, values, valid);
  } else {
#pragma unroll
    for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
      for (int k = 0; k < Shape::VEC; ++k) {
        const int i = Shape::offset(warp, lane, r, k);
        if (i < valid) store(start + static_cast<std::size_t>(i), items[r * Shape::VEC + k]);
      }
    }
  }
}
// --8<-- [end:single_pass_kernel]

// Stands in for the exclusive store in inclusive scans (never called).
struct NoStore {
  template <class P>
  __device__ void operator()(std::size_t, const P&) const {}
};

// The descriptors and the ticket for segmented scans of up to n elements of T; reusable (not
// concurrently). One allocation: [ticket | fused words], or [ticket | status flags | aggregates |
// inclusive prefixes] for wide values; before each scan one cudaMemsetAsync clears the ticket and the
// status part (timed with the scan).
template <class T>
class SegmentedScanWorkspace {
 public:
  explicit SegmentedScanWorkspace(std::size_t n)
      : capacity(n), tiles_(tiles_for(n)), storage_(kHeader + 3 * align16(tiles_ * sizeof(Flagged<T>))) {}

  static std::size_t tiles_for(std::size_t n) {
    return (n + SegmentedShape<T>::TILE_ITEMS - 1) / SegmentedShape<T>::TILE_ITEMS;
  }
  std::size_t capacity;

  // Clears the ticket and the flags of the first `tiles` tiles, on stream s.
  void reset(std::size_t tiles, cudaStream_t s) {
    SCANLAB_CUDA_CHECK(cudaMemsetAsync(storage_.data(), 0, kHeader + tiles * kStatusBytes, s));
  }
  unsigned* ticket() { return reinterpret_cast<unsigned*>(storage_.data()); }
  FlaggedDescriptors<T> descriptors() {
    unsigned char* base = storage_.data();
    FlaggedDescriptors<T> d{};
    if constexpr (kFused) {
      d.words = reinterpret_cast<unsigned long long*>(base + kHeader);
    } else {
      const std::size_t values = align16(tiles_ * sizeof(Flagged<T>));
      d.flags = reinterpret_cast<unsigned*>(base + kHeader);
      d.aggregates = reinterpret_cast<Flagged<T>*>(base + kHeader + values);
      d.inclusives = reinterpret_cast<Flagged<T>*>(base + kHeader + 2 * values);
    }
    return d;
  }

 private:
  static constexpr bool kFused = sizeof(T) <= 4;
  static constexpr std::size_t kStatusBytes = kFused ? 8 : 4;  // a fused word, or a flag
  static constexpr std::size_t kHeader = 16;                   // the ticket, padded
  static std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
  std::size_t tiles_;
  scanlab::DeviceBuffer<unsigned char> storage_;
};

namespace detail {
template <class T>
void check_segmented_size(std::size_t n, const SegmentedScanWorkspace<T>& ws, const char* who) {
  if (n > ws.capacity) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is more than the workspace was made for (" + std::to_string(ws.capacity) + ")");
  }
}

template <bool INCLUSIVE, class T, class Op, class Heads, class Store>
void segmented_scan_single_pass(const T* d_in, T* d_out, std::size_t n, Heads heads, Store store,
                                SegmentedScanWorkspace<T>& ws, cudaStream_t s) {
  if (n == 0) return;
  const std::size_t tiles = SegmentedScanWorkspace<T>::tiles_for(n);
  if (tiles > 0x7fffffffu) throw std::invalid_argument("ch10: more than 2^31 - 1 tiles");
  ws.reset(tiles, s);
  // The one-wave rule (scanlab/single_pass/polls.cuh); the occupancy is asked once per kernel.
  static const std::size_t resident = scanlab::resident_blocks(
      segmented_scan_single_pass_kernel<SegmentedShape<T>, INCLUSIVE, T, Op, Heads, Store>, kSegmentedThreads);
  const single_pass::PollSchedule polls = single_pass::polls_for_grid(single_pass::kDefaultPolls, tiles, resident);
  // 16-byte loads and stores of values, and 4-byte loads of a flag array: all or none.
  bool vectorized = single_pass::aligned16(d_in) && single_pass::aligned16(d_out);
  if constexpr (std::is_same_v<Heads, HeadFlagArray>) {
    vectorized = vectorized && reinterpret_cast<std::uintptr_t>(heads.flags) % 4 == 0;
  }
  segmented_scan_single_pass_kernel<SegmentedShape<T>, INCLUSIVE, T, Op, Heads, Store>
      <<<static_cast<unsigned>(tiles), kSegmentedThreads, 0, s>>>(d_in, d_out, n, heads, store, ws.descriptors(),
                                                                ws.ticket(), vectorized, polls);
  SCANLAB_CHECK_LAUNCH();
}
}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Segmented scans (host)
// ---------------------------------------------------------------------------------------------

// out[i] = in[s] op ... op in[i], where s is the last head at or before i (or 0). Any Heads
// functor: HeadFlagArray, RowHeads, ... In place (d_in == d_out) is allowed: a tile reads all of its
// input before it writes.
// --8<-- [start:segmented_host]
template <class T, class Op, class Heads>
void segmented_inclusive_scan(const T* d_in, Heads heads, T* d_out, std::size_t n, Op op,
                              SegmentedScanWorkspace<T>& ws, cudaStream_t s = 0) {
  detail::check_segmented_size(n, ws, "ch10::segmented_inclusive_scan");
  (void)op;
  SCANLAB_NVTX_RANGE("ch10::segmented_inclusive_scan");
  detail::segmented_scan_single_pass<true, T, Op>(d_in, d_out, n, heads, NoStore{}, ws, s);
}
// --8<-- [end:segmented_host]

// out[i] = in[s] op ... op in[i - 1] (the identity at a head).
template <class T, class Op, class Heads>
void segmented_exclusive_scan(const T* d_in, Heads heads, T* d_out, std::size_t n, Op op,
                              SegmentedScanWorkspace<T>& ws, cudaStream_t s = 0) {
  detail::check_segmented_size(n, ws, "ch10::segmented_exclusive_scan");
  (void)op;
  SCANLAB_NVTX_RANGE("ch10::segmented_exclusive_scan");
  detail::segmented_scan_single_pass<false, T, Op>(d_in, d_out, n, heads, ExclusiveValueStore<T, Op, Heads>{d_out, heads},
                                                   ws, s);
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
