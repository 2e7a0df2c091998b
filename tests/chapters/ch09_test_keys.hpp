// Keys for the tests of chapter 09's given code: uniform over all bits of the key type, and the
// same keys sorted (unsigned keys, so their order is their bits' order).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scanlab/testing.hpp"

namespace ch09_test {

template <class Key>
std::vector<Key> random_keys(std::size_t n, std::uint64_t stream) {
  scanlab::Rng rng = scanlab::test_rng(stream);
  std::vector<Key> keys(n);
  for (Key& k : keys) k = static_cast<Key>((std::uint64_t{rng.next_u32()} << 32) | rng.next_u32());
  return keys;
}

template <class Key>
std::vector<Key> sorted(std::vector<Key> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace ch09_test
