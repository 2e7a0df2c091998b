// scanlab/grading/runner_far.cuh: the runner's side of the tests past 2^31 elements
// (scanlab/grading/far.hpp). For runner sources (.cu) only: it launches a kernel of its own.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/grading/far.hpp"
#include "scanlab/grading/runner.hpp"

namespace scanlab::grading {

// p moved back by `first` elements. The address is computed as an integer: the result points
// before its allocation, and is only ever indexed at `first` or later.
template <class T>
T* shifted_back(T* p, std::size_t first) {
  return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(p) - first * sizeof(T));
}

// run_on_device for the last elements of an array whose first `first` elements do not exist: `in`
// holds elements [first, first + in.size()), the buffers hold only those, and launch(d_in, d_out)
// receives pointers shifted back by `first` elements, so that element i of the array is d_in[i]
// (for i >= first). Returns out[first, first + in.size()).
template <class Out = void, class In, class Launch>
auto run_on_device_window(const std::vector<In>& in, std::size_t first, Launch&& launch) {
  return run_on_device<Out>(in, [&](In* d_in, auto* d_out) {
    launch(shifted_back(d_in, first), shifted_back(d_out, first));
  });
}

template <class T>
__global__ void far_input_kernel(T* in, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    in[i] = static_cast<T>(far_input(i));
  }
}

// The whole array in[0, n) = far_input(i), made on the device, an output of n poisoned elements,
// launch(d_in, d_out) over all of it; returns out[first, first + count) (up to n). For GPUs: n is
// past 2^31.
template <class Out = void, class In, class Launch>
auto run_far_on_device(std::size_t n, std::size_t first, Launch&& launch, std::size_t count = SIZE_MAX) {
  using O = std::conditional_t<std::is_void_v<Out>, In, Out>;
  if (first > n) throw std::invalid_argument("run_far_on_device: first is past n");
  DeviceBuffer<In> d_in(n);
  DeviceBuffer<O> d_out(n);
  far_input_kernel<In><<<1024, 256>>>(d_in.data(), n);
  SCANLAB_CHECK_LAUNCH();
  d_out.fill_poison();
  launch(d_in.data(), d_out.data());
  SCANLAB_CHECK_SYNC();
  std::vector<O> got(n - first < count ? n - first : count);
  if (!got.empty()) {
    SCANLAB_CUDA_CHECK(cudaMemcpy(got.data(), d_out.data() + first, got.size() * sizeof(O), cudaMemcpyDeviceToHost));
  }
  return got;
}

// An entry's run over elements [first, n) of the large array of length n (parameters "n" and
// "first"), as the checker asks (scanlab/grading/far.hpp): with parameter "on_device" the whole
// array is made on the device, launch(d_in, d_out, 0) runs the code on all of it, and the output
// returned is out[first, n), or its first "count" elements when that parameter is given; otherwise
// input 0 holds elements [first, n) and launch(d_in, d_out, first) must start at element `first`
// (pointers shifted back, see run_on_device_window). Returns out[first, n).
template <class Out = void, class In = std::int32_t, class Launch>
auto run_far(const Call& call, Launch&& launch) {
  const std::size_t n = call.param<std::size_t>("n");
  const std::size_t first = call.param<std::size_t>("first");
  if (call.param<bool>("on_device", false)) {
    return run_far_on_device<Out, In>(
        n, first,
        [&](In* d_in, auto* d_out) {
          launch(d_in, d_out, std::size_t{0});
        },
        call.param<std::size_t>("count", SIZE_MAX));
  }
  const std::vector<In> in = call.input<In>(0);
  if (first + in.size() != n) throw std::runtime_error("the input is not elements [first, n)");
  return run_on_device_window<Out>(in, first, [&](In* d_in, auto* d_out) {
    launch(d_in, d_out, first);
  });
}

}  // namespace scanlab::grading
