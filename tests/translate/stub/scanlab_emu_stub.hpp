// A stand-in for the emulator's cuda_runtime.h, only for the translator's compile check
// (tests/translate/compile_test.cpp): it declares the ::scanlab_emu entry points that translated code
// calls, with the signatures the translator's output expects, plus just enough CUDA vocabulary for
// data/block_scan.cu. It is never linked or run; the real runtime lives in common/emu.
// `__shared__` is deliberately NOT defined, so any declaration the translator missed fails to compile.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __align__(n) alignas(n)

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned x, y, z;
};
extern thread_local uint3 threadIdx, blockIdx;
extern thread_local dim3 blockDim, gridDim;
void __syncthreads();
template <class T>
T __shfl_up_sync(unsigned mask, T v, int delta, int width = 32);

enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
struct CUstream_st;
using cudaStream_t = CUstream_st*;
cudaError_t cudaGetLastError();
const char* cudaGetErrorString(cudaError_t);
cudaError_t cudaMalloc(void** p, std::size_t bytes);
template <class T>
cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
cudaError_t cudaFree(void* p);
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);

namespace scanlab_emu {

struct LaunchConfig {
  dim3 grid, block;
  std::size_t dynamic_shared_bytes;
  cudaStream_t stream;
};

// EXPR<<<g, b[, bytes[, stream]]>>>  ->  launch_config(g, b[, bytes[, stream]])
LaunchConfig launch_config(dim3 grid, dim3 block, std::size_t dynamic_shared_bytes = 0, cudaStream_t stream = nullptr);

// The translator passes the arguments as written; the runtime copies them (as CUDA does) and calls
// `body` with the copies as lvalues, once per emulated thread. The call returns void.
void launch_dispatch(const LaunchConfig& cfg, const char* kernel, const char* file, int line, void (*thunk)(void*),
                     void* state);
template <class Body, class... Args>
void launch(const LaunchConfig& cfg, const char* kernel, const char* file, int line, Body&& body, Args&&... args) {
  struct State {
    std::decay_t<Body> body;
    std::tuple<std::decay_t<Args>...> args;
  } state{std::forward<Body>(body), std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...)};
  launch_dispatch(
      cfg, kernel, file, line,
      [](void* p) {
        auto* s = static_cast<State*>(p);
        std::apply(s->body, s->args);
      },
      &state);
}

// `__shared__ T name DIMS;`: one block-wide object per (key, block); key is a function-local static.
void* static_shared(const void* key, std::size_t bytes, std::size_t align, const char* name);
// `extern __shared__ T name[];` in a function: the block's dynamic shared memory.
void* dynamic_shared(std::size_t align, const char* name);
// `extern __shared__ T name[];` at namespace scope: resolves to the running block's dynamic shared
// memory on every use.
template <class T>
class DynamicShared {
 public:
  DynamicShared(const char* name, std::size_t align) : name_(name), align_(align) {}
  operator T*() const { return static_cast<T*>(dynamic_shared(align_, name_)); }
  T& operator[](std::size_t i) const { return static_cast<T*>(*this)[i]; }

 private:
  const char* name_;
  std::size_t align_;
};

}  // namespace scanlab_emu
