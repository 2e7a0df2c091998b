// Chapter 10, given: the scan article's segmented scan, which applies the lifted operator inside
// each warp only, kept for the driver's --warp-only demonstration (it uses your Segmented operator
// from segmented_scan.cuh). Nothing here needs changing.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/warp_scan.cuh>

#include "segmented_scan.cuh"

namespace ch10 {

// DELIBERATELY INCOMPLETE: the segmented scan inside each warp only, as the scan article has it.
// Right for segments that stay inside one warp of 32 elements; a segment that crosses a warp
// boundary restarts at it. Kept for the driver's --warp-only demonstration.
template <class T, class Op>
__global__ void segmented_inclusive_scan_warp_only_kernel(const T* in, const std::uint8_t* heads, T* out,
                                                          std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  Flagged<T> x{i < n ? in[i] : Op::identity(), i < n ? (heads[i] != 0 ? 1u : 0u) : 0u};
  x = scanlab::warp_inclusive_scan(x, Segmented<Op>{});
  if (i < n) out[i] = x.value;
}

template <class T, class Op>
void segmented_inclusive_scan_warp_only(const T* d_in, const std::uint8_t* d_heads, T* d_out, std::size_t n, Op) {
  if (n == 0) return;
  segmented_inclusive_scan_warp_only_kernel<T, Op>
      <<<static_cast<unsigned>((n + 255) / 256), 256>>>(d_in, d_heads, d_out, n);
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch10
