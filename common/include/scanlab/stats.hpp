// scanlab/stats.hpp: summary statistics for benchmark timings (no CUDA needed, so it is tested on
// the host). The median, not the mean, is what the lab reports: one run disturbed by a clock
// change or another process moves the mean but not the median.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace scanlab {

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int reps = 0;
};

// Median of the samples (mean of the middle two for an even count). Throws on an empty list.
inline double median(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("median of no samples");
  const auto mid = static_cast<std::ptrdiff_t>(samples.size() / 2);
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  const double upper = samples[static_cast<std::size_t>(mid)];
  if (samples.size() % 2 == 1) return upper;
  const double lower = *std::max_element(samples.begin(), samples.begin() + mid);
  return (lower + upper) / 2.0;
}

inline TimingStats summarize_ms(const std::vector<double>& samples_ms) {
  TimingStats s;
  s.median_ms = median(samples_ms);
  s.min_ms = *std::min_element(samples_ms.begin(), samples_ms.end());
  s.max_ms = *std::max_element(samples_ms.begin(), samples_ms.end());
  s.reps = static_cast<int>(samples_ms.size());
  return s;
}

// Throughput in GB/s (10^9 bytes per second) for `bytes` moved in `ms` milliseconds. A scan moves
// 2*n*sizeof(T) bytes at least (read once, write once).
inline double gbps(double bytes, double ms) { return bytes / (ms * 1.0e-3) / 1.0e9; }

}  // namespace scanlab
