// Chapter 08, given: how a single-pass compaction packs a tile's kept elements in shared memory and
// stores them densely. Both single-pass kernels use these steps (the one-tile kernel in
// stream_compaction_single_pass_dispatch.cuh, and the two-tile partition in partition_two_tile.cuh);
// nothing here needs changing.
//
// A thread holds Shape::ITEMS elements in the single-pass library's warp-striped order
// (scanlab/single_pass/tile.cuh): one run of VEC consecutive elements per row, the warp's segment
// row 0 of lanes 0..31, then row 1, and so on.
//   rank      one keep bit per element; each run's place among the kept elements of the warp's
//             segment, from bit-sliced ballots across the lanes (the three-phase scatter's way);
//   exchange  every kept element to shared memory at its rank in the tile, so that the kept ones
//             lie there densely and in input order (partition: the rejected ones after them);
//   store     consecutive threads copy consecutive slots out: every warp's stores are dense and
//             coalesced, whatever fraction is kept.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cuda_runtime.h>

#include <scanlab/warp_scan.cuh>

namespace ch08 {

// Bits of a count 0..VEC (a run's kept elements): 3 for VEC = 4.
template <int VEC>
constexpr int kRunCountBits = VEC < 2 ? 1 : 1 + kRunCountBits<VEC / 2>;

// Exclusive scan across the 32 lanes of counts below 2^BITS, by bit slices (the three-phase
// version's warp_offsets_bit_sliced, for any width): __ballot_sync of bit b of every lane's count is
// column b of the counts in binary; its popc below this lane counts the earlier counts with bit b
// set, each worth 2^b. Returns the sum of the counts of the lanes below; `total` gets all 32 lanes'.
// Called by all 32 lanes of a warp.
template <int BITS>
__device__ __forceinline__ unsigned lanes_before_bit_sliced(unsigned count, unsigned& total) {
  const unsigned below = scanlab::lanes_below_mask(scanlab::lane_id());
  unsigned before = 0;
  total = 0;
#pragma unroll
  for (int b = 0; b < BITS; ++b) {
    const unsigned column = __ballot_sync(scanlab::kFullWarpMask, (count >> b) & 1u);
    before += static_cast<unsigned>(__popc(column & below)) << b;
    total += static_cast<unsigned>(__popc(column)) << b;
  }
  return before;
}

// Keep bits of a thread's elements, bit j for items[j]: the predicate, for elements of the tile's
// first `valid` only.
template <class Shape, class T, class Pred>
__device__ __forceinline__ unsigned keep_bits(const T (&items)[Shape::ITEMS], int valid, Pred pred) {
  static_assert(Shape::ITEMS <= 32, "one bit per element");
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  unsigned kept = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int j = r * Shape::VEC + k;
      const bool keep = Shape::offset(warp, lane, r, k) < valid && pred(items[j]);
      kept |= (keep ? 1u : 0u) << j;
    }
  }
  return kept;
}

// Every run's place among the kept elements of the warp's segment: the kept elements of the rows
// above plus those of the lanes to its left in its row. Returns the warp's kept count. All 32 lanes.
template <class Shape>
__device__ __forceinline__ unsigned warp_run_places(unsigned kept, unsigned (&run_place)[Shape::ROWS]) {
  constexpr unsigned kRunMask = (1u << Shape::VEC) - 1u;
  unsigned warp_count = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    unsigned row_count;
    const unsigned run = (kept >> (r * Shape::VEC)) & kRunMask;
    run_place[r] =
        warp_count + lanes_before_bit_sliced<kRunCountBits<Shape::VEC>>(static_cast<unsigned>(__popc(run)), row_count);
    warp_count += row_count;
  }
  return warp_count;
}

// The exchange: kept element number `rank` of the tile to slots[rank]; with kPartition a rejected
// one at tile offset i (it has i - rank rejected ones before it) to slots[count + i - rank], after
// all `count` kept ones. warp_before: the kept elements of the tile's warps before this one.
template <bool kPartition, class Shape, class T>
__device__ __forceinline__ void exchange_kept_first(const T (&items)[Shape::ITEMS], unsigned kept,
                                                    const unsigned (&run_place)[Shape::ROWS], unsigned warp_before,
                                                    unsigned count, int valid, T* slots) {
  constexpr unsigned kRunMask = (1u << Shape::VEC) - 1u;
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    const unsigned run = (kept >> (r * Shape::VEC)) & kRunMask;
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int j = r * Shape::VEC + k;
      const unsigned rank = warp_before + run_place[r] + static_cast<unsigned>(__popc(run & ((1u << k) - 1u)));
      if ((run >> k) & 1u) {
        slots[rank] = items[j];
      } else if (kPartition) {
        const int i = Shape::offset(warp, lane, r, k);
        if (i < valid) slots[count + (static_cast<unsigned>(i) - rank)] = items[j];
      }
    }
  }
}

// A store of an element that nothing reads again soon: the streaming hint ("evict first") where
// CUDA has one for the type, leaving L2 to the tiles' descriptors (chapter 07 measured the same).
template <class T>
__device__ __forceinline__ void store_streaming(T* p, const T& v) {
  if constexpr (std::is_arithmetic_v<T>) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// The stores, by the tile's Shape::BLOCK_THREADS threads (thread t copies slots t, t +
// BLOCK_THREADS, ...): the `count` kept slots to out[kept_before, ...); with kPartition the
// `valid - count` rejected ones backwards from the end of the output, after the `start -
// kept_before` rejected ones of the elements before the tile (rejected element number j of the
// array goes to out[n - 1 - j]).
template <bool kPartition, class Shape, class T>
__device__ __forceinline__ void store_exchanged(const T* slots, unsigned count, int valid, T* out, std::size_t n,
                                                std::size_t start, std::size_t kept_before) {
  const std::size_t rejected_before = start - kept_before;
  const int used = kPartition ? valid : static_cast<int>(count);
  for (int i = static_cast<int>(threadIdx.x); i < used; i += Shape::BLOCK_THREADS) {
    if (!kPartition || i < static_cast<int>(count)) {
      store_streaming(&out[kept_before + static_cast<std::size_t>(i)], slots[i]);
    } else {
      store_streaming(&out[n - 1 - (rejected_before + static_cast<std::size_t>(i - static_cast<int>(count)))],
                      slots[i]);
    }
  }
}

}  // namespace ch08
