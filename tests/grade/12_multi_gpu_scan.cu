// Grading tests for chapter 12: the offset of a rank (combine_preceding), the local scan started
// from a seed (the seeded look-back), and the whole scan across 1, 2 and 3 ranks, each rank a
// process with its own emulated device (the runner forks them; see 12_multi_gpu_scan_runner.cu).
//
// Integers and affine maps are compared exactly with the sequential scan, float sums with a
// float64 reference and the length-dependent tolerance, always in a poisoned output. Sizes cut
// slices unevenly, put rank and tile boundaries next to each other, leave ranks without elements
// (n < ranks, n = 0), and make slices of several tiles (4096 elements a tile), so that the tiles
// after a slice's first get their prefix through the look-back. Affine composition is not
// commutative: a total or a seed on the wrong side fails. Every test case has a rank after rank 0
// or a seed that is not the identity, so the untouched exercise fails them all. This is the
// checker: the student's code runs in the runner, another process.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;

constexpr std::size_t kTile = 4096;  // the chapter's tile: 128 threads x 32 items

// Rank r's slice of n elements over k ranks, as the chapter cuts it (the first n % k ranks one more).
struct Slice {
  std::size_t begin, size;
};
Slice slice_of(std::size_t n, int k, int r) {
  const std::size_t kk = static_cast<std::size_t>(k), rr = static_cast<std::size_t>(r);
  const std::size_t base = n / kk, extra = n % kk;
  return Slice{rr * base + (rr < extra ? rr : extra), base + (rr < extra ? 1 : 0)};
}

template <class T>
std::vector<T> inputs(std::size_t n, std::uint64_t stream) {
  if constexpr (std::is_floating_point_v<T>) return random_floats(n, stream);
  else if constexpr (std::is_same_v<T, std::int32_t>) return random_ints(n, stream);
  else return random_affines(n, stream);
}

// The scan of in[b, b + len) on its own, started from `seed` on the left.
template <class T, class Op>
std::vector<T> seeded_oracle(const std::vector<T>& in, std::size_t b, std::size_t len, T seed, ScanKind kind, Op op) {
  std::vector<T> out(len);
  T running = seed;
  for (std::size_t i = 0; i < len; ++i) {
    if (kind == ScanKind::inclusive) running = op(running, in[b + i]);
    out[i] = running;
    if (kind == ScanKind::exclusive) running = op(running, in[b + i]);
  }
  return out;
}

template <class T, class Op>
T fold(const std::vector<T>& in, std::size_t b, std::size_t len, Op op) {
  T acc = Op::identity();
  for (std::size_t i = 0; i < len; ++i) acc = op(acc, in[b + i]);
  return acc;
}

// What a slice that is wrong from element `first` (into the slice) on looks like, for exact types:
// a hint naming the cause when the slice is exactly what that cause gives, "" otherwise.
//   right    the offset the slice needs          local    the slice scanned from the identity
//   wrong    (name, offset) pairs: offsets a mistake in combine_preceding would give
template <class T, class Op>
std::string seed_hint(const std::vector<T>& in, const std::vector<T>& got, std::size_t b, std::size_t len, T right,
                      const std::vector<std::pair<std::string, T>>& wrong, ScanKind kind, Op op,
                      const std::string& who) {
  if (len == 0) return "";
  auto matches = [&](const std::vector<T>& want) {
    for (std::size_t i = 0; i < len; ++i) {
      if (!(got[b + i] == want[i])) return false;
    }
    return true;
  };
  const std::vector<T> local = seeded_oracle(in, b, len, Op::identity(), kind, op);
  if (!(right == Op::identity()) && matches(local)) {
    return "hint: " + who +
           " holds the scan of its own elements only, as if its seed were the identity: the "
           "offset never reached the scan (is the seed put into the scan at all?)";
  }
  for (const auto& [what, offset] : wrong) {
    if (!(offset == right) && matches(seeded_oracle(in, b, len, offset, kind, op))) return "hint: " + who + " " + what;
  }
  if (len > kTile) {
    // Tile 0 of the slice right, the tiles after it scanned without the seed, or otherwise wrong.
    const std::vector<T> want = seeded_oracle(in, b, len, right, kind, op);
    bool first_tile_right = true, rest_local = true, rest_right = true;
    for (std::size_t i = 0; i < len; ++i) {
      if (i < kTile) first_tile_right = first_tile_right && got[b + i] == want[i];
      else {
        rest_local = rest_local && got[b + i] == local[i];
        rest_right = rest_right && got[b + i] == want[i];
      }
    }
    if (first_tile_right && rest_local && !(right == Op::identity())) {
      return "hint: only the first tile of " + who +
             " has the seed: the tiles after it take their prefix from the "
             "look-back, which ends at tile 0's inclusive prefix (P), so that P must hold the seed too";
    }
    if (first_tile_right && !rest_right) {
      return "hint: the first tile of " + who +
             " is right and the tiles after it are not: they take their prefix "
             "from tile 0's inclusive prefix (P), which must be the seed combined with tile 0's aggregate, "
             "the seed on the LEFT";
    }
  }
  return "";
}

// ---- the offset of a rank ------------------------------------------------------------------------

template <class T, class Op>
void check_combine(Op op, std::uint64_t stream) {
  for (int ranks = 1; ranks <= 6; ++ranks) {
    const std::vector<T> totals = inputs<T>(static_cast<std::size_t>(ranks), ++stream);
    for (int rank = 0; rank < ranks; ++rank) {
      INFO("ranks: " << ranks << ", rank " << rank);
      const std::vector<T> got =
          output<T>(Request("combine_preceding").monoid(op).params({{"rank", rank}}).input(totals).send());
      REQUIRE(got.size() == 1);
      const T want = fold(totals, 0, static_cast<std::size_t>(rank), op);
      if (got[0] == want) continue;
      std::string hint;
      T reversed = Op::identity();
      for (int q = 0; q < rank; ++q) reversed = op(totals[static_cast<std::size_t>(q)], reversed);
      if (got[0] == fold(totals, 0, static_cast<std::size_t>(rank) + 1, op)) {
        hint = "hint: this is the offset with the rank's own total included: only the ranks BEFORE it count";
      } else if (rank > 1 && got[0] == reversed) {
        hint = "hint: these are the right totals combined in the wrong order: rank 0's total is the LEFT-most operand";
      } else if (rank > 0 && got[0] == Op::identity()) {
        hint = "hint: this is the identity, the offset of rank 0 only: rank " + std::to_string(rank) + " comes after " +
               (rank == 1 ? std::string("rank 0") : "ranks 0 .. " + std::to_string(rank - 1));
      }
      FAIL_CHECK(ranks << " ranks, offset of rank " << rank << ": expected " << scanlab::to_display_string(want)
                       << ", got " << scanlab::to_display_string(got[0]) << (hint.empty() ? "" : "\n  ") << hint);
      return;
    }
  }
}

// ---- the seeded local scan -------------------------------------------------------------------------

template <class T, class Op>
bool check_seeded(const std::vector<T>& in, T seed, ScanKind kind, bool in_place, Op op) {
  const std::size_t n = in.size();
  INFO(to_string(kind) << " scan of " << n << " elements from the seed " << scanlab::to_display_string(seed)
                       << (in_place ? ", in place" : ""));
  const std::vector<T> got = output<T>(Request("seeded_scan")
                                           .monoid(op)
                                           .kind(kind)
                                           .params({{"in_place", in_place}})
                                           .input(in)
                                           .input(std::vector<T>{seed})
                                           .send());
  REQUIRE(got.size() == n);
  scanlab::VerifyResult r;
  if constexpr (std::is_floating_point_v<T>) {
    // The seed as element -1 of a longer input, whose inclusive scan L has L[i] = seed + in[0 .. i - 1]:
    // the seeded exclusive scan is L[0 .. n - 1], the seeded inclusive scan L[1 .. n].
    std::vector<T> longer(n + 1);
    longer[0] = seed;
    for (std::size_t i = 0; i < n; ++i) longer[i + 1] = in[i];
    if (kind == ScanKind::exclusive) {
      r = scanlab::verify_float_scan(longer.data(), got.data(), n, ScanKind::inclusive);
    } else {
      std::vector<T> got_longer(n + 1);
      got_longer[0] = seed;
      for (std::size_t i = 0; i < n; ++i) got_longer[i + 1] = got[i];
      r = scanlab::verify_float_scan(longer.data(), got_longer.data(), n + 1, ScanKind::inclusive);
      if (!r.ok) r.first_index -= 1;
    }
  } else {
    r = scanlab::verify_exact(seeded_oracle(in, 0, n, seed, kind, op).data(), got.data(), n);
  }
  std::string hint;
  if constexpr (!std::is_floating_point_v<T>) {
    if (!r.ok) hint = seed_hint(in, got, 0, n, seed, {}, kind, op, "the output");
  }
  if (!r.ok && hint.empty()) hint = wrong_value_hint(r, got.data(), n);
  CHECK_MESSAGE(r.ok, r.message() << (hint.empty() ? "" : "\n  ") << hint << "\n  " << tile_note(r.first_index)
                                  << last_call_notes());
  return r.ok;
}

template <class T, class Op>
void check_seeded_sizes(Op op, std::uint64_t stream) {
  for (const std::size_t n : {std::size_t{1}, kTile - 1, kTile, kTile + 1, 3 * kTile + 7, 40 * kTile + 3}) {
    const std::vector<T> in = inputs<T>(n, ++stream);
    const T seed = inputs<T>(1, ++stream)[0];
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      if (!check_seeded(in, seed, kind, false, op)) return;
    }
  }
}

// ---- the scan across ranks ---------------------------------------------------------------------

template <class T, class Op>
bool check_across(const std::vector<T>& in, int ranks, ScanKind kind, const std::string& form, bool in_place, Op op) {
  const std::size_t n = in.size();
  const std::string what = std::string(to_string(kind)) + " scan of " + std::to_string(n) + " elements over " +
                           std::to_string(ranks) + " rank(s), " + form + (in_place ? ", in place" : "");
  INFO(what);
  const std::vector<T> got = output<T>(Request("multi_rank_scan")
                                           .monoid(op)
                                           .kind(kind)
                                           .params({{"ranks", ranks}, {"form", form}, {"in_place", in_place}})
                                           .input(in)
                                           .send());
  REQUIRE(got.size() == n);
  scanlab::VerifyResult r;
  if constexpr (std::is_floating_point_v<T>) {
    r = scanlab::verify_float_scan(in.data(), got.data(), n, kind);
  } else {
    std::vector<T> want(n);
    if (kind == ScanKind::inclusive) scanlab::inclusive_scan_oracle(in.data(), want.data(), n, op);
    else scanlab::exclusive_scan_oracle(in.data(), want.data(), n, op);
    r = scanlab::verify_exact(want.data(), got.data(), n);
  }
  if (r.ok) return true;
  int rank = 0;
  while (rank + 1 < ranks && slice_of(n, ranks, rank + 1).begin <= r.first_index) ++rank;
  const Slice s = slice_of(n, ranks, rank);
  std::string where = "\n  element " + std::to_string(r.first_index) + " is rank " + std::to_string(rank) +
                      "'s (its slice: [" + std::to_string(s.begin) + ", " + std::to_string(s.begin + s.size) +
                      "), element " + std::to_string(r.first_index - s.begin) + " of it)";
  std::string hint;
  if constexpr (!std::is_floating_point_v<T>) {
    std::vector<T> totals(static_cast<std::size_t>(ranks));
    for (int q = 0; q < ranks; ++q) {
      const Slice t = slice_of(n, ranks, q);
      totals[static_cast<std::size_t>(q)] = fold(in, t.begin, t.size, op);
    }
    const T right = fold(totals, 0, static_cast<std::size_t>(rank), op);
    T reversed = Op::identity();
    for (int q = 0; q < rank; ++q) reversed = op(totals[static_cast<std::size_t>(q)], reversed);
    const std::string who = "rank " + std::to_string(rank) + "'s slice";
    hint = seed_hint(in, got, s.begin, s.size, right,
                     {{"has the totals of the ranks before it combined in the wrong order: rank 0's total is the "
                       "LEFT-most operand of the offset",
                       reversed},
                      {"has an offset that includes its own slice's total: only the ranks BEFORE it count",
                       fold(totals, 0, static_cast<std::size_t>(rank) + 1, op)},
                      {"has only the total of the rank just before it as its offset: the offset combines the totals "
                       "of ALL the ranks before it",
                       rank > 0 ? totals[static_cast<std::size_t>(rank - 1)] : Op::identity()}},
                     kind, op, who);
  }
  if (hint.empty()) hint = wrong_value_hint(r, got.data(), n);
  FAIL_CHECK(what << ": " << r.message() << where << (hint.empty() ? "" : "\n  ") << hint << last_call_notes());
  return false;
}

// Sizes: n < ranks, slices of under a tile, one tile plus a ragged rest, several tiles per slice.
const std::size_t kAcrossSizes[] = {2, 1000, 3 * kTile + 5, 5 * kTile + 2, 20011};

template <class T, class Op>
void check_across_sizes(Op op, const std::string& form, std::uint64_t stream) {
  for (const std::size_t n : kAcrossSizes) {
    const std::vector<T> in = inputs<T>(n, ++stream);
    for (const int ranks : {1, 2, 3}) {
      for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
        if (!check_across(in, ranks, kind, form, false, op)) return;
      }
    }
  }
}

}  // namespace

TEST_CASE("the offset of a rank: the totals of the ranks before it, in rank order" *
          doctest::description("points: 10")) {
  check_combine<std::int32_t>(Plus<std::int32_t>{}, 100);
  check_combine<Affine<std::uint32_t>>(AffineCompose<std::uint32_t>{}, 200);
}

TEST_CASE("the local scan starts from its seed: int32 sums and affine maps" * doctest::description("points: 15")) {
  for_each_block_order([&] {
    check_seeded_sizes<std::int32_t>(Plus<std::int32_t>{}, 300);
    check_seeded_sizes<Affine<std::uint32_t>>(AffineCompose<std::uint32_t>{}, 400);
  });
}

TEST_CASE("the local scan starts from its seed: float sums, and in place" * doctest::description("points: 10")) {
  check_seeded_sizes<float>(Plus<float>{}, 500);
  const std::vector<Affine<std::uint32_t>> in = random_affines(3 * kTile + 11, 550);
  const Affine<std::uint32_t> seed = random_affines(1, 551)[0];
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    if (!check_seeded(in, seed, kind, true, AffineCompose<std::uint32_t>{})) break;
  }
}

TEST_CASE("scan across 1, 2 and 3 ranks: int32 sums, both forms" * doctest::description("points: 20")) {
  check_across_sizes<std::int32_t>(Plus<std::int32_t>{}, "fused", 600);
  check_across_sizes<std::int32_t>(Plus<std::int32_t>{}, "scan-then-add", 700);
}

TEST_CASE("scan across 1, 2 and 3 ranks: affine maps (not commutative), both forms" *
          doctest::description("points: 20")) {
  for_each_block_order([&] {
    check_across_sizes<Affine<std::uint32_t>>(AffineCompose<std::uint32_t>{}, "fused", 800);
  });
  check_across_sizes<Affine<std::uint32_t>>(AffineCompose<std::uint32_t>{}, "scan-then-add", 900);
}

TEST_CASE("scan across 1, 2 and 3 ranks: float sums" * doctest::description("points: 10")) {
  check_across_sizes<float>(Plus<float>{}, "fused", 1000);
}

TEST_CASE("scan across ranks in place, with empty slices" * doctest::description("points: 15")) {
  using A = Affine<std::uint32_t>;
  const AffineCompose<std::uint32_t> op;
  std::uint64_t stream = 1100;
  // n = 0 and n < ranks leave ranks without elements; they still take part in the exchange.
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, 2 * kTile + 3, std::size_t{9001}}) {
    const std::vector<A> in = random_affines(n, ++stream);
    for (const std::string form : {"fused", "scan-then-add"}) {
      for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
        if (!check_across(in, 3, kind, form, true, op)) return;
      }
    }
  }
}
