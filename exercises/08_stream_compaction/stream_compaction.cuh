// Chapter 08: stream compaction (select-if) and stable partition (partition-if) in three phases.
//
// Builds on GPU Gems 3, ch. 39, section 39.3.1 (compaction = scan of keep-flags + scatter) and on
// Billeter, Olsson and Assarsson, "Efficient Stream Compaction on Wide SIMD Many-Core Architectures"
// (2009), as the compaction article (seed 003) presents it for CUDA:
//   1. count:   every tile counts the elements it keeps; __syncthreads_count does a block's count
//               in one barrier;
//   2. scan:    an exclusive scan of the tile counts gives each tile its first output position;
//   3. scatter: every tile recomputes its flags and writes the kept elements. Inside a warp,
//               __ballot_sync gives the flags of all 32 lanes as one word and __popc of the bits
//               below a lane is that lane's rank; the warps' offsets inside the block come from a
//               scan of the warp totals done one bit at a time, again with ballots and popc.
// Reads 2n (the input twice) and writes k (the kept elements); the order of the kept elements is
// the input order. Partition-if writes the rejected elements after the kept ones, also in input
// order (CUB's DevicePartition::If writes them reversed).
//
// The single-pass version (the count fused into chapter 07's decoupled look-back) is in
// stream_compaction_single_pass.cuh.
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

#include "scan_primitives.cuh"  // chapters/08_stream_compaction: warp/block/device scans (given)

namespace ch08 {

// A tile is kCompactRounds rounds of one element per thread: round r covers kCompactThreads
// consecutive elements, so loads and stores of a warp are coalesced and a tile's output keeps the
// input order (round by round, warp by warp, lane by lane).
constexpr int kCompactThreads = 512;
constexpr int kCompactWarps = kCompactThreads / apps::kWarpThreads;
constexpr int kCompactRounds = 8;
constexpr std::size_t kCompactTile = static_cast<std::size_t>(kCompactThreads) * kCompactRounds;
// A warp keeps 0..32 elements: 33 values, so a warp total needs 6 bits (32 = 0b100000), one more
// than log2(32).
constexpr int kWarpTotalBits = 6;
// Fewer warps than lanes: lane kCompactWarps of the warp-offset scan (a warp that does not exist,
// total 0) then receives the sum of all warp totals, the round's total.
static_assert(kCompactWarps < apps::kWarpThreads, "the warp-offset scan needs fewer warps than lanes");

// ---- predicates (what to keep) ----------------------------------------------------------------

template <class T>
struct IsPositive {
  SCANLAB_HD bool operator()(T x) const { return x > T(0); }
};

template <class T>
struct GreaterThan {
  T threshold;
  SCANLAB_HD bool operator()(T x) const { return x > threshold; }
};

// ---------------------------------------------------------------------------------------------
// Device building block: the warp offsets, one bit at a time
// ---------------------------------------------------------------------------------------------

// Exclusive scan of warp totals by bit slices. Called by all 32 lanes of one warp; lane w holds the
// total of warp w (0..32; 0 in lanes with no warp). Returns the sum of the totals of the lanes
// below: the first output position of warp w inside the round.
//
// Bit j of the answer's terms: __ballot_sync of "bit j of my total is set" is column j of the
// totals written in binary, one bit per lane. __popc of that column restricted to the lanes below
// counts how many earlier totals have bit j set, and each contributes 2^j. Summing over the six
// columns adds up the earlier totals exactly: six ballots instead of five shuffle steps.
// --8<-- [start:bit_sliced]
__device__ inline unsigned warp_offsets_bit_sliced(unsigned total) {
  // BEGIN TODO
  // TODO(student): the exclusive scan of the warp totals, one bit column at a time.
  //   below = the bits of the lanes below this one (apps::lanes_below_mask(lane)).
  //   For j = 0 .. kWarpTotalBits - 1: column = __ballot_sync(apps::kFullWarp, bit j of total);
  //   add __popc(column & below) << j to the offset. Every lane of the warp must take part.
  //   Why kWarpTotalBits = 6 and not log2(32) = 5? Think of a warp that keeps all 32 elements.
  (void)total;
  return 0u;
  // END TODO
}
// --8<-- [end:bit_sliced]

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------

// Phase 1: tile_counts[b] = how many elements of tile b satisfy pred. Every thread reaches every
// __syncthreads_count, also past the end of the input (it passes 0 there): a barrier that only
// some threads of a block reach is undefined.
// --8<-- [start:count_kernel]
template <class T, class Pred>
__global__ void compact_count_kernel(const T* in, std::size_t n, unsigned* tile_counts, Pred pred) {
  // BEGIN TODO
  // TODO(student): count the kept elements of tile blockIdx.x.
  //   The tile starts at blockIdx.x * kCompactTile; in round r, thread t looks at element
  //   base + r * kCompactThreads + t. keep = (i < n && pred(in[i])).
  //   __syncthreads_count(keep) returns the block's count for the round to every thread: sum the
  //   rounds, and let thread 0 write tile_counts[blockIdx.x]. Every thread must reach every
  //   __syncthreads_count, also when i >= n (pass 0 then).
  (void)in;
  (void)n;
  (void)tile_counts;
  (void)pred;
  // END TODO
}
// --8<-- [end:count_kernel]

// Shared memory of one scatter round.
struct ScatterStorage {
  unsigned warp_totals[kCompactWarps];
  unsigned warp_offsets[apps::kWarpThreads];
};

// One round of the scatter, for every thread of the block: x is element i, `keep` its flag,
// `running` the number of kept elements before the round. A kept x goes to out[before], where
// `before` counts the kept elements ahead of i; with kPartition a rejected x (i < n) goes to
// out[total_kept + (i - before)]: it is rejected element number i - before, and the rejected ones
// start after all kept ones. Returns the round's number of kept elements, in every thread.
// --8<-- [start:scatter_round]
template <bool kPartition, class T>
__device__ unsigned scatter_round(const T& x, bool keep, bool in_range, std::size_t i, unsigned running,
                                  std::size_t total_kept, ScatterStorage& s, T* out) {
  const int lane = static_cast<int>(threadIdx.x) & (apps::kWarpThreads - 1);
  const int warp = static_cast<int>(threadIdx.x) / apps::kWarpThreads;
  // BEGIN TODO
  // TODO(student): write x to its place.
  //   1. ballot = __ballot_sync(apps::kFullWarp, keep); this lane's rank among the kept elements
  //      of its warp is __popc(ballot & apps::lanes_below_mask(lane)); lane 0 stores the warp's
  //      total __popc(ballot) in s.warp_totals[warp].
  //   2. __syncthreads(); warp 0 computes s.warp_offsets[lane] = warp_offsets_bit_sliced(total), with
  //      total = s.warp_totals[lane] for lane < kCompactWarps and 0 above; __syncthreads().
  //      (s.warp_offsets[kCompactWarps] is then the round's total.)
  //   3. before = running + s.warp_offsets[warp] + rank: the number of kept elements ahead of i.
  //      keep: out[before] = x. kPartition, rejected and in_range: out[total_kept + (i - before)] = x.
  //   4. Read the round's total, __syncthreads() (the next round reuses s), return the total.
  (void)x;
  (void)keep;
  (void)in_range;
  (void)i;
  (void)running;
  (void)total_kept;
  (void)s;
  (void)out;
  (void)lane;
  (void)warp;
  return 0u;
  // END TODO
}
// --8<-- [end:scatter_round]

// Phase 3: tile b writes its kept elements from out[tile_offsets[b]] on, in input order (and,
// with kPartition, its rejected ones after all kept ones: tile_offsets[gridDim.x] is the total).
// --8<-- [start:scatter_kernel]
template <bool kPartition, class T, class Pred>
__global__ void compact_scatter_kernel(const T* in, T* out, std::size_t n,
                                       const unsigned* tile_offsets, Pred pred) {
  __shared__ ScatterStorage storage;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kCompactTile;
  unsigned running = tile_offsets[blockIdx.x];  // kept elements before this round
  const std::size_t total_kept = kPartition ? tile_offsets[gridDim.x] : 0;
  for (int r = 0; r < kCompactRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kCompactThreads + threadIdx.x;
    const bool in_range = i < n;
    const T x = in_range ? in[i] : T{};
    const bool keep = in_range && pred(x);
    running += scatter_round<kPartition>(x, keep, in_range, i, running, total_kept, storage, out);
  }
}
// --8<-- [end:scatter_kernel]

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

inline std::size_t compaction_tiles(std::size_t n) { return (n + kCompactTile - 1) / kCompactTile; }

// Device scratch for compacting up to n elements: tile counts, tile offsets (one more: the total)
// and the scan's partials. Allocate once, reuse for every call with at most n elements.
struct CompactionWorkspace {
  explicit CompactionWorkspace(std::size_t n)
      : capacity(n),
        tile_counts(compaction_tiles(n) + 1),
        tile_offsets(compaction_tiles(n) + 1),
        partials(apps::device_scan_tiles<unsigned>(compaction_tiles(n) + 1) + 1) {}
  std::size_t capacity;
  scanlab::DeviceBuffer<unsigned> tile_counts;
  scanlab::DeviceBuffer<unsigned> tile_offsets;
  scanlab::DeviceBuffer<unsigned> partials;
};

namespace detail {
inline void check_compaction_size(std::size_t n, const CompactionWorkspace& ws, const char* who) {
  if (n > 0xffffffffu) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " does not fit the 32-bit output positions (at most 2^32 - 1)");
  }
  if (n > ws.capacity) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is more than the workspace was made for (" +
                                std::to_string(ws.capacity) + ")");
  }
}

// Phase 2, and the count: offsets[b] = sum of counts[0, b), offsets[tiles] = the total, which is
// also copied to *d_num_selected. The scan reads one element past the counts as 0.
struct CountsWithTrailingZero {
  const unsigned* counts;
  std::size_t tiles;
  __device__ unsigned operator()(std::size_t i) const { return i < tiles ? counts[i] : 0u; }
};

inline void scan_tile_counts(CompactionWorkspace& ws, std::size_t tiles, unsigned* d_num_selected,
                             cudaStream_t s) {
  SCANLAB_NVTX_RANGE("ch08::phase 2: scan of the tile counts");
  apps::device_scan<unsigned>(CountsWithTrailingZero{ws.tile_counts.data(), tiles},
                              apps::ArrayStore<unsigned>{ws.tile_offsets.data()}, tiles + 1,
                              ws.partials.data(), scanlab::Plus<unsigned>{}, /*inclusive=*/false, s);
  if (d_num_selected != nullptr) {
    SCANLAB_CUDA_CHECK(cudaMemcpyAsync(d_num_selected, ws.tile_offsets.data() + tiles, sizeof(unsigned),
                                       cudaMemcpyDeviceToDevice, s));
  }
}

template <bool kPartition, class T, class Pred>
void compact_three_phase(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                         CompactionWorkspace& ws, cudaStream_t s, const char* who) {
  check_compaction_size(n, ws, who);
  if (n == 0) {
    if (d_num_selected != nullptr) SCANLAB_CUDA_CHECK(cudaMemsetAsync(d_num_selected, 0, sizeof(unsigned), s));
    return;
  }
  if (d_in == d_out) {
    throw std::invalid_argument(std::string(who) +
                                ": input and output must not overlap: the three-phase compaction "
                                "cannot run in place (see select_if_single_pass)");
  }
  const std::size_t tiles = compaction_tiles(n);
  {
    SCANLAB_NVTX_RANGE("ch08::phase 1: count per tile");
    compact_count_kernel<T, Pred><<<static_cast<unsigned>(tiles), kCompactThreads, 0, s>>>(
        d_in, n, ws.tile_counts.data(), pred);
    SCANLAB_CHECK_LAUNCH();
  }
  scan_tile_counts(ws, tiles, d_num_selected, s);
  {
    SCANLAB_NVTX_RANGE("ch08::phase 3: scatter");
    compact_scatter_kernel<kPartition, T, Pred><<<static_cast<unsigned>(tiles), kCompactThreads, 0, s>>>(
        d_in, d_out, n, ws.tile_offsets.data(), pred);
    SCANLAB_CHECK_LAUNCH();
  }
}
}  // namespace detail

// Select-if: d_out[0, k) = the elements of d_in[0, n) that satisfy pred, in input order;
// *d_num_selected = k (device memory; may be null). d_out[k, n) is not written.
// --8<-- [start:select_if]
template <class T, class Pred>
void select_if(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
               CompactionWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::select_if (three phases)");
  detail::compact_three_phase<false>(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::select_if");
}
// --8<-- [end:select_if]

// Partition-if: d_out[0, k) as select_if, d_out[k, n) = the rejected elements, in input order.
template <class T, class Pred>
void partition_if(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                  CompactionWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::partition_if (three phases)");
  detail::compact_three_phase<true>(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::partition_if");
}

// Conveniences that allocate their own workspace (allocation is synchronous: not for timing).
template <class T, class Pred>
void select_if(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred) {
  CompactionWorkspace ws(n);
  select_if(d_in, d_out, d_num_selected, n, pred, ws);
  SCANLAB_CHECK_SYNC();
}

template <class T, class Pred>
void partition_if(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred) {
  CompactionWorkspace ws(n);
  partition_if(d_in, d_out, d_num_selected, n, pred, ws);
  SCANLAB_CHECK_SYNC();
}

// ---------------------------------------------------------------------------------------------
// For the book's worked example: the bit-sliced scan of given warp totals, run by one warp.
// ---------------------------------------------------------------------------------------------
template <class Unused = void>  // a template, so that the header can be included by several files
__global__ void warp_offsets_bit_sliced_kernel(const unsigned* totals, int count, unsigned* offsets) {
  const int lane = static_cast<int>(threadIdx.x);
  const unsigned total = lane < count ? totals[lane] : 0u;
  const unsigned offset = warp_offsets_bit_sliced(total);
  if (lane < count) offsets[lane] = offset;
}

// offsets[w] = totals[0] + ... + totals[w - 1] for count <= 32 totals, each in [0, 32].
inline void warp_offsets_bit_sliced_host(const unsigned* d_totals, int count, unsigned* d_offsets,
                                         cudaStream_t s = 0) {
  if (count < 0 || count > apps::kWarpThreads) {
    throw std::invalid_argument("ch08::warp_offsets_bit_sliced_host: count must be in [0, 32]");
  }
  warp_offsets_bit_sliced_kernel<><<<1, apps::kWarpThreads, 0, s>>>(d_totals, count, d_offsets);
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch08
