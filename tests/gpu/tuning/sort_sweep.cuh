// What the Onesweep sweeps share (ch09_onesweep_sweep.cu, uint32 keys; ch09_onesweep_u64_sweep.cu,
// uint64 keys): one input's buffers, CUB's sorts of it timed with both item counts, and the check of
// a variant's output against CUB's. CUB's sorts are stable, so keys and values must agree exactly.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>

#include "sweep_timing.cuh"

// An input's keys, their input positions as values, a variant's outputs, CUB's sorted keys and
// values (want_*) and CUB's temp storage, enough for either item count.
template <class Key, class Value = std::uint32_t>
struct SortBuffers {
  explicit SortBuffers(const std::vector<Key>& input)
      : n(input.size()), keys(input), out(n), want_keys(n), values(positions(n)), values_out(n), want_values(n) {
    std::size_t bytes = 0;
    for (const bool wide : {false, true}) {
      std::size_t k = 0, p = 0;
      if (wide) {
        SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, k, keys.data(), want_keys.data(), n));
        SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, p, keys.data(), want_keys.data(), values.data(),
                                                           want_values.data(), n));
      } else {
        const int count = static_cast<int>(n);
        SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, k, keys.data(), want_keys.data(), count));
        SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, p, keys.data(), want_keys.data(), values.data(),
                                                           want_values.data(), count));
      }
      bytes = std::max({bytes, k, p});
    }
    temp = scanlab::DeviceBuffer<unsigned char>(bytes);
  }

  std::size_t n;
  scanlab::DeviceBuffer<Key> keys, out, want_keys;
  scanlab::DeviceBuffer<Value> values, values_out, want_values;
  scanlab::DeviceBuffer<unsigned char> temp;

 private:
  static std::vector<Value> positions(std::size_t n) {
    std::vector<Value> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<Value>(i);
    return v;
  }
};

// CUB's times, median of 15 each, with an int and a size_t item count (CUB takes another path for
// each), and the faster of each pair.
struct CubSortTimes {
  float keys_int, keys_size_t, pairs_int, pairs_size_t;
  CubTime keys, pairs;
};

// Times cub::DeviceRadixSort::SortKeys and SortPairs on b; leaves CUB's sorted keys and values in
// want_keys and want_values.
template <class Key, class Value>
CubSortTimes time_cub_sorts(SortBuffers<Key, Value>& b) {
  const auto sort_keys = [&](auto count) {
    return median_ms_of_15([&](int) {
      std::size_t bytes = b.temp.size();
      SCANLAB_CUDA_CHECK(
          cub::DeviceRadixSort::SortKeys(b.temp.data(), bytes, b.keys.data(), b.want_keys.data(), count));
    });
  };
  const auto sort_pairs = [&](auto count) {
    return median_ms_of_15([&](int) {
      std::size_t bytes = b.temp.size();
      SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b.temp.data(), bytes, b.keys.data(), b.want_keys.data(),
                                                         b.values.data(), b.want_values.data(), count));
    });
  };
  CubSortTimes t{};
  t.keys_int = sort_keys(static_cast<int>(b.n));
  t.keys_size_t = sort_keys(b.n);
  t.pairs_int = sort_pairs(static_cast<int>(b.n));
  t.pairs_size_t = sort_pairs(b.n);
  t.keys = faster(t.keys_int, t.keys_size_t);
  t.pairs = faster(t.pairs_int, t.pairs_size_t);
  return t;
}

// A device buffer equal to another, element for element.
template <class T>
bool same_on_device(const scanlab::DeviceBuffer<T>& a, const scanlab::DeviceBuffer<T>& b) {
  return a.download() == b.download();
}
