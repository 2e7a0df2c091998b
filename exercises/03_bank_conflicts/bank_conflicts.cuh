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
// TODO(student): CONFLICT_FREE_OFFSET(n), the padding before element n described above, from
// ch03::kLogNumBanks. A macro is pasted into any expression: it must give the same value there.
#define CONFLICT_FREE_OFFSET(n) 0
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
  // TODO(student): chapter 02's blelloch_exclusive_scan_shared (without the trace lines), with
  //   element i at temp[Layout::slot(i)] everywhere. The same levels, barriers and results.
  (void)temp;
  (void)op;
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
__global__ void blelloch_layout_scan_tiles_kernel(const T* in, T* out, std::size_t n, std::size_t first_tile,
                                                  bool inclusive, Op op) {
  extern __shared__ unsigned char ch03_shared_bytes[];
  T* temp = reinterpret_cast<T*>(ch03_shared_bytes);
  // BEGIN TODO
  // TODO(student): chapter 02's blelloch_scan_tiles_kernel (the same results), with the elements
  //   each thread owns given by Layout::kHalves and element i at temp[Layout::slot(i)], through
  //   blelloch_exclusive_scan_shared_layout<Layout>.
  (void)temp;
  (void)in;
  (void)out;
  (void)n;
  (void)first_tile;
  (void)inclusive;
  (void)op;
  // END TODO
}
// --8<-- [end:tiles_kernel]

}  // namespace ch03
