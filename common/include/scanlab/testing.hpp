// scanlab/testing.hpp: the seed behind every random test input.
//
// Each test process picks one seed (from the clock, or from SCANLAB_SEED to replay a failure), the
// doctest main prints it first ("scanlab seed: N (replay with SCANLAB_SEED=N)"), and tests derive
// their inputs from it with test_seed(stream) / test_rng(stream), so one number replays the run.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "scanlab/random.hpp"

namespace scanlab {

namespace detail {
// SCANLAB_SEED, or a fresh seed from the clock when it is unset or empty. A malformed value throws
// rather than silently testing with some other seed.
inline std::uint64_t choose_test_seed() {
  const char* env = std::getenv("SCANLAB_SEED");
  if (env != nullptr && *env != '\0') {
    const std::string text(env);
    std::size_t used = 0;
    unsigned long long value = 0;
    bool ok = text.find_first_not_of("0123456789") == std::string::npos;
    if (ok) {
      try {
        value = std::stoull(text, &used, 10);
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok || used != text.size()) {
      throw std::invalid_argument("SCANLAB_SEED='" + text + "' is not a non-negative decimal integer");
    }
    return static_cast<std::uint64_t>(value);
  }
  const auto ticks = static_cast<std::uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
  // Mixed, so runs a microsecond apart differ in every digit; 9 digits are easy to copy.
  return splitmix64_mix(ticks) % 1000000000ull;
}
}  // namespace detail

// The process's test seed (chosen once; thread-safe).
inline std::uint64_t test_seed() {
  static const std::uint64_t seed = detail::choose_test_seed();
  return seed;
}

// An independent seed per input stream (e.g. per test case, or per size within one), derived from
// test_seed(), so adding a test does not change the inputs the other tests see.
inline std::uint64_t test_seed(std::uint64_t stream) { return derive_seed(test_seed(), stream); }

inline Rng test_rng(std::uint64_t stream) { return Rng(test_seed(stream)); }

// n random scan inputs from input stream `stream` (never all zeros), in the ranges the grading
// tests use: integers in [-1000, 1000] (unsigned ones in [0, 1000]), so that sums of millions of
// them stay far from overflow; floats in [-1, 1), so that float sums cancel; affine maps as
// random_scan_input makes them (odd multipliers, so an operand swap shows in every later prefix).
template <class T>
std::vector<T> random_test_input(std::size_t n, std::uint64_t stream) {
  using S = random_scalar_t<T>;
  const std::uint64_t seed = test_seed(stream);
  if constexpr (detail::is_affine_v<T>) {
    return random_scan_input<T>(n, seed);
  } else if constexpr (std::is_floating_point_v<S>) {
    return random_vector<T>(n, seed, S(-1), S(1));
  } else if constexpr (std::is_signed_v<S>) {
    return random_vector<T>(n, seed, S(-1000), S(1000));
  } else {
    return random_vector<T>(n, seed, S(0), S(1000));
  }
}

// Lengths that catch the classic off-by-ones of a tiled scan with `tile` elements per tile and
// warps of 32: 0, 1, around the warp, around one and two tiles, and a few awkward primes, up to
// max_n. Sorted, without duplicates.
inline std::vector<std::size_t> scan_test_sizes(std::size_t tile, std::size_t max_n) {
  std::vector<std::size_t> sizes = {0, 1, 2, 3, 31, 32, 33, 127, 1000, 4099, 65537, 1000003};
  for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{17}}) {
    const std::size_t t = k * tile;
    sizes.push_back(t - 1);
    sizes.push_back(t);
    sizes.push_back(t + 1);
  }
  std::vector<std::size_t> out;
  for (std::size_t s : sizes) {
    if (s <= max_n) out.push_back(s);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace scanlab
