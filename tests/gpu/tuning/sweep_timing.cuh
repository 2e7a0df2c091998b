// The tuning programs' timers, CUDA events around each run on the default stream, after 3 warm-ups:
//   median_ms_of_15(f)  f(repetition), 15 runs (ch08_single_pass_sweep.cu, ch10_segmented_sweep.cu,
//                       which rotate their inputs by the repetition number they are given)
//   median_ms(f, reps)  f(), every CUDA call checked (chapter 11's probes)
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include <scanlab/cuda_check.hpp>

template <class F>
float median_ms_of_15(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int i = 0; i < 3; ++i) f(i);
  for (int r = 0; r < 15; ++r) {
    cudaEventRecord(a);
    f(r);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class F>
float median_ms(F f, int reps = 20) {
  cudaEvent_t a, b;
  SCANLAB_CUDA_CHECK(cudaEventCreate(&a));
  SCANLAB_CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    SCANLAB_CUDA_CHECK(cudaEventRecord(a));
    f();
    SCANLAB_CUDA_CHECK(cudaEventRecord(b));
    SCANLAB_CUDA_CHECK(cudaEventSynchronize(b));
    float ms = 0;
    SCANLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  SCANLAB_CUDA_CHECK(cudaEventDestroy(a));
  SCANLAB_CUDA_CHECK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
