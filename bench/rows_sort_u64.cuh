// scanlab_bench: chapter 09's Onesweep on uint64 keys, and CUB's radix sort on the same keys with
// an int and a size_t item count (issue 41). The harness times int32 and float arrays; these rows
// are int32 rows (skipped for float) whose runner ignores the harness's n int32 elements and sorts
// n uint64 keys of its own instead:
//   - the keys are uniform over all 64 bits (splitmix64 of the index and a seed that depends only on
//     n, made on the device outside timing), so every one of the eight 8-bit passes sees all digits;
//   - a key-value row's values are uint32, each key's index in the input (as the uint32 rows'), so
//     that the check can tell that every value moved with its key, stable among equal keys;
//   - the check (Check::custom) reads back the keys and values the last run wrote and compares them
//     with a std::sort of the keys (sort_check.hpp sorted_u64_problem);
//   - the bytes counted are honest: Row::arrays counts 4-byte words per element, so 2 for an 8-byte
//     key, 3 for a key and a uint32 value: GB/s is (n read + n written) x 16 or 24 bytes / time.
//     "x copy" stays the time of the `copy` row of n int32 (8n bytes) over this row's time: a sort
//     of n elements against a copy of n int32, not a byte-for-byte bound (a copy of n uint64 keys
//     would take about twice as long).
//   - the keys do not rotate over buffers as the harness's arrays do: at 2^24 keys and up (128 MiB)
//     they are past any L2, below that the table's *L2 mark does not see them (time them from 2^24).
// Each Onesweep row's "x CUB" is against the faster of CUB's two item counts, as the uint32 rows'.
// A header included by rows_applications.cu only: chapter 09's dispatch header defines a kernel
// that is not a template, so a second translation unit that includes it would define it twice.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>

#include "onesweep_dispatch.cuh"  // chapters/09_radix_sort
#include "registry.hpp"
#include "sort_check.hpp"

namespace scanlab::bench::sort_u64 {

// splitmix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", 2014): every
// output bit uniform, so the keys are uniform over all 2^64 patterns.
__host__ __device__ inline uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

__global__ void make_keys_kernel(uint64_t* keys, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    keys[i] = splitmix64(seed ^ splitmix64(i));
  }
}

// One row's device state for one n: the keys in and out, and for a key-value row the values.
struct U64Sort {
  U64Sort(size_t n, bool pairs) : keys_in(n), keys_out(n) {
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>((n + 255) / 256, 65535));
    make_keys_kernel<<<blocks, 256>>>(keys_in.data(), n, splitmix64(0x5ca1ab1eull ^ n));
    SCANLAB_CUDA_CHECK(cudaGetLastError());
    keys_out.fill_poison();
    if (pairs) {
      std::vector<uint32_t> index(n);
      std::iota(index.begin(), index.end(), 0u);
      values_in = std::make_unique<DeviceBuffer<uint32_t>>(index);
      values_out = std::make_unique<DeviceBuffer<uint32_t>>(n);
      values_out->fill_poison();
    }
    SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  DeviceBuffer<uint64_t> keys_in, keys_out;
  std::unique_ptr<DeviceBuffer<uint32_t>> values_in, values_out;
};

// sort(U64Sort&, n, stream), made by make(n) once per n (its temp storage, its workspace).
using U64Runner = std::function<void(U64Sort&, size_t, cudaStream_t)>;

// The reference the uint64 rows share: their input of each n, sorted once (sort_check.hpp).
inline SortedU64Reference& shared_reference() {
  static SortedU64Reference reference;
  return reference;
}

inline Row& add_u64_row(Registry& reg, const std::string& name, const std::string& what, bool pairs,
                        std::function<U64Runner(size_t)> make) {
  Row& r = reg.add({name,
                    what +
                        (pairs ? "; uint64 keys uniform over all 64 bits, uint32 values (input index)"
                               : "; uint64 keys uniform over all 64 bits") +
                        " (int32 rows: n keys of the row's own; GB/s counts 8 bytes a key" +
                        (pairs ? ", 4 a value" : "") + "; x copy: the time of copying n int32 over this row's)",
                    Check::custom});
  r.arrays = pairs ? 3 : 2;  // 4-byte words per element: the harness counts (n + n) x 4 x arrays bytes
  // The state of the last n made, read back by the check and then let go (a 2^28 pairs row holds 6 GiB).
  auto last = std::make_shared<std::shared_ptr<U64Sort>>();
  r.make_int32 = [last, make, pairs](size_t n) {
    auto state = std::make_shared<U64Sort>(n, pairs);
    *last = state;
    U64Runner sort = make(n);
    return Runner<int32_t>([state, sort](const int32_t*, int32_t*, size_t m, cudaStream_t s) {
      sort(*state, m, s);
    });
  };
  r.verify_int32 = [last](const std::vector<int32_t>&, const std::vector<int32_t>&) -> std::string {
    if (!*last) return "no keys were made";
    const U64Sort& st = **last;
    std::vector<uint32_t> values;
    if (st.values_out) values = st.values_out->download();
    std::string why = sorted_u64_problem(st.keys_in.download(), st.keys_out.download(),
                                         st.values_out ? &values : nullptr, shared_reference());
    last->reset();
    return why;
  };
  return r;
}

template <class Count>
void add_cub_u64(Registry& reg, const std::string& count, bool pairs) {
  const std::string name = std::string(pairs ? "cub_radix_sort_pairs_u64_" : "cub_radix_sort_keys_u64_") + count;
  Row& r = add_u64_row(
      reg, name,
      std::string(pairs ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys") + ", num_items as " +
          count,
      pairs, [pairs](size_t n) -> U64Runner {
        uint64_t* no_keys = nullptr;  // the temp-storage queries: typed pointers, no data
        uint32_t* no_values = nullptr;
        size_t bytes = 0;
        if (pairs) {
          SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const uint64_t*>(no_keys),
                                                             no_keys, static_cast<const uint32_t*>(no_values),
                                                             no_values, static_cast<Count>(n)));
        } else {
          SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const uint64_t*>(no_keys),
                                                            no_keys, static_cast<Count>(n)));
        }
        auto temp = std::make_shared<DeviceBuffer<unsigned char>>(bytes > 0 ? bytes : 1);
        return [temp, bytes, pairs](U64Sort& st, size_t m, cudaStream_t s) {
          size_t b = bytes;
          if (pairs) {
            SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp->data(), b, st.keys_in.data(), st.keys_out.data(),
                                                               st.values_in->data(), st.values_out->data(),
                                                               static_cast<Count>(m), 0, 64, s));
          } else {
            SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp->data(), b, st.keys_in.data(), st.keys_out.data(),
                                                              static_cast<Count>(m), 0, 64, s));
          }
        };
      });
  r.max_n = static_cast<size_t>(std::numeric_limits<Count>::max());
  if (r.max_n < SIZE_MAX) r.limit_note = "at most " + std::to_string(r.max_n) + " items";
}

inline void register_rows(Registry& reg) {
  for (const bool pairs : {false, true}) {
    add_cub_u64<int>(reg, "int", pairs);
    add_cub_u64<size_t>(reg, "size_t", pairs);
  }
  Row& keys = add_u64_row(reg, "ch09_onesweep_keys_u64", "chapter 09: Onesweep, one pass per 8-bit digit (8 passes)",
                          false, [](size_t n) -> U64Runner {
                            auto ws = std::make_shared<ch09::OnesweepWorkspace<uint64_t>>(n);
                            return [ws](U64Sort& st, size_t m, cudaStream_t s) {
                              ch09::onesweep_sort_keys(st.keys_in.data(), st.keys_out.data(), m, *ws, s);
                            };
                          });
  keys.baselines = {"cub_radix_sort_keys_u64_int", "cub_radix_sort_keys_u64_size_t"};
  Row& pairs = add_u64_row(reg, "ch09_onesweep_pairs_u64",
                           "chapter 09: Onesweep of key-value pairs, one pass per 8-bit digit (8 passes)", true,
                           [](size_t n) -> U64Runner {
                             auto ws = std::make_shared<ch09::OnesweepWorkspace<uint64_t, uint32_t>>(n);
                             return [ws](U64Sort& st, size_t m, cudaStream_t s) {
                               ch09::onesweep_sort_pairs(st.keys_in.data(), st.keys_out.data(), st.values_in->data(),
                                                         st.values_out->data(), m, *ws, s);
                             };
                           });
  pairs.baselines = {"cub_radix_sort_pairs_u64_int", "cub_radix_sort_pairs_u64_size_t"};
}

}  // namespace scanlab::bench::sort_u64
