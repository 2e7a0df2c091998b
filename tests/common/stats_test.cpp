// Tests of scanlab/stats.hpp: the median and throughput helpers the benchmarks report with.
#include "scanlab/stats.hpp"

#include <doctest/doctest.h>

#include <vector>

TEST_CASE("median: odd and even counts, unsorted input") {
  CHECK(scanlab::median({5.0}) == 5.0);
  CHECK(scanlab::median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(scanlab::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(scanlab::median({9.0, 1.0, 1.0, 1.0, 100.0}) == 1.0);  // an outlier does not move it
  CHECK_THROWS_AS(scanlab::median({}), std::invalid_argument);
}

TEST_CASE("summarize_ms and gbps") {
  const auto s = scanlab::summarize_ms({2.0, 8.0, 4.0, 3.0});
  CHECK(s.median_ms == 3.5);
  CHECK(s.min_ms == 2.0);
  CHECK(s.max_ms == 8.0);
  CHECK(s.reps == 4);
  // 2 * 2^28 ints moved in 1 ms: 2147.48 GB/s.
  CHECK(scanlab::gbps(2.0 * (1 << 28) * 4, 1.0) == doctest::Approx(2147.483648));
  CHECK(scanlab::gbps(1.0e9, 1000.0) == doctest::Approx(1.0));
}
