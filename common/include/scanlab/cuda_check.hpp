// scanlab/cuda_check.hpp: every CUDA runtime call and kernel launch in the lab is checked.
//
// A failed call throws scanlab::CudaError, whose text says where and what:
//   "chapters/05_multi_block/main.cu:88: cudaErrorInvalidValue (invalid argument) in `cudaMemcpy(...)`"
// Throwing (rather than printing and exiting) lets doctest report the failing test case and lets
// RAII buffers free their memory on the way out.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace scanlab {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {
[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  std::string text = std::string(file) + ":" + std::to_string(line) + ": " + cudaGetErrorName(code) + " (" +
                     cudaGetErrorString(code) + ") in `" + expr + "`";
  throw CudaError(code, text);
}

inline void cuda_check(cudaError_t code, const char* expr, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, expr, file, line);
}
}  // namespace detail

}  // namespace scanlab

// Checks the cudaError_t that `expr` returns.
#define SCANLAB_CUDA_CHECK(expr) ::scanlab::detail::cuda_check((expr), #expr, __FILE__, __LINE__)

// After a <<<...>>> launch: a bad configuration (too many threads, too much shared memory) is
// only reported through cudaGetLastError, which this also clears.
#define SCANLAB_CHECK_LAUNCH() \
  ::scanlab::detail::cuda_check(cudaGetLastError(), "kernel launch (cudaGetLastError())", __FILE__, __LINE__)

// Waits for the device and checks: errors raised while a kernel ran (an out-of-bounds access, a
// trap) surface here.
#define SCANLAB_CHECK_SYNC() \
  ::scanlab::detail::cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize()", __FILE__, __LINE__)
