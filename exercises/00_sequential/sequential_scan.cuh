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
//
// This file holds the code you write. The launch wrappers that run the kernels are given in
// chapters/00_sequential/sequential_scan_dispatch.cuh.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace ch00 {

// ---------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------

// --8<-- [start:host_inclusive]
// out[i] = in[0] op in[1] op ... op in[i] for every i < n, in one pass over the array. Safe in
// place (in == out); n may be 0.
template <class T, class Op>
void sequential_inclusive_scan(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  // TODO(student): the inclusive scan described above.
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}
// --8<-- [end:host_inclusive]

// --8<-- [start:host_exclusive]
// out[0] = Op::identity(), out[i] = in[0] op ... op in[i-1] for 0 < i < n, in one pass. Safe in
// place (in == out; the grader scans in place); n may be 0.
template <class T, class Op>
void sequential_exclusive_scan(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  // TODO(student): the exclusive scan described above.
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
  // TODO(student): the result of sequential_inclusive_scan, computed by thread 0 of block 0 alone
  //   (device pointers; in may equal out). Any other thread, in a launch of any shape, does nothing.
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}

template <class T, class Op>
__global__ void one_thread_exclusive_scan_kernel(const T* in, T* out, std::size_t n, Op op) {
  // BEGIN TODO
  // TODO(student): the result of sequential_exclusive_scan, computed by thread 0 of block 0 alone
  //   (device pointers; in may equal out). Any other thread, in a launch of any shape, does nothing.
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}
// --8<-- [end:one_thread_kernels]

}  // namespace ch00
