// Tests of the diagnosis in scanlab/grading/checks.hpp: each hint a failing grading check can add
// (likely_cause, carry_cause, wrong_value_hint) fires on the output of the mistake it names, and
// says nothing about a right output or a wrong one that matches no mistake. Students read these
// hints, so a hint that fires where it should not is a bug.
#include "scanlab/grading/checks.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using namespace scanlab::grading;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using I = std::int32_t;
using A = Affine<std::uint32_t>;
using AOp = AffineCompose<std::uint32_t>;

std::vector<I> ints(std::size_t n) { return random_ints(n, 4711); }
std::vector<A> maps(std::size_t n) { return random_affines(n, 4712); }

template <class T, class Op>
std::vector<T> oracle(const std::vector<T>& in, ScanKind kind, Op op) {
  return kind == ScanKind::inclusive ? scanlab::inclusive_scan_oracle(in, op) : scanlab::exclusive_scan_oracle(in, op);
}

template <class T, class Op>
std::string cause(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op) {
  std::size_t first = 0;
  const std::vector<T> want = oracle(in, kind, Op{});
  while (first < got.size() && got[first] == want[first]) ++first;
  return likely_cause<T, Op>(in.data(), got.data(), in.size(), kind, first);
}

template <class T, class Op>
std::string carry(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op, std::size_t tile) {
  std::size_t first = 0;
  const std::vector<T> want = oracle(in, kind, Op{});
  while (first < got.size() && got[first] == want[first]) ++first;
  return carry_cause<T, Op>(in.data(), got.data(), in.size(), kind, first, tile);
}

// A scan of tiles of `tile` elements in which tile `t` is started from `c` instead of its carry
// (on the right of each element when on_the_right); every other tile is right.
template <class T, class Op>
std::vector<T> with_tile_carry(const std::vector<T>& in, ScanKind kind, Op op, std::size_t tile, std::size_t t, T c,
                               bool on_the_right = false) {
  std::vector<T> got = oracle(in, kind, op);
  const std::size_t begin = t * tile, end = std::min(in.size(), begin + tile);
  std::vector<T> local(end - begin);
  scan_from(in.data() + begin, local.data(), end - begin, kind, op, Op::identity());
  for (std::size_t i = begin; i < end; ++i) got[i] = on_the_right ? op(local[i - begin], c) : op(c, local[i - begin]);
  return got;
}

}  // namespace

TEST_CASE("likely_cause and carry_cause say nothing about a right output") {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    const std::vector<I> in = ints(100);
    const std::vector<A> m = maps(100);
    CHECK(cause(in, oracle(in, kind, Plus<I>{}), kind, Plus<I>{}).empty());
    CHECK(cause(in, oracle(in, kind, Max<I>{}), kind, Max<I>{}).empty());
    CHECK(cause(m, oracle(m, kind, AOp{}), kind, AOp{}).empty());
    for (std::size_t first : {0, 10, 16, 17, 40}) {  // whatever index the caller names
      CHECK(likely_cause<I, Plus<I>>(in.data(), oracle(in, kind, Plus<I>{}).data(), in.size(), kind, first).empty());
      CHECK(carry_cause<I, Plus<I>>(in.data(), oracle(in, kind, Plus<I>{}).data(), in.size(), kind, first, 8).empty());
      CHECK(carry_cause<A, AOp>(m.data(), oracle(m, kind, AOp{}).data(), m.size(), kind, first, 8).empty());
    }
  }
}

TEST_CASE("likely_cause and carry_cause say nothing about a wrong element that matches no mistake") {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    const std::vector<I> in = ints(100);
    for (std::size_t bad : {std::size_t{13}, std::size_t{16}, std::size_t{17}, std::size_t{99}}) {
      std::vector<I> got = oracle(in, kind, Plus<I>{});
      got[bad] += 12345;
      CHECK(cause(in, got, kind, Plus<I>{}).empty());
      if (bad % 8 != 0) CHECK(carry(in, got, kind, Plus<I>{}, 8).empty());
    }
    const std::vector<A> m = maps(100);
    std::vector<A> got = oracle(m, kind, AOp{});
    got[13].a += 2;
    CHECK(cause(m, got, kind, AOp{}).empty());
    CHECK(order_cause<A, AOp>(m.data(), got.data(), m.size(), kind).empty());
    CHECK(order_cause<A, AOp>(m.data(), oracle(m, kind, AOp{}).data(), m.size(), kind).empty());
  }
}

TEST_CASE("likely_cause: a scan started from zero instead of the identity") {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    std::vector<I> in = ints(50);
    in[0] = -5;  // so that max(0, ...) is wrong from element 0 on, also for the inclusive scan
    std::vector<I> got(in.size());
    scan_from(in.data(), got.data(), in.size(), kind, Max<I>{}, I{0});
    CHECK(contains(cause(in, got, kind, Max<I>{}), "instead of the operator's identity"));
    const std::vector<A> m = maps(50);
    std::vector<A> gm(m.size());
    scan_from(m.data(), gm.data(), m.size(), kind, AOp{}, A{});
    CHECK(contains(cause(m, gm, kind, AOp{}), "instead of the operator's identity"));
  }
}

TEST_CASE("likely_cause: an exclusive scan that reads its input one place off, or shifts the input") {
  const std::vector<I> in = ints(40);
  std::vector<I> got(in.size(), 0);
  for (std::size_t i = 1; i < in.size(); ++i) got[i] = got[i - 1] + in[i];
  CHECK(contains(cause(in, got, ScanKind::exclusive, Plus<I>{}), "read one place off"));
  const std::vector<I> two = {5, 7};  // the smallest case: element 1 is in[1], not in[0]
  CHECK(contains(cause(two, std::vector<I>{0, 7}, ScanKind::exclusive, Plus<I>{}), "read one place off"));

  std::vector<I> shifted(in.size(), 0);
  for (std::size_t i = 1; i < in.size(); ++i) shifted[i] = in[i - 1];
  CHECK(contains(cause(in, shifted, ScanKind::exclusive, Plus<I>{}), "shifted the INPUT"));
}

TEST_CASE("likely_cause: steps that stop one short leave a window of inputs") {
  const std::vector<I> in = ints(40);
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    const std::size_t w = 16, shift = kind == ScanKind::exclusive ? 1 : 0;
    std::vector<I> got = oracle(in, kind, Plus<I>{});
    for (std::size_t j = w + shift; j < in.size(); ++j)
      got[j] = fold_range(in.data(), j + 1 - w - shift, j + 1 - shift, Plus<I>{});
    const std::string hint = cause(in, got, kind, Plus<I>{});
    CHECK(contains(hint, "one step short"));
    CHECK(contains(hint, "only the 16 inputs"));
  }
}

TEST_CASE("likely_cause: affine maps combined in the wrong order, and the other kind of scan") {
  const std::vector<A> m = maps(64);
  const AOp op;
  // Inclusive as op(x, exclusive prefix): the element itself on the wrong side.
  const std::vector<A> excl = oracle(m, ScanKind::exclusive, op);
  std::vector<A> got(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) got[i] = op(m[i], excl[i]);
  CHECK(contains(order_cause<A, AOp>(m.data(), got.data(), m.size(), ScanKind::inclusive),
                 "combined in the wrong order"));
  CHECK(cause(m, got, ScanKind::inclusive, op).empty());  // no exact mistake: only the order hint
  // Every operand swapped: the more precise hint.
  CHECK(contains(cause(m, oracle(m, ScanKind::inclusive, SwappedOperands<AOp>{}), ScanKind::inclusive, op),
                 "swapped to op(b, a)"));
  const std::vector<I> in = ints(20);
  CHECK(contains(cause(in, oracle(in, ScanKind::inclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{}),
                 "this is the inclusive scan, not the exclusive one"));
}

TEST_CASE("carry_cause names what the carry into the first wrong tile is") {
  const std::size_t tile = 8;
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    const std::vector<I> in = ints(45);
    const Plus<I> plus;
    CHECK(contains(carry(in, with_tile_carry(in, kind, plus, tile, 2, 0), kind, plus, tile),
                   "tile 2 holds the scan of its own elements only"));
    CHECK(contains(
        carry(in, with_tile_carry(in, kind, plus, tile, 3, fold_range(in.data(), 0, 2 * tile, plus)), kind, plus, tile),
        "its carry leaves out tile 2, the tile just before it"));
    CHECK(contains(carry(in, with_tile_carry(in, kind, plus, tile, 3, fold_range(in.data(), 2 * tile, 3 * tile, plus)),
                         kind, plus, tile),
                   "tile 3's carry is the fold of tile 2 only: it leaves out tiles 0..1"));
    CHECK(contains(carry(in, with_tile_carry(in, kind, plus, tile, 3, fold_range(in.data(), 0, 3 * tile, plus) + 1),
                         kind, plus, tile),
                   "every tile before tile 3 is right and tile 3 is wrong from its first element"));
    CHECK(
        contains(carry(in,
                       with_tile_carry(in, kind, plus, tile, 3,
                                       fold_range(in.data(), 0, 3 * tile, plus) + fold_range(in.data(), 0, tile, plus)),
                       kind, plus, tile),
                 "tile 3's carry counts tile 0 twice"));
    I firsts = 0;
    for (std::size_t k = 0; k < 3; ++k) firsts += in[k * tile];
    CHECK(contains(carry(in, with_tile_carry(in, kind, plus, tile, 3, firsts), kind, plus, tile),
                   "combines only the FIRST element of each tile before it"));
    const std::vector<A> m = maps(45);
    CHECK(contains(carry(m, with_tile_carry(m, kind, AOp{}, tile, 2, fold_range(m.data(), 0, 2 * tile, AOp{}), true),
                         kind, AOp{}, tile),
                   "combined on the RIGHT of each element"));
  }
}

TEST_CASE("wrong_value_hint: an unwritten last element, and poison elsewhere") {
  std::vector<I> got = {1, 2, 3, scanlab::poison<I>()};
  scanlab::VerifyResult r;
  r.ok = false;
  r.mismatches = 1;
  r.first_index = 3;
  CHECK(contains(wrong_value_hint(r, got.data(), got.size()), "stops one element early"));
  r.mismatches = 2;  // something else is wrong too: only what the value says
  CHECK(!contains(wrong_value_hint(r, got.data(), got.size()), "stops one element early"));
  CHECK(contains(wrong_value_hint(r, got.data(), got.size()), "nothing wrote it"));
  got[3] = 4;
  r.mismatches = 1;
  CHECK(wrong_value_hint(r, got.data(), got.size()).empty());
}

TEST_CASE("carry_cause and tile_note name a checker's own parts (warps)") {
  const std::vector<I> in = ints(64);
  const std::vector<I> got = with_tile_carry(in, ScanKind::inclusive, Plus<I>{}, 16, 2, 0);
  std::size_t first = 0;
  while (got[first] == scanlab::inclusive_scan_oracle(in)[first]) ++first;
  CHECK(contains(carry_cause<I, Plus<I>>(in.data(), got.data(), in.size(), ScanKind::inclusive, first, 16, "warp"),
                 "warp 2 holds the scan of its own elements only: no carry (the prefix of warps 0..1)"));
  last_call_tile_items() = 16;
  last_call_tile_name() = "warp";
  CHECK(tile_note(first) == "element 32 is in warp 2 (warps of 16 elements); every element of warps 0..1 is right");
  last_call_tile_items() = 0;
  last_call_tile_name() = "tile";
  CHECK(tile_note(first).empty());
}
