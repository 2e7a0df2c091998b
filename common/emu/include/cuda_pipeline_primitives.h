// <cuda_pipeline_primitives.h> on the emulator: the per-thread asynchronous copy (cp.async) of
// CUDA's pipeline primitives. A copy is pending from __pipeline_memcpy_async until a
// __pipeline_wait_prior of the same thread covers its commit group; its bytes land at a point
// between the two that the emulator's seed picks, so a kernel that reads them without waiting
// reads old bytes or gets a race report (common/emu/src/async_copy.cpp).
#pragma once
#include <cstddef>

#include "scanlab_emu/device.hpp"

namespace scanlab_emu::detail {
void pipeline_memcpy_async(void* dst_shared, const void* src_global, std::size_t size_and_align, std::size_t zfill,
                           const void* site);
void pipeline_commit();
void pipeline_wait_prior(std::size_t prior, const void* site);
}  // namespace scanlab_emu::detail

// Each takes its call site from its own return address, as the barriers do.
__attribute__((noinline)) inline void __pipeline_memcpy_async(void* __restrict__ dst_shared,
                                                              const void* __restrict__ src_global,
                                                              std::size_t size_and_align, std::size_t zfill = 0) {
  ::scanlab_emu::detail::pipeline_memcpy_async(dst_shared, src_global, size_and_align, zfill, SCANLAB_EMU_SITE);
}
inline void __pipeline_commit() { ::scanlab_emu::detail::pipeline_commit(); }
__attribute__((noinline)) inline void __pipeline_wait_prior(std::size_t prior) {
  ::scanlab_emu::detail::pipeline_wait_prior(prior, SCANLAB_EMU_SITE);
}
