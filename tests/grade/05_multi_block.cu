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
// launch code are given, so no case grades them.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

const char* name_of(Algo a) {
  return a == Algo::scan_then_propagate ? "scan_then_propagate" : "reduce_then_scan";
}

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
struct LargeTiles { static constexpr std::size_t kTile = 4096; static constexpr const char* kName = "large"; };
struct WarpTiles { static constexpr std::size_t kTile = 32; static constexpr const char* kName = "warp"; };

// One scan under test (the runner's entry `scan`): poisoned output (or in place), checked whole.
template <class Policy, class In, class Op>
bool run_and_check(Algo algo, const std::vector<In>& in, ScanKind kind, Op op, unsigned max_blocks = 0,
                   bool in_place = false) {
  using Acc = typename Op::value_type;
  const std::size_t n = in.size();
  INFO(std::string(name_of(algo)) << ", " << std::string(scanlab::to_string(kind)) << ", tile " << Policy::kTile << ", n = " << n
                     << (max_blocks ? ", at most " + std::to_string(max_blocks) + " blocks" : std::string())
                     << (in_place ? ", in place" : ""));
  const Reply r = Request("scan").monoid(op).kind(kind)
                      .params({{"algo", name_of(algo)}, {"tiles", Policy::kName}, {"max_blocks", max_blocks},
                               {"in_place", in_place}, {"int32_input", !std::is_same_v<In, Acc>}})
                      .input(in).send();
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

}  // namespace

// ---- every size around the tiles ----------------------------------------------------------------

TEST_CASE("scan-then-propagate of int32 is one scan of the whole array at every tile boundary" *
          doctest::description("points: 15")) {
  check_boundaries<std::int32_t>(Algo::scan_then_propagate, Plus<std::int32_t>{}, 0, 100);
}

TEST_CASE("reduce-then-scan of int32 is one scan of the whole array at every tile boundary" *
          doctest::description("points: 15")) {
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
      for (const std::size_t n : {std::size_t{3 * 32}, std::size_t{3 * 32 + 1}, std::size_t{1000}, std::size_t{40000}}) {
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
        CHECK(run_and_check<LargeTiles>(algo, random_test_input<std::int64_t>(n, ++stream), kind,
                                              Plus<std::int64_t>{}));
        CHECK(run_and_check<WarpTiles>(algo, random_test_input<std::uint64_t>(n, ++stream), kind,
                                             Plus<std::uint64_t>{}, 3));
        CHECK(run_and_check<LargeTiles>(algo, random_test_input<float>(n, ++stream), kind, Plus<float>{}));
        CHECK(run_and_check<LargeTiles>(algo, random_test_input<std::int32_t>(n, ++stream), kind,
                                              Plus<std::int64_t>{}));
        CHECK(run_and_check<WarpTiles>(algo, random_test_input<std::int32_t>(n, ++stream), kind,
                                             Max<std::int32_t>{}));
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
