// Chapter 02: the work-efficient (Blelloch) scan of one tile in shared memory.
//
// Builds on Blelloch (1990) as presented for GPUs in GPU Gems 3, ch. 39, section 39.2.2
// (Algorithms 3 and 4, Listing 39-2), and on the worked 8-element example of the scan article
// (seed 002, "Visualizing Blelloch for 8 elements"). The tile is a balanced binary tree laid over a
// shared array of m = 2^k elements, two per thread:
//   up-sweep (reduce): at level 1, 2, ..., k every node stores op(left child, right child) in the
//     slot of its right child; the root (the last slot) ends up holding the whole tile's total;
//   down-sweep: the root is set to the identity; then level by level every node passes its value
//     to its left child and op(its value, the left child's old value) to its right child.
// Afterwards slot i holds the exclusive prefix of element i. 2(m-1) operator applications and m-1
// swaps: O(m) work, like the sequential loop (chapter 01's scan does O(m log m)), in 2 log2(m)
// barrier-separated levels.
//
// Op is a monoid from <scanlab/monoid.hpp> and need not be commutative: the left subtree's value is
// always the LEFT operand, and in the down-sweep the prefix coming from above is the left operand.
//
// Tracing: a traced build (-DSCANLAB_TRACE, see <scanlab/trace.hpp>) records the shared array after
// the load, after every up-sweep level, after the root is cleared and after every down-sweep level.
// In every other build the SCANLAB_TRACE_* lines are empty.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/trace.hpp>

namespace ch02 {

// At most 1024 threads in a block, two elements each.
constexpr int kMaxBlockThreads = 1024;
constexpr int kMaxBlockScan = 2 * kMaxBlockThreads;

// The tree needs a power-of-two tile. n elements are scanned in the tile of the next power of two
// >= n (at least 2: one thread, two elements); slots n .. m-1 hold the identity, which changes no
// prefix of the first n elements, and nothing from them is stored.
constexpr int blelloch_tile_for(int n) {
  int m = 2;
  while (m < n) m *= 2;
  return m;
}

constexpr bool is_power_of_two(int x) { return x > 0 && (x & (x - 1)) == 0; }

// ---------------------------------------------------------------------------------------------
// Device building block
// ---------------------------------------------------------------------------------------------

// Exclusive scan, in place, of temp[0, m) with m = 2 * blockDim.x (a power of two): afterwards
// temp[i] = temp[0] op ... op temp[i-1] (the identity for i = 0). Every thread of the block must
// call it; the caller's writes to temp must be complete (this function starts with a barrier at
// each level) and it ends with a barrier, so the caller may read any slot afterwards.
//
// Level with `stride` s: active thread t combines the two children of its node, whose subtrees end
// at left = s(2t+1) - 1 and right = s(2t+2) - 1. Half as many threads work at each level up, twice
// as many at each level down.
// --8<-- [start:block_shared]
template <class T, class Op>
__device__ void blelloch_exclusive_scan_shared(T* temp, Op op, scanlab::TraceLog log) {
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const int m = 2 * static_cast<int>(blockDim.x);
  int stride = 1;
  int level = 0;
  // Up-sweep: after level L, slot s(2t+2)-1 holds the total of its 2^L-element subtree.
  for (int active = m / 2; active > 0; active /= 2) {
    __syncthreads();
    if (tid < active) {
      const int left = stride * (2 * tid + 1) - 1;
      const int right = stride * (2 * tid + 2) - 1;
      temp[right] = op(temp[left], temp[right]);
    }
    stride *= 2;
    ++level;
    SCANLAB_TRACE_BLOCK_ARRAY(log, "up", level, temp, m);
  }
  // The root's exclusive prefix: nothing comes before the whole tile. Thread 0 computed the root
  // itself at the last level (one active thread), so no barrier is needed before this store.
  if (tid == 0) temp[m - 1] = Op::identity();
  SCANLAB_TRACE_BLOCK_ARRAY(log, "clear", level, temp, m);
  // Down-sweep: a node's slot holds the prefix of everything left of its subtree.
  int step = 0;
  for (int active = 1; active < m; active *= 2) {
    stride /= 2;
    __syncthreads();
    if (tid < active) {
      const int left = stride * (2 * tid + 1) - 1;
      const int right = stride * (2 * tid + 2) - 1;
      // Each value is read once: written as temp[right] on both lines, nvcc reads it again after
      // the store to temp[left] (it cannot rule out left == right), one more shared load per level.
      const T left_total = temp[left];
      const T prefix = temp[right];
      temp[left] = prefix;                      // left child: the parent's prefix
      temp[right] = op(prefix, left_total);     // right child: prefix, then the left subtree
    }
    ++step;
    SCANLAB_TRACE_BLOCK_ARRAY(log, "down", step, temp, m);
  }
  __syncthreads();
  // END TODO
}
// --8<-- [end:block_shared]

// ---------------------------------------------------------------------------------------------
// Kernel
// ---------------------------------------------------------------------------------------------

// Block b scans the tile in[b*m, (b+1)*m) with m = 2 * blockDim.x, independently of every other
// block (one block for a single scan, many for throughput). Thread t loads the two ADJACENT
// elements 2t and 2t+1 (the identity past n), keeps them in registers for the inclusive form
// (prefix op own element), and stores the results it owns that are below n.
// --8<-- [start:tiles_kernel]
template <class T, class Op>
__global__ void blelloch_scan_tiles_kernel(const T* in, T* out, std::size_t n, bool inclusive, Op op,
                                           scanlab::TraceLog log) {
  extern __shared__ unsigned char ch02_shared_bytes[];
  T* temp = reinterpret_cast<T*>(ch02_shared_bytes);
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const int m = 2 * static_cast<int>(blockDim.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(m);
  const int a = 2 * tid;
  const int b = 2 * tid + 1;
  const std::size_t ga = base + static_cast<std::size_t>(a);
  const std::size_t gb = base + static_cast<std::size_t>(b);
  const T xa = ga < n ? in[ga] : Op::identity();
  const T xb = gb < n ? in[gb] : Op::identity();
  temp[a] = xa;
  temp[b] = xb;
  SCANLAB_TRACE_BLOCK_ARRAY(log, "input", 0, temp, m);
  blelloch_exclusive_scan_shared(temp, op, log);
  if (ga < n) out[ga] = inclusive ? op(temp[a], xa) : temp[a];
  if (gb < n) out[gb] = inclusive ? op(temp[b], xb) : temp[b];
  // END TODO
}
// --8<-- [end:tiles_kernel]

// ---------------------------------------------------------------------------------------------
// Launch wrappers (host). Device pointers; the launch is checked, kernel faults surface at the
// caller's next synchronisation. `log` is used by traced builds only (default: record nothing).
// ---------------------------------------------------------------------------------------------

namespace detail {
inline void check_block_scan_size(int n, const char* who) {
  if (n < 0 || n > kMaxBlockScan) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) + " is outside [0, " +
                                std::to_string(kMaxBlockScan) +
                                "]; one block scans at most 2 elements per thread of 1024 "
                                "(use the tiles form, or chapter 05, for more)");
  }
}

inline void check_tile(int tile, const char* who) {
  if (tile < 2 || tile > kMaxBlockScan || !is_power_of_two(tile)) {
    throw std::invalid_argument(std::string(who) + ": tile = " + std::to_string(tile) +
                                " must be a power of two in [2, " + std::to_string(kMaxBlockScan) + "]");
  }
}

template <class T, class Op>
void launch_tiles(const T* d_in, T* d_out, std::size_t n, int tile, bool inclusive, Op op,
                  cudaStream_t s, scanlab::TraceLog log) {
  const std::size_t tiles = (n + static_cast<std::size_t>(tile) - 1) / static_cast<std::size_t>(tile);
  if (tiles > 0x7fffffffu) {
    throw std::invalid_argument("blelloch scan: n / tile needs more than 2^31 - 1 blocks");
  }
  const int threads = tile / 2;
  blelloch_scan_tiles_kernel<T, Op><<<static_cast<unsigned>(tiles), threads,
                                      static_cast<std::size_t>(tile) * sizeof(T), s>>>(
      d_in, d_out, n, inclusive, op, log);
  SCANLAB_CHECK_LAUNCH();
}
}  // namespace detail

// One block scans d_in[0, n), n <= 2048, in a tile of blelloch_tile_for(n) elements.
// --8<-- [start:block_launch]
template <class T, class Op>
void blelloch_exclusive_scan_block(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0,
                                   scanlab::TraceLog log = {}) {
  detail::check_block_scan_size(n, "blelloch_exclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch02::blelloch_exclusive_scan_block");
  detail::launch_tiles(d_in, d_out, static_cast<std::size_t>(n), blelloch_tile_for(n), false, op, s, log);
}
// --8<-- [end:block_launch]

template <class T, class Op>
void blelloch_inclusive_scan_block(const T* d_in, T* d_out, int n, Op op, cudaStream_t s = 0,
                                   scanlab::TraceLog log = {}) {
  detail::check_block_scan_size(n, "blelloch_inclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch02::blelloch_inclusive_scan_block");
  detail::launch_tiles(d_in, d_out, static_cast<std::size_t>(n), blelloch_tile_for(n), true, op, s, log);
}

// Many independent tiles of `tile` elements (a power of two, 2..2048): block b scans
// [b*tile, (b+1)*tile) on its own; the last tile may be ragged. A throughput workload, and the
// per-block phase that chapter 05 completes into a scan of the whole array.
template <class T, class Op>
void blelloch_exclusive_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, Op op,
                                   cudaStream_t s = 0) {
  detail::check_tile(tile, "blelloch_exclusive_scan_tiles");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch02::blelloch_exclusive_scan_tiles");
  detail::launch_tiles(d_in, d_out, n, tile, false, op, s, scanlab::TraceLog{});
}

template <class T, class Op>
void blelloch_inclusive_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, Op op,
                                   cudaStream_t s = 0) {
  detail::check_tile(tile, "blelloch_inclusive_scan_tiles");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch02::blelloch_inclusive_scan_tiles");
  detail::launch_tiles(d_in, d_out, n, tile, true, op, s, scanlab::TraceLog{});
}

}  // namespace ch02
