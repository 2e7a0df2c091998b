// scanlab/occupancy.hpp: how many blocks of a kernel the current device runs at once.
//
// Chapter 05 sizes reduce-then-scan's grid with it (enough blocks to fill the device, no more);
// the single-pass chapters (07 onwards) use it for the one-wave rule (scanlab/single_pass/polls.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "scanlab/cuda_check.hpp"

namespace scanlab {

// Blocks of `kernel`, launched with `threads` threads and `dynamic_shared_bytes` of dynamic shared
// memory (chapter 11's staged tiles), resident on the current device at once: blocks per SM (the
// occupancy calculator: registers, shared memory, threads) x SMs. The host calls cost microseconds, which a timed scan
// of 2^16 elements would notice, so callers ask once per kernel and keep the answer:
//     static const std::size_t resident = scanlab::resident_blocks(my_kernel<T>, kThreads);
// (per process, for the device current then; it depends on the kernel and the GPU model only).
template <class Kernel>
std::size_t resident_blocks(Kernel* kernel, int threads, std::size_t dynamic_shared_bytes = 0) {
  int device = 0, sms = 0, per_sm = 0;
  SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  SCANLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared_bytes));
  return static_cast<std::size_t>(sms) * static_cast<std::size_t>(per_sm);
}

// The most shared memory a block may take on the current device, past the default 48 KiB once a
// kernel opts in (cudaFuncAttributeMaxDynamicSharedMemorySize): 227 KiB on an H100 or H200.
inline std::size_t shared_memory_per_block_optin() {
  int device = 0, bytes = 0;
  SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::size_t>(bytes);
}

// resident_blocks for a kernel whose tiles are staged in `stage_bytes` of dynamic shared memory
// (chapters 09, 10 and 11): first allows the kernel that much (past the default 48 KiB), and throws,
// naming `who`, when not one block fits on an SM. Ask once per kernel, as above.
template <class Kernel>
std::size_t resident_blocks_with_stage(Kernel* kernel, int threads, std::size_t stage_bytes, const char* who) {
  SCANLAB_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(stage_bytes)));
  const std::size_t resident = resident_blocks(kernel, threads, stage_bytes);
  if (resident == 0) throw std::runtime_error(std::string(who) + ": a block of this kernel does not fit on an SM");
  return resident;
}

}  // namespace scanlab
