// Chapter 01, reference solution of exercises/01_hillis_steele/hillis_steele.cuh: read that file
// for the teaching notes and the hints. The comments here say why the answers are written as they
// are.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace ch01 {

// --8<-- [start:block_values]
// Two halves of `buffers` swap roles every step (src is read, dst written), so no step reads a
// slot that the same step overwrites; the barrier at the end of a step is reached by every thread,
// including those with tid < offset, which only copy their value forward.
template <class T, class Op>
__device__ T hillis_steele_inclusive_scan_block_values(T x, T* buffers, Op op) {
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const int width = static_cast<int>(blockDim.x);
  T* src = buffers;
  T* dst = buffers + width;
  src[tid] = x;
  __syncthreads();
  for (int offset = 1; offset < width; offset *= 2) {
    if (tid >= offset) x = op(src[tid - offset], x);
    dst[tid] = x;
    __syncthreads();
    T* const written = dst;  // what this step wrote, the next step reads
    dst = src;
    src = written;
  }
  return x;
  // END TODO
}
// --8<-- [end:block_values]

// --8<-- [start:block_kernels]
// Threads at or past n feed the identity, which changes no prefix, and still call the block scan:
// its barriers need every thread. The exclusive kernel scans the input shifted right by one.
template <class T, class Op>
__global__ void hillis_steele_inclusive_scan_block_kernel(const T* in, T* out, int n, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const T x = tid < n ? in[tid] : Op::identity();
  const T prefix = hillis_steele_inclusive_scan_block_values(x, buffers, op);
  if (tid < n) out[tid] = prefix;
  // END TODO
}

template <class T, class Op>
__global__ void hillis_steele_exclusive_scan_block_kernel(const T* in, T* out, int n, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const T x = (tid > 0 && tid < n) ? in[tid - 1] : Op::identity();
  const T prefix = hillis_steele_inclusive_scan_block_values(x, buffers, op);
  if (tid < n) out[tid] = prefix;
  // END TODO
}
// --8<-- [end:block_kernels]

// --8<-- [start:tiles_kernel]
// The tile's first element is (first_tile + blockIdx.x) * tile, computed in std::size_t: in int
// it wraps past 2^31 elements. `mine` also excludes the threads that only round the tile up to a
// whole warp (tid >= tile).
template <class T, class Op>
__global__ void hillis_steele_inclusive_scan_tiles_kernel(const T* in, T* out, std::size_t n, int tile,
                                                          std::size_t first_tile, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const std::size_t tile_index = first_tile + blockIdx.x;
  const std::size_t i = tile_index * static_cast<std::size_t>(tile) + static_cast<std::size_t>(tid);
  const bool mine = tid < tile && i < n;
  const T x = mine ? in[i] : Op::identity();
  const T prefix = hillis_steele_inclusive_scan_block_values(x, buffers, op);
  if (mine) out[i] = prefix;
  // END TODO
}
// --8<-- [end:tiles_kernel]

}  // namespace ch01
