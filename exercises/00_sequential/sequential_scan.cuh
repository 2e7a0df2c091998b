// Chapter 00: the sequential scan, on the host and on one GPU thread.
//
// Builds on the definition of scan over a monoid (an associative operator with an identity) that
// Blelloch (1990) gives and GPU Gems 3, ch. 39, section 39.1 restates: the inclusive scan of
// [a0, a1, ..., a(n-1)] is [a0, a0*a1, ..., a0*...*a(n-1)]; the exclusive scan is
// [I, a0, a0*a1, ..., a0*...*a(n-2)]. The loop below does exactly n-1 (inclusive) or n (exclusive)
// applications of the operator, the minimum; every parallel scan in later chapters is measured
// against this amount of work and checked against this result.
//
// Op is a monoid from <scanlab/monoid.hpp>: `static T identity()` and `T operator()(T, T) const`.
// The operator need not be commutative, so the running prefix is always the LEFT operand.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>

namespace ch00 {

// ---------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------

// out[i] = in[0] op in[1] op ... op in[i]. Safe in place (in == out): in[i] is read before out[i]
// is written, and nothing before i is read again.
// --8<-- [start:host_inclusive]
template <class T, class Op>
void sequential_inclusive_scan(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  // TODO(student): inclusive scan on the host, one pass over the array.
  //   out[0] = in[0]; out[i] = op(running, in[i]) where running is the prefix so far.
  //   Keep the running prefix as the LEFT operand: Op need not be commutative.
  //   Do nothing when n == 0, and stay correct in place (in == out).
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}
// --8<-- [end:host_inclusive]

// out[0] = identity, out[i] = in[0] op ... op in[i-1]. Safe in place: in[i] is copied to a local
// before out[i] (the same element when in == out) is overwritten with the prefix before it.
// --8<-- [start:host_exclusive]
template <class T, class Op>
void sequential_exclusive_scan(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  // TODO(student): exclusive scan on the host.
  //   out[0] = Op::identity(); out[i] = in[0] op ... op in[i-1].
  //   In place (in == out) is required: read in[i] into a local BEFORE writing out[i].
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}
// --8<-- [end:host_exclusive]

// ---------------------------------------------------------------------------------------------
// Device: the same loop on a single GPU thread. This is the baseline the parallel chapters beat:
// one thread uses a sliver of one SM and waits on every load in turn.
// ---------------------------------------------------------------------------------------------

// --8<-- [start:one_thread_kernels]
template <class T, class Op>
__global__ void one_thread_inclusive_scan_kernel(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  // TODO(student): the same inclusive loop as sequential_inclusive_scan, run by ONE thread.
  //   Return early in every thread except thread 0 of block 0, and when n == 0.
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}

template <class T, class Op>
__global__ void one_thread_exclusive_scan_kernel(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  // TODO(student): the exclusive loop on one thread (thread 0 of block 0 only).
  //   out[0] must be Op::identity(); read in[i] before writing out[i] (in may equal out).
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}
// --8<-- [end:one_thread_kernels]

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
