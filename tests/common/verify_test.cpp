// Tests of scanlab/verify.hpp: exact and float-tolerant comparison, the failure messages, and the
// poison values that expose unwritten outputs.
#include "scanlab/verify.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "scanlab/format.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/oracle.hpp"
#include "scanlab/random.hpp"
#include "scanlab/testing.hpp"

using scanlab::ScanKind;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A float scan in the order a GPU tree scan adds (Blelloch's up-sweep/down-sweep, all in float):
// each partial sum is a sum of two partial sums, not a running total, so its rounding differs from
// the sequential loop's. n must be a power of two. Returns the exclusive scan.
std::vector<float> pairwise_exclusive_scan(const std::vector<float>& in) {
  std::vector<float> a = in;
  const std::size_t n = a.size();
  for (std::size_t d = 1; d < n; d *= 2) {
    for (std::size_t i = 2 * d - 1; i < n; i += 2 * d) a[i] = a[i - d] + a[i];
  }
  a[n - 1] = 0.0f;
  for (std::size_t d = n / 2; d >= 1; d /= 2) {
    for (std::size_t i = 2 * d - 1; i < n; i += 2 * d) {
      const float left = a[i - d];
      a[i - d] = a[i];
      a[i] = left + a[i];
    }
  }
  return a;
}

std::vector<float> inclusive_from_exclusive(const std::vector<float>& in, const std::vector<float>& excl) {
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = excl[i] + in[i];
  return out;
}

}  // namespace

TEST_CASE("verify_exact: equal arrays pass") {
  const auto data = scanlab::random_vector<int>(5000, scanlab::test_seed(1));
  const auto r = scanlab::verify_exact(data.data(), data.data(), data.size());
  CHECK(r.ok);
  CHECK(static_cast<bool>(r));
  CHECK(r.n == 5000);
  CHECK(r.mismatches == 0);
  CHECK(scanlab::verify_exact(std::vector<int>{}, std::vector<int>{}).ok);
}

TEST_CASE("verify_exact: a planted mismatch is found and reported") {
  const std::size_t n = 10007;
  const auto expected =
      scanlab::inclusive_scan_oracle(scanlab::random_vector<int>(n, scanlab::test_seed(2), -1000, 1000));
  auto rng = scanlab::test_rng(3);
  const std::size_t k = rng.below(n);
  auto got = expected;
  got[k] += 1 + static_cast<int>(rng.below(50));
  CAPTURE(k);

  const auto r = scanlab::verify_exact(expected, got);
  CHECK_FALSE(r.ok);
  CHECK(r.n == n);
  CHECK(r.mismatches == 1);
  CHECK(r.first_index == k);
  CHECK(r.expected == std::to_string(expected[k]));
  CHECK(r.got == std::to_string(got[k]));
  const std::string msg = r.message();
  CHECK(contains(msg, "first mismatch at index " + std::to_string(k)));
  CHECK(contains(msg, "expected " + std::to_string(expected[k])));
  CHECK(contains(msg, "got " + std::to_string(got[k])));
  CHECK(contains(msg, "(1 of " + std::to_string(n) + " wrong)"));

  // A second, later error: the count grows, the first index stays.
  if (k + 1 < n) {
    const std::size_t k2 = k + 1 + rng.below(n - k - 1);
    got[k2] ^= 0x40;
    const auto r2 = scanlab::verify_exact(expected, got);
    CHECK(r2.mismatches == 2);
    CHECK(r2.first_index == k);
  }
}

TEST_CASE("verify_exact: structs and size mismatches") {
  using A = scanlab::Affine<int>;
  const std::vector<A> expected = {{1, 0}, {2, 3}, {4, 5}};
  std::vector<A> got = {{1, 0}, {2, 3}, {5, 4}};
  auto r = scanlab::verify_exact(expected, got);
  CHECK(r.first_index == 2);
  CHECK(r.expected == "{a: 4, b: 5}");
  CHECK(r.got == "{a: 5, b: 4}");

  got = {{1, 0}, {2, 3}};
  r = scanlab::verify_exact(expected, got);
  CHECK_FALSE(r.ok);
  CHECK(r.first_index == 2);
  CHECK(r.mismatches == 1);
  CHECK(contains(r.message(), "size mismatch"));
  CHECK(contains(r.message(), "got <end>"));
}

TEST_CASE("format: values print readably") {
  CHECK(scanlab::to_display_string(std::int8_t{-5}) == "-5");
  CHECK(scanlab::to_display_string(std::uint8_t{200}) == "200");
  CHECK(scanlab::to_display_string(std::uint64_t{18446744073709551615ull}) == "18446744073709551615");
  CHECK(scanlab::to_display_string(0.1f) == "0.1");
  CHECK(scanlab::to_display_string(1.0e20) == "1e+20");
  // Neighbouring floats print differently (enough digits to round-trip).
  const float x = 1.0f / 3.0f;
  const float y = std::nextafter(x, 1.0f);
  CHECK(scanlab::to_display_string(x) != scanlab::to_display_string(y));
  CHECK(std::stof(scanlab::to_display_string(y)) == y);
  CHECK(scanlab::to_display_string(std::numeric_limits<double>::quiet_NaN()) == "nan");
}

TEST_CASE("float_scan_tolerance grows like sqrt(n)") {
  const double eps = std::numeric_limits<float>::epsilon();
  CHECK(scanlab::float_scan_tolerance<float>(0) == doctest::Approx(4 * eps));
  CHECK(scanlab::float_scan_tolerance<float>(99) == doctest::Approx(40 * eps));
  CHECK(scanlab::float_scan_tolerance<double>(3) == doctest::Approx(8 * std::numeric_limits<double>::epsilon()));
}

TEST_CASE("verify_float_scan: a tree-ordered float scan of 2^20 elements passes") {
  const std::size_t n = std::size_t{1} << 20;
  for (auto [lo, hi] : {std::pair{-1.0f, 1.0f}, std::pair{0.0f, 1.0f}}) {
    CAPTURE(lo);
    const auto in = scanlab::random_vector<float>(n, scanlab::test_seed(10), lo, hi);
    const auto excl = pairwise_exclusive_scan(in);
    const auto incl = inclusive_from_exclusive(in, excl);
    const auto re = scanlab::verify_float_scan(in, excl, ScanKind::exclusive);
    const auto ri = scanlab::verify_float_scan(in, incl, ScanKind::inclusive);
    CHECK_MESSAGE(re.ok, re.message());
    CHECK_MESSAGE(ri.ok, ri.message());
    // The sequential float loop (a different rounding order again) passes too.
    const auto seq = scanlab::inclusive_scan_oracle(in);
    const auto rs = scanlab::verify_float_scan(in, seq, ScanKind::inclusive);
    CHECK_MESSAGE(rs.ok, rs.message());
    // ... while comparing the two orders bit for bit would not.
    CHECK_FALSE(scanlab::verify_exact(incl, seq).ok);
  }
}

TEST_CASE("verify_float_scan: one dropped element is caught") {
  for (std::size_t n : {2, 10, 100, 1000}) {
    CAPTURE(n);
    // Elements of magnitude >= 0.5, so dropping any one is far outside the tolerance.
    auto in = scanlab::random_vector<float>(n, scanlab::test_seed(20 + n), 0.5f, 2.0f);
    auto rng = scanlab::test_rng(30 + n);
    const std::size_t k = rng.below(n);
    std::vector<float> incl(n), excl(n);
    double run = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      excl[i] = static_cast<float>(run);
      if (i != k) run += in[i];  // the element a buggy scan forgot
      incl[i] = static_cast<float>(run);
    }
    const auto ri = scanlab::verify_float_scan(in, incl, ScanKind::inclusive);
    CHECK_FALSE(ri.ok);
    CHECK(ri.first_index == k);
    CHECK(ri.mismatches == n - k);
    const auto re = scanlab::verify_float_scan(in, excl, ScanKind::exclusive);
    if (k + 1 < n) {
      CHECK_FALSE(re.ok);
      CHECK(re.first_index == k + 1);
      CHECK(re.mismatches == n - k - 1);
    } else {
      CHECK(re.ok);  // the last element never enters an exclusive scan
    }
  }
}

TEST_CASE("verify_float_scan: exclusive and inclusive are not interchangeable") {
  const auto in = scanlab::random_vector<float>(1000, scanlab::test_seed(40), 0.25f, 1.0f);
  const auto incl = scanlab::inclusive_scan_oracle(in);
  const auto excl = scanlab::exclusive_scan_oracle(in);
  CHECK(scanlab::verify_float_scan(in, incl, ScanKind::inclusive).ok);
  CHECK(scanlab::verify_float_scan(in, excl, ScanKind::exclusive).ok);
  const auto wrong = scanlab::verify_float_scan(in, incl, ScanKind::exclusive);
  CHECK_FALSE(wrong.ok);
  CHECK(wrong.first_index == 0);  // exclusive element 0 must be exactly 0
  CHECK(wrong.mismatches == 1000);
  CHECK(contains(wrong.message(), "exclusive"));
  CHECK_FALSE(scanlab::verify_float_scan(in, excl, ScanKind::inclusive).ok);
}

TEST_CASE("verify_float_scan: NaN and infinity never pass") {
  const auto in = scanlab::random_vector<double>(64, scanlab::test_seed(50), -1.0, 1.0);
  auto got = scanlab::inclusive_scan_oracle(in);
  REQUIRE(scanlab::verify_float_scan(in, got, ScanKind::inclusive).ok);
  got[17] = std::numeric_limits<double>::quiet_NaN();
  auto r = scanlab::verify_float_scan(in, got, ScanKind::inclusive);
  CHECK_FALSE(r.ok);
  CHECK(r.first_index == 17);
  CHECK(r.mismatches == 1);
  CHECK(contains(r.message(), "got nan"));
  got[17] = std::numeric_limits<double>::infinity();
  CHECK_FALSE(scanlab::verify_float_scan(in, got, ScanKind::inclusive).ok);
  // Even where the tolerance is enormous.
  std::vector<float> big(10, 1.0e30f);
  auto big_scan = scanlab::inclusive_scan_oracle(big);
  big_scan[9] = std::nanf("");
  CHECK_FALSE(scanlab::verify_float_scan(big, big_scan, ScanKind::inclusive).ok);
}

TEST_CASE("poison: values, detection, and unwritten outputs") {
  CHECK(static_cast<std::uint32_t>(scanlab::poison<int>()) == 0xCDCDCDCDu);
  CHECK(scanlab::poison<std::uint8_t>() == 0xCD);
  CHECK(scanlab::poison<std::uint64_t>() == 0xCDCDCDCDCDCDCDCDull);
  CHECK(std::isnan(scanlab::poison<float>()));
  CHECK(std::isnan(scanlab::poison<double>()));
  const auto pa = scanlab::poison<scanlab::Affine<float>>();
  CHECK((std::isnan(pa.a) && std::isnan(pa.b)));
  CHECK(scanlab::is_poison(scanlab::poison<scanlab::Affine<int>>()));

  // The float poison is a NaN that arithmetic does not produce.
  volatile float zero = 0.0f;
  const float computed_nan = zero / zero;
  CHECK(std::isnan(computed_nan));
  CHECK_FALSE(scanlab::is_poison(computed_nan));
  CHECK_FALSE(scanlab::is_poison(0));
  CHECK_FALSE(scanlab::is_poison(-1));

  // A "kernel" that forgets the last element: the poisoned output exposes it, where a zeroed
  // output would have passed wherever the right answer is 0.
  const std::size_t n = 300;
  const auto in = scanlab::random_vector<int>(n, scanlab::test_seed(60), -3, 3);
  const auto expected = scanlab::inclusive_scan_oracle(in);
  std::vector<int> out(n);
  scanlab::fill_poison(out);
  CHECK(scanlab::count_poison(out.data(), n) == n);
  scanlab::inclusive_scan_oracle(in.data(), out.data(), n - 1, scanlab::Plus<int>{});
  CHECK(scanlab::count_poison(out.data(), n) == 1);
  const auto r = scanlab::verify_exact(expected, out);
  CHECK_FALSE(r.ok);
  CHECK(r.first_index == n - 1);
  CHECK(contains(r.got, "poison"));

  std::vector<float> fin = scanlab::random_vector<float>(n, scanlab::test_seed(61));
  std::vector<float> fout(n);
  scanlab::fill_poison(fout);
  scanlab::inclusive_scan_oracle(fin.data(), fout.data(), n - 1, scanlab::Plus<float>{});
  const auto fr = scanlab::verify_float_scan(fin, fout, ScanKind::inclusive);
  CHECK_FALSE(fr.ok);
  CHECK(fr.first_index == n - 1);
  CHECK(contains(fr.message(), "poison"));
}
