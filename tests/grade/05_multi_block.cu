// Grading tests for chapter 05: scans of any length across many blocks, by scan-then-propagate
// and by reduce-then-scan.
//
// Each result is one scan of the whole array, compared element by element with the sequential
// definition (exactly for integers and affine maps, against a float64 reference for floats), in a
// poisoned output. Sizes sit on the tile boundaries of both tile shapes (0, 1, 31, 32, 33,
// tile - 1, tile, tile + 1, 2 * tile + 1) and go up to 3 levels of recursion and several million
// elements. With one-warp tiles of 32 a small array already spans dozens of blocks, and
// reduce-then-scan is also run with its grid capped at 3 blocks so that every block carries a
// prefix across several tiles: a carry that only works for two blocks (a missing or wrong scan of
// the block sums, a prefix taken from the neighbour only) fails. The affine operator is not
// commutative, so a block sum added on the wrong side fails too. On the emulator the multi-block
// tests also run with the blocks in reverse and in random order. The untouched exercise stubs
// write nothing (or not everything), so they fail every case below. This is the checker: the
// student's code runs in the runner (05_multi_block_runner.cu), another process. (n == 0 and the
// launch code are given, so no case grades them.) The last case runs each phase over only the last
// tiles of arrays of 2^31 + 5 and 2^32 + 5 elements, where an index computed in 32 bits wraps
// (scanlab/grading/far.hpp; with --gpu the whole scan of the whole array).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;
using scanlab::random_test_input;

enum class Algo { scan_then_propagate, reduce_then_scan };

const char* name_of(Algo a) { return a == Algo::scan_then_propagate ? "scan_then_propagate" : "reduce_then_scan"; }

// The whole scan, element by element, and element 0 on its own. The scan may widen its input
// (int32 into int64 sums): the oracle then scans the widened input.
template <class In, class Op>
bool check_whole_scan(const std::vector<In>& in, const std::vector<typename Op::value_type>& got, ScanKind kind,
                      Op op) {
  using Acc = typename Op::value_type;
  if constexpr (std::is_same_v<In, Acc>) {
    return check_scan(in, got, kind, op);
  } else {
    return check_scan(std::vector<Acc>(in.begin(), in.end()), got, kind, op);
  }
}

// The two tile shapes of the chapter: LargeTiles (4096 elements) and WarpTiles (one warp, 32).
struct LargeTiles {
  static constexpr std::size_t kTile = 4096;
  static constexpr const char* kName = "large";
};
struct WarpTiles {
  static constexpr std::size_t kTile = 32;
  static constexpr const char* kName = "warp";
};

// One scan under test (the runner's entry `scan`): poisoned output (or in place), checked whole.
template <class Policy, class In, class Op>
bool run_and_check(Algo algo, const std::vector<In>& in, ScanKind kind, Op op, unsigned max_blocks = 0,
                   bool in_place = false) {
  using Acc = typename Op::value_type;
  const std::size_t n = in.size();
  INFO(
      std::string(name_of(algo)) << ", " << std::string(scanlab::to_string(kind)) << ", tile " << Policy::kTile
                                 << ", n = " << n
                                 << (max_blocks ? ", at most " + std::to_string(max_blocks) + " blocks" : std::string())
                                 << (in_place ? ", in place" : ""));
  const Reply r = Request("scan")
                      .monoid(op)
                      .kind(kind)
                      .params({{"algo", name_of(algo)},
                               {"tiles", Policy::kName},
                               {"max_blocks", max_blocks},
                               {"in_place", in_place},
                               {"int32_input", !std::is_same_v<In, Acc>}})
                      .input(in)
                      .send();
  last_call_tile_items() = Policy::kTile;  // a failure names the tile of its first wrong element
  return check_whole_scan(in, output<Acc>(r), kind, op);
}

// Tile-boundary sizes for a tile of t, with a few more for one-warp tiles: 32^2 + 1 and 32^3 + 1
// need two and three levels of block sums.
std::vector<std::size_t> boundary_sizes(std::size_t t) {
  std::vector<std::size_t> sizes = {1, 31, 32, 33, t - 1, t, t + 1, 2 * t + 1, 3 * t + 5};
  if (t == 32) {
    sizes.push_back(32 * 32 + 1);
    sizes.push_back(32 * 32 * 32 + 1);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// Random inputs of every boundary size for both tile shapes, inclusive and exclusive; stops at the
// first failing size of each shape.
template <class In, class Op>
void check_boundaries(Algo algo, Op op, unsigned max_blocks, std::uint64_t stream) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    for (const std::size_t n : boundary_sizes(LargeTiles::kTile)) {
      if (!run_and_check<LargeTiles>(algo, random_test_input<In>(n, ++stream), kind, op, max_blocks)) break;
    }
    for (const std::size_t n : boundary_sizes(WarpTiles::kTile)) {
      if (!run_and_check<WarpTiles>(algo, random_test_input<In>(n, ++stream), kind, op, max_blocks)) break;
    }
  }
}

// ---- past 2^31 elements --------------------------------------------------------------------------

// Compares got with expected exactly, naming the first wrong element by its place in the array
// (from `first`) and `what` it is.
bool check_exact(const std::vector<std::int32_t>& expected, const std::vector<std::int32_t>& got, std::size_t first,
                 const char* what) {
  REQUIRE_MESSAGE(got.size() == expected.size(),
                  "the runner returned " << got.size() << " " << what << " for " << expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (!(got[i] == expected[i])) {
      CHECK_MESSAGE(got[i] == expected[i], what << " " << first + i << ": expected " << expected[i] << ", got "
                                                << scanlab::detail::display_with_poison(got[i]));
      return false;
    }
  }
  return true;
}

// On the emulator: the phases of `algo` over the last units of a large array, with the checker's
// carries in place of phase 2 (random ones: the phases must combine whatever the carry is). Each
// carry's elements are one scan started from that carry; phase 1 wrote each unit's total.
bool check_phases_window(Algo algo, ScanKind kind, std::size_t tiles_per_block, std::size_t n, std::size_t first,
                         std::uint64_t& stream) {
  const std::size_t unit = tiles_per_block * LargeTiles::kTile;
  const std::vector<std::int32_t> in = far_window(first, n);
  const std::size_t count = (in.size() + unit - 1) / unit;
  const std::vector<std::int32_t> carries = random_ints(count, ++stream);
  Request request("phases_window");
  request.monoid(Plus<std::int32_t>{})
      .kind(kind)
      .params({{"algo", name_of(algo)}, {"n", n}, {"first", first}, {"tiles_per_block", tiles_per_block}});
  const Reply r = request.input(in).input(carries).send();
  std::vector<std::int32_t> expected(in.size());
  std::vector<std::int32_t> totals(count);
  for (std::size_t u = 0; u < count; ++u) {
    const std::size_t begin = u * unit;
    const std::size_t len = std::min(unit, in.size() - begin);
    scan_from(in.data() + begin, expected.data() + begin, len, kind, Plus<std::int32_t>{}, carries[u]);
    totals[u] = fold_range(in.data(), begin, begin + len, Plus<std::int32_t>{});
  }
  return check_exact(totals, output<std::int32_t>(r, 1), first / unit,
                     algo == Algo::scan_then_propagate ? "phase 1's tile sum of tile" : "phase 1's partial of block") &&
         check_exact(expected, output<std::int32_t>(r, 0), first, "element");
}

// On a GPU: the whole scan of the large array, made on the device; elements [first, n) checked.
bool check_scan_far(Algo algo, ScanKind kind, std::size_t n, std::size_t first) {
  const Reply r = far_request("scan_far", n, first)
                      .monoid(Plus<std::int32_t>{})
                      .kind(kind)
                      .params({{"algo", name_of(algo)}})
                      .send();
  // The sum of elements [0, first), once per length (2^32 of them take seconds on the host).
  static std::map<std::size_t, std::int32_t> prefixes;
  if (prefixes.count(first) == 0) {
    std::int32_t sum = 0;
    for (std::size_t i = 0; i < first; ++i) sum += far_input(i);
    prefixes[first] = sum;
  }
  const std::int32_t prefix = prefixes[first];
  const std::vector<std::int32_t> in = far_window(first, n);
  std::vector<std::int32_t> expected(in.size());
  scan_from(in.data(), expected.data(), in.size(), kind, Plus<std::int32_t>{}, prefix);
  return check_exact(expected, output<std::int32_t>(r, 0), first, "element");
}

}  // namespace

// ---- every size around the tiles ----------------------------------------------------------------

TEST_CASE("scan-then-propagate of int32 is one scan of the whole array at every tile boundary" *
          doctest::description("points: 20")) {
  check_boundaries<std::int32_t>(Algo::scan_then_propagate, Plus<std::int32_t>{}, 0, 100);
}

TEST_CASE("reduce-then-scan of int32 is one scan of the whole array at every tile boundary" *
          doctest::description("points: 20")) {
  check_boundaries<std::int32_t>(Algo::reduce_then_scan, Plus<std::int32_t>{}, 0, 200);
  INFO("grid capped at 3 blocks: every block carries its prefix across several tiles");
  check_boundaries<std::int32_t>(Algo::reduce_then_scan, Plus<std::int32_t>{}, 3, 300);
}

// ---- carries across many blocks, in any order, keeping operand order ------------------------

TEST_CASE("carries reach every block: affine maps (not commutative) over 3 to 1000+ blocks, any block order" *
          doctest::description("points: 20")) {
  using Op = AffineCompose<std::uint32_t>;
  using T = Affine<std::uint32_t>;
  for_each_block_order([] {
    std::uint64_t stream = 400;
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      // One-warp tiles: 3 blocks, 2 levels, 3 levels of block sums.
      for (const std::size_t n :
           {std::size_t{3 * 32}, std::size_t{3 * 32 + 1}, std::size_t{1000}, std::size_t{40000}}) {
        CHECK(run_and_check<WarpTiles>(Algo::scan_then_propagate, random_test_input<T>(n, ++stream), kind, Op{}));
        CHECK(run_and_check<WarpTiles>(Algo::reduce_then_scan, random_test_input<T>(n, ++stream), kind, Op{}));
        CHECK(run_and_check<WarpTiles>(Algo::reduce_then_scan, random_test_input<T>(n, ++stream), kind, Op{}, 3));
      }
      // Large tiles: 3 and 5 tiles.
      for (const std::size_t n : {std::size_t{3 * 4096}, std::size_t{4 * 4096 + 17}}) {
        CHECK(run_and_check<LargeTiles>(Algo::scan_then_propagate, random_test_input<T>(n, ++stream), kind, Op{}));
        CHECK(run_and_check<LargeTiles>(Algo::reduce_then_scan, random_test_input<T>(n, ++stream), kind, Op{}, 3));
      }
    }
  });
}

// ---- types ---------------------------------------------------------------------------------------

TEST_CASE("both algorithms scan uint32, int64, uint64, float32, int32 into int64 sums, and max" *
          doctest::description("points: 15")) {
  std::uint64_t stream = 500;
  for (const Algo algo : {Algo::scan_then_propagate, Algo::reduce_then_scan}) {
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      for (const std::size_t n : {std::size_t{33}, std::size_t{3 * 4096 + 1}}) {
        CHECK(run_and_check<LargeTiles>(algo, random_test_input<std::uint32_t>(n, ++stream), kind,
                                        Plus<std::uint32_t>{}));
        CHECK(
            run_and_check<LargeTiles>(algo, random_test_input<std::int64_t>(n, ++stream), kind, Plus<std::int64_t>{}));
        CHECK(run_and_check<WarpTiles>(algo, random_test_input<std::uint64_t>(n, ++stream), kind, Plus<std::uint64_t>{},
                                       3));
        CHECK(run_and_check<LargeTiles>(algo, random_test_input<float>(n, ++stream), kind, Plus<float>{}));
        CHECK(
            run_and_check<LargeTiles>(algo, random_test_input<std::int32_t>(n, ++stream), kind, Plus<std::int64_t>{}));
        CHECK(run_and_check<WarpTiles>(algo, random_test_input<std::int32_t>(n, ++stream), kind, Max<std::int32_t>{}));
      }
    }
  }
  // Sums past 2^32 in 64 bits: a constant 2^30 input, 7 tiles.
  const std::vector<std::int64_t> big(7 * 4096 + 3, std::int64_t{1} << 30);
  CHECK(run_and_check<LargeTiles>(Algo::reduce_then_scan, big, ScanKind::inclusive, Plus<std::int64_t>{}, 3));
  CHECK(run_and_check<LargeTiles>(Algo::scan_then_propagate, big, ScanKind::exclusive, Plus<std::int64_t>{}));
}

// ---- in place, large and random sizes ------------------------------------------------------------

TEST_CASE("in place, and random sizes up to 10^7, for both algorithms" * doctest::description("points: 15")) {
  scanlab::Rng rng(scanlab::test_seed(600));
  std::uint64_t stream = 600;
  for (const Algo algo : {Algo::scan_then_propagate, Algo::reduce_then_scan}) {
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      CHECK(run_and_check<LargeTiles>(algo, random_test_input<std::int32_t>(5 * 4096 + 9, ++stream), kind,
                                      Plus<std::int32_t>{}, 3, /*in_place=*/true));
      CHECK(run_and_check<WarpTiles>(algo, random_test_input<Affine<std::uint32_t>>(2000, ++stream), kind,
                                     AffineCompose<std::uint32_t>{}, 0, /*in_place=*/true));
    }
    // One random length in [10^5, 10^6) and one in [10^6, 10^7]; int64 sums of int32, so nothing wraps.
    const std::size_t medium = 100000 + static_cast<std::size_t>(rng.below(900000));
    const std::size_t large = 1000000 + static_cast<std::size_t>(rng.below(9000001));
    CHECK(run_and_check<LargeTiles>(algo, random_test_input<std::int32_t>(medium, ++stream), ScanKind::exclusive,
                                    Plus<std::int64_t>{}));
    CHECK(run_and_check<LargeTiles>(algo, random_test_input<std::int32_t>(large, ++stream), ScanKind::inclusive,
                                    Plus<std::int64_t>{}));
  }
}

TEST_CASE("past 2^31 and 2^32 elements: the last tiles of scan-then-propagate, the last blocks of reduce-then-scan" *
          doctest::description("points: 10")) {
  // On the emulator only the last tiles exist (the kernels are handed pointers that reach them at
  // their true positions) and each phase runs on its own; with --gpu the whole array is made and
  // scanned on the device.
  std::uint64_t stream = 9000;
  for (const Algo algo : {Algo::scan_then_propagate, Algo::reduce_then_scan}) {
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      INFO(name_of(algo) << ", " << scanlab::to_string(kind) << ", tiles of " << LargeTiles::kTile);
      const bool stp = algo == Algo::scan_then_propagate;
      const std::size_t tiles_per_block = stp ? 1 : 2;
      const bool ok = check_last_units(
          tiles_per_block * LargeTiles::kTile, 3, stp ? "tiles of 4096 elements" : "blocks of 2 tiles of 4096 elements",
          stp ? "block b handles tile first_tile + b" : "block b handles the tiles of block first_block + b",
          {kPast2To31, kPast2To32}, [&](std::size_t n, std::size_t first) {
            return on_emulator() ? check_phases_window(algo, kind, tiles_per_block, n, first, stream)
                                 : check_scan_far(algo, kind, n, first);
          });
      if (!ok) return;
    }
  }
}
