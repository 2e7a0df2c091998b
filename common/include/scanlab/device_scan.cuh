// scanlab/device_scan.cuh: a device-wide scan that reads and writes through functors, so that one
// scan serves the applications of chapters 08-10: tile counts into offsets, digit tables, head-flagged
// pairs, the rows of an image.
//
// Builds on chapter 05's reduce-then-scan (Merrill and Garland, NVR-2016-002, section 3), written
// compactly from the block-wide pieces of scanlab/block_scan.cuh, for any monoid of
// <scanlab/monoid.hpp>, including non-commutative ones (the value from the left is always the left
// operand). Three kernels:
//   1. reduce  partials[b] = the total of tile b                          (BlockScan's aggregate)
//   2. spine   one block scans partials[0, tiles) exclusively, in place    (BlockScan, carry)
//   3. scan    tile b scans itself, seeded with partials[b]               (BlockScan, carry)
// A tile is kScanRounds rounds of one value per thread: round r of a tile covers kScanThreads
// consecutive elements, so every global load and store of a warp is coalesced, and every thread
// carries the total of the earlier rounds in a register (the carry goes on the left).
//
//   Load:  T operator()(size_t i) const          (called only for i < n)
//   Store: void operator()(size_t i, T value) const
// Include it in quotes, by a path the CPU emulator's translator finds (relative to the including
// file, or in a folder of the program's INCLUDE_DIRS): it declares shared memory and launches
// kernels, which the translator rewrites in the files it reaches through quoted includes only.
#pragma once

#include <cstddef>
#include <stdexcept>

#include <cuda_runtime.h>

#include <scanlab/block_scan.cuh>
#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>

namespace scanlab {

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

namespace device_scan_detail {

constexpr int kScanThreads = 256;
constexpr int kScanRounds = 16;
constexpr std::size_t kScanTile = static_cast<std::size_t>(kScanThreads) * kScanRounds;
constexpr int kSpineThreads = 1024;

// Phase 1: partials[b] = the total of tile b, round by round. A round's total is the aggregate of
// a block scan whose results go unused: its Kogge-Stone warp steps cost fewer operator applications
// than BlockReduce's butterfly when the operator is not commutative (the butterfly orders both
// operands in every lane), and measured faster on (value, head) pairs.
template <class T, class Op, class Load>
__global__ void tile_reduce_kernel(Load load, std::size_t n, T* partials, Op op) {
  using Scan = BlockScan<T, kScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kScanTile;
  T running = Op::identity();
  for (int r = 0; r < kScanRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kScanThreads + threadIdx.x;
    const T x = i < n ? load(i) : Op::identity();
    if (r > 0) __syncthreads();  // the previous round's scan is done with temp
    T round_total;
    Scan(temp).inclusive_scan(x, op, round_total);
    running = op(running, round_total);
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = running;
}

// Phase 2: one block turns partials[0, tiles) into exclusive prefixes, in place, in rounds of
// kSpineThreads with the running total carried from round to round. There are n / 4096 tiles, so
// one block is enough here.
template <class T, class Op>
__global__ void spine_exclusive_scan_kernel(T* partials, std::size_t tiles, Op op) {
  using Scan = BlockScan<T, kSpineThreads>;
  __shared__ typename Scan::TempStorage temp;
  T carry = Op::identity();
  for (std::size_t base = 0; base < tiles; base += kSpineThreads) {
    const std::size_t i = base + threadIdx.x;
    const T x = i < tiles ? partials[i] : Op::identity();
    if (base > 0) __syncthreads();  // the previous round's scan is done with temp
    T round_total;
    const T exclusive = Scan(temp).exclusive_scan(x, op, round_total);
    if (i < tiles) partials[i] = op(carry, exclusive);
    carry = op(carry, round_total);
  }
}

// Phase 3: tile b scans itself round by round, starting from its carry-in partials[b]. INCLUSIVE is
// a template parameter: one block scan in the loop, not both behind a branch.
template <bool INCLUSIVE, class T, class Op, class Load, class Store>
__global__ void tile_scan_kernel(Load load, Store store, std::size_t n, const T* partials, Op op) {
  using Scan = BlockScan<T, kScanThreads>;
  __shared__ typename Scan::TempStorage temp;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kScanTile;
  T carry = partials[blockIdx.x];
  for (int r = 0; r < kScanRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kScanThreads + threadIdx.x;
    const T x = i < n ? load(i) : Op::identity();
    if (r > 0) __syncthreads();  // the previous round's scan is done with temp
    T round_total;
    T in_round;
    if constexpr (INCLUSIVE) in_round = Scan(temp).inclusive_scan(x, op, round_total);
    else in_round = Scan(temp).exclusive_scan(x, op, round_total);
    if (i < n) store(i, op(carry, in_round));
    carry = op(carry, round_total);
  }
}

}  // namespace device_scan_detail

// Temporary storage of device_scan for n elements: the number of T values `partials` must hold
// (one per tile).
template <class T>
std::size_t device_scan_tiles(std::size_t n) {
  return n == 0 ? 0 : (n + device_scan_detail::kScanTile - 1) / device_scan_detail::kScanTile;
}

// Scans n values read through `load` and writes the n prefixes through `store`, inclusive or
// exclusive. `partials` holds device_scan_tiles<T>(n) values (scratch). Launches are checked.
template <class T, class Op, class Load, class Store>
void device_scan(Load load, Store store, std::size_t n, T* partials, Op op, bool inclusive, cudaStream_t s = 0) {
  namespace d = device_scan_detail;
  if (n == 0) return;
  const std::size_t tiles = device_scan_tiles<T>(n);
  if (tiles > 0x7fffffffu) throw std::invalid_argument("scanlab::device_scan: too many tiles");
  SCANLAB_NVTX_RANGE("scanlab::device_scan (reduce, spine, scan)");
  const unsigned blocks = static_cast<unsigned>(tiles);
  d::tile_reduce_kernel<T, Op, Load><<<blocks, d::kScanThreads, 0, s>>>(load, n, partials, op);
  SCANLAB_CHECK_LAUNCH();
  d::spine_exclusive_scan_kernel<T, Op><<<1, d::kSpineThreads, 0, s>>>(partials, tiles, op);
  SCANLAB_CHECK_LAUNCH();
  if (inclusive) {
    d::tile_scan_kernel<true, T, Op, Load, Store><<<blocks, d::kScanThreads, 0, s>>>(load, store, n, partials, op);
  } else {
    d::tile_scan_kernel<false, T, Op, Load, Store><<<blocks, d::kScanThreads, 0, s>>>(load, store, n, partials, op);
  }
  SCANLAB_CHECK_LAUNCH();
}

// Exclusive scan of an array (the common case: counts into offsets). In place is allowed.
template <class T, class Op>
void device_exclusive_scan(const T* d_in, T* d_out, std::size_t n, T* d_partials, Op op, cudaStream_t s = 0) {
  device_scan<T>(ArrayLoad<T>{d_in}, ArrayStore<T>{d_out}, n, d_partials, op, false, s);
}

}  // namespace scanlab
