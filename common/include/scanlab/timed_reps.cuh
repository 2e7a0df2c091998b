// scanlab/timed_reps.cuh: the timed repetitions of the lab's GPU measurements, shared by the bench
// (bench/harness.cu) and the grader's speed runner (tests/grade/speed/speed_main.cu), so that a
// student's speed grade is measured exactly as the book's figures are:
// - warm-up runs first (untimed);
// - before each timed repetition a one-thread spin kernel keeps the stream busy for a few tens of
//   microseconds, so that the start event, the operation and the stop event are all queued on the
//   GPU before the operation begins (the host's launch latency is not measured);
// - CUDA events bracket the whole operation as a user calls it;
// - repetition k uses buffer pair k mod slots: the caller's pools span several times the L2, so
//   no repetition finds its input (or its output lines) in L2 from an earlier one;
// - the median of the repetitions is the figure (min and max beside it).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "scanlab/cuda_check.hpp"

namespace scanlab::timing {

// A template so that every unit that includes this header may define it.
template <int Unused>
__global__ void spin_kernel(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// Event pairs for one operation's timed repetitions.
class EventPairs {
 public:
  explicit EventPairs(int count) : start_(static_cast<size_t>(count)), stop_(static_cast<size_t>(count)) {
    for (int i = 0; i < count; ++i) {
      SCANLAB_CUDA_CHECK(cudaEventCreate(&start_[static_cast<size_t>(i)]));
      ++made_start_;
      SCANLAB_CUDA_CHECK(cudaEventCreate(&stop_[static_cast<size_t>(i)]));
      ++made_stop_;
    }
  }
  ~EventPairs() {
    for (size_t i = 0; i < made_start_; ++i) cudaEventDestroy(start_[i]);
    for (size_t i = 0; i < made_stop_; ++i) cudaEventDestroy(stop_[i]);
  }
  EventPairs(const EventPairs&) = delete;
  EventPairs& operator=(const EventPairs&) = delete;
  cudaEvent_t start(int i) const { return start_[static_cast<size_t>(i)]; }
  cudaEvent_t stop(int i) const { return stop_[static_cast<size_t>(i)]; }

 private:
  std::vector<cudaEvent_t> start_, stop_;
  size_t made_start_ = 0, made_stop_ = 0;
};

struct Times {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
  size_t last_slot = 0;  // the buffer pair the last timed repetition wrote: the one to verify
};

// Times run(slot) `reps` times after `warmup` untimed runs; slot k = the k-th operation modulo
// `slots`, counted from `first_op` (the caller's running count, so that one pool serves several
// operations without two in a row reusing a pair). Throws CudaError on any CUDA error.
template <class Run>
Times time_repetitions(Run&& run, size_t slots, size_t& op, int warmup, int reps, long long spin_cycles,
                       cudaStream_t stream) {
  if (reps < 1) reps = 1;
  if (slots < 1) slots = 1;
  for (int w = 0; w < warmup; ++w, ++op) run(op % slots);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  EventPairs events(reps);
  for (int r = 0; r < reps; ++r, ++op) {
    if (spin_cycles > 0) {
      spin_kernel<0><<<1, 1, 0, stream>>>(spin_cycles);
      SCANLAB_CHECK_LAUNCH();
    }
    SCANLAB_CUDA_CHECK(cudaEventRecord(events.start(r), stream));
    run(op % slots);
    SCANLAB_CUDA_CHECK(cudaEventRecord(events.stop(r), stream));
  }
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> times;
  times.reserve(static_cast<size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    float ms = 0.f;
    SCANLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, events.start(r), events.stop(r)));
    times.push_back(static_cast<double>(ms));
  }
  std::sort(times.begin(), times.end());
  const size_t k = times.size();
  Times t;
  t.median_ms = (k % 2 == 1) ? times[k / 2] : 0.5 * (times[k / 2 - 1] + times[k / 2]);
  t.min_ms = times.front();
  t.max_ms = times.back();
  t.reps = reps;
  t.last_slot = (op - 1) % slots;
  return t;
}

// How many buffer pairs of n elements of `elem_bytes` span `factor` x the L2 (at least one).
inline size_t rotation_slots(size_t n, size_t elem_bytes, double factor, size_t l2_bytes) {
  const double pair = 2.0 * static_cast<double>(n) * static_cast<double>(elem_bytes);
  const double span = factor * static_cast<double>(l2_bytes);
  return std::max<size_t>(1, static_cast<size_t>((span + pair - 1) / pair));
}

}  // namespace scanlab::timing
