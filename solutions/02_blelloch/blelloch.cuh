// Chapter 02: the work-efficient (Blelloch) scan of one tile in shared memory.
//
// Builds on Blelloch (1990) as presented for GPUs in GPU Gems 3, ch. 39, section 39.2.2
// (Algorithms 3 and 4, Listing 39-2), and on the worked 8-element example of the scan article
// ("Visualizing Blelloch for 8 elements"). The tile is a balanced binary tree laid over a
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
// Tracing: a traced build (-DSCANLAB_TRACE, see <scanlab/trace.hpp>) records the shared array
// wherever a SCANLAB_TRACE_* line stands. In every other build those lines are empty.
//
// This file holds the code you write. The launch wrappers (tile size, threads, shared memory,
// argument checks) are given in chapters/02_blelloch/blelloch_dispatch.cuh.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/trace.hpp>

namespace ch02 {

// ---------------------------------------------------------------------------------------------
// Device building block
// ---------------------------------------------------------------------------------------------

// Exclusive scan, in place, of temp[0, m) with m = 2 * blockDim.x (a power of two): afterwards
// temp[i] = temp[0] op ... op temp[i-1] (the identity for i = 0). Every thread of the block must
// call it; the caller's writes to temp must be complete (this function starts with a barrier at
// each level) and it ends with a barrier, so the caller may read any slot afterwards.
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

// Tile k is in[k*m, (k+1)*m) with m = 2 * blockDim.x; block b scans tile first_tile + b,
// independently of every other block (one block for a single scan, many for throughput; a launch
// covers the tiles [first_tile, first_tile + gridDim.x), see chapter 01). Thread t owns the two
// ADJACENT elements 2t and 2t+1 of the tile; the identity fills the tile past n.
// --8<-- [start:tiles_kernel]
template <class T, class Op>
__global__ void blelloch_scan_tiles_kernel(const T* in, T* out, std::size_t n, std::size_t first_tile,
                                           bool inclusive, Op op, scanlab::TraceLog log) {
  extern __shared__ unsigned char ch02_shared_bytes[];
  T* temp = reinterpret_cast<T*>(ch02_shared_bytes);
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const int m = 2 * static_cast<int>(blockDim.x);
  const std::size_t base = (first_tile + blockIdx.x) * static_cast<std::size_t>(m);
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

}  // namespace ch02
