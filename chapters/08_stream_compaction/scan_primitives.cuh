// The scans that chapters 08-10 build their applications on: a block scan of one value per thread
// (from scanlab/warp_scan.cuh's warp scans) and a device-wide reduce-then-scan (three kernels) that
// reads and writes through functors, so that one scan serves counts, digit tables, head-flagged pairs and image rows.
//
// This is given code, not an exercise: the chapters' exercises call it. It follows the layering of
// chapters 04 and 05 (warp -> block -> device; Merrill & Garland, section 3, "reduce-then-scan"),
// written compactly for any monoid from <scanlab/monoid.hpp>, including non-commutative ones: the
// value from the left is always the left operand.
//
// Tiles are processed in rounds of one value per thread (round r of a tile covers blockDim.x
// consecutive elements), so every global load and store of a warp is coalesced; the running
// aggregate of the earlier rounds is carried in a register.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/warp_scan.cuh>

namespace apps {

constexpr int kWarpThreads = 32;
constexpr unsigned kFullWarp = 0xffffffffu;

// Bits of the lanes below `lane`: the mask that turns a warp ballot into this lane's rank.
__device__ inline unsigned lanes_below_mask(int lane) { return (1u << lane) - 1u; }

// Shared memory of one block scan: the warps' totals.
template <class T>
struct BlockScanStorage {
  T warp_totals[kWarpThreads];
};

// Inclusive scan of one value per thread over the whole block, in thread order. blockDim.x must be
// a multiple of 32 (at most 1024). Every thread of the block must call it. `aggregate` receives the
// block's total in every thread. `storage` may be reused by the next call (the trailing barrier).
template <class T, class Op>
__device__ T block_inclusive_scan(T x, BlockScanStorage<T>& storage, Op op, T& aggregate) {
  const int lane = static_cast<int>(threadIdx.x) & (kWarpThreads - 1);
  const int warp = static_cast<int>(threadIdx.x) / kWarpThreads;
  const int warps = static_cast<int>(blockDim.x) / kWarpThreads;
  x = scanlab::warp_inclusive_scan(x, op);
  if (lane == kWarpThreads - 1) storage.warp_totals[warp] = x;
  __syncthreads();
  if (warp == 0) {
    T t = lane < warps ? storage.warp_totals[lane] : Op::identity();
    t = scanlab::warp_inclusive_scan(t, op);
    if (lane < warps) storage.warp_totals[lane] = t;  // now inclusive prefixes of the warp totals
  }
  __syncthreads();
  if (warp > 0) x = op(storage.warp_totals[warp - 1], x);
  aggregate = storage.warp_totals[warps - 1];
  __syncthreads();
  return x;
}

// ---------------------------------------------------------------------------------------------
// Device-wide scan: reduce, scan the tile totals (spine), scan the tiles with their carry-in.
// Load: T operator()(size_t i) const.  Store: void operator()(size_t i, T value) const.
// ---------------------------------------------------------------------------------------------

template <class T>
struct ArrayLoad {
  const T* data;
  __device__ T operator()(std::size_t i) const { return data[i]; }
};

template <class T>
struct ArrayStore {
  T* data;
  __device__ void operator()(std::size_t i, T value) const { data[i] = value; }
};

constexpr int kScanThreads = 256;
constexpr int kScanRounds = 16;
constexpr std::size_t kScanTile = static_cast<std::size_t>(kScanThreads) * kScanRounds;
constexpr int kSpineThreads = 1024;

// Phase 1: partials[b] = the total of tile b.
template <class T, class Op, class Load>
__global__ void tile_reduce_kernel(Load load, std::size_t n, T* partials, Op op) {
  __shared__ BlockScanStorage<T> storage;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kScanTile;
  T running = Op::identity();
  for (int r = 0; r < kScanRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kScanThreads + threadIdx.x;
    const T x = i < n ? load(i) : Op::identity();
    T round_total;
    block_inclusive_scan(x, storage, op, round_total);
    running = op(running, round_total);
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = running;
}

// Phase 2: one block turns partials[0, tiles) into exclusive prefixes, in place, in rounds of
// blockDim.x with a carry. The tile count is n / 4096, so one block is enough here.
template <class T, class Op>
__global__ void spine_exclusive_scan_kernel(T* partials, std::size_t tiles, Op op) {
  __shared__ BlockScanStorage<T> storage;
  __shared__ T shifted[kSpineThreads + 1];
  T carry = Op::identity();
  for (std::size_t base = 0; base < tiles; base += kSpineThreads) {
    const std::size_t i = base + threadIdx.x;
    const T x = i < tiles ? partials[i] : Op::identity();
    T round_total;
    const T inclusive = op(carry, block_inclusive_scan(x, storage, op, round_total));
    // The exclusive prefix of element i is the inclusive prefix of element i - 1.
    shifted[threadIdx.x + 1] = inclusive;
    if (threadIdx.x == 0) shifted[0] = carry;
    __syncthreads();
    if (i < tiles) partials[i] = shifted[threadIdx.x];
    __syncthreads();
    carry = op(carry, round_total);
  }
}

// Phase 3: each tile scans itself, starting from its carry-in partials[b].
template <class T, class Op, class Load, class Store>
__global__ void tile_scan_kernel(Load load, Store store, std::size_t n, const T* partials, Op op,
                                 bool inclusive) {
  __shared__ BlockScanStorage<T> storage;
  __shared__ T shifted[kScanThreads + 1];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kScanTile;
  T carry = partials[blockIdx.x];
  for (int r = 0; r < kScanRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kScanThreads + threadIdx.x;
    const T x = i < n ? load(i) : Op::identity();
    T round_total;
    const T prefix = op(carry, block_inclusive_scan(x, storage, op, round_total));
    if (inclusive) {
      if (i < n) store(i, prefix);
    } else {
      // exclusive prefix of element i = inclusive prefix of element i - 1 (the carry for the first)
      shifted[threadIdx.x + 1] = prefix;
      if (threadIdx.x == 0) shifted[0] = carry;
      __syncthreads();
      if (i < n) store(i, shifted[threadIdx.x]);
      __syncthreads();
    }
    carry = op(carry, round_total);
  }
}

// Temporary storage of device_scan for n elements: one partial per tile.
template <class T>
std::size_t device_scan_tiles(std::size_t n) {
  return n == 0 ? 0 : (n + kScanTile - 1) / kScanTile;
}

// Scans n values read through `load` and writes the n prefixes through `store`, inclusive or
// exclusive. `partials` holds device_scan_tiles<T>(n) values (scratch). Launches are checked.
template <class T, class Op, class Load, class Store>
void device_scan(Load load, Store store, std::size_t n, T* partials, Op op, bool inclusive,
                 cudaStream_t s = 0) {
  if (n == 0) return;
  const std::size_t tiles = device_scan_tiles<T>(n);
  if (tiles > 0x7fffffffu) throw std::invalid_argument("apps::device_scan: too many tiles");
  SCANLAB_NVTX_RANGE("apps::device_scan (reduce, spine, scan)");
  tile_reduce_kernel<T, Op, Load><<<static_cast<unsigned>(tiles), kScanThreads, 0, s>>>(load, n, partials, op);
  SCANLAB_CHECK_LAUNCH();
  spine_exclusive_scan_kernel<T, Op><<<1, kSpineThreads, 0, s>>>(partials, tiles, op);
  SCANLAB_CHECK_LAUNCH();
  tile_scan_kernel<T, Op, Load, Store>
      <<<static_cast<unsigned>(tiles), kScanThreads, 0, s>>>(load, store, n, partials, op, inclusive);
  SCANLAB_CHECK_LAUNCH();
}

// Exclusive scan of an array (the common case: counts into offsets). In place is allowed.
template <class T, class Op>
void device_exclusive_scan(const T* d_in, T* d_out, std::size_t n, T* d_partials, Op op,
                           cudaStream_t s = 0) {
  device_scan<T>(ArrayLoad<T>{d_in}, ArrayStore<T>{d_out}, n, d_partials, op, false, s);
}

}  // namespace apps
