// scanlab_bench: two copy kernels that are measuring sticks, not chapter code. A scan reads n
// elements and writes n, so a copy of the same bytes bounds it; but cudaMemcpyAsync (the `copy`
// row) is the driver's own kernel, and a scan can only move its bytes the ways a kernel of ours
// can. These two copy a tile the two ways chapter 11 does, with its default tile (128 threads x 16
// items x 4 chunks = 8192 elements, chapters/11_async_copy_scan/async_copy_scan_dispatch.cuh
// DefaultPolicy), one tile per block, and do nothing else: each one's time is the ceiling of a scan
// that moves its bytes that way, however little arithmetic the scan adds (issue 41: chapter 11 at
// 0.95 of a copy on the H200, or the ceiling of each way of moving the bytes).
//
//   copy_registers_kernel  every thread loads its part of the tile into registers with 16-byte
//                          vector loads (__ldcs), all four chunks before any store, then stores them
//                          with 16-byte __stcs: the path of chapter 07's kernel and of every tile
//                          chapter 11 does not stage (the tile library's load/store_full_tile).
//   copy_staged_kernel     global -> shared memory by bulk copies (TMA, cp.async.bulk: one per
//                          chunk, issued by thread 0, completing on an mbarrier that counts the
//                          bytes: cuda::device::memcpy_async_tx + barrier_arrive_tx on a
//                          cuda::barrier<thread_scope_block>), then shared -> global with 16-byte
//                          stores as each chunk lands: the path of chapter 11's staged tiles.
//                          Falls back to the register path for the last, partial tile, for
//                          pointers not 16-byte aligned, and before sm_90 (no bulk copies), as
//                          chapter 11 does.
// The bulk copy into shared memory completing on a transaction-counting barrier is Hopper's
// asynchronous copy (NVIDIA, CUDA C++ Programming Guide, "Asynchronous Data Copies using the Tensor
// Memory Accelerator"; libcu++ cuda::device::memcpy_async_tx); vectorized, streaming-hinted tile
// loads and stores are CUB's BLOCK_LOAD_VECTORIZE / LOAD_CS way (Merrill, CUB).
#pragma once

// A __shared__ cuda::barrier has a constructor, which nvcc warns about (a __shared__ variable is
// never constructed); init() is what sets it up.
#pragma nv_diag_suppress static_var_with_dynamic_init

#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstddef>

#include <scanlab/cuda_check.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/single_pass/two_tile_loop.cuh>  // valid_in_chunk

namespace scanlab::bench::copy_kernels {

// Chapter 11's default tile (async_copy_scan_dispatch.cuh DefaultPolicy = Policy<128, 16, 4>).
inline constexpr int kThreads = 128;
inline constexpr int kItems = 16;
inline constexpr int kChunks = 4;
template <class T>
using Chunk = single_pass::TileShape<T, kThreads, kItems>;
template <class T>
inline constexpr std::size_t kTileItems = std::size_t(kChunks) * Chunk<T>::TILE_ITEMS;

// The register path for one tile: the whole tile in registers (64 elements a thread), then stored.
// A partial tile (or unaligned pointers) goes element by element, as the tile library's partial path.
template <class T>
__device__ __forceinline__ void copy_tile_in_registers(const T* in, T* out, std::size_t left, bool vectorized) {
  using C = Chunk<T>;
  T items[kChunks][C::ITEMS];
  const bool full = vectorized && left >= kTileItems<T>;
  if (full) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) single_pass::load_full_tile<C>(in + c * C::TILE_ITEMS, items[c], true);
#pragma unroll
    for (int c = 0; c < kChunks; ++c) single_pass::store_full_tile<C>(out + c * C::TILE_ITEMS, items[c], true);
  } else {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int valid = single_pass::valid_in_chunk<C>(left, c * C::TILE_ITEMS);
      single_pass::load_partial_tile<C>(in + c * C::TILE_ITEMS, items[c], valid, T{});
    }
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const int valid = single_pass::valid_in_chunk<C>(left, c * C::TILE_ITEMS);
      single_pass::store_partial_tile<C>(out + c * C::TILE_ITEMS, items[c], valid);
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) copy_registers_kernel(const T* in, T* out, std::size_t n, bool vectorized) {
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * kTileItems<T>;
  copy_tile_in_registers(in + start, out + start, n - start, vectorized);
}

template <class T>
__global__ void __launch_bounds__(kThreads) copy_staged_kernel(const T* in, T* out, std::size_t n, bool aligned) {
  using C = Chunk<T>;
  using Barrier = cuda::barrier<cuda::thread_scope_block>;
  extern __shared__ __align__(128) unsigned char stage_bytes[];  // kChunks x C::TILE_ITEMS elements
  T* stage = reinterpret_cast<T*>(stage_bytes);
  __shared__ Barrier landed[kChunks];

  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * kTileItems<T>;
  const std::size_t left = n - start;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  constexpr bool kBulkCopies = false;  // no bulk copies before Hopper: the register path
#else
  constexpr bool kBulkCopies = true;
#endif
  if constexpr (kBulkCopies) {
    if (aligned && left >= kTileItems<T>) {
      if (threadIdx.x == 0) {
        for (int c = 0; c < kChunks; ++c) init(&landed[c], kThreads);
      }
      __syncthreads();  // the barriers are set up before anyone arrives
      // Every chunk in flight before anyone waits (chapter 11's stage_tile): thread 0 issues the
      // chunk's copy and arrives announcing its bytes, so the phase cannot complete before them.
      constexpr std::size_t kChunkBytes = sizeof(T) * C::TILE_ITEMS;
      Barrier::arrival_token tokens[kChunks];
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        if (threadIdx.x == 0) {
          cuda::device::memcpy_async_tx(stage + c * C::TILE_ITEMS, in + start + c * C::TILE_ITEMS,
                                        cuda::aligned_size_t<16>(kChunkBytes), landed[c]);
          tokens[c] = cuda::device::barrier_arrive_tx(landed[c], 1, kChunkBytes);
        } else {
          tokens[c] = landed[c].arrive();
        }
      }
      // Each chunk out as it lands: shared -> registers (16-byte reads) -> global (16-byte __stcs).
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        T items[C::ITEMS];
        landed[c].wait(std::move(tokens[c]));
        single_pass::load_staged_tile<C>(stage + c * C::TILE_ITEMS, items);
        single_pass::store_full_tile<C>(out + start + c * C::TILE_ITEMS, items, true);
      }
      return;
    }
  }
  copy_tile_in_registers(in + start, out + start, left, aligned);
}

// Host side: one tile per block, grid = tiles. Neither synchronizes the host.
template <class T>
std::size_t tiles_of(std::size_t n) {
  return (n + kTileItems<T> - 1) / kTileItems<T>;
}

template <class T>
void copy_registers(const T* in, T* out, std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  const bool vectorized = single_pass::aligned16(in) && single_pass::aligned16(out);
  copy_registers_kernel<T><<<static_cast<unsigned>(tiles_of<T>(n)), kThreads, 0, s>>>(in, out, n, vectorized);
  SCANLAB_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void copy_staged(const T* in, T* out, std::size_t n, cudaStream_t s) {
  if (n == 0) return;
  constexpr std::size_t kStageBytes = sizeof(T) * kTileItems<T>;
  // Allows the kernel its stage (past 48 KiB for 8-byte types) once per process, as chapter 11 does.
  static const std::size_t resident =
      resident_blocks_with_stage(copy_staged_kernel<T>, kThreads, kStageBytes, "copy_staged");
  (void)resident;
  const bool aligned = single_pass::aligned16(in) && single_pass::aligned16(out);
  copy_staged_kernel<T><<<static_cast<unsigned>(tiles_of<T>(n)), kThreads, kStageBytes, s>>>(in, out, n, aligned);
  SCANLAB_CUDA_CHECK(cudaGetLastError());
}

}  // namespace scanlab::bench::copy_kernels
