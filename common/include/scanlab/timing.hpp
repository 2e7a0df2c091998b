// scanlab/timing.hpp: timing device work with CUDA events (start and stop recorded in the stream,
// so the time is the device's, not the host's launch overhead), warm-up runs first, and the median
// of repeated runs; the way CUB's and the lab's benchmarks are measured.
#pragma once

#include <cuda_runtime.h>

#include <utility>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/stats.hpp"

namespace scanlab {

class GpuTimer {
 public:
  GpuTimer() {
    SCANLAB_CUDA_CHECK(cudaEventCreate(&start_));
    const cudaError_t code = cudaEventCreate(&stop_);
    if (code != cudaSuccess) {
      cudaEventDestroy(start_);
      detail::throw_cuda_error(code, "cudaEventCreate(&stop_)", __FILE__, __LINE__);
    }
  }
  ~GpuTimer() {
    // Errors cannot be thrown from here; the events are gone either way.
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  void start(cudaStream_t stream = 0) { SCANLAB_CUDA_CHECK(cudaEventRecord(start_, stream)); }
  void stop(cudaStream_t stream = 0) { SCANLAB_CUDA_CHECK(cudaEventRecord(stop_, stream)); }

  // Milliseconds between start() and stop(); waits for the stop event.
  float elapsed_ms() const {
    SCANLAB_CUDA_CHECK(cudaEventSynchronize(stop_));
    float ms = 0.0f;
    SCANLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

// Runs fn() `warmup` times untimed, then `reps` times each between a pair of events on the default
// stream. fn launches work (and should check its launches); errors it leaves behind are caught
// here by the synchronisation.
template <class F>
TimingStats time_ms(F&& fn, int warmup, int reps) {
  if (reps < 1) reps = 1;
  for (int i = 0; i < warmup; ++i) fn();
  SCANLAB_CHECK_SYNC();
  GpuTimer timer;
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    timer.start();
    fn();
    timer.stop();
    samples.push_back(timer.elapsed_ms());
  }
  SCANLAB_CHECK_SYNC();
  return summarize_ms(samples);
}

}  // namespace scanlab
