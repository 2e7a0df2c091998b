// Grading tests for chapter 04: warp-shuffle scans, the block scan from warp scans, and the
// items-per-thread tile scan. This is the checker: the student's code runs in the runner
// (04_warp_and_registers_runner.cu), another process.
//
// Every construction scans independent tiles, so each result is checked tile by tile against the
// oracle (exactly for integers and affine maps, against a float64 reference for floats), in a
// poisoned output, with element 0 of every tile checked on its own. Sizes sit around the warp, the
// warp-count boundaries of a block and the tile (1, 31, 32, 33, tile - 1, tile, tile + 1,
// 2 * tile + 1) plus random lengths. The affine operator is not commutative, so a swapped operand
// anywhere fails; blocks with several warps catch a warp total taken from the wrong lane. The
// block_total every thread receives is checked too (exact monoids), for blocks of 1 to 32 warps:
// a block scan that folds all 32 warp slots only works when the block has 32 warps. The untouched
// exercise stubs scan nothing, so they fail every case below. (The launch wrappers' argument checks
// and n == 0 are given code, so no case grades them.)
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

constexpr std::size_t kWarp = 32;
constexpr int kBlockThreads = 1024;  // block_tiles' default
const int kItemsTiles[] = {1024, 2048, 4096, 8192};

// Threads per block of the items scan for each tile (chapter 04's given launch shapes).
std::size_t items_threads(int tile) { return tile <= 1024 ? 128 : tile <= 4096 ? 256 : 512; }

// Why a block_total may be wrong when the tile's scan was right (check_tiles runs first): a total
// made of lane 0's elements of each warp only, or, with fewer than 32 warps, more than the block's
// warps folded in. `begin`: the tile's first element.
template <class T, class Op>
std::string block_total_hint(const std::vector<T>& in, const T& got, std::size_t begin, std::size_t tile,
                             std::size_t threads, Op op) {
  const std::size_t items = tile / threads;  // consecutive elements per thread
  const std::size_t end = std::min(in.size(), begin + tile);
  T lane0 = Op::identity();
  for (std::size_t w = begin; w < end; w += kWarp * items) {
    for (std::size_t i = w; i < std::min(end, w + items); ++i) lane0 = op(lane0, in[i]);
  }
  if (got == lane0) {
    return "\n  hint: the scan is right, and block_total is the fold of lane 0's elements of each warp only: a "
           "warp's total must come from its LAST lane, where the inclusive scan has reached the warp's end";
  }
  const std::size_t warps = threads / kWarp;
  if (warps < kWarp) {
    return "\n  hint: the scan is right and only block_total is wrong; this block has " + std::to_string(warps) +
           " warp(s): does the total also fold warp-total slots past the block's last warp?";
  }
  return "\n  hint: the scan is right and only block_total is wrong";
}

// Every thread's block_total (the runner's second output) equals the fold of its tile's valid
// elements. Exact monoids only: a float total has no single right rounding.
template <class T, class Op>
bool check_thread_totals(const std::vector<T>& in, const std::vector<T>& totals, std::size_t tile, std::size_t threads,
                         Op op) {
  if constexpr (std::is_floating_point_v<T>) {
    return true;
  } else {
    const std::size_t tiles = (in.size() + tile - 1) / tile;
    REQUIRE_MESSAGE(totals.size() == tiles * threads, "the runner returned " << totals.size() << " block totals for "
                                                                             << tiles << " tiles of " << threads
                                                                             << " threads");
    for (std::size_t b = 0; b < tiles; ++b) {
      T total = Op::identity();
      for (std::size_t i = b * tile; i < std::min(in.size(), (b + 1) * tile); ++i) total = op(total, in[i]);
      for (std::size_t t = 0; t < threads; ++t) {
        const T& got = totals[b * threads + t];
        if (!(got == total)) {
          FAIL_CHECK("tile " << b << " (" << threads << " threads): thread " << t << " received block_total "
                             << scanlab::detail::display_with_poison(got) << ", but the tile's total is "
                             << scanlab::detail::display_with_poison(total)
                             << block_total_hint(in, got, b * tile, tile, threads, op));
          return false;
        }
      }
    }
    return true;
  }
}

// ---- the three constructions, each run in the runner and checked ------------------------------

// Failures inside a block's tile name the warp of their first wrong element: each warp's elements
// are `per_warp` consecutive elements of the tile.
void name_warps(std::size_t per_warp) {
  last_call_tile_items() = per_warp;
  last_call_tile_name() = "warp";
}

template <class T, class Op>
bool warp_tiles(const std::vector<T>& in, ScanKind kind, Op op) {
  INFO("warp_scan_tiles (tiles of 32, one warp each)");
  return check_tiles(in, call_entry("warp_tiles", op, in, {{"kind", scanlab::to_string(kind)}}), kWarp, kind, op);
}

template <class T, class Op>
bool block_tiles(const std::vector<T>& in, ScanKind kind, Op op, int threads = kBlockThreads, bool in_place = false) {
  INFO("block_scan_tiles, " << threads << " threads (" << threads / 32 << " warps)" << (in_place ? ", in place" : ""));
  const Reply r = Request("block_tiles")
                      .monoid(op)
                      .kind(kind)
                      .params({{"threads", threads}, {"in_place", in_place}})
                      .input(in)
                      .send();
  const auto tile = static_cast<std::size_t>(threads);
  name_warps(kWarp);  // one element per thread
  return check_tiles(in, output<T>(r, 0), tile, kind, op) && check_thread_totals(in, output<T>(r, 1), tile, tile, op);
}

template <class T, class Op>
bool items_tiles(const std::vector<T>& in, ScanKind kind, Op op, int tile, bool in_place = false,
                 std::size_t offset = 0) {
  INFO("items_scan_tiles, tile = " << tile << (in_place ? ", in place" : "")
                                   << (offset ? ", pointers one element past a 16-byte boundary" : ""));
  const Reply r = Request("items_tiles")
                      .monoid(op)
                      .kind(kind)
                      .params({{"tile", tile}, {"in_place", in_place}, {"offset", offset}})
                      .input(in)
                      .send();
  const auto t = static_cast<std::size_t>(tile);
  name_warps(kWarp * (t / items_threads(tile)));  // each thread's items are consecutive
  return check_tiles(in, output<T>(r, 0), t, kind, op) &&
         check_thread_totals(in, output<T>(r, 1), t, items_threads(tile), op);
}

// The boundary sizes for a tile, plus two random lengths below 3 tiles.
std::vector<std::size_t> sizes_for(std::size_t tile, std::uint64_t stream) {
  std::vector<std::size_t> sizes = {1, 31, 32, 33, tile - 1, tile, tile + 1, 2 * tile + 1};
  scanlab::Rng rng(scanlab::test_seed(stream));
  sizes.push_back(2 + rng.below(3 * tile));
  sizes.push_back(2 + rng.below(3 * tile));
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// Random and constant inputs of every size around `tile`, run through `run`, up to the first failure.
template <class T, class MakeRandom, class Run>
void check_all_sizes(std::size_t tile, std::uint64_t stream, ScanKind kind, MakeRandom make_random, const T& constant,
                     Run run) {
  check_random_and_constant(sizes_for(tile, stream), make_random, constant, stream,
                            std::string(scanlab::to_string(kind)) + " scan", [&](const std::vector<T>& in) {
                              return run(in);
                            });
}

template <class T, class Op, class MakeRandom>
void check_warp(ScanKind kind, Op op, MakeRandom make_random, const T& constant) {
  check_all_sizes(kWarp, 100, kind, make_random, constant, [&](const std::vector<T>& in) {
    return warp_tiles(in, kind, op);
  });
}

template <class T, class Op, class MakeRandom>
void check_block(ScanKind kind, Op op, MakeRandom make_random, const T& constant, int threads = kBlockThreads) {
  check_all_sizes(static_cast<std::size_t>(threads), 200 + threads, kind, make_random, constant,
                  [&](const std::vector<T>& in) {
                    return block_tiles(in, kind, op, threads);
                  });
}

template <class T, class Op, class MakeRandom>
void check_items(int tile, ScanKind kind, Op op, MakeRandom make_random, const T& constant) {
  check_all_sizes(static_cast<std::size_t>(tile), 3000 + tile, kind, make_random, constant,
                  [&](const std::vector<T>& in) {
                    return items_tiles(in, kind, op, tile);
                  });
}

}  // namespace

// ---- warp ---------------------------------------------------------------------------------------

TEST_CASE("warp scans of int32 (inclusive and exclusive) equal the oracle in every 32-element tile" *
          doctest::description("points: 15")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_warp(kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  }
}

TEST_CASE("warp scans keep operand order (affine over uint32) and pad with the identity (max)" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_warp(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
    check_warp(kind, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
  }
}

// ---- block: one value per thread -------------------------------------------------------------

TEST_CASE("block scans from warp scans (1024 threads, one value each) equal the oracle" *
          doctest::description("points: 15")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_block(kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  }
}

TEST_CASE("block scans keep operand order across warps (affine over uint32) and handle float32" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_block(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
    check_block(kind, Plus<float>{}, random_floats, kConstantFloat);
  }
}

TEST_CASE("block scans of 1 to 32 warps: every thread gets the right prefix and the block's total" *
          doctest::description("points: 10")) {
  std::uint64_t stream = 5000;
  for (int warps = 1; warps <= 32; ++warps) {
    const int threads = 32 * warps;
    const std::size_t n = 2 * static_cast<std::size_t>(threads) + 5;  // two full tiles and a ragged one
    if (!block_tiles(random_affines(n, ++stream), ScanKind::exclusive, AffineCompose<std::uint32_t>{}, threads)) break;
    if (!block_tiles(random_ints(n, ++stream), ScanKind::inclusive, Plus<std::int32_t>{}, threads)) break;
  }
}

// ---- items per thread --------------------------------------------------------------------------

TEST_CASE("items-per-thread tile scans of int32 equal the oracle for tiles of 1024 to 8192" *
          doctest::description("points: 15")) {
  for (const int tile : kItemsTiles) {
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      check_items(tile, kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
    }
  }
}

TEST_CASE("items-per-thread scans keep operand order (affine), pad with the identity (max), float32" *
          doctest::description("points: 15")) {
  for (const int tile : {1024, 4096}) {
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      check_items(tile, kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
      check_items(tile, kind, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
      check_items(tile, kind, Plus<float>{}, random_floats, kConstantFloat);
    }
  }
}

TEST_CASE("block and items scans work in place and from pointers that are not 16-byte aligned" *
          doctest::description("points: 10")) {
  using Op = Plus<std::int32_t>;
  const int tile = 2048;
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    CHECK(items_tiles(random_ints(3 * tile + 5, 900), kind, Op{}, tile, /*in_place=*/true));
    CHECK(block_tiles(random_ints(2 * 1024 + 7, 901), kind, Op{}, kBlockThreads, /*in_place=*/true));
  }
  // One element past a 16-byte boundary: full tiles cannot use vector loads and must still scan.
  CHECK(items_tiles(random_ints(2 * tile + 3, 902), ScanKind::inclusive, Op{}, tile, false, /*offset=*/1));
}
