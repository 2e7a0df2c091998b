// Chapter 09's given host side on a GPU whose blocks may take less shared memory than a tile needs.
// A tile of uint64 pairs takes 85 KiB of shared memory, and a T4 lets a block take 64 KiB: there
// the pairs sort in the keys' tiles, which are smaller. Where even a tile of keys does not fit, the
// sort throws an error that names both sizes, before it launches anything. The workspace's
// shared_per_block stands in for such a GPU on any device. The grading tests sort in the tiles
// that fit the device they run on, so this is the only test of the other path.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "onesweep_dispatch.cuh"
#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/testing.hpp"

namespace {

// Random keys over all bits, and the positions 0..n-1 as values: the sorted values then say
// whether equal keys kept their order.
template <class Key>
std::vector<Key> random_keys(std::size_t n, std::uint64_t stream) {
  scanlab::Rng rng = scanlab::test_rng(stream);
  std::vector<Key> keys(n);
  for (Key& k : keys) {
    const std::uint64_t bits = (std::uint64_t{rng.next_u32()} << 32) | rng.next_u32();
    k = static_cast<Key>(bits % 4 == 0 ? bits & 0xff : bits);  // a quarter small: many equal keys
  }
  return keys;
}

// Tiles the ticket handed out in the last launch: the word before its descriptors counts them.
template <class Workspace>
unsigned tiles_of_last_launch(const Workspace& ws) {
  unsigned ticket = 0;
  SCANLAB_CUDA_CHECK(cudaMemcpy(&ticket, ws.latest_ticket(), sizeof ticket, cudaMemcpyDeviceToHost));
  return ticket;
}

}  // namespace

TEST_CASE_TEMPLATE("ch09 onesweep: pairs whose tiles do not fit sort in the keys' tiles", Key, std::uint32_t,
                   std::uint64_t) {
  using Workspace = ch09::OnesweepWorkspace<Key>;
  using KeysShape = ch09::OnesweepKeysShape<Key>;
  using PairsShape = ch09::OnesweepPairsShape<Key>;
  static_assert(Workspace::kKeysTileBytes < Workspace::kPairsTileBytes, "the keys' tiles are the smaller");
  static_assert(KeysShape::TILE_ITEMS != PairsShape::TILE_ITEMS, "the tiles count apart");

  const std::size_t n = 3 * static_cast<std::size_t>(PairsShape::TILE_ITEMS) + 777;
  const std::vector<Key> keys = random_keys<Key>(n, sizeof(Key));
  std::vector<std::uint32_t> values(n);
  std::iota(values.begin(), values.end(), 0u);
  std::vector<std::uint32_t> want_values = values;
  std::stable_sort(want_values.begin(), want_values.end(), [&](std::uint32_t a, std::uint32_t b) {
    return ch09::RadixKey<Key>::ordered_bits(keys[a]) < ch09::RadixKey<Key>::ordered_bits(keys[b]);
  });
  std::vector<Key> want_keys(n);
  for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[want_values[i]];

  Workspace ws(n);
  CHECK(ws.pairs_tiles_fit());  // on the devices the tests run on (the emulator models an H100)
  scanlab::DeviceBuffer<Key> d_keys(keys), d_keys_out(n);
  scanlab::DeviceBuffer<std::uint32_t> d_values(values), d_values_out(n);

  const auto sort_pairs = [&] {
    d_keys_out.fill_poison();
    d_values_out.fill_poison();
    ch09::onesweep_sort_pairs(d_keys.data(), d_keys_out.data(), d_values.data(), d_values_out.data(), n, ws);
    SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
  };
  const auto tiles = [&](std::size_t tile_items) {
    return static_cast<unsigned>((n + tile_items - 1) / tile_items);
  };

  SUBCASE("in the pairs' tiles where they fit") {
    sort_pairs();
    CHECK(tiles_of_last_launch(ws) == tiles(PairsShape::TILE_ITEMS));
  }
  SUBCASE("in the keys' tiles where only those fit") {
    ws.shared_per_block = Workspace::kPairsTileBytes - 1;
    CHECK_FALSE(ws.pairs_tiles_fit());
    sort_pairs();
    CHECK(tiles_of_last_launch(ws) == tiles(KeysShape::TILE_ITEMS));
  }
  CHECK(d_keys_out.download() == want_keys);
  CHECK(d_values_out.download() == want_values);
}

TEST_CASE_TEMPLATE("ch09 onesweep: a tile that fits nowhere is an error before any launch", Key, std::uint32_t,
                   std::uint64_t) {
  using Workspace = ch09::OnesweepWorkspace<Key>;
  const std::size_t n = 1000;
  std::vector<Key> keys = random_keys<Key>(n, 100 + sizeof(Key));
  scanlab::DeviceBuffer<Key> d_keys(keys), d_keys_out(n);
  scanlab::DeviceBuffer<std::uint32_t> d_values(n), d_values_out(n);
  d_keys_out.fill_poison();
  const std::vector<Key> poisoned = d_keys_out.download();
  Workspace ws(n);
  ws.shared_per_block = Workspace::kKeysTileBytes - 1;
  const std::string needs = "a tile takes " + std::to_string(Workspace::kKeysTileBytes) + " bytes";
  for (const bool pairs : {false, true}) {
    CAPTURE(pairs);
    std::string message;
    try {
      if (pairs) {
        ch09::onesweep_sort_pairs(d_keys.data(), d_keys_out.data(), d_values.data(), d_values_out.data(), n, ws);
      } else {
        ch09::onesweep_sort_keys(d_keys.data(), d_keys_out.data(), n, ws);
      }
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    CHECK(message.find(needs) != std::string::npos);
    CHECK(message.find(std::to_string(ws.shared_per_block)) != std::string::npos);
  }
  SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(d_keys_out.download() == poisoned);  // nothing ran
}
