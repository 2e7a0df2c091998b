// Chapter 09's given host side: a sort of at most one tile takes one launch
// (onesweep_single_tile_kernel), every pass in one block, instead of a histogram, the bins and one
// launch a pass. It must sort exactly as the passes do: stably, every key type, keys alone and
// pairs, in place or not, and sizes from one key to a whole tile. The workspace's descriptors show
// which way a sort went: the passes publish into them, the single launch never touches them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "onesweep_dispatch.cuh"
#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "ch09_test_keys.hpp"

namespace {

using ch09_test::random_keys;

// The keys' bits, for comparing floats exactly (random bits include NaNs).
template <class Key>
std::vector<typename ch09::RadixKey<Key>::Bits> bits_of(const std::vector<Key>& keys) {
  std::vector<typename ch09::RadixKey<Key>::Bits> bits(keys.size());
  std::memcpy(bits.data(), keys.data(), keys.size() * sizeof(Key));
  return bits;
}

// Where each key goes in a stable sort by the keys' sorting order: the input positions, sorted.
template <class Key>
std::vector<std::uint32_t> stable_order(const std::vector<Key>& keys) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return ch09::RadixKey<Key>::ordered_bits(keys[a]) < ch09::RadixKey<Key>::ordered_bits(keys[b]);
  });
  return order;
}

// Keys of the tests: uniform over all bits, or from three values (many equal keys: stability, and
// warps whose lanes all meet at one digit).
template <class Key>
std::vector<Key> test_keys(std::size_t n, std::uint64_t stream, bool few) {
  std::vector<Key> keys = random_keys<Key>(n, stream);
  if (few) {
    for (std::size_t i = 0; i < n; ++i) keys[i] = keys[(i * 2654435761u >> 5) % std::min<std::size_t>(n, 3)];
  }
  return keys;
}

// Sorts keys (and, with pairs, their positions as values) with ws, into poisoned outputs or in
// place, and checks the result against a stable sort on the host. Returns whether the sort went
// through the descriptors (the passes) rather than the single launch.
template <class Key>
bool sort_and_check(ch09::OnesweepWorkspace<Key>& ws, const std::vector<Key>& keys, bool pairs, bool in_place) {
  const std::size_t n = keys.size();
  CAPTURE(n);
  CAPTURE(pairs);
  CAPTURE(in_place);
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  scanlab::DeviceBuffer<Key> d_keys(keys), d_keys_out(n);
  scanlab::DeviceBuffer<std::uint32_t> d_values(values), d_values_out(n);
  d_keys_out.fill_poison();
  d_values_out.fill_poison();
  Key* keys_out = in_place ? d_keys.data() : d_keys_out.data();
  std::uint32_t* values_out = in_place ? d_values.data() : d_values_out.data();
  const std::size_t untouched = ws.sides.dirty_words(0);  // side 0 takes a sort's first launch
  if (pairs) ch09::onesweep_sort_pairs(d_keys.data(), keys_out, d_values.data(), values_out, n, ws);
  else ch09::onesweep_sort_keys(d_keys.data(), keys_out, n, ws);
  SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());

  const std::vector<std::uint32_t> order = stable_order(keys);
  std::vector<Key> want_keys(n);
  for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[order[i]];
  CHECK(bits_of((in_place ? d_keys : d_keys_out).download()) == bits_of(want_keys));
  if (pairs) CHECK((in_place ? d_values : d_values_out).download() == order);
  return ws.sides.dirty_words(0) != untouched || ws.sides.side() != 1;
}

template <class Key>
void check_one_tile(bool pairs) {
  using Workspace = ch09::OnesweepWorkspace<Key>;
  const std::size_t tile = static_cast<std::size_t>(pairs ? ch09::OnesweepPairsShape<Key>::TILE_ITEMS
                                                          : ch09::OnesweepKeysShape<Key>::TILE_ITEMS);
  std::uint64_t stream = 1200 + sizeof(Key) + (pairs ? 100 : 0);
  for (const std::size_t n : {std::size_t{1}, std::size_t{33}, tile - 1, tile}) {
    for (const bool few : {false, true}) {
      CAPTURE(few);
      const std::vector<Key> keys = test_keys<Key>(n, ++stream, few);
      Workspace one_launch(n);
      CHECK_FALSE(sort_and_check(one_launch, keys, pairs, n == tile));  // in place at a whole tile
      // The same keys through the passes: the single launch must agree with them.
      Workspace passes(n);
      passes.single_tile_keys = 0;
      CHECK(sort_and_check(passes, keys, pairs, false));
    }
  }
  // One key more than a tile: the passes.
  Workspace ws(tile + 1);
  CHECK(sort_and_check(ws, test_keys<Key>(tile + 1, ++stream, false), pairs, false));
}

}  // namespace

TEST_CASE_TEMPLATE("ch09 onesweep: a sort of one tile takes one launch and sorts as the passes do", Key, std::uint32_t,
                   std::int32_t, float, std::uint64_t) {
  SUBCASE("keys") { check_one_tile<Key>(false); }
  SUBCASE("pairs") { check_one_tile<Key>(true); }
}
