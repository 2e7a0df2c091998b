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
// version is kept at the end of this file, deliberately broken, to show the race.
//
// Op is a monoid from <scanlab/monoid.hpp>; it need not be commutative, so the element from the
// left is always the LEFT operand.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>

namespace ch01 {

// One thread per element and at most 1024 threads in a block.
constexpr int kMaxBlockScan = 1024;

// Threads per block for n elements: n rounded up to whole warps. The extra threads hold the
// identity, so they change no prefix; they exist so that every warp is full.
constexpr int hillis_steele_block_threads(int n) { return (n + 31) / 32 * 32; }

// ---------------------------------------------------------------------------------------------
// Device building block
// ---------------------------------------------------------------------------------------------

// Inclusive scan of the values the threads of one block hold, one value x per thread, in thread
// order. `buffers` is shared memory for 2 * blockDim.x values. Every thread of the block must
// call it (it contains barriers). Returns this thread's inclusive prefix.
//
// Step with offset d: out[i] = in[i - d] op in[i] for i >= d, else in[i]. Reads come from one
// buffer and writes go to the other, so no thread can see a value of the current step; the barrier
// after each step makes the step's writes visible before the next step reads them and, because
// the next step writes the buffer this step read, also orders those reads before the overwrites.
// --8<-- [start:block_values]
template <class T, class Op>
__device__ T hillis_steele_inclusive_scan_block_values(T x, T* buffers, Op op) {
  // BEGIN TODO
  // TODO(student): the double-buffered Hillis-Steele steps.
  //   Let src = buffers, dst = buffers + blockDim.x. Store x in src[threadIdx.x], __syncthreads().
  //   For offset = 1, 2, 4, ... < blockDim.x: thread i >= offset sets x = op(src[i - offset], x)
  //   (the element from the LEFT is the left operand), every thread writes x to dst[i], then
  //   __syncthreads() and swap src and dst. Every thread must reach every barrier.
  //   Return x: this thread's inclusive prefix.
  (void)buffers;
  (void)op;
  return x;
  // END TODO
}
// --8<-- [end:block_values]

// ---------------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------------

// One block scans in[0, n): thread i loads element i (the identity past n) and stores prefix i.
// --8<-- [start:block_kernels]
template <class T, class Op>
__global__ void hillis_steele_inclusive_scan_block_kernel(const T* in, T* out, int n, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  // TODO(student): thread i loads in[i] (Op::identity() when i >= n), scans with
  //   hillis_steele_inclusive_scan_block_values(x, buffers, op), and stores out[i] when i < n.
  (void)buffers;
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}

// Exclusive = inclusive scan of the input shifted right by one with the identity in front
// (GPU Gems 3, section 39.1): thread i loads in[i - 1], thread 0 the identity. No extra step.
template <class T, class Op>
__global__ void hillis_steele_exclusive_scan_block_kernel(const T* in, T* out, int n, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  // TODO(student): as the inclusive kernel, but load the input shifted right by one:
  //   thread 0 loads Op::identity(), thread i in [1, n) loads in[i - 1], threads >= n the identity.
  (void)buffers;
  (void)in;
  (void)out;
  (void)n;
  (void)op;
  // END TODO
}
// --8<-- [end:block_kernels]

// Many independent tiles: block b scans [b * tile, min(n, (b + 1) * tile)) on its own, with no
// carry between tiles. blockDim.x is tile rounded up to whole warps; threads past the tile or past
// n hold the identity and store nothing. A throughput workload for the benchmarks, and the
// per-block phase that chapter 05 completes into a scan of the whole array.
// --8<-- [start:tiles_kernel]
template <class T, class Op>
__global__ void hillis_steele_inclusive_scan_tiles_kernel(const T* in, T* out, std::size_t n,
                                                          int tile, Op op) {
  extern __shared__ unsigned char ch01_shared_bytes[];
  T* buffers = reinterpret_cast<T*>(ch01_shared_bytes);
  // BEGIN TODO
  // TODO(student): block b owns elements [b * tile, min(n, (b + 1) * tile)).
  //   Thread t handles i = b * tile + t (compute it in size_t); it is "mine" when t < tile and
  //   i < n. Load in[i] (identity when not mine), scan the block's values, store when mine.
  (void)buffers;
  (void)in;
  (void)out;
  (void)n;
  (void)tile;
  (void)op;
  // END TODO
}
// --8<-- [end:tiles_kernel]

// ---------------------------------------------------------------------------------------------
// Launch wrappers (host). Device pointers; the launch is checked, kernel faults surface at the
// caller's next synchronisation.
// ---------------------------------------------------------------------------------------------

namespace detail {
inline void check_block_scan_size(int n, const char* who) {
  if (n < 0 || n > kMaxBlockScan) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is outside [0, " + std::to_string(kMaxBlockScan) +
                                "]; one block scans at most kMaxBlockScan elements "
                                "(use hillis_steele_inclusive_scan_tiles, or chapter 05, for more)");
  }
}

inline void check_tile_size(int tile) {
  if (tile < 1 || tile > kMaxBlockScan) {
    throw std::invalid_argument("hillis_steele_inclusive_scan_tiles: tile = " +
                                std::to_string(tile) + " is outside [1, " +
                                std::to_string(kMaxBlockScan) + "]");
  }
}

// Two buffers of one value per thread.
template <class T>
constexpr std::size_t double_buffer_bytes(int threads) {
  return 2 * static_cast<std::size_t>(threads) * sizeof(T);
}
}  // namespace detail

// --8<-- [start:block_launch]
template <class T, class Op>
void hillis_steele_inclusive_scan_block(const T* d_in, T* d_out, int n, Op op,
                                        cudaStream_t s = 0) {
  detail::check_block_scan_size(n, "hillis_steele_inclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch01::hillis_steele_inclusive_scan_block");
  const int threads = hillis_steele_block_threads(n);
  hillis_steele_inclusive_scan_block_kernel<T, Op>
      <<<1, threads, detail::double_buffer_bytes<T>(threads), s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}
// --8<-- [end:block_launch]

template <class T, class Op>
void hillis_steele_exclusive_scan_block(const T* d_in, T* d_out, int n, Op op,
                                        cudaStream_t s = 0) {
  detail::check_block_scan_size(n, "hillis_steele_exclusive_scan_block");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch01::hillis_steele_exclusive_scan_block");
  const int threads = hillis_steele_block_threads(n);
  hillis_steele_exclusive_scan_block_kernel<T, Op>
      <<<1, threads, detail::double_buffer_bytes<T>(threads), s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}

template <class T, class Op>
void hillis_steele_inclusive_scan_tiles(const T* d_in, T* d_out, std::size_t n, int tile, Op op,
                                        cudaStream_t s = 0) {
  detail::check_tile_size(tile);
  if (n == 0) return;
  const std::size_t tiles = (n + static_cast<std::size_t>(tile) - 1) / static_cast<std::size_t>(tile);
  if (tiles > 0x7fffffffu) {
    throw std::invalid_argument("hillis_steele_inclusive_scan_tiles: n / tile needs more than "
                                "2^31 - 1 blocks; use a larger tile");
  }
  SCANLAB_NVTX_RANGE("ch01::hillis_steele_inclusive_scan_tiles");
  const int threads = hillis_steele_block_threads(tile);
  hillis_steele_inclusive_scan_tiles_kernel<T, Op>
      <<<static_cast<unsigned>(tiles), threads, detail::double_buffer_bytes<T>(threads), s>>>(
          d_in, d_out, n, tile, op);
  SCANLAB_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// DELIBERATELY BROKEN: in-place Hillis-Steele. Do not use; kept to be watched failing.
//
// With a single buffer, thread i reads buf[i - d] in the same step in which thread i - d
// overwrites it (read-after-write and write-after-read between two barriers). Whether thread i
// sees the old value (right) or the new one (wrong) depends on the order in which threads happen
// to run: threads of one warp usually load before any of them stores, so small n often "works";
// across warps there is no such order. The emulator's thread-order policies make the result change
// and its race checker reports the conflicting accesses, as compute-sanitizer --tool racecheck
// does on a GPU. Chapter 01's driver runs it with --racy.
// ---------------------------------------------------------------------------------------------
// --8<-- [start:racy_kernel]
template <class T, class Op>
__global__ void hillis_steele_inplace_inclusive_scan_block_racy_kernel(const T* in, T* out, int n,
                                                                       Op op) {
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

template <class T, class Op>
void hillis_steele_inplace_inclusive_scan_block_racy(const T* d_in, T* d_out, int n, Op op,
                                                     cudaStream_t s = 0) {
  detail::check_block_scan_size(n, "hillis_steele_inplace_inclusive_scan_block_racy");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch01::hillis_steele_inplace_inclusive_scan_block_racy");
  const int threads = hillis_steele_block_threads(n);
  hillis_steele_inplace_inclusive_scan_block_racy_kernel<T, Op>
      <<<1, threads, static_cast<std::size_t>(threads) * sizeof(T), s>>>(d_in, d_out, n, op);
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch01
