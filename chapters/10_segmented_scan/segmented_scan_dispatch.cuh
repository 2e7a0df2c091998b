// Chapter 10, given: the segmented scans (the head-flag rules, a single-pass kernel on chapter 07's
// tile machinery and look-back, the inclusive store), the transpose, the summed-area table, the box
// filter's kernel and launch and the tilt-shift radius. Your code, the lifted operator, the exclusive
// store and the box's mean, is in segmented_scan.cuh (exercises/10_segmented_scan/, or
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
#include <scanlab/single_pass/descriptor_storage.cuh>
#include <scanlab/single_pass/lookback.cuh>  // chapter 07's decoupled look-back, as a library
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>  // chapter 06's tile work

#include "flagged.cuh"  // Flagged<T>, the (value, head) pair
#include "segmented_scan.cuh"
#include "segmented_scan_warp_only.cuh"  // the scan article's version, for --warp-only

namespace ch10 {

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
// segments. A tile loads its values with 16-byte streaming loads and its head flags as bits, scans
// (value, head) pairs with the lifted operator (inside a warp, a ballot of the heads does the
// pairs' work: warp_segmented_scan_bits), and stores only the values. The look-back carries pairs:
// a predecessor whose range holds a head ends the look-back's contribution at once, because the
// lifted operator drops everything to its left. n values and n flags read, n values written: one
// pass.
namespace single_pass = scanlab::single_pass;

// The tuning, in chapter 07's policy vocabulary (scanlab/single_pass/policy.cuh), swept on an H100
// and an H200 (tests/gpu/tuning/ch10_segmented_sweep.sh; the book's "Measured" section has the
// numbers): 128 threads x 32 elements a tile (4096), chapter 07's shape, with at least 6 tiles
// resident per SM (at most 80 registers a thread, which nvcc 13.0 meets without spilling; with 5,
// the int32 kernel took 91 and only 5 fit, 3-4% slower at 2^28 on an H200; left free, 118), fused
// descriptors for values of at most 32 bits (fenced ones else: "automatic"), the warp look-back; and
// chapter 08's shorter poll schedule. 128 x 16 with 8 resident, and 128 x 24 with 8, came close.
using SegmentedPolicy =
    single_pass::Policy<128, 32, single_pass::Descriptors::automatic, single_pass::Lookback::warp, 6>;
constexpr single_pass::PollSchedule kSegmentedPolls = {2000, 500};
template <class T>
using SegmentedShape = SegmentedPolicy::Shape<T>;
static_assert(SegmentedPolicy::kItems <= 32, "a thread's head flags are the bits of one 32-bit word");

// The warp step with heads as BITS. The lifted operator would do it as it does everywhere else,
// but then every step of the Kogge-Stone scan shuffles a (value, head) pair and applies the rule to
// it. A warp can find its heads faster: one ballot per row gives all 32 lanes' "my run holds a
// head" bits, so lane L knows the lane s where its segment starts (the last head at or before L),
// and the scan of the VALUES alone is a Kogge-Stone that adds the shuffled value only while the
// lanes it covers lie inside L's segment (lane - d >= s): one shuffle a step, as in chapter 07.
// The pairs come back for the rows' chaining, the block and the look-back: the lifted operator
// (Segmented<Op>, your code) combines them there.
//
// bits: bit j says element j of this thread (j = r * VEC + k, as in values[]) starts a segment.
// Fills seeds (each row's exclusive prefix within the warp segment, as a pair) and returns the
// warp's total pair.
// --8<-- [start:warp_heads]
template <class Shape, class Op, class T>
__device__ __forceinline__ Flagged<T> warp_segmented_scan_bits(const T (&values)[Shape::ITEMS], unsigned bits,
                                                               single_pass::ThreadSeeds<Shape, Flagged<T>>& seeds) {
  using F = Flagged<T>;
  const Segmented<Op> seg;
  const Op op;
  const int lane = scanlab::lane_id();
  const unsigned lanes_below = (1u << lane) - 1u;  // lanes 0 .. lane - 1
  T inclusive[Shape::ROWS];
  unsigned row_heads[Shape::ROWS];  // bit l: lane l's run of this row holds a head
  int start[Shape::ROWS];           // the last lane at or before this one whose run holds a head (0: none)
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {  // fold each VEC-run with the lifted operator
    F run{values[r * Shape::VEC], (bits >> (r * Shape::VEC)) & 1u};
#pragma unroll
    for (int k = 1; k < Shape::VEC; ++k)
      run = seg(run, F{values[r * Shape::VEC + k], (bits >> (r * Shape::VEC + k)) & 1u});
    inclusive[r] = run.value;
    row_heads[r] = __ballot_sync(scanlab::kFullWarpMask, run.head != 0u);
    const unsigned at_or_below = row_heads[r] & (lanes_below | (1u << lane));
    start[r] = at_or_below == 0u ? 0 : 31 - __clz(static_cast<int>(at_or_below));
  }
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
#pragma unroll
    for (int r = 0; r < Shape::ROWS; ++r) {
      const T left = scanlab::warp_shuffle_up(inclusive[r], static_cast<unsigned>(d));
      if (lane - d >= start[r]) inclusive[r] = op(left, inclusive[r]);  // lanes lane-d+1 .. lane hold no head
    }
  }
  // Rows follow each other, as in the tile library's warp_segment_scan; here with pairs.
  F rows_before = seg.identity();
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    const F lane_before{scanlab::warp_shuffle_up(inclusive[r], 1u), (row_heads[r] & lanes_below) != 0u ? 1u : 0u};
    const F row_total{scanlab::warp_shuffle(inclusive[r], 31), row_heads[r] != 0u ? 1u : 0u};
    seeds.row[r] = lane == 0 ? rows_before : seg(rows_before, lane_before);
    rows_before = seg(rows_before, row_total);
  }
  return rows_before;
}
// --8<-- [end:warp_heads]

// A pair of a value of at most 32 bits and its head bit fits beside the status in ONE 64-bit word,
// as chapter 07's fused descriptors: bits 0-31 the value, bit 32 the head, bits 33 and up the status.
// Stored and loaded whole, so a reader sees all of a tile's publication or none of it, with no fence.
// Wider values take chapter 07's fenced descriptors (value, fence, flag).
template <class T>
struct FusedFlaggedDescriptors {
  static_assert(sizeof(T) <= 4, "a fused word holds a value of at most 32 bits beside the head bit and the status");
  unsigned long long* words;

  __device__ void publish(unsigned tile, single_pass::Status status, const Flagged<T>& p) {
    unsigned bits = 0;
    memcpy(&bits, &p.value, sizeof(T));
    const unsigned long long word =
        (static_cast<unsigned long long>(status) << 33) | (static_cast<unsigned long long>(p.head != 0u) << 32) | bits;
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
using FlaggedDescriptors = std::conditional_t<
    single_pass::resolve_descriptors<T>(SegmentedPolicy::kDescriptors) == single_pass::Descriptors::fused,
    FusedFlaggedDescriptors<T>, single_pass::TileDescriptors<Flagged<T>, single_pass::Descriptors::fenced>>;

// A tile's head flags, one byte each: word r of a thread holds the 4 flags of its row-r run (the
// 4 bytes at tile offset Shape::offset(warp, lane, r, 0); the host checked the array's alignment,
// and tiles start at multiples of TILE_ITEMS). All ROWS loads go out before any word is used, like
// the values' loads: measured on an H100 at 2^28 (128 x 16 tiles, min 8 blocks), with each row's
// load next to the code that decodes it the compiler issued them one after another and the scan
// took 1.18 ms; so, 0.99 ms. (Reading the warp's flags with 16-byte loads into shared memory
// first measured the same.)
template <class Shape>
__device__ __forceinline__ void load_flag_words(const std::uint8_t* tile_flags, unsigned (&words)[Shape::ROWS]) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    words[r] = __ldcs(reinterpret_cast<const unsigned*>(tile_flags + Shape::offset(warp, lane, r, 0)));
  }
}

// INCLUSIVE: out[i] = the value of the lifted inclusive prefix. Exclusive: `store(i, prefix)` with the
// lifted exclusive prefix (ExclusiveValueStore, which knows where segments start).
// --8<-- [start:single_pass_kernel]
template <class Shape, bool INCLUSIVE, class T, class Op, class Heads, class ExclusiveStore>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS, SegmentedPolicy::kMinBlocksPerSm)
    segmented_scan_single_pass_kernel(const T* in, T* out, std::size_t n, Heads heads, ExclusiveStore store,
                                      FlaggedDescriptors<T> descriptors, single_pass::Ticket ticket, bool vectorized,
                                      single_pass::PollSchedule polls) {
  using F = Flagged<T>;
  const Segmented<Op> seg;
  __shared__ single_pass::WarpTotals<Shape, F> warp_totals;
  __shared__ unsigned tile_slot;
  __shared__ F tile_prefix;
  FlaggedDescriptors<T> desc = descriptors;
  const unsigned tile = single_pass::dynamic_tile_index(ticket.counter, single_pass::TileOrder::ticket, tile_slot);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = single_pass::valid_in_tile<Shape>(n, tile);
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();

  T values[Shape::ITEMS];
  if (valid == Shape::TILE_ITEMS) single_pass::load_full_tile<Shape>(in + start, values, vectorized);
  else single_pass::load_partial_tile<Shape>(in + start, values, valid, Op::identity());
  // Each value's head flag, as bit j of one word. From a flag array, a run's 4 flags are 4
  // consecutive bytes, one word per row of the thread (the host checked the array's alignment;
  // tiles start at multiples of TILE_ITEMS).
  constexpr bool kFlagWords = std::is_same_v<Heads, HeadFlagArray> && Shape::VEC == 4;
  const bool flag_words = kFlagWords && valid == Shape::TILE_ITEMS && vectorized;
  unsigned words[Shape::ROWS] = {};
  if constexpr (kFlagWords) {
    if (flag_words) load_flag_words<Shape>(heads.flags + start, words);
  }
  unsigned bits = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int i = Shape::offset(warp, lane, r, k);
      const unsigned head = flag_words  ? ((words[r] >> (8 * k)) & 0xffu) != 0u
                            : i < valid ? heads(start + static_cast<std::size_t>(i))
                                        : 0u;
      bits |= head << (r * Shape::VEC + k);
    }
  }

  single_pass::ThreadSeeds<Shape, F> seeds;
  const F warp_total = warp_segmented_scan_bits<Shape, Op>(values, bits, seeds);
  F warp_prefix;
  const F aggregate = single_pass::block_aggregate_and_warp_prefix<Shape>(warp_total, warp_totals, seg, warp_prefix);
  if (warp == 0) {
    const F before = single_pass::publish_and_look_back<single_pass::Lookback::warp>(desc, tile, aggregate, seg, polls);
    if (lane == 0) tile_prefix = before;
  }
  __syncthreads();

  // Each run again, seeded with everything before it, element by element with the lifted operator.
  const F before = seg(tile_prefix, warp_prefix);
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    F running = seg(before, seeds.row[r]);
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int j = r * Shape::VEC + k;
      const F x{values[j], (bits >> j) & 1u};
      if constexpr (INCLUSIVE) {
        running = seg(running, x);
        values[j] = running.value;
      } else {
        const int i = Shape::offset(warp, lane, r, k);
        if (i < valid) store(start + static_cast<std::size_t>(i), running);
        running = seg(running, x);
      }
    }
  }
  if constexpr (INCLUSIVE) {
    if (valid == Shape::TILE_ITEMS) single_pass::store_full_tile<Shape>(out + start, values, vectorized);
    else single_pass::store_partial_tile<Shape>(out + start, values, valid);
  }
  single_pass::clear_stale(ticket);  // the previous scan's descriptors, for the next scan
}
// --8<-- [end:single_pass_kernel]

}  // namespace ch10

#include "segmented_scan_staged.cuh"  // the staged kernel (large inclusive scans of a flag array)

namespace ch10 {

// Stands in for the exclusive store in inclusive scans (never called).
struct NoStore {
  template <class P>
  __device__ void operator()(std::size_t, const P&) const {}
};

// The descriptors and the ticket for segmented scans of up to n elements of T; reusable (not
// concurrently). Chapter 07's storage (scanlab/single_pass/descriptor_storage.cuh): fused words, or
// status flags and (head, value) pairs for wide values; two sides that scans use in turn, each
// scan's blocks clearing the side the scan before used, so no scan waits for a memset.
template <class T>
class SegmentedScanWorkspace {
 public:
  explicit SegmentedScanWorkspace(std::size_t n) : capacity(n), storage_(tiles_for(n)) {}

  static std::size_t tiles_for(std::size_t n) { return single_pass::tiles_for<SegmentedShape<T>>(n); }
  std::size_t capacity;
  // Inclusive scans of 4-byte values with a head-flag array stage their tiles (segmented_scan_staged.cuh)
  // from this many elements on; 0: at every size (how the grader tests the staged kernel).
  std::size_t staged_from = staged::kStagedFrom;

  // single_pass::check_tile_count against this workspace, before a launch is asked for.
  void check_tiles(std::size_t tiles, std::size_t n, const std::string& who) const {
    storage_.check_tiles(tiles, n, who);
  }
  // The descriptors and ticket of the next scan of `tiles` tiles; launched() once it went out.
  auto next_launch(std::size_t tiles, cudaStream_t s) { return storage_.next_launch(tiles, s); }
  void launched() { storage_.launched(); }

 private:
  static constexpr single_pass::Descriptors kDescriptors =
      single_pass::resolve_descriptors<T>(SegmentedPolicy::kDescriptors);
  single_pass::DescriptorStorage<Flagged<T>, kDescriptors, FlaggedDescriptors<T>> storage_;
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
  if constexpr (INCLUSIVE && std::is_same_v<Heads, HeadFlagArray> &&
                sizeof(T) == 4) {  // 16-element chunks: 4 per vector
    if (staged::stages(n, ws.staged_from, d_in, d_out, heads.flags)) {
      const std::size_t tiles = staged::tiles_for<T>(n);
      ws.check_tiles(tiles, n, "ch10::segmented_scan");
      SCANLAB_NVTX_RANGE("ch10: staged tiles");
      staged::launch<T, Op>(d_in, d_out, n, tiles, heads.flags, ws, kSegmentedPolls, s);
      return;
    }
  }
  const std::size_t tiles = SegmentedScanWorkspace<T>::tiles_for(n);
  ws.check_tiles(tiles, n, "ch10::segmented_scan");
  const auto launch = ws.next_launch(tiles, s);
  // The one-wave rule (scanlab/single_pass/polls.cuh); the occupancy is asked once per kernel.
  static const std::size_t resident =
      scanlab::resident_blocks(segmented_scan_single_pass_kernel<SegmentedShape<T>, INCLUSIVE, T, Op, Heads, Store>,
                               SegmentedPolicy::kBlockThreads);
  const single_pass::PollSchedule polls = single_pass::polls_for_grid(kSegmentedPolls, tiles, resident);
  // 16-byte loads and stores of values, and 4-byte loads of a flag array: all or none.
  bool vectorized = single_pass::aligned16(d_in) && single_pass::aligned16(d_out);
  if constexpr (std::is_same_v<Heads, HeadFlagArray>) {
    vectorized = vectorized && reinterpret_cast<std::uintptr_t>(heads.flags) % 4 == 0;
  }
  segmented_scan_single_pass_kernel<SegmentedShape<T>, INCLUSIVE, T, Op, Heads, Store>
      <<<static_cast<unsigned>(tiles), SegmentedPolicy::kBlockThreads, 0, s>>>(
          d_in, d_out, n, heads, store, launch.desc, launch.ticket, vectorized, polls);
  SCANLAB_CHECK_LAUNCH();
  ws.launched();
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
void segmented_inclusive_scan(const T* d_in, Heads heads, T* d_out, std::size_t n, Op op, SegmentedScanWorkspace<T>& ws,
                              cudaStream_t s = 0) {
  detail::check_segmented_size(n, ws, "ch10::segmented_inclusive_scan");
  (void)op;
  SCANLAB_NVTX_RANGE("ch10::segmented_inclusive_scan");
  detail::segmented_scan_single_pass<true, T, Op>(d_in, d_out, n, heads, NoStore{}, ws, s);
}
// --8<-- [end:segmented_host]

// out[i] = in[s] op ... op in[i - 1] (the identity at a head).
template <class T, class Op, class Heads>
void segmented_exclusive_scan(const T* d_in, Heads heads, T* d_out, std::size_t n, Op op, SegmentedScanWorkspace<T>& ws,
                              cudaStream_t s = 0) {
  detail::check_segmented_size(n, ws, "ch10::segmented_exclusive_scan");
  (void)op;
  SCANLAB_NVTX_RANGE("ch10::segmented_exclusive_scan");
  detail::segmented_scan_single_pass<false, T, Op>(d_in, d_out, n, heads,
                                                   ExclusiveValueStore<T, Op, Heads>{d_out, heads}, ws, s);
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
      : pixels(static_cast<std::size_t>(width) * static_cast<std::size_t>(height)), tmp(pixels), scan(pixels) {}
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

// out[y][x] = the rounded mean of the image over the box [x - r, x + r] x [y - r, y + r] clipped to
// the image, r = radius(x, y): one thread a pixel. The box is [x0 + 1, x1] x [y0 + 1, y1]; S reads
// the table, 0 left of or above the image; its mean is your box_mean (segmented_scan.cuh).
// --8<-- [start:box_filter_kernel]
template <class T, class Radius>
__global__ void box_filter_kernel(const T* sat, std::uint8_t* out, int width, int height, Radius radius) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  const int r = radius(x, y);
  const int x0 = (x - r > 0 ? x - r : 0) - 1;  // the column just left of the box (-1: none)
  const int y0 = (y - r > 0 ? y - r : 0) - 1;
  const int x1 = x + r < width ? x + r : width - 1;
  const int y1 = y + r < height ? y + r : height - 1;
  auto S = [&](int cx, int cy) -> T {
    return (cx < 0 || cy < 0) ? T(0) : sat[static_cast<std::size_t>(cy) * width + cx];
  };
  out[static_cast<std::size_t>(y) * width + x] = box_mean<T>(S, x0, y0, x1, y1);
}
// --8<-- [end:box_filter_kernel]

template <class T, class Radius>
void box_filter(const T* d_sat, std::uint8_t* d_out, int width, int height, Radius radius, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch10::box_filter");
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((width + 31) / 32), static_cast<unsigned>((height + 7) / 8));
  box_filter_kernel<T, Radius><<<grid, block, 0, s>>>(d_sat, d_out, width, height, radius);
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch10
