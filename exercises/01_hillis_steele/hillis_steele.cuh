// Chapter 01: the Hillis-Steele scan inside one thread block.
//
// Builds on Hillis and Steele (1986) as presented for GPUs in GPU Gems 3, ch. 39, section 39.2.1
// (Algorithms 1 and 2): in step k = 0, 1, 2, ... every element i >= 2^k combines the element 2^k
// places to its left into itself. After ceil(log2 n) steps element i holds the inclusive prefix.
// Depth O(log n), but O(n log n) operator applications against the sequential O(n): the scan is
// not work-efficient (chapter 02 fixes that).
//
// A step reads values that other threads of the same step overwrite, so the array is
// double-buffered: each step reads one half of shared memory and writes the other. The in-place
// version, deliberately broken to show the race, is given in
// chapters/01_hillis_steele/hillis_steele_racy.cuh.
//
// Op is a monoid from <scanlab/monoid.hpp>; it need not be commutative, so the element from the
// left is always the LEFT operand.
//
// This file holds the code you write. The launch wrappers (block size, shared memory, argument
// checks) are given in chapters/01_hillis_steele/hillis_steele_dispatch.cuh.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace ch01 {

// ---------------------------------------------------------------------------------------------
// Device building block
// ---------------------------------------------------------------------------------------------

// Inclusive scan of the values the threads of one block hold, one value x per thread, in thread
// order. `buffers` is shared memory for 2 * blockDim.x values. Every thread of the block must
// call it (it contains barriers). Returns this thread's inclusive prefix.
// --8<-- [start:block_values]
template <class T, class Op>
__device__ T hillis_steele_inclusive_scan_block_values(T x, T* buffers, Op op) {
  // BEGIN TODO
  // TODO(student): return x of thread 0 op x of thread 1 op ... op x of this thread, in
  //   ceil(log2 blockDim.x) steps. No step may read a value that another thread writes in the same
  //   step: read one half of buffers and write the other. Every thread reaches every barrier.
  (void)buffers;
  (void)op;
  return x;
  // END TODO
}
// --8<-- [end:block_values]

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------

// One block scans in[0, n), 1 <= n <= blockDim.x; blockDim.x is n rounded up to whole warps.
// Thread i < n stores out[i]; threads past n store nothing (but take part in the block scan).
// --8<-- [start:block_kernels]
template <class T, class Op>
__global__ void hillis_steele_inclusive_scan_block_kernel(const T* in, T* out, int n, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  // TODO(student): out[i] = in[0] op ... op in[i] for every i < n, with one call of
  //   hillis_steele_inclusive_scan_block_values per thread.
  (void)buffers;
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}

// Exclusive = inclusive scan of the input shifted right by one with the identity in front
// (GPU Gems 3, section 39.1). No extra step.
template <class T, class Op>
__global__ void hillis_steele_exclusive_scan_block_kernel(const T* in, T* out, int n, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  // TODO(student): out[0] = Op::identity() and out[i] = in[0] op ... op in[i - 1] for 0 < i < n,
  //   with one call of hillis_steele_inclusive_scan_block_values per thread.
  (void)buffers;
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}
// --8<-- [end:block_kernels]

// Many independent tiles: tile k is [k * tile, min(n, (k + 1) * tile)), scanned on its own, with no
// carry between tiles. Block b of this launch scans tile first_tile + b: a launch covers the tiles
// [first_tile, first_tile + gridDim.x) (a grid has at most 2^31 - 1 blocks, so the launch wrapper
// may split the tiles over several launches; the grading runs only the last tiles of an array of
// more than 2^31 elements this way). blockDim.x is tile rounded up to whole warps. A throughput
// workload for the benchmarks, and the per-block phase that chapter 05 completes into a scan of the
// whole array.
// --8<-- [start:tiles_kernel]
template <class T, class Op>
__global__ void hillis_steele_inclusive_scan_tiles_kernel(const T* in, T* out, std::size_t n, int tile,
                                                          std::size_t first_tile, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  // TODO(student): for every element i of this block's tile that is below n, out[i] = the
  //   inclusive prefix of in[i] within the tile. This block's tile is first_tile + blockIdx.x.
  //   Write nothing outside the tile (blocks may run in any order), and index in std::size_t: n may
  //   exceed 2^31.
  (void)buffers;
  (void)in;
  (void)out;
  (void)n;
  (void)tile;
  (void)first_tile;
  (void)op;
  // END TODO
}
// --8<-- [end:tiles_kernel]

}  // namespace ch01
