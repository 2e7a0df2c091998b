// scanlab/single_pass/read_once_copy.cuh: a bulk copy into a stage of bytes that nothing reads again.
//
// A two-tile kernel (two_tile_loop.cuh) stages each tile in shared memory with a bulk copy, and
// reads those bytes from global memory once. On their way, they pass through the L2 cache, which
// they share with the look-back's descriptors: small words that every look-back reads, again and
// again, while the bytes stream past. Asking the L2 to evict the copied lines first (an L2 cache
// policy, PTX `createpolicy ... L2::evict_first` and `cp.async.bulk ... .L2::cache_hint`) leaves
// the descriptors' lines where the look-backs find them (lookback.cuh keeps them with evict_last).
//
// Measured on an H200 (book, chapter 08, "Measured"), with the descriptors' hint: chapter 08's
// partition at 2^28 from 0.86 to 0.87-0.88 of a copy's speed and select-if with half kept from 1.18
// to 1.21; the descriptors' hint alone made no difference at 2^28.
//
// memcpy_async_tx_read_once(dst, src, bytes, bar) does what cuda::device::memcpy_async_tx does (the
// copy's bytes count towards bar's transaction), with the hint on a GPU of compute capability 9.0
// or newer. Elsewhere, and on the emulator, it is cuda::device::memcpy_async_tx itself. Older GPUs
// have no bulk copies at all: kHasBulkCopies and kernel_has_bulk_copies say where a kernel has, and
// fence_stage_before_bulk_copy is the proxy fence a stage written by the threads needs.
#pragma once

#include <cuda/barrier>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#if !defined(SCANLAB_EMU)
#include <scanlab/dependent_launch.cuh>  // compiled_ptx_version (the emulator needs none: below)
#endif

namespace scanlab::single_pass {

// Whether the GPU this compilation is for has bulk copies: Hopper (sm_90) and newer, and the
// emulator. Where it has not, the two-tile loop stages no tile (it never calls its agent's stage(),
// two_tile_loop.cuh) and every tile is read from global memory, as the last, partial one is:
// chapters 08, 10 and 11 then build and run on older GPUs too.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
inline constexpr bool kHasBulkCopies = false;
#else
inline constexpr bool kHasBulkCopies = true;
#endif

// Host: whether `kernel` stages with bulk copies, that is, was compiled for compute capability 9.0
// or newer (kHasBulkCopies in its own compilation): a kernel built for an older GPU stages nothing,
// even on a Hopper GPU that runs it. Always on the emulator.
inline bool kernel_has_bulk_copies(const void* kernel) {
#if defined(SCANLAB_EMU)
  (void)kernel;
  return true;
#else
  return compiled_ptx_version(kernel) >= 90;
#endif
}

// Every thread that wrote a stage with its own stores, before the barrier that the next bulk copy
// into that stage waits behind: orders those writes (the generic proxy) before the copy's (the async
// proxy). Where there are no bulk copies there is nothing to order.
__device__ __forceinline__ void fence_stage_before_bulk_copy() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
#endif
}

template <class T>
__device__ __forceinline__ void memcpy_async_tx_read_once(T* dst, const T* src, cuda::aligned_size_t<16> bytes,
                                                          cuda::barrier<cuda::thread_scope_block>& bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  std::uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  const auto dst_shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  const auto bar_shared = static_cast<unsigned>(__cvta_generic_to_shared(cuda::device::barrier_native_handle(bar)));
  const auto src_global = __cvta_generic_to_global(src);
  const auto size = static_cast<unsigned>(static_cast<std::size_t>(bytes));
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint"
               " [%0], [%1], %2, [%3], %4;" ::"r"(dst_shared),
               "l"(src_global), "r"(size), "r"(bar_shared), "l"(policy)
               : "memory");
#else
  cuda::device::memcpy_async_tx(dst, src, bytes, bar);
#endif
}

}  // namespace scanlab::single_pass
