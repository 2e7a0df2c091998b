// Chapter 03, reference solution of exercises/03_bank_conflicts/bank_conflicts.cuh: read that file
// for the teaching notes and the hints. The comments here say why the answers are written as they
// are.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace ch03 {

constexpr int kNumBanks = 32;    // banks of 4-byte words
constexpr int kLogNumBanks = 5;  // log2(kNumBanks)

// --8<-- [start:offset_macro]
// Shifts by the LOG of the bank count, and every operand and the whole expansion in parentheses:
// GPU Gems' printed form, ((n) >> NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS)), parses as
// ((n) >> (NUM_BANKS + (n))) >> ..., which pads nothing (book, chapter 03). The namespace-qualified
// constant works wherever the macro is pasted.
// BEGIN TODO
#define CONFLICT_FREE_OFFSET(n) (((n) >> ch03::kLogNumBanks) + ((n) >> (2 * ch03::kLogNumBanks)))
// END TODO
// --8<-- [end:offset_macro]

// --8<-- [start:block_shared]
// Chapter 02's loops line for line; only the two addresses go through Layout::slot, so the barriers
// and operand order (and therefore the results) cannot differ between the layouts.
template <class Layout, class T, class Op>
__device__ void blelloch_exclusive_scan_shared_layout(T* temp, Op op) {
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const int m = 2 * static_cast<int>(blockDim.x);
  int stride = 1;
  for (int active = m / 2; active > 0; active /= 2) {
    __syncthreads();
    if (tid < active) {
      const int left = Layout::slot(stride * (2 * tid + 1) - 1);
      const int right = Layout::slot(stride * (2 * tid + 2) - 1);
      temp[right] = op(temp[left], temp[right]);
    }
    stride *= 2;
  }
  if (tid == 0) temp[Layout::slot(m - 1)] = Op::identity();
  for (int active = 1; active < m; active *= 2) {
    stride /= 2;
    __syncthreads();
    if (tid < active) {
      const int left = Layout::slot(stride * (2 * tid + 1) - 1);
      const int right = Layout::slot(stride * (2 * tid + 2) - 1);
      const T left_total = temp[left];
      const T prefix = temp[right];  // read once (see chapter 02): nvcc would read it again
      temp[left] = prefix;
      temp[right] = op(prefix, left_total);
    }
  }
  __syncthreads();
  // END TODO
}
// --8<-- [end:block_shared]

// --8<-- [start:tiles_kernel]
// Only the choice of the two elements (a, b) depends on Layout::kHalves; their slots are computed
// once and reused for the store, which reads the same padded positions the load wrote.
template <class Layout, class T, class Op>
__global__ void blelloch_layout_scan_tiles_kernel(const T* in, T* out, std::size_t n, std::size_t first_tile,
                                                  bool inclusive, Op op) {
  extern __shared__ unsigned char ch03_shared_bytes[];
  T* temp = reinterpret_cast<T*>(ch03_shared_bytes);
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  const int m = 2 * static_cast<int>(blockDim.x);
  const std::size_t base = (first_tile + blockIdx.x) * static_cast<std::size_t>(m);
  const int a = Layout::kHalves ? tid : 2 * tid;
  const int b = Layout::kHalves ? tid + m / 2 : 2 * tid + 1;
  const std::size_t ga = base + static_cast<std::size_t>(a);
  const std::size_t gb = base + static_cast<std::size_t>(b);
  const T xa = ga < n ? in[ga] : Op::identity();
  const T xb = gb < n ? in[gb] : Op::identity();
  const int slot_a = Layout::slot(a);  // kept: the store needs the same slots
  const int slot_b = Layout::slot(b);
  temp[slot_a] = xa;
  temp[slot_b] = xb;
  blelloch_exclusive_scan_shared_layout<Layout>(temp, op);
  if (ga < n) out[ga] = inclusive ? op(temp[slot_a], xa) : temp[slot_a];
  if (gb < n) out[gb] = inclusive ? op(temp[slot_b], xb) : temp[slot_b];
  // END TODO
}
// --8<-- [end:tiles_kernel]

}  // namespace ch03
