// Tests of scanlab/random.hpp and scanlab/testing.hpp: reproducible inputs and the test seed.
#include "scanlab/random.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "scanlab/testing.hpp"

TEST_CASE("Rng: splitmix64 reference outputs (the same on every machine)") {
  // The published first outputs of splitmix64 seeded with 0 (Vigna's reference splitmix64.c).
  scanlab::Rng rng(0);
  CHECK(rng.next_u64() == 0xE220A8397B1DCDAFull);
  CHECK(rng.next_u64() == 0x6E789E6AA1B965F4ull);
  CHECK(rng.next_u64() == 0x06C45D188009454Full);
}

TEST_CASE("Rng: same seed, same sequence; different seed, different sequence") {
  const std::uint64_t seed = scanlab::test_seed(1);
  scanlab::Rng a(seed), b(seed), c(seed + 1);
  int equal_ab = 0, equal_ac = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = a.next_u64();
    equal_ab += x == b.next_u64() ? 1 : 0;
    equal_ac += x == c.next_u64() ? 1 : 0;
  }
  CHECK(equal_ab == 1000);
  CHECK(equal_ac == 0);

  const auto v1 = scanlab::random_vector<int>(1000, seed, -5, 5);
  const auto v2 = scanlab::random_vector<int>(1000, seed, -5, 5);
  const auto v3 = scanlab::random_vector<int>(1000, seed + 1, -5, 5);
  CHECK(v1 == v2);
  CHECK(v1 != v3);
  CHECK(scanlab::random_vector<float>(100, seed) == scanlab::random_vector<float>(100, seed));
}

TEST_CASE("Rng: integer ranges are inclusive and fully covered") {
  auto rng = scanlab::test_rng(2);
  std::set<int> seen;
  for (int i = 0; i < 2000; ++i) {
    const int x = rng.uniform(-3, 3);
    REQUIRE(x >= -3);
    REQUIRE(x <= 3);
    seen.insert(x);
  }
  CHECK(seen.size() == 7);
  bool low = false, high = false;
  for (int i = 0; i < 20000; ++i) {
    const auto x = rng.uniform<std::int8_t>(-128, 127);
    low = low || x == -128;
    high = high || x == 127;
  }
  CHECK(low);
  CHECK(high);
  CHECK(rng.uniform(5, 5) == 5);
  CHECK_THROWS_AS(rng.uniform(5, 4), std::invalid_argument);
  // The full 64-bit range does not loop forever or collapse.
  CHECK(rng.uniform<std::uint64_t>(0, ~std::uint64_t{0}) != rng.uniform<std::uint64_t>(0, ~std::uint64_t{0}));
}

TEST_CASE("Rng: below() is roughly uniform") {
  auto rng = scanlab::test_rng(3);
  std::vector<int> counts(10, 0);
  const int draws = 100000;
  for (int i = 0; i < draws; ++i) ++counts[rng.below(10)];
  for (int c : counts) {
    // Expected 10000 each, standard deviation ~95: 10% slack is over 10 sigma.
    CHECK(c > 9000);
    CHECK(c < 11000);
  }
}

TEST_CASE("Rng: float ranges are half-open and spread out") {
  auto rng = scanlab::test_rng(4);
  double sum = 0.0;
  float lo_seen = 1.0f, hi_seen = -1.0f;
  for (int i = 0; i < 100000; ++i) {
    const float x = rng.uniform(-1.0f, 1.0f);
    REQUIRE(x >= -1.0f);
    REQUIRE(x < 1.0f);
    sum += x;
    lo_seen = std::min(lo_seen, x);
    hi_seen = std::max(hi_seen, x);
  }
  CHECK(std::abs(sum / 100000) < 0.02);
  CHECK(lo_seen < -0.99f);
  CHECK(hi_seen > 0.99f);
  // A range so narrow that rounding to float would hit hi must still stay below it.
  for (int i = 0; i < 1000; ++i) REQUIRE(rng.uniform(1.0f, std::nextafter(1.0f, 2.0f)) < std::nextafter(1.0f, 2.0f));
}

TEST_CASE("random_vector: ranges, Affine elements and constants") {
  const auto v = scanlab::random_vector<unsigned>(5000, scanlab::test_seed(5), 10u, 20u);
  REQUIRE(v.size() == 5000);
  for (unsigned x : v) REQUIRE((x >= 10u && x <= 20u));
  CHECK(std::set<unsigned>(v.begin(), v.end()).size() == 11);

  const auto d = scanlab::random_vector<int>(1000, scanlab::test_seed(6));
  CHECK(std::set<int>(d.begin(), d.end()).size() > 100);  // default range is not all zeros

  const auto f = scanlab::random_vector<scanlab::Affine<int>>(1000, scanlab::test_seed(7), -2, 2);
  int a_differs_from_b = 0;
  for (const auto& e : f) {
    REQUIRE((e.a >= -2 && e.a <= 2 && e.b >= -2 && e.b <= 2));
    a_differs_from_b += e.a != e.b ? 1 : 0;
  }
  CHECK(a_differs_from_b > 500);

  const auto c = scanlab::constant_vector<int>(7, 3);
  CHECK(c == std::vector<int>(7, 3));
}

TEST_CASE("derive_seed: streams are distinct and stable") {
  std::set<std::uint64_t> seeds;
  for (std::uint64_t s = 0; s < 1000; ++s) seeds.insert(scanlab::derive_seed(12345, s));
  CHECK(seeds.size() == 1000);
  CHECK(scanlab::derive_seed(1, 2) == scanlab::derive_seed(1, 2));
  CHECK(scanlab::derive_seed(1, 2) != scanlab::derive_seed(2, 1));
  CHECK(scanlab::test_seed(9) == scanlab::derive_seed(scanlab::test_seed(), 9));
}

TEST_CASE("test_seed: SCANLAB_SEED is honoured and checked") {
  CHECK(scanlab::test_seed() == scanlab::test_seed());  // chosen once per process
  const char* old = std::getenv("SCANLAB_SEED");
  const std::string saved = old ? old : "";
  ::setenv("SCANLAB_SEED", "123456789", 1);
  CHECK(scanlab::detail::choose_test_seed() == 123456789u);
  ::setenv("SCANLAB_SEED", "18446744073709551615", 1);
  CHECK(scanlab::detail::choose_test_seed() == 18446744073709551615ull);
  for (const char* bad : {"abc", "-1", "12x", " 5", "18446744073709551616"}) {
    CAPTURE(bad);
    ::setenv("SCANLAB_SEED", bad, 1);
    CHECK_THROWS_AS(scanlab::detail::choose_test_seed(), std::invalid_argument);
  }
  ::unsetenv("SCANLAB_SEED");
  const auto clock1 = scanlab::detail::choose_test_seed();
  CHECK(clock1 < 1000000000u);
  if (old) ::setenv("SCANLAB_SEED", saved.c_str(), 1);
}

TEST_CASE("scan_test_sizes: edges around warps and tiles") {
  const auto sizes = scanlab::scan_test_sizes(1024, 100000);
  for (std::size_t s : {0, 1, 31, 32, 33, 1023, 1024, 1025, 2047, 2048, 2049, 17407, 17408, 17409}) {
    CAPTURE(s);
    CHECK(std::count(sizes.begin(), sizes.end(), s) == 1);
  }
  CHECK(std::is_sorted(sizes.begin(), sizes.end()));
  CHECK(sizes.back() <= 100000);
}
