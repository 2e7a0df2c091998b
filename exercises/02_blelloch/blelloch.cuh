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
  // TODO(student): the up-sweep, the root cleared to Op::identity(), and the down-sweep, in place
  //   in temp[0, m), as described at the top of this file. Levels are separated by barriers that
  //   every thread of the block reaches; the last barrier comes after the last level.
  //   Optional, for `lab viz`: SCANLAB_TRACE_BLOCK_ARRAY(log, "up", level, temp, m) after up-sweep
  //   level 1, 2, ..., log2(m); (log, "clear", log2(m), temp, m) after the root is cleared; and
  //   (log, "down", step, temp, m) after down-sweep step 1, 2, ..., log2(m). level and step are
  //   your own counters (ints starting at 0, counted up before each trace line).
  (void)temp;
  (void)op;
  (void)log;
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
__global__ void blelloch_scan_tiles_kernel(const T* in, T* out, std::size_t n, std::size_t first_tile, bool inclusive,
                                           Op op, scanlab::TraceLog log) {
  extern __shared__ unsigned char ch02_shared_bytes[];
  T* temp = reinterpret_cast<T*>(ch02_shared_bytes);
  // BEGIN TODO
  // TODO(student): for every element i of this block's tile (tile first_tile + blockIdx.x) that is
  //   below n, out[i] = the exclusive prefix of in[i] within the tile, or with inclusive, that
  //   prefix op in[i]. Index in std::size_t: n may exceed 2^31. Use
  //   blelloch_exclusive_scan_shared on temp (m values), called by every thread. Nothing at or
  //   past n is read from in or written to out. Optional, for `lab viz`:
  //   SCANLAB_TRACE_BLOCK_ARRAY(log, "input", 0, temp, m) once temp holds the tile.
  (void)temp;
  (void)in;
  (void)out;
  (void)n;
  (void)first_tile;
  (void)inclusive;
  (void)op;
  (void)log;
  // END TODO
}
// --8<-- [end:tiles_kernel]

}  // namespace ch02
