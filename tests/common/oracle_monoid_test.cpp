// Tests of scanlab/oracle.hpp and scanlab/monoid.hpp: the sequential oracle against hand-worked
// examples and against a from-scratch fold per element, and the monoid laws of each operator.
#include "scanlab/oracle.hpp"

#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "scanlab/monoid.hpp"
#include "scanlab/random.hpp"
#include "scanlab/testing.hpp"
#include "scanlab/verify.hpp"

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Min;
using scanlab::Plus;

namespace {

// The definition of scan, evaluated the slow way: element i folds in[0..i] (or in[0..i-1]) from
// the identity, independently of every other element (O(n^2)).
template <class T, class Op>
std::vector<T> brute_force_scan(const std::vector<T>& in, Op op, bool inclusive) {
  std::vector<T> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    T acc = Op::identity();
    const std::size_t end = inclusive ? i + 1 : i;
    for (std::size_t j = 0; j < end; ++j) acc = op(acc, in[j]);
    out[i] = acc;
  }
  return out;
}

template <class T, class Op>
void check_oracle_against_brute_force(const std::vector<T>& in, Op op) {
  const auto incl = scanlab::inclusive_scan_oracle(in, op);
  const auto excl = scanlab::exclusive_scan_oracle(in, op);
  const auto r1 = scanlab::verify_exact(brute_force_scan(in, op, true), incl);
  const auto r2 = scanlab::verify_exact(brute_force_scan(in, op, false), excl);
  CHECK_MESSAGE(r1.ok, "inclusive: ", r1.message());
  CHECK_MESSAGE(r2.ok, "exclusive: ", r2.message());
}

}  // namespace

TEST_CASE("oracle: hand-computed sum scans") {
  const std::vector<int> in = {3, 1, 7, 0, 4, 1, 6, 3};
  CHECK(scanlab::inclusive_scan_oracle(in) == std::vector<int>{3, 4, 11, 11, 15, 16, 22, 25});
  CHECK(scanlab::exclusive_scan_oracle(in) == std::vector<int>{0, 3, 4, 11, 11, 15, 16, 22});
  CHECK(scanlab::reduce_oracle(in) == 25);
}

TEST_CASE("oracle: hand-computed max and min scans") {
  const std::vector<int> in = {3, -1, 7, 2, 9, -5};
  CHECK(scanlab::inclusive_scan_oracle(in, Max<int>{}) == std::vector<int>{3, 3, 7, 7, 9, 9});
  CHECK(scanlab::exclusive_scan_oracle(in, Max<int>{}) == std::vector<int>{INT_MIN, 3, 3, 7, 7, 9});
  CHECK(scanlab::inclusive_scan_oracle(in, Min<int>{}) == std::vector<int>{3, -1, -1, -1, -1, -5});
  CHECK(scanlab::exclusive_scan_oracle(in, Min<int>{}) == std::vector<int>{INT_MAX, 3, -1, -1, -1, -1});
  const std::vector<float> fin = {-3.5f, -7.0f, 1.0f};
  const auto fmax = scanlab::exclusive_scan_oracle(fin, Max<float>{});
  CHECK(fmax[0] == -std::numeric_limits<float>::infinity());
  CHECK(fmax[1] == -3.5f);
  CHECK(fmax[2] == -3.5f);
}

TEST_CASE("oracle: hand-computed affine composition scan") {
  // f1 = 2x+1, f2 = 3x, f3 = x+5. f1 then f2 = 3(2x+1) = 6x+3; then f3 = 6x+8.
  const std::vector<Affine<int>> in = {{2, 1}, {3, 0}, {1, 5}};
  const auto incl = scanlab::inclusive_scan_oracle(in, AffineCompose<int>{});
  const auto excl = scanlab::exclusive_scan_oracle(in, AffineCompose<int>{});
  CHECK(incl == std::vector<Affine<int>>{{2, 1}, {6, 3}, {6, 8}});
  CHECK(excl == std::vector<Affine<int>>{{1, 0}, {2, 1}, {6, 3}});
  // The composed map really is "apply f1, then f2, then f3".
  for (int x : {-3, 0, 4}) CHECK(scanlab::apply(incl[2], x) == (x * 2 + 1) * 3 + 5);
}

TEST_CASE("oracle: empty, single element, and in place") {
  std::vector<int> empty;
  CHECK(scanlab::inclusive_scan_oracle(empty).empty());
  CHECK(scanlab::exclusive_scan_oracle(empty).empty());
  CHECK(scanlab::reduce_oracle(empty) == 0);
  CHECK(scanlab::inclusive_scan_oracle(std::vector<int>{42}) == std::vector<int>{42});
  CHECK(scanlab::exclusive_scan_oracle(std::vector<int>{42}) == std::vector<int>{0});

  auto data = scanlab::random_vector<int>(1000, scanlab::test_seed(1), -50, 50);
  const auto expected_incl = scanlab::inclusive_scan_oracle(data);
  const auto expected_excl = scanlab::exclusive_scan_oracle(data);
  std::vector<int> a = data;
  scanlab::inclusive_scan_oracle(a.data(), a.data(), a.size(), Plus<int>{});
  CHECK(a == expected_incl);
  std::vector<int> b = data;
  scanlab::exclusive_scan_oracle(b.data(), b.data(), b.size(), Plus<int>{});
  CHECK(b == expected_excl);
}

TEST_CASE("oracle: matches a from-scratch fold per element on random data") {
  for (std::size_t n : {0, 1, 2, 3, 31, 33, 257, 1000}) {
    CAPTURE(n);
    const std::uint64_t s = scanlab::test_seed(100 + n);
    check_oracle_against_brute_force(scanlab::random_vector<int>(n, s, -1000, 1000), Plus<int>{});
    check_oracle_against_brute_force(scanlab::random_vector<int>(n, s + 1, INT_MIN, INT_MAX),
                                     Plus<int>{});  // overflows: both sides must wrap alike
    check_oracle_against_brute_force(scanlab::random_vector<std::uint8_t>(n, s + 2, 0, 255), Plus<std::uint8_t>{});
    check_oracle_against_brute_force(scanlab::random_vector<std::int64_t>(n, s + 3, -5, 5), Plus<std::int64_t>{});
    check_oracle_against_brute_force(scanlab::random_vector<int>(n, s + 4, -1000, 1000), Max<int>{});
    check_oracle_against_brute_force(scanlab::random_vector<int>(n, s + 5, -1000, 1000), Min<int>{});
    check_oracle_against_brute_force(scanlab::random_vector<float>(n, s + 6, -1.0f, 1.0f), Max<float>{});
    check_oracle_against_brute_force(scanlab::random_vector<Affine<std::uint32_t>>(n, s + 7, 0u, 0xFFFFFFFFu),
                                     AffineCompose<std::uint32_t>{});
    check_oracle_against_brute_force(scanlab::random_vector<Affine<int>>(n, s + 8, -9, 9), AffineCompose<int>{});
  }
}

TEST_CASE("oracle: exclusive and inclusive scans are one shift apart") {
  const auto check_relation = [](const auto& in, auto op) {
    const auto incl = scanlab::inclusive_scan_oracle(in, op);
    const auto excl = scanlab::exclusive_scan_oracle(in, op);
    REQUIRE(incl.size() == in.size());
    REQUIRE(excl.size() == in.size());
    if (in.empty()) return;
    CHECK(excl[0] == decltype(op)::identity());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (!(incl[i] == op(excl[i], in[i]))) ++bad;    // incl[i] = excl[i] op in[i]
      if (i > 0 && !(excl[i] == incl[i - 1])) ++bad;  // excl[i] = incl[i-1]
    }
    CHECK(bad == 0);
    CHECK(scanlab::reduce_oracle(in, op) == incl.back());
  };
  for (std::size_t n : {1, 2, 100, 4099}) {
    CAPTURE(n);
    check_relation(scanlab::random_vector<int>(n, scanlab::test_seed(200 + n)), Plus<int>{});
    check_relation(scanlab::random_vector<Affine<int>>(n, scanlab::test_seed(300 + n)), AffineCompose<int>{});
    check_relation(scanlab::random_vector<unsigned>(n, scanlab::test_seed(400 + n)), Max<unsigned>{});
  }
}

TEST_CASE("monoids: identity is neutral on both sides") {
  auto rng = scanlab::test_rng(500);
  for (int k = 0; k < 1000; ++k) {
    const int x = rng.uniform(INT_MIN, INT_MAX);
    REQUIRE(Plus<int>{}(Plus<int>::identity(), x) == x);
    REQUIRE(Plus<int>{}(x, Plus<int>::identity()) == x);
    REQUIRE(Max<int>{}(Max<int>::identity(), x) == x);
    REQUIRE(Max<int>{}(x, Max<int>::identity()) == x);
    REQUIRE(Min<int>{}(Min<int>::identity(), x) == x);
    REQUIRE(Min<int>{}(x, Min<int>::identity()) == x);
    const Affine<int> f{rng.uniform(-50, 50), rng.uniform(-50, 50)};
    REQUIRE(AffineCompose<int>{}(AffineCompose<int>::identity(), f) == f);
    REQUIRE(AffineCompose<int>{}(f, AffineCompose<int>::identity()) == f);
  }
  CHECK(Max<float>{}(Max<float>::identity(), -std::numeric_limits<float>::infinity()) ==
        -std::numeric_limits<float>::infinity());
  CHECK(Min<double>::identity() == std::numeric_limits<double>::infinity());
}

TEST_CASE("monoids: integer sums and products wrap instead of overflowing") {
  CHECK(Plus<int>{}(INT_MAX, 1) == INT_MIN);
  CHECK(Plus<std::int8_t>{}(std::int8_t{127}, std::int8_t{1}) == std::int8_t{-128});
  CHECK(Plus<std::uint32_t>{}(0xFFFFFFFFu, 2u) == 1u);
  // uint16 * uint16 would overflow a (signed) int after promotion: 65535 * 65535 > INT_MAX.
  const Affine<std::uint16_t> f{65535, 65535};
  const auto ff = AffineCompose<std::uint16_t>{}(f, f);
  CHECK(ff.a == static_cast<std::uint16_t>((65535ull * 65535ull) & 0xFFFF));
  CHECK(ff.b == static_cast<std::uint16_t>((65535ull * 65535ull + 65535ull) & 0xFFFF));
}

TEST_CASE("AffineCompose: associative on random triples, exact for integers") {
  auto rng = scanlab::test_rng(600);
  const AffineCompose<std::uint32_t> op32;
  const AffineCompose<int> opi;
  const AffineCompose<double> opd;
  std::size_t bad = 0;
  for (int k = 0; k < 10000; ++k) {
    Affine<std::uint32_t> f{rng.next_u32(), rng.next_u32()}, g{rng.next_u32(), rng.next_u32()},
        h{rng.next_u32(), rng.next_u32()};
    if (!(op32(op32(f, g), h) == op32(f, op32(g, h)))) ++bad;
    Affine<int> fi{rng.uniform(INT_MIN, INT_MAX), rng.uniform(INT_MIN, INT_MAX)},
        gi{rng.uniform(INT_MIN, INT_MAX), rng.uniform(INT_MIN, INT_MAX)},
        hi{rng.uniform(INT_MIN, INT_MAX), rng.uniform(INT_MIN, INT_MAX)};
    if (!(opi(opi(fi, gi), hi) == opi(fi, opi(gi, hi)))) ++bad;
    // Small integers in double: every product and sum is exact, so == holds.
    Affine<double> fd{double(rng.uniform(-20, 20)), double(rng.uniform(-20, 20))},
        gd{double(rng.uniform(-20, 20)), double(rng.uniform(-20, 20))},
        hd{double(rng.uniform(-20, 20)), double(rng.uniform(-20, 20))};
    if (!(opd(opd(fd, gd), hd) == opd(fd, opd(gd, hd)))) ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("AffineCompose: not commutative") {
  const AffineCompose<int> op;
  const Affine<int> f{2, 0}, g{1, 1};  // f then g: 2x+1; g then f: 2x+2
  CHECK(op(f, g) == Affine<int>{2, 1});
  CHECK(op(g, f) == Affine<int>{2, 2});
  CHECK(op(f, g) != op(g, f));
  // And on random pairs most orders differ, so a swapped operand is caught.
  auto rng = scanlab::test_rng(700);
  int differ = 0;
  for (int k = 0; k < 1000; ++k) {
    const Affine<int> p{rng.uniform(-9, 9), rng.uniform(-9, 9)};
    const Affine<int> q{rng.uniform(-9, 9), rng.uniform(-9, 9)};
    differ += op(p, q) != op(q, p) ? 1 : 0;
  }
  CHECK(differ > 800);
}

TEST_CASE("Affine: trivially copyable, comparable and printable") {
  static_assert(std::is_trivially_copyable_v<Affine<float>>);
  static_assert(std::is_trivially_default_constructible_v<Affine<int>>);
  static_assert(sizeof(Affine<int>) == 2 * sizeof(int));
  CHECK(Affine<int>{1, 2} == Affine<int>{1, 2});
  CHECK(Affine<int>{1, 2} != Affine<int>{2, 1});
  CHECK(scanlab::to_display_string(Affine<int>{-3, 7}) == "{a: -3, b: 7}");
  CHECK(scanlab::to_display_string(Affine<std::int8_t>{65, 66}) == "{a: 65, b: 66}");
  CHECK(scanlab::to_display_string(Affine<float>{0.1f, 2.5f}) == "{a: 0.1, b: 2.5}");
}
