// Chapter 02, reference solution of exercises/02_blelloch/blelloch.cuh: read that file for the
// teaching notes and the hints. The comments here say why the answers are written as they are.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/trace.hpp>

namespace ch02 {

// --8<-- [start:block_shared]
// The barrier comes at the TOP of each level (it orders the caller's writes before level 1 and each
// level's writes before the next) and once more at the end; `active` halves on the way up and
// doubles on the way down, so the index arithmetic is the same on both sweeps.
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
      temp[left] = prefix;                   // left child: the parent's prefix
      temp[right] = op(prefix, left_total);  // right child: prefix, then the left subtree
    }
    ++step;
    SCANLAB_TRACE_BLOCK_ARRAY(log, "down", step, temp, m);
  }
  __syncthreads();
  // END TODO
}
// --8<-- [end:block_shared]

// --8<-- [start:tiles_kernel]
// Each thread keeps its two inputs in registers (xa, xb): the inclusive result is the exclusive
// prefix op the element, and temp no longer holds the element after the scan.
template <class T, class Op>
__global__ void blelloch_scan_tiles_kernel(const T* in, T* out, std::size_t n, std::size_t first_tile, bool inclusive,
                                           Op op, scanlab::TraceLog log) {
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
