// scanlab/prefetch.cuh: asking the L2 cache for bytes a block will load later.
//
// A block that knows it will read a range of global memory later, but has other work first, can ask
// the L2 cache to fetch that range now: the later loads then wait for the L2, not for DRAM. A
// prefetch takes no register and no wait, and as long as its lines stay in the cache until the
// load, it moves no more bytes from DRAM than the load alone would. Chapter 09's Onesweep pass asks
// for a tile's values this way before its look-back, and loads them after its keys have gone out.
//
// The lines are fetched with the evict_last priority (PTX `prefetch.global.L2::evict_last`, sm_80
// and later), so that other lines leave the cache before them. With the normal priority, sorts of
// 2^26 and 2^28 pairs on an H200 took 1-2.5% longer; likely, the other tiles moved enough bytes
// through the cache between a tile's prefetch and its load to push its lines out again (book,
// chapter 09, "The values asked for early"). On the emulator, which has no cache, it does nothing.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace scanlab {

// Every thread of the block (blockDim.x == threads): the 128-byte lines that hold
// [first, first + bytes) into the L2 cache, line i by thread i % threads.
__device__ __forceinline__ void prefetch_to_l2(const void* first, std::size_t bytes, int threads) {
#if defined(__CUDA_ARCH__)
  constexpr std::uintptr_t kLine = 128;
  const std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(first);
  const std::uintptr_t end = begin + bytes;
  for (std::uintptr_t line = (begin & ~(kLine - 1)) + threadIdx.x * kLine; line < end;
       line += static_cast<std::uintptr_t>(threads) * kLine) {
#if __CUDA_ARCH__ >= 800
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(line));
#else
    asm volatile("prefetch.global.L2 [%0];" ::"l"(line));
#endif
  }
#else
  (void)first;
  (void)bytes;
  (void)threads;
#endif
}

}  // namespace scanlab
