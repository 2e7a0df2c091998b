// Chapter 01, given: DELIBERATELY BROKEN in-place Hillis-Steele. Do not use; kept to be watched
// failing (the driver runs it with --racy). Your double-buffered scan is in hillis_steele.cuh.
//
// With a single buffer, thread i reads buf[i - d] in the same step in which thread i - d
// overwrites it (read-after-write and write-after-read between two barriers). Whether thread i
// sees the old value (right) or the new one (wrong) depends on the order in which threads happen
// to run: threads of one warp usually load before any of them stores, so small n often "works";
// across warps there is no such order. The emulator's thread-order policies make the result change
// and its race checker reports the conflicting accesses, as compute-sanitizer --tool racecheck
// does on a GPU.
#pragma once

#include <cuda_runtime.h>

namespace ch01 {

// --8<-- [start:racy_kernel]
template <class T, class Op>
__global__ void hillis_steele_inplace_inclusive_scan_block_racy_kernel(const T* in, T* out, int n, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buf = reinterpret_cast<T*>(ch01_shared_bytes);
  const int tid = static_cast<int>(threadIdx.x);
  buf[tid] = tid < n ? in[tid] : Op::identity();
  __syncthreads();
  for (int offset = 1; offset < static_cast<int>(blockDim.x); offset *= 2) {
    // RACE: buf[tid - offset] may already hold this step's value, written by thread tid - offset.
    if (tid >= offset) buf[tid] = op(buf[tid - offset], buf[tid]);
    __syncthreads();
  }
  if (tid < n) out[tid] = buf[tid];
}
// --8<-- [end:racy_kernel]

}  // namespace ch01
