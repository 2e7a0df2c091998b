// scanlab/nvtx.hpp: named ranges that Nsight Systems shows on its timeline, in the domain
// "scanlab". With NVTX3 (header-only, part of the CUDA Toolkit) a range costs a few nanoseconds
// when no profiler is attached; without it (SCANLAB_HAVE_NVTX undefined) it compiles to nothing.
//
//   void run_scan(...) {
//     SCANLAB_NVTX_RANGE("ch07 decoupled look-back");
//     ...
//   }
#pragma once

#define SCANLAB_NVTX_CONCAT_IMPL(a, b) a##b
#define SCANLAB_NVTX_CONCAT(a, b) SCANLAB_NVTX_CONCAT_IMPL(a, b)

#if defined(SCANLAB_HAVE_NVTX)

#include <nvtx3/nvtx3.hpp>

namespace scanlab {
struct nvtx_domain {
  static constexpr char const* name{"scanlab"};
};
// A scoped range: pushed by the constructor, popped by the destructor.
using NvtxRange = nvtx3::scoped_range_in<nvtx_domain>;
}  // namespace scanlab

#define SCANLAB_NVTX_RANGE(name) \
  ::scanlab::NvtxRange SCANLAB_NVTX_CONCAT(scanlab_nvtx_range_, __LINE__) { name }

#else

#include <string>

namespace scanlab {
class NvtxRange {
 public:
  explicit NvtxRange(const char*) noexcept {}
  explicit NvtxRange(const std::string&) noexcept {}
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};
}  // namespace scanlab

#define SCANLAB_NVTX_RANGE(name) static_cast<void>(0)

#endif
