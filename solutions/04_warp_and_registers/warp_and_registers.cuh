// Chapter 04: warp-shuffle scans, a block scan built from warp scans, and items per thread.
//
// Builds on: Kogge and Stone (1973), the minimum-depth scan network, run inside a warp with
// __shfl_up_sync (Merrill and Garland, NVR-2016-002, section 3: warp-synchronous Kogge-Stone scans
// are the GPU's usual innermost building block); the block scan from warp scans of CUB's
// BLOCK_SCAN_WARP_SCANS; and GPU Gems 3, ch. 39.2.5: each thread scans several elements
// sequentially in registers, so that only one value per thread takes part in the parallel scan
// (Brent's theorem).
//
// Your code: the four device functions below, from the innermost out:
//   warp   32 values, one per lane:                     5 steps, 129 combines (sequential: 31)
//   block  one value per thread, P threads:              warp scans, warp totals through shared
//          memory, one warp scans them: ~4P + 129 combines, 2 barriers
//   items  I values per thread, P threads, tile N = P*I: sequential fold, the block scan of the P
//          thread totals, sequential rescan: ~2N + 4P combines, depth ~2I + 11, 2 barriers
// Given, in chapters/04_warp_and_registers/warp_and_registers_dispatch.cuh: the kernels that scan
// independent tiles with them (16-byte loads) and their launch wrappers.
//
// Op is a monoid from <scanlab/monoid.hpp>; it need not be commutative: the value from further
// left is always the LEFT operand. Blocks are 1-D with a multiple of 32 threads.
//
// The same constructions, with CUB-style TempStorage and prefix callbacks for multi-block scans,
// live in common/include/scanlab/{warp_scan,block_scan}.cuh; chapter 05 onwards uses those.
#pragma once

#include <cuda_runtime.h>

#include <scanlab/warp_scan.cuh>  // lane_id, warp_id, warp_shuffle_up, warp_shuffle

namespace ch04 {

constexpr int kWarp = 32;
constexpr int kMaxWarps = 32;  // 1024 threads

// Inclusive scan across the 32 lanes of a warp: lane i returns x_0 op ... op x_i, with
// log2(32) = 5 shuffle steps (Kogge-Stone). Every lane of the warp must call it.
// --8<-- [start:warp_inclusive]
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

// Exclusive scan across the warp: lane 0 returns Op::identity(), lane i > 0 returns
// x_0 op ... op x_{i-1}; warp_total receives x_0 op ... op x_31 in every lane. Every lane must call
// it. Built on the inclusive scan, without an inverse of op ("inclusive minus x" is wrong for max
// and affine maps).
// --8<-- [start:warp_exclusive]
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

// Exclusive scan of one value per thread across the whole block, in thread order. Returns this
// thread's exclusive prefix (the identity in thread 0); block_total receives the block's total in
// every thread. `warp_totals` is shared memory for kMaxWarps + 1 values, free for this function to
// use. Every thread of the block must call it. It may use at most the warp scans above and two
// __syncthreads(), which every thread must reach; call it once per kernel (a second call would
// overwrite warp_totals while slower threads still read them).
// --8<-- [start:block_exclusive]
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

// Scan of ITEMS values per thread, the block's tile in the blocked arrangement (thread t holds
// tile items [t * ITEMS, (t + 1) * ITEMS)), in place: inclusive or exclusive. block_total receives
// the tile's total in every thread. Only one value per thread may go through
// block_exclusive_scan_from_warps (once, so its rules apply); everything else is sequential work
// in registers.
// --8<-- [start:block_items]
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
