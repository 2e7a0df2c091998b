// scanlab/dependent_launch.cuh: programmatic dependent launch (PTX griddepcontrol; compute
// capability 9.0 and later).
//
// Kernels on one stream run one after the other: the next one's blocks start only once the last
// block of the kernel before it has ended. Between two kernels the GPU is partly idle twice: in the
// tail of the first, while its last blocks finish on a few SMs, and while the second is launched
// and its first blocks are placed. A kernel launched with launch_dependent may start earlier: its
// blocks are placed as soon as every block of the kernel before it has called allow_next_grid()
// (or ended), and they wait in wait_for_previous_grid() until that kernel has ended and its writes
// are visible. So the launch and the placing of the second kernel overlap the first one's tail.
//
// The rules: a kernel launched this way calls wait_for_previous_grid() before it reads or writes any
// memory that the kernel before it reads or writes; until then it may only set up its own shared
// memory and registers. The kernel before decides how early the next may be placed: calling
// allow_next_grid() at its start lets the next kernel's blocks take each SM's room as soon as the
// first kernel's last blocks have started. That never starves the first kernel: by then every one
// of its blocks is running, so the waiting blocks take no room it still needs.
//
// Elsewhere (older GPUs, kernels built for an older architecture, the emulator) the launch is a
// plain one and the calls do nothing: every kernel there starts after the one before it has ended,
// as the rules assume anyway. Chapter 09's Onesweep sort launches its passes and its bins kernel
// this way (book, chapter 09, "The passes back to back" and "Before the first pass").
//
// Include it in quotes, by a path the CPU emulator's translator finds (relative to the including
// file): its launch is a <<<...>>> there, which the translator rewrites in the files it reaches
// through quoted includes only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include <scanlab/cuda_check.hpp>

namespace scanlab {

// Every thread that touches global memory, before it does: waits until the kernel before this one
// on the stream has ended and its writes are visible (at once for a plain launch).
__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// This block no longer holds the next kernel back: once every block of this kernel has called it
// (or ended), the next kernel's blocks may be placed on the SMs.
__device__ __forceinline__ void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

#if !defined(SCANLAB_EMU)
// The PTX architecture a kernel was compiled for, as the current device runs it (70 for
// compute_70, 90 for compute_90). Asked of the runtime once per kernel and device, then
// remembered: cudaFuncGetAttributes took 0.3-0.6 us a call on an H200's host, against 2.5-3.7 us
// for the launch itself, and a sort makes one such launch for its bins and one a pass.
// Thread-safe (the lab's scan objects may be used from several threads).
inline int compiled_ptx_version(const void* kernel) {
  int device = 0;
  SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
  struct Known {
    const void* kernel;
    int device;
    int ptx_version;
  };
  static std::mutex mutex;
  static std::vector<Known> known;
  std::lock_guard<std::mutex> lock(mutex);
  for (const Known& k : known) {
    if (k.kernel == kernel && k.device == device) return k.ptx_version;
  }
  cudaFuncAttributes compiled{};
  SCANLAB_CUDA_CHECK(cudaFuncGetAttributes(&compiled, kernel));
  known.push_back({kernel, device, compiled.ptxVersion});
  return compiled.ptxVersion;
}
#endif

// kernel<<<grid, block, shared_bytes, s>>>(args...), as a programmatic dependent launch where the
// kernel's code waits: where it was compiled for compute capability 9.0 or later (its PTX's
// architecture, which the current device runs). A kernel built for an older architecture has no
// wait in it, even when the driver compiles it for a newer GPU, and launched early it would read
// too soon: it gets a plain launch, as it does on older GPUs and on the emulator. Checked.
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t s,
                      Args... args) {
#if defined(SCANLAB_EMU)
  kernel<<<grid, block, shared_bytes, s>>>(args...);
  SCANLAB_CHECK_LAUNCH();
#else
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = s;
  config.attrs = &attribute;
  config.numAttrs = compiled_ptx_version(reinterpret_cast<const void*>(kernel)) >= 90 ? 1 : 0;
  SCANLAB_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, args...));
#endif
}

}  // namespace scanlab
