// Chapter 04, reference solution of exercises/04_warp_and_registers/warp_and_registers.cuh: read
// that file for the teaching notes and the hints. The comments here say why the answers are written
// as they are.
#pragma once

#include <cuda_runtime.h>

#include <scanlab/warp_scan.cuh>  // lane_id, warp_id, warp_shuffle_up, warp_shuffle

namespace ch04 {

constexpr int kWarp = 32;
constexpr int kMaxWarps = 32;  // 1024 threads

// --8<-- [start:warp_inclusive]
// Every lane shuffles at every step, also the lanes below d that combine nothing: a shuffle reads
// from all 32 lanes. The value from d lanes below is the LEFT operand.
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

// --8<-- [start:warp_exclusive]
// The inclusive scan moved up by one lane is the exclusive one: no inverse of op is needed. Lane 31's
// inclusive value is the warp's total, broadcast to every lane.
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

// --8<-- [start:block_exclusive]
// Barrier 1: every warp's total is in shared memory before warp 0 scans them (missing warps count as
// the identity, so all 32 lanes of warp 0 take part). Barrier 2: the warps' prefixes and the block
// total (slot kMaxWarps) are there before anyone reads them. Lane 0's own prefix is the identity,
// so it takes its warp's prefix as is.
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

// --8<-- [start:block_items]
// Fold the thread's items, one block scan of the fold (the only parallel step, one value per
// thread), then rescan the items seeded with the thread's exclusive prefix: the order of the
// store and the combine is all that separates inclusive from exclusive.
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

}  // namespace ch04
