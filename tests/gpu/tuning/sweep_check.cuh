// The sort sweeps' check: a variant's output equal to CUB's, element for element (both sorts are
// stable, so keys and values must agree exactly), every CUDA call checked.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include <scanlab/cuda_check.hpp>

template <class T>
bool same_on_device(const T* a, const T* b, std::size_t n) {
  std::vector<T> x(n), y(n);
  SCANLAB_CUDA_CHECK(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  SCANLAB_CUDA_CHECK(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  return x == y;
}
