// The tuning programs' timer: the median of `reps` runs after 3 warm-ups, CUDA events around each
// run on the default stream, every CUDA call checked.
//   median_ms_by_rep(f, reps)  f(repetition): warm-ups 0, 1, 2, then 0 .. reps - 1
//   median_ms_of_15(f)         the same, 15 runs (ch08_single_pass_sweep.cu, ch10_segmented_sweep.cu,
//                              which rotate their inputs by the repetition number they are given)
//   median_ms(f, reps)         f() (chapter 11's probes)
//   faster(int_ms, size_t_ms)  the faster of CUB's two item-count paths, and its name (the sorts'
//                              sweeps: CUB takes another path for an int and a size_t count)
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include <scanlab/cuda_check.hpp>

template <class F>
float median_ms_by_rep(F f, int reps) {
  cudaEvent_t a, b;
  SCANLAB_CUDA_CHECK(cudaEventCreate(&a));
  SCANLAB_CUDA_CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f(i);
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    SCANLAB_CUDA_CHECK(cudaEventRecord(a));
    f(r);
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

template <class F>
float median_ms_of_15(F f) {
  return median_ms_by_rep(f, 15);
}

template <class F>
float median_ms(F f, int reps = 20) {
  return median_ms_by_rep(
      [&](int) {
        f();
      },
      reps);
}

// The faster of CUB's two item-count types, and which it was.
struct CubTime {
  float ms;
  const char* count;
};
inline CubTime faster(float int_ms, float size_t_ms) {
  return int_ms <= size_t_ms ? CubTime{int_ms, "int"} : CubTime{size_t_ms, "size_t"};
}
