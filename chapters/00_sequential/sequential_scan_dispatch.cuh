// Chapter 00, given: the host side of the one-thread scans, the launch wrappers that the driver, the
// grading tests and the benchmark call. The scans and kernels themselves are your code, in
// sequential_scan.cuh (exercises/00_sequential/ or, for the reference, solutions/00_sequential/:
// the build's include path picks which one this file includes).
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>

#include "sequential_scan.cuh"

namespace ch00 {

// Launch wrappers: one block of one thread. d_in and d_out are device pointers and may be equal.
// The launch is checked; errors inside the kernel surface at the caller's next synchronisation.
// --8<-- [start:one_thread_launch]
template <class T, class Op>
void one_thread_inclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0) {
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch00::one_thread_inclusive_scan");
  one_thread_inclusive_scan_kernel<T, Op><<<1, 1, 0, s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}
// --8<-- [end:one_thread_launch]

template <class T, class Op>
void one_thread_exclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0) {
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch00::one_thread_exclusive_scan");
  one_thread_exclusive_scan_kernel<T, Op><<<1, 1, 0, s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch00
