// scanlab/grading/checks.hpp: what every grading checker (tests/grade/NN_slug.cu) compares and
// how: random and constant inputs (never zeros only), the oracle, exact comparison for integers and
// affine maps, a float64 reference with a length-dependent tolerance for float sums, element 0 on
// its own, and tile-by-tile checks. Doctest's CHECK and INFO report, so this header is for doctest
// programs only. Host code: nothing here runs a kernel (the runner does; scanlab/grading/checker.hpp).
#pragma once

#include <scanlab/grading/doctest_text.hpp>  // doctest, with C strings printed as text

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "scanlab/monoid.hpp"
#include "scanlab/oracle.hpp"
#include "scanlab/random.hpp"
#include "scanlab/testing.hpp"
#include "scanlab/verify.hpp"

namespace scanlab::grading {

// The vocabulary of every grading test, so that `using namespace scanlab::grading;` is all a test
// file needs to name its operators and scan kinds.
using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

// ---- inputs ------------------------------------------------------------------------------------

// The three input kinds most tests scan (see random_test_input for the ranges). Plain functions, so
// that a test can pass one as the generator of its inputs.
inline std::vector<std::int32_t> random_ints(std::size_t n, std::uint64_t stream) {
  return random_test_input<std::int32_t>(n, stream);
}

inline std::vector<float> random_floats(std::size_t n, std::uint64_t stream) {
  return random_test_input<float>(n, stream);
}

inline std::vector<Affine<std::uint32_t>> random_affines(std::size_t n, std::uint64_t stream) {
  return random_test_input<Affine<std::uint32_t>>(n, stream);
}

// Constant inputs, never zeros only. x -> 3x + 1: composing it n times is not trivial.
inline const Affine<std::uint32_t> kConstantAffine{3u, 1u};
// A power of two, so every prefix of a constant float input is exact in any order of additions.
// (A constant like 0.1f makes the sequential loop round the same way at every step; its error then
// grows like n, past the length-dependent tolerance, which assumes rounding errors of mixed sign.)
inline constexpr float kConstantFloat = 0.25f;

// Lengths for a scan of independent tiles of `tile` elements: a single partial tile, exact
// multiples, and a ragged last tile.
inline std::vector<std::size_t> tile_test_sizes(int tile) {
  const std::size_t t = static_cast<std::size_t>(tile);
  std::vector<std::size_t> sizes = {1, t, 3 * t, 3 * t + t / 2 + 1};
  if (t > 2) sizes.push_back(t - 1);
  return sizes;
}

// Lengths for a single-pass scan over tiles of `tile` elements: within one tile, around the tile,
// and across a 32-tile window (a warp's look-back), up to an odd large size.
inline std::vector<std::size_t> single_pass_test_sizes(std::size_t tile) {
  return {1, tile - 1, tile, tile + 1, 2 * tile + 7, 33 * tile + 1, 70 * tile + 5, 100003};
}

// What the last call to the code under test left to say beside its output (for example a race
// the emulator found); appended to the message of a check that fails.
inline std::string& last_call_notes() {
  static std::string notes;
  return notes;
}

// The tile length the last call's code worked in (the runner says so for the single-pass scans),
// 0 when it did not say: a failure then names the tile of its first wrong element.
inline std::size_t& last_call_tile_items() {
  static std::size_t tile_items = 0;
  return tile_items;
}

// ---- checking ----------------------------------------------------------------------------------

// Where a wrong value may come from, when its bytes say so: "" otherwise.
template <class T>
std::string value_origin_hint(const T& got) {
  if (is_poison(got)) {
    return "hint: this element still holds the poison the output was filled with before the call: "
           "nothing wrote it";
  }
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, &got, sizeof(T));
  if (std::all_of(bytes, bytes + sizeof(T), [](unsigned char b) { return b == 0xA5; })) {
    return "hint: every byte of this value is 0xA5, what the emulator fills fresh device memory with: it "
           "was computed from memory nothing had written yet (a value read before it was published?)";
  }
  return "";
}

// "element i is in tile t ..." for the first wrong element, when the tile length is known.
inline std::string tile_note(std::size_t first_wrong) {
  const std::size_t tile = last_call_tile_items();
  if (tile == 0) return "";
  const std::size_t t = first_wrong / tile;
  return "element " + std::to_string(first_wrong) + " is in tile " + std::to_string(t) + " (tiles of " +
         std::to_string(tile) + " elements)" +
         (t > 0 ? "; every element of tiles 0.." + std::to_string(t - 1) + " is right" : "");
}

// Checks got[0, n), one scan of in[0, n), against the oracle (exactly for integers and affine maps,
// against a float64 reference within the length-dependent tolerance for float sums), and element 0
// on its own: the first input (inclusive) or the identity (exclusive), the two places where a scan
// most often goes wrong first. Returns whether both held, so that callers can stop at the first
// failure (the smallest failing case is the one worth reading).
// The operator with its operands swapped: op(y, x). Only for diagnosis.
template <class Op>
struct SwappedOperands {
  using value_type = typename Op::value_type;
  static value_type identity() { return Op::identity(); }
  value_type operator()(value_type x, value_type y) const { return Op{}(y, x); }
};

// A likely cause of a wrong scan, when the output matches a common mistake exactly: operands in
// the wrong order, the other kind of scan, or an exclusive scan shifted by one. "" otherwise.
template <class T, class Op>
std::string likely_cause(const T* in, const T* got, std::size_t n, ScanKind kind) {
  if constexpr (std::is_floating_point_v<T>) {
    return "";
  } else {
    std::vector<T> guess(n);
    const auto matches = [&] { return n > 0 && std::equal(guess.begin(), guess.end(), got); };
    const auto scan = [&](ScanKind k, auto op) {
      if (k == ScanKind::inclusive) inclusive_scan_oracle(in, guess.data(), n, op);
      else exclusive_scan_oracle(in, guess.data(), n, op);
    };
    if (!std::is_same_v<Op, Plus<T>> && !std::is_same_v<Op, Max<T>>) {
      scan(kind, SwappedOperands<Op>{});
      if (matches()) return "hint: this is the scan with every op(a, b) swapped to op(b, a); the operator is not "
                            "commutative, so the element from the left must be the LEFT operand";
    }
    const ScanKind other = kind == ScanKind::inclusive ? ScanKind::exclusive : ScanKind::inclusive;
    scan(other, Op{});
    if (matches()) return std::string("hint: this is the ") + to_string(other) + " scan, not the " + to_string(kind) + " one";
    return "";
  }
}

// Checks got[0, n), one scan of in[0, n), against the oracle (exactly for integers and affine maps,
// against a float64 reference within the length-dependent tolerance for float sums), and element 0
// on its own: the first input (inclusive) or the identity (exclusive), the two places where a scan
// most often goes wrong first. A failure names a likely cause where the output shows one. Returns
// whether both held, so that callers can stop at the first failure (the smallest failing case is
// the one worth reading).
template <class T, class Op>
bool check_scan(const T* in, const T* got, std::size_t n, ScanKind kind, Op op) {
  VerifyResult r;
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    r = verify_float_scan(in, got, n, kind);
  } else {
    std::vector<T> expected(n);
    if (kind == ScanKind::inclusive) {
      inclusive_scan_oracle(in, expected.data(), n, op);
    } else {
      exclusive_scan_oracle(in, expected.data(), n, op);
    }
    r = verify_exact(expected.data(), got, n);
  }
  std::string cause;
  if (!r.ok) {
    for (const std::string& line : {tile_note(r.first_index), likely_cause<T, Op>(in, got, n, kind),
                                    value_origin_hint(got[r.first_index])}) {
      if (!line.empty()) cause += "\n  " + line;
    }
  }
  CHECK_MESSAGE(r.ok, r.message() << cause << last_call_notes());
  bool first_ok = true;
  if (n > 0) {
    if (kind == ScanKind::inclusive) {
      first_ok = got[0] == in[0];
      CHECK_MESSAGE(first_ok, "inclusive: element 0 must be the first input");
    } else {
      first_ok = got[0] == Op::identity();
      CHECK_MESSAGE(first_ok, "exclusive: element 0 must be the identity");
    }
  }
  return r.ok && first_ok;
}

// As above, for a whole output.
template <class T, class Op>
bool check_scan(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op) {
  REQUIRE_MESSAGE(got.size() == in.size(), "the code under test returned " << got.size() << " elements for " << in.size() << " inputs");
  return check_scan(in.data(), got.data(), in.size(), kind, op);
}

// Checks an output of independent tiles of `tile` elements tile by tile (each tile's prefixes
// restart, and the last one may be ragged), up to the first failing tile.
template <class T, class Op>
bool check_tiles(const std::vector<T>& in, const std::vector<T>& got, std::size_t tile, ScanKind kind, Op op) {
  REQUIRE_MESSAGE(got.size() == in.size(), "the code under test returned " << got.size() << " elements for " << in.size() << " inputs");
  for (std::size_t begin = 0; begin < in.size(); begin += tile) {
    const std::size_t len = std::min(tile, in.size() - begin);
    INFO("tile starting at element " << begin << " (" << len << " elements)");
    if (!check_scan(in.data() + begin, got.data() + begin, len, kind, op)) return false;
  }
  return true;
}

// Runs check(input) on a random input, make_random(n, ++stream), and on a constant one of every size
// n in `sizes`, up to the first failure; `what` names the operation in the failure's context. The
// stream counter is the caller's: every random input gets its own stream, also across calls, and
// the same one in every run with the same seed. Returns whether every check held.
template <class T, class Sizes, class MakeRandom, class Check>
bool check_random_and_constant(const Sizes& sizes, MakeRandom make_random, const T& constant, std::uint64_t& stream,
                               const std::string& what, Check check) {
  for (const auto size : sizes) {
    const std::size_t n = static_cast<std::size_t>(size);
    INFO(what << ", n = " << n);
    {
      INFO("random input");
      if (!check(make_random(n, ++stream))) return false;
    }
    {
      INFO("constant input");
      if (!check(constant_vector<T>(n, constant))) return false;
    }
  }
  return true;
}

}  // namespace scanlab::grading
