// The emulator's side of a kernel launch and of shared memory. scanlab-emu-translate rewrites
//   kernel<<<grid, block, smem, stream>>>(a, b)
// into
//   ::scanlab_emu::launch(::scanlab_emu::launch_config(grid, block, smem, stream), "kernel",
//                         __FILE__, __LINE__, [&](auto&... p) { kernel(p...); }, a, b)
// and `__shared__ T x[N];` / `extern __shared__ T s[];` into calls of static_shared() and
// dynamic_shared(), which hand each block its own storage.
#pragma once
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include "scanlab_emu/types.hpp"

namespace scanlab_emu {

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes;
  cudaStream_t stream;
};

inline LaunchConfig launch_config(dim3 grid, dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return LaunchConfig{grid, block, shared_bytes, stream};
}

namespace detail {
using KernelBody = void (*)(void* context);
void launch_erased(const LaunchConfig& config, const char* kernel, const char* file, int line, KernelBody body,
                   void* context);
}  // namespace detail

// Arguments are evaluated and copied once, as CUDA copies kernel parameters at the launch; every
// emulated thread then calls the kernel with its own copies of those parameters.
template <class Body, class... Args>
void launch(const LaunchConfig& config, const char* kernel, const char* file, int line, Body&& body, Args&&... args) {
  using Params = std::tuple<std::decay_t<Args>...>;
  Params params(std::forward<Args>(args)...);
  struct Context {
    std::remove_reference_t<Body>* body;
    Params* params;
  } context{&body, &params};
  detail::launch_erased(
      config, kernel, file, line,
      [](void* c) {
        auto* ctx = static_cast<Context*>(c);
        std::apply(
            [ctx](auto&... p) {
              (*ctx->body)(p...);
            },
            *ctx->params);
      },
      &context);
}

// The running block's storage for one `__shared__` declaration (key: a static local per
// declaration, so each template instance has its own). Poisoned when the block first uses it.
void* static_shared(const void* key, std::size_t bytes, std::size_t align, const char* name);
// The running block's `extern __shared__` array: the launch's dynamic shared memory.
void* dynamic_shared(std::size_t align, const char* name);

// `extern __shared__` at namespace scope: resolves to the running block's dynamic shared memory.
template <class T>
class DynamicShared {
 public:
  DynamicShared(const char* name, std::size_t align) : name_(name), align_(align) {}
  T* get() const { return static_cast<T*>(dynamic_shared(align_, name_)); }
  operator T*() const { return get(); }
  T& operator[](std::ptrdiff_t i) const { return get()[i]; }

 private:
  const char* name_;
  std::size_t align_;
};

}  // namespace scanlab_emu
