// Chapter 03: the Blelloch scan of chapter 02 without shared-memory bank conflicts.
//
// Builds on GPU Gems 3, ch. 39, section 39.2.3 (Figure 39-5, Listings 39-3 and 39-4): shared memory
// is split into banks (32 banks of 4-byte words on every GPU since Fermi; 16 on the G80 the chapter
// was written for), and a warp's access is served in as many passes as the most words any one bank
// is asked for (several threads reading the SAME word are served by one broadcast). The tree's
// strides are powers of two, so at the middle levels all active threads of a warp hit one bank.
// Two changes, and nothing else, remove that:
//   1. padding: element i lives in shared slot i + CONFLICT_FREE_OFFSET(i), one extra word after
//      every 32 elements (and one more after every 1024), which turns a stride of 32 words into 33;
//   2. loads from separate halves: thread t loads elements t and t + m/2 (unit stride in each
//      instruction) instead of 2t and 2t + 1 (stride 2: a 2-way conflict on every load and store).
// The tree is chapter 02's, written once for any index layout, a template parameter `Layout` with
// `static int slot(int i)` (where element i lives in shared memory) and `static bool kHalves`
// (whether thread t owns elements t and t + m/2 rather than 2t and 2t + 1). The layouts, Unpadded
// (chapter 02's, the "before") and Padded (the conflict-free one), are given in
// chapters/03_bank_conflicts/bank_layouts.cuh.
//
// The macro as printed in the GPU Gems chapter has an operator-precedence error and pads nothing;
// book/docs/chapters/03-bank-conflicts.md explains it. The one below is the corrected form for
// 32 banks.
//
// This file holds the code you write. The launch wrappers (tile size, threads, padded shared
// memory, argument checks) are given in chapters/03_bank_conflicts/bank_conflicts_dispatch.cuh.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace ch03 {

constexpr int kNumBanks = 32;    // banks of 4-byte words
constexpr int kLogNumBanks = 5;  // log2(kNumBanks)

// Padding, in words, inserted before element i: one word per 32 elements and one more per 32 * 32,
// so that neither a stride of 32 nor one of 1024 maps a warp onto a single bank.
// --8<-- [start:offset_macro]
// BEGIN TODO
#define CONFLICT_FREE_OFFSET(n) (((n) >> ch03::kLogNumBanks) + ((n) >> (2 * ch03::kLogNumBanks)))
// END TODO
// --8<-- [end:offset_macro]

// ---------------------------------------------------------------------------------------------
// Device building block
// ---------------------------------------------------------------------------------------------

// Chapter 02's up-sweep and down-sweep over a tile of m = 2 * blockDim.x elements, with element i
// at temp[Layout::slot(i)]. Same barriers, same operand order; only the addresses change.
// One barrier interval per tree level (what the emulator's bank report calls a phase):
// phase 0 is the load, phases 1..L the up-sweep levels (L = log2 m; the root is cleared in phase
// L), phases L+1..2L the down-sweep levels and phase 2L+1 the store.
// --8<-- [start:block_shared]
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

// ---------------------------------------------------------------------------------------------
// Kernel
// ---------------------------------------------------------------------------------------------

// Block b scans the tile in[k*m, (k+1)*m) with k = first_tile + b, m = 2 * blockDim.x, on its
// own (chapter 02's kernel).
// Thread t owns elements t and t + m/2 (Layout::kHalves) or 2t and 2t + 1. The identity fills the
// tile past n.
// --8<-- [start:tiles_kernel]
template <class Layout, class T, class Op>
__global__ void blelloch_layout_scan_tiles_kernel(const T* in, T* out, std::size_t n,
                                                  std::size_t first_tile, bool inclusive, Op op) {
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
