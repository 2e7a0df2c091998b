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

// What the parts of last_call_tile_items() elements are called in messages: "tile" unless the
// checker says otherwise (a checker that looks inside a block's tile names its warps).
inline std::string& last_call_tile_name() {
  static std::string name = "tile";
  return name;
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
  if (std::all_of(bytes, bytes + sizeof(T), [](unsigned char b) {
        return b == 0xA5;
      })) {
    return "hint: every byte of this value is 0xA5, what the emulator fills fresh device memory with: it "
           "was computed from memory nothing had written yet (a value read before it was published?)";
  }
  return "";
}

// What the first wrong element's value says (value_origin_hint), or, when the last element is the
// only wrong one and nothing wrote it, that a loop likely stops one element early. "" otherwise.
template <class T>
std::string wrong_value_hint(const VerifyResult& r, const T* got, std::size_t n) {
  if (r.ok || r.first_index >= n) return "";
  if (r.mismatches == 1 && r.first_index + 1 == n && n > 1 && is_poison(got[r.first_index])) {
    return "hint: the last element is the only wrong one, and it still holds the poison the output was filled "
           "with: nothing wrote it (a loop that stops one element early?)";
  }
  return value_origin_hint(got[r.first_index]);
}

// "element i is in tile t ..." for the first wrong element, when the tile length is known.
inline std::string tile_note(std::size_t first_wrong) {
  const std::size_t tile = last_call_tile_items();
  if (tile == 0) return "";
  const std::size_t t = first_wrong / tile;
  const std::string& unit = last_call_tile_name();
  return "element " + std::to_string(first_wrong) + " is in " + unit + " " + std::to_string(t) + " (" + unit + "s of " +
         std::to_string(tile) + " elements)" +
         (t > 0 ? "; every element of " + unit + "s 0.." + std::to_string(t - 1) + " is right" : "");
}

// The operator with its operands swapped: op(y, x). Only for diagnosis.
template <class Op>
struct SwappedOperands {
  using value_type = typename Op::value_type;
  static value_type identity() { return Op::identity(); }
  value_type operator()(value_type x, value_type y) const { return Op{}(y, x); }
};

// The scan of in[0, n) of the given kind, started from `start` instead of the identity (an
// exclusive scan's element 0 is `start`). With start = Op::identity() it is the oracle.
template <class T, class Op>
void scan_from(const T* in, T* out, std::size_t n, ScanKind kind, Op op, T start) {
  T running = start;
  for (std::size_t i = 0; i < n; ++i) {
    const T x = in[i];
    if (kind == ScanKind::exclusive) out[i] = running;
    running = op(running, x);
    if (kind == ScanKind::inclusive) out[i] = running;
  }
}

// in[begin] op ... op in[end - 1] (the identity when begin == end).
template <class T, class Op>
T fold_range(const T* in, std::size_t begin, std::size_t end, Op op) {
  T running = Op::identity();
  for (std::size_t i = begin; i < end; ++i) running = op(running, in[i]);
  return running;
}

// A likely cause of a wrong scan, when the output matches a common mistake: operands in the wrong
// order, the other kind of scan, a scan started from zero instead of the identity, an input read
// one place off, the input itself shifted instead of the scan, steps that stop one short (each
// element combines only a window of the inputs before it). `first_wrong` is the first wrong
// element. "" when none fits.
template <class T, class Op>
std::string likely_cause(const T* in, const T* got, std::size_t n, ScanKind kind, std::size_t first_wrong = 0) {
  if constexpr (std::is_floating_point_v<T>) {
    return "";
  } else {
    if (n == 0) return "";
    const Op op{};
    std::vector<T> guess(n);
    const auto matches = [&] {
      return std::equal(guess.begin(), guess.end(), got);
    };
    const auto scan = [&](ScanKind k, auto o) {
      if (k == ScanKind::inclusive) inclusive_scan_oracle(in, guess.data(), n, o);
      else exclusive_scan_oracle(in, guess.data(), n, o);
    };
    scan(kind, op);
    if (matches()) return "";  // nothing wrong
    constexpr bool commutative = std::is_same_v<Op, Plus<T>> || std::is_same_v<Op, Max<T>>;
    if (!commutative) {
      scan(kind, SwappedOperands<Op>{});
      if (matches())
        return "hint: this is the scan with every op(a, b) swapped to op(b, a); the operator is not "
               "commutative, so the element from the left must be the LEFT operand";
    }
    const ScanKind other = kind == ScanKind::inclusive ? ScanKind::exclusive : ScanKind::inclusive;
    scan(other, op);
    if (matches())
      return std::string("hint: this is the ") + to_string(other) + " scan, not the " + to_string(kind) + " one";
    if (!(T{} == Op::identity())) {
      scan_from(in, guess.data(), n, kind, op, T{});
      if (matches()) {
        return "hint: this is the scan started from T{} (zero) instead of the operator's identity, Op::identity(): "
               "zero is the identity of +, not of this operator (max: the smallest value; affine maps: x -> x)";
      }
    }
    if (kind == ScanKind::exclusive && n >= 2) {
      // element i = in[1] op ... op in[i]: the inclusive scan of the input with in[0] replaced by
      // the identity, i.e. each thread read in[i] where in[i - 1] belongs.
      guess[0] = Op::identity();
      scan_from(in + 1, guess.data() + 1, n - 1, ScanKind::inclusive, op, Op::identity());
      if (matches()) {
        return "hint: element i combines in[1] .. in[i], where the exclusive scan needs in[0] .. in[i - 1]: the "
               "input is read one place off (in[i] where in[i - 1] belongs)";
      }
      bool shifted_input = got[0] == Op::identity();
      for (std::size_t i = 1; shifted_input && i < n; ++i) shifted_input = got[i] == in[i - 1];
      if (shifted_input) {
        return "hint: element i is in[i - 1] alone, not everything before it: the exclusive scan shifted the "
               "INPUT one place to the right, where it must shift the inclusive scan's result";
      }
    }
    // Steps that stop one short: elements before w are right, and from w on (w + 1 for an exclusive
    // scan) each combines only the w inputs up to it. Checked on up to 64 elements.
    const std::size_t w = kind == ScanKind::inclusive ? first_wrong : first_wrong - 1;
    if (first_wrong >= 2 && w >= 2 && (w & (w - 1)) == 0 && w <= 4096) {
      const std::size_t shift =
          kind == ScanKind::inclusive ? 0 : 1;  // element j covers [j + 1 - w - shift, j + 1 - shift)
      bool window = true;
      std::size_t checked = 0;
      for (std::size_t j = first_wrong; window && j < n && checked < 64; ++j, ++checked) {
        window = got[j] == fold_range(in, j + 1 - w - shift, j + 1 - shift, op);
      }
      if (window && checked > 0) {
        return "hint: from element " + std::to_string(first_wrong) + " on, each element combines only the " +
               std::to_string(w) + " inputs " + (shift ? "before" : "up to") +
               " it, not every input from element 0: "
               "the scan's steps stop at distance " +
               std::to_string(w / 2) +
               ", one step short (the last step must "
               "reach distance " +
               std::to_string(w) + " or more)";
      }
    }
    return "";
  }
}

// For affine maps: the a part of a composition is the product of the a's, the same in any order,
// while b depends on the order. Right a's with wrong b's: the right maps, combined in the wrong
// order. "" otherwise (and for every other type).
template <class T, class Op>
std::string order_cause(const T* in, const T* got, std::size_t n, ScanKind kind) {
  if constexpr (scanlab::detail::is_affine_v<T>) {
    std::vector<T> want(n);
    if (kind == ScanKind::inclusive) inclusive_scan_oracle(in, want.data(), n, Op{});
    else exclusive_scan_oracle(in, want.data(), n, Op{});
    bool a_right = true;
    for (std::size_t i = 0; a_right && i < n; ++i) a_right = want[i].a == got[i].a;
    if (a_right && !std::equal(want.begin(), want.end(), got)) {
      return "hint: every element's a (a product of the maps' a's, the same in any order) is right, and b is not: "
             "the right maps were combined in the wrong order; the operator is not commutative, so what comes "
             "from the left must stay the LEFT operand";
    }
  }
  return "";
}

// When the first wrong element lies in tile t > 0 of a scan over tiles of `tile` elements (every
// earlier tile right): what the carry into tile t (the prefix of tiles 0..t-1) looks like, when
// the output tells. "" otherwise.
template <class T, class Op>
std::string carry_cause(const T* in, const T* got, std::size_t n, ScanKind kind, std::size_t first_wrong,
                        std::size_t tile, const std::string& unit = "tile") {
  if constexpr (std::is_floating_point_v<T>) {
    return "";
  } else {
    if (tile == 0 || first_wrong < tile || first_wrong >= n) return "";
    const Op op{};
    const std::size_t t = first_wrong / tile;
    const std::size_t begin = t * tile;
    const std::size_t end = std::min(n, begin + tile);
    const std::string name = unit + " " + std::to_string(t);
    const auto tiles = [&unit](std::size_t a, std::size_t b) {
      return a == b ? unit + " " + std::to_string(a) : unit + "s " + std::to_string(a) + ".." + std::to_string(b);
    };
    std::vector<T> local(end - begin);
    // Whether tile t equals its own scan started from `carry` (on the left, or on the right).
    const auto tile_is = [&](const T& carry, bool on_the_right = false) {
      scan_from(in + begin, local.data(), end - begin, kind, op, Op::identity());
      for (std::size_t i = begin; i < end; ++i) {
        const T& own = local[i - begin];
        if (!(got[i] == (on_the_right ? op(own, carry) : op(carry, own)))) return false;
      }
      return true;
    };
    const T carry = fold_range(in, 0, begin, op);
    if (tile_is(carry)) return "";  // tile t is right
    if (tile_is(Op::identity())) {
      return "hint: " + name + " holds the scan of its own elements only: no carry (the prefix of " + tiles(0, t - 1) +
             ") reached it" + (t == 1 ? " (or it got the empty carry meant for " + tiles(0, 0) + ")" : "");
    }
    if (t >= 2 && tile_is(fold_range(in, 0, begin - tile, op))) {
      return "hint: " + name + " starts from the prefix of " + tiles(0, t - 2) + " only: its carry leaves out " +
             tiles(t - 1, t - 1) + ", the " + unit + " just before it (the carry meant for " + tiles(t - 1, t - 1) +
             ", read one " + unit + " too early?)";
    }
    if (tile_is(carry, true)) {
      return "hint: " + name + " has the right carry (the prefix of " + tiles(0, t - 1) +
             "), combined on the RIGHT of each element: the carry comes from the left, so it must be the LEFT "
             "operand";
    }
    if (t >= 2) {
      // A carry of tiles k..t-1 only (a look-back or chain that stopped before reaching tile 0).
      T suffix = Op::identity();
      for (std::size_t k = t - 1; k >= 1; --k) {
        suffix = op(fold_range(in, k * tile, (k + 1) * tile, op), suffix);
        if (tile_is(suffix)) {
          return "hint: " + name + "'s carry is the fold of " + tiles(k, t - 1) + " only: it leaves out " +
                 tiles(0, k - 1) + " (did gathering the prefix stop at " + tiles(k, k) +
                 ", before it reached an inclusive prefix?)";
        }
      }
    }
    {
      // The right carry with the prefix of tiles 0..k-1 folded in once more (a look-back that keeps
      // predecessors older than the nearest inclusive prefix, which already holds them).
      T older = Op::identity();
      for (std::size_t k = 1; k < t; ++k) {
        older = op(older, fold_range(in, (k - 1) * tile, k * tile, op));
        if (tile_is(op(older, carry))) {
          return "hint: " + name + "'s carry counts " + tiles(0, k - 1) + " twice: it is the prefix of " +
                 tiles(0, t - 1) + " with the prefix of " + tiles(0, k - 1) +
                 " folded in once more (values older "
                 "than the nearest inclusive prefix are already inside it)";
        }
      }
    }
    {
      // The first element of each earlier part (a part's total taken from its first element).
      T firsts = Op::identity();
      for (std::size_t k = 0; k < t; ++k) firsts = op(firsts, in[k * tile]);
      if (tile > 1 && tile_is(firsts)) {
        return "hint: " + name + "'s carry combines only the FIRST element of each " + unit + " before it: a " + unit +
               "'s total must come from its last element (lane), where the inclusive scan has reached the end";
      }
    }
    if (first_wrong == begin) {
      return "hint: every " + unit + " before " + name + " is right and " + name +
             " is wrong from its first element: the prefix carried into it (from " + tiles(0, t - 1) + ") is wrong";
    }
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
    const std::string cause_line = likely_cause<T, Op>(in, got, n, kind, r.first_index);
    const std::string carry_line =
        carry_cause<T, Op>(in, got, n, kind, r.first_index, last_call_tile_items(), last_call_tile_name());
    // A carry combined on the wrong side already says what the order hint would.
    const bool carry_says_order = carry_line.find("on the RIGHT") != std::string::npos;
    for (const std::string& line :
         {tile_note(r.first_index), cause_line, carry_line,
          cause_line.empty() && !carry_says_order ? order_cause<T, Op>(in, got, n, kind) : std::string(),
          wrong_value_hint(r, got, n)}) {
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
  REQUIRE_MESSAGE(got.size() == in.size(),
                  "the code under test returned " << got.size() << " elements for " << in.size() << " inputs");
  return check_scan(in.data(), got.data(), in.size(), kind, op);
}

// Checks an output of independent tiles of `tile` elements tile by tile (each tile's prefixes
// restart, and the last one may be ragged), up to the first failing tile.
template <class T, class Op>
bool check_tiles(const std::vector<T>& in, const std::vector<T>& got, std::size_t tile, ScanKind kind, Op op) {
  REQUIRE_MESSAGE(got.size() == in.size(),
                  "the code under test returned " << got.size() << " elements for " << in.size() << " inputs");
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
