// Chapter 00, reference solution of exercises/00_sequential/sequential_scan.cuh: read that file for
// the teaching notes and the hints. The comments here say why the answers are written as they are.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace ch00 {

// --8<-- [start:host_inclusive]
// One running value, the LEFT operand of every combine: n - 1 applications of op, the minimum.
template <class T, class Op>
void sequential_inclusive_scan(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  if (n == 0) return;
  T running = in[0];
  out[0] = running;
  for (std::size_t i = 1; i < n; ++i) {
    running = op(running, in[i]);
    out[i] = running;
  }
  // END TODO
}
// --8<-- [end:host_inclusive]

// --8<-- [start:host_exclusive]
// in[i] is read into x before out[i] is written: with in == out the write would destroy it.
template <class T, class Op>
void sequential_exclusive_scan(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  T running = Op::identity();
  for (std::size_t i = 0; i < n; ++i) {
    const T x = in[i];
    out[i] = running;
    running = op(running, x);
  }
  // END TODO
}
// --8<-- [end:host_exclusive]

// --8<-- [start:one_thread_kernels]
// The host loops verbatim, behind a guard that lets only thread 0 of block 0 through.
template <class T, class Op>
__global__ void one_thread_inclusive_scan_kernel(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  // Launched with one thread; the guard keeps the kernel correct under any launch shape.
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  if (n == 0) return;
  T running = in[0];
  out[0] = running;
  for (std::size_t i = 1; i < n; ++i) {
    running = op(running, in[i]);
    out[i] = running;
  }
  // END TODO
}

template <class T, class Op>
__global__ void one_thread_exclusive_scan_kernel(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  T running = Op::identity();
  for (std::size_t i = 0; i < n; ++i) {
    const T x = in[i];
    out[i] = running;
    running = op(running, x);
  }
  // END TODO
}
// --8<-- [end:one_thread_kernels]

}  // namespace ch00
