// Chapter 09's given host side: no memset before the histogram kernel. The histogram kernel adds
// every block's counts into the workspace's histograms, so they must be zero before it runs. The bins
// kernel, which runs right after it, moves each count to digit_counts (where the passes read it) and
// leaves a zero behind, so the next sort finds them zero. A sort that stopped between the two
// launches leaves them dirty, and the next sort memsets them first. These tests look at the counts
// themselves: a sort that added onto stale counts would put its keys in the wrong places too, but a
// count left behind by the last sort of a test would go unseen.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "onesweep_dispatch.cuh"
#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "ch09_test_keys.hpp"

namespace {

using ch09_test::random_keys;

// How many keys have digit d in pass p, at [p * 256 + d] (unsigned keys: their bits are their order).
template <class Key>
std::vector<unsigned> digit_counts_of(const std::vector<Key>& keys) {
  constexpr int kPasses = static_cast<int>(sizeof(Key));
  std::vector<unsigned> counts(static_cast<std::size_t>(kPasses) * 256, 0u);
  for (const Key k : keys)
    for (int p = 0; p < kPasses; ++p) ++counts[static_cast<std::size_t>(p) * 256 + ((k >> (8 * p)) & 0xffu)];
  return counts;
}

template <class Key>
void sort_and_check(const std::vector<Key>& keys, scanlab::DeviceBuffer<Key>& d_keys, scanlab::DeviceBuffer<Key>& d_out,
                    ch09::OnesweepWorkspace<Key>& ws) {
  d_out.fill_poison();
  ch09::onesweep_sort_keys(d_keys.data(), d_out.data(), keys.size(), ws);
  SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(d_out.download() == ch09_test::sorted(keys));
  CHECK(ws.digit_counts.download() == digit_counts_of(keys));
  CHECK(ws.histograms_zero);
  const std::vector<unsigned> left = ws.histograms.download();
  CHECK(std::count(left.begin(), left.end(), 0u) == static_cast<std::ptrdiff_t>(left.size()));
}

}  // namespace

TEST_CASE_TEMPLATE("ch09 onesweep: each sort leaves the histograms zero for the next", Key, std::uint32_t,
                   std::uint64_t) {
  const std::size_t n = 3 * static_cast<std::size_t>(ch09::OnesweepKeysShape<Key>::TILE_ITEMS) + 17;
  scanlab::DeviceBuffer<Key> d_keys(n), d_out(n);
  ch09::OnesweepWorkspace<Key> ws(n);
  for (int sort = 0; sort < 3; ++sort) {
    CAPTURE(sort);
    // Other keys each time: a count left over from the sort before would show in this one's.
    const std::vector<Key> keys = random_keys<Key>(n, 970 + 10 * sort + sizeof(Key));
    d_keys.upload(keys);
    sort_and_check(keys, d_keys, d_out, ws);
  }
}

TEST_CASE("ch09 onesweep: histograms left dirty are zeroed before the next sort counts into them") {
  using Key = std::uint32_t;
  const std::size_t n = 2 * static_cast<std::size_t>(ch09::OnesweepKeysShape<Key>::TILE_ITEMS) + 5;
  const std::vector<Key> keys = random_keys<Key>(n, 990);
  scanlab::DeviceBuffer<Key> d_keys(keys), d_out(n);
  ch09::OnesweepWorkspace<Key> ws(n);
  // What a sort that stopped between its histogram and bins launches leaves: counts in the
  // histograms, and the workspace knowing it.
  SCANLAB_CUDA_CHECK(cudaMemset(ws.histograms.data(), 0x01, ws.histograms.size() * sizeof(unsigned)));
  ws.histograms_zero = false;
  sort_and_check(keys, d_keys, d_out, ws);
}
