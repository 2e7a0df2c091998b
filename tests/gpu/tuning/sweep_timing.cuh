// The tuning sweeps' timer (tests/gpu/tuning/ch08_single_pass_sweep.cu, ch10_segmented_sweep.cu):
// the median of 15 runs of f(repetition) after 3 warm-ups, CUDA events around each run on the
// default stream. The sweeps rotate their inputs by the repetition number they are given.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

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
