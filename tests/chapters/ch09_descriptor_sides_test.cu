// Chapter 09's given host side: no memset between the passes. The workspace keeps two sides of
// descriptors, which the launches of a sort use in turn, and every tile of a launch clears its own
// tile's words (and tile 0 the ticket) on the side of the launch before it, so that the launch after
// it finds that side zero. A launch that left a word there would hand the next one a stale status:
// on a GPU, a tile whose predecessor has not published yet would read the old count as its own.
// The emulator runs tiles in ticket order, so every tile publishes before a later one looks back and
// a stale word is never read there; these tests look at the words themselves instead.
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
using ch09_test::sorted;

// The words [0, words) of one side of the workspace's descriptors.
template <class Workspace>
std::vector<unsigned> side_words(const Workspace& ws, int side, std::size_t words) {
  std::vector<unsigned> w(words);
  SCANLAB_CUDA_CHECK(cudaMemcpy(w.data(), ws.side_at(side), words * sizeof(unsigned), cudaMemcpyDeviceToHost));
  return w;
}

}  // namespace

TEST_CASE_TEMPLATE("ch09 onesweep: each launch clears the descriptors of the launch before it", Key, std::uint32_t,
                   std::uint64_t) {
  using Workspace = ch09::OnesweepWorkspace<Key>;
  using Shape = ch09::OnesweepKeysShape<Key>;
  const std::size_t n = 5 * static_cast<std::size_t>(Shape::TILE_ITEMS) + 123;  // 6 tiles a launch
  const std::size_t words = Workspace::launch_words(6);
  const std::vector<Key> keys = random_keys<Key>(n, 900 + sizeof(Key));
  scanlab::DeviceBuffer<Key> d_keys(keys), d_out(n);
  Workspace ws(n);
  for (int sort = 0; sort < 2; ++sort) {
    CAPTURE(sort);
    d_out.fill_poison();
    ch09::onesweep_sort_keys(d_keys.data(), d_out.data(), n, ws);
    SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(d_out.download() == sorted(keys));
    // The last launch published on its side (its ticket handed out 6 tiles) and cleared the other,
    // which the next launch takes without a memset.
    const int last = ws.sides.side();
    const std::vector<unsigned> published = side_words(ws, last, words);
    CHECK(published[0] == 6u);
    CHECK(std::count(published.begin() + 1, published.end(), 0u) < static_cast<std::ptrdiff_t>(words - 1));
    CHECK(ws.sides.dirty_words(1 - last) == 0);
    const std::vector<unsigned> other = side_words(ws, 1 - last, words);
    CHECK(std::count(other.begin(), other.end(), 0u) == static_cast<std::ptrdiff_t>(words));
  }
}

TEST_CASE("ch09 onesweep: a launch too small to clear the one before it leaves the host a memset") {
  using Key = std::uint32_t;
  using Workspace = ch09::OnesweepWorkspace<Key>;
  using Shape = ch09::OnesweepKeysShape<Key>;
  // Portions of 3 tiles, and a last portion of 1: each pass launches 3 tiles, then 1. The 1-tile
  // launch cannot clear the 3-tile side before it; the pass after it memsets that side instead.
  const std::size_t portion = 3 * static_cast<std::size_t>(Shape::TILE_ITEMS);
  const std::size_t n = portion + 77;
  const std::vector<Key> keys = random_keys<Key>(n, 950);
  scanlab::DeviceBuffer<Key> d_keys(keys), d_out(n);
  Workspace ws(n, portion);
  REQUIRE(ws.portions == 2);
  for (int sort = 0; sort < 3; ++sort) {
    CAPTURE(sort);
    d_out.fill_poison();
    ch09::onesweep_sort_keys(d_keys.data(), d_out.data(), n, ws);
    SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(d_out.download() == sorted(keys));
    // The last launch (1 tile) cleared nothing of the 3-tile side before it, which the next launch
    // takes: the host memsets it first.
    CHECK(ws.sides.dirty_words(1 - ws.sides.side()) == Workspace::launch_words(3));
  }
}
