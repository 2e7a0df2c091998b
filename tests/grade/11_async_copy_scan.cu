// Grading tests for chapter 11: the asynchronous-copy scan (chapter 07's single pass, each tile
// staged in shared memory by bulk copies, one barrier per chunk).
//
// Sizes around the tile and the chunk (tile - 1, tile, tile + 1, many tiles, odd large sizes, one
// element); random and constant inputs; exclusive, inclusive, in place and through unaligned
// pointers (no bulk copies there: the tile is read from global memory); a non-commutative operator,
// float and int64 sums. Tiles of one, two and three chunks; the one-tile kernel, and the two-tile
// kernel that large scans run (each block loops over tiles). On the emulator: every dispatch order
// and residency must verify, and with the race checker on, no thread may read a chunk before its
// copy has landed. The untouched exercise copies nothing into the stage, so every staged tile is
// wrong.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;

// A tile shape of the runner: chunks of block_threads x items elements (and, for the two-tile
// kernel, how many tiles' stages a block has).
struct Tile {
  int block_threads;
  int items;
  int chunks;
  int stages = 2;
};
constexpr Tile kSmall{64, 4, 2};                // 512 elements per tile, two chunks of two warps
constexpr Tile kOneChunk{64, 4, 1};             // 256 elements per tile, one chunk
constexpr Tile kThree{32, 4, 3};                // 384 elements per tile, three chunks of one warp
constexpr Tile kDefault{128, 16, 4};            // the chapter's default: 8192 elements per tile
constexpr Tile kSmallThreeStages{64, 4, 2, 3};  // kSmall, and a third stage in flight (two-tile kernel)
constexpr std::size_t kSmallTile = 512;
constexpr std::size_t kDefaultTile = 8192;

json scan_params(ScanKind kind, Tile tile) {
  return {{"kind", scanlab::to_string(kind)},
          {"block_threads", tile.block_threads},
          {"items", tile.items},
          {"chunks", tile.chunks},
          {"stages", tile.stages}};
}

// Which of the chapter's staged kernels runs: one tile per block, or two (the one large scans run).
enum class Kernel { one_tile, two_tiles };

// The scan under test (the runner's async_copy_scan entry) into a poisoned output: in place, or at
// `offset` elements into the buffers, by `kernel`.

template <class T, class Op>
std::vector<T> scan(Tile tile, const std::vector<T>& in, ScanKind kind, Op op, bool in_place = false,
                    std::size_t offset = 0, Kernel kernel = Kernel::one_tile) {
  json params = scan_params(kind, tile);
  params["in_place"] = in_place;
  params["offset"] = offset;
  params["two_tiles"] = kernel == Kernel::two_tiles;
  return call_entry("async_copy_scan", op, in, params);
}

// Random and constant inputs of every size, up to the first failure.
template <class T, class Op, class MakeRandom>
bool check_sizes(Tile tile, const std::vector<std::size_t>& sizes, ScanKind kind, Op op, MakeRandom make_random,
                 const T& constant, std::uint64_t stream, Kernel kernel = Kernel::one_tile) {
  const std::string what =
      std::string(scanlab::to_string(kind)) + " scan" + (kernel == Kernel::two_tiles ? ", two tiles per block" : "");
  return check_random_and_constant(sizes, make_random, constant, stream, what, [&](const std::vector<T>& in) {
    return check_scan(in, scan(tile, in, kind, op, false, 0, kernel), kind, op);
  });
}

}  // namespace

TEST_CASE("int32 exclusive sum of any length equals the oracle" * doctest::description("points: 20")) {
  if (!check_sizes(kSmall, single_pass_test_sizes(kSmallTile), ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                   std::int32_t{3}, 100)) {
    return;
  }
  // One chunk and three chunks per tile.
  if (!check_sizes(kOneChunk, {255, 256, 257, 256 * 9 + 5}, ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                   std::int32_t{4}, 150)) {
    return;
  }
  if (!check_sizes(kThree, {383, 384, 385, 384 * 11 + 129}, ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                   std::int32_t{-1}, 170)) {
    return;
  }
  // The default tile (128 threads x 16 x 4 chunks), across a few tiles and a partial last one.
  check_sizes(kDefault, {kDefaultTile * 3 + 7, kDefaultTile * 6}, ScanKind::exclusive, Plus<std::int32_t>{},
              random_ints, std::int32_t{-2}, 200);
}

TEST_CASE("int32 inclusive sum and running max equal the oracle" * doctest::description("points: 10")) {
  if (!check_sizes(kSmall, single_pass_test_sizes(kSmallTile), ScanKind::inclusive, Plus<std::int32_t>{}, random_ints,
                   std::int32_t{5}, 300)) {
    return;
  }
  check_sizes(kSmall, {kSmallTile * 5 + 3, 40000}, ScanKind::exclusive, Max<std::int32_t>{}, random_ints,
              std::int32_t{-7}, 400);
}

TEST_CASE("non-commutative affine maps keep operand order across tiles" * doctest::description("points: 15")) {
  if (!check_sizes(kSmall, single_pass_test_sizes(kSmallTile), ScanKind::exclusive, AffineCompose<std::uint32_t>{},
                   random_affines, kConstantAffine, 800)) {
    return;
  }
  check_sizes(kSmall, {33 * kSmallTile + 1}, ScanKind::inclusive, AffineCompose<std::uint32_t>{}, random_affines,
              kConstantAffine, 900);
}

TEST_CASE("float32 sums match a float64 reference and int64 sums are exact" * doctest::description("points: 5")) {
  if (!check_sizes(kSmall, {kSmallTile + 1, 50001}, ScanKind::exclusive, Plus<float>{}, random_floats, kConstantFloat,
                   1000)) {
    return;
  }
  // Values near 2^40: every prefix needs more than 32 bits, so fused 64-bit words could not hold it.
  auto big = [](std::size_t n, std::uint64_t stream) {
    return scanlab::random_vector<std::int64_t>(n, scanlab::test_seed(stream), std::int64_t{1} << 40,
                                                std::int64_t{1} << 41);
  };
  check_sizes(kSmall, {kSmallTile * 3 + 1, 30001}, ScanKind::inclusive, Plus<std::int64_t>{}, big,
              std::int64_t{1} << 39, 1100);
}

TEST_CASE("in place (out == in) and through unaligned pointers (no vector loads)" *
          doctest::description("points: 10")) {
  using I = std::int32_t;
  for (const std::size_t n : {kSmallTile * 7 + 5, kDefaultTile * 2 + 1}) {
    INFO("n = " << n);
    const std::vector<I> in = random_ints(n, 1200 + n);
    INFO("in place, small tiles");
    if (!check_scan(in, scan(kSmall, in, ScanKind::exclusive, Plus<I>{}, true), ScanKind::exclusive, Plus<I>{})) return;
    INFO("in place, default tiles");
    if (!check_scan(in, scan(kDefault, in, ScanKind::inclusive, Plus<I>{}, true), ScanKind::inclusive, Plus<I>{}))
      return;
    INFO("pointers one element past a 16-byte boundary (no bulk copy can start there)");
    if (!check_scan(in, scan(kDefault, in, ScanKind::exclusive, Plus<I>{}, false, 1), ScanKind::exclusive, Plus<I>{})) {
      return;
    }
  }
}

// The kernel large scans run: each block loops over tiles, two stages, a warp of its own for the
// look-back (the book's third step). Your staging is the same code there.
TEST_CASE("two tiles per block: sums, affine maps, in place and unaligned equal the oracle" *
          doctest::description("points: 10")) {
  using I = std::int32_t;
  const Kernel two = Kernel::two_tiles;
  if (!check_sizes(kSmall, single_pass_test_sizes(kSmallTile), ScanKind::exclusive, Plus<I>{}, random_ints, I{3}, 1300,
                   two) ||
      !check_sizes(kThree, {383, 385, 384 * 11 + 129}, ScanKind::inclusive, Plus<I>{}, random_ints, I{-1}, 1320, two) ||
      !check_sizes(kSmall, {kSmallTile * 9 + 1}, ScanKind::inclusive, AffineCompose<std::uint32_t>{}, random_affines,
                   kConstantAffine, 1340, two) ||
      !check_sizes(kDefault, {kDefaultTile * 5 + 7}, ScanKind::exclusive, Plus<float>{}, random_floats, kConstantFloat,
                   1360, two)) {
    return;
  }
  const std::vector<I> in = random_ints(kDefaultTile * 2 + 1, 1380);
  INFO("in place, default tiles, two tiles per block");
  if (!check_scan(in, scan(kDefault, in, ScanKind::inclusive, Plus<I>{}, true, 0, two), ScanKind::inclusive, Plus<I>{}))
    return;
  INFO("pointers one element past a 16-byte boundary, two tiles per block");
  check_scan(in, scan(kDefault, in, ScanKind::exclusive, Plus<I>{}, false, 1, two), ScanKind::exclusive, Plus<I>{});
}

// (That the scan object refuses more than it was made for is the given host code's check, not
// yours: it earns nothing and is no longer graded here.)
TEST_CASE("n == 0 writes nothing; the same scan object scans correctly twice in a row" *
          doctest::description("points: 5")) {
  using I = std::int32_t;
  json params = scan_params(ScanKind::exclusive, kDefault);
  params["n"] = 0;
  const std::vector<I> none = call_entry("async_copy_scan", Plus<I>{}, random_ints(kSmallTile * 3, 1250), params);
  CHECK_MESSAGE(scanlab::count_poison(none.data(), none.size()) == none.size(), "n == 0 must not write the output");
  // The same object twice: its descriptors, ticket and barriers must start afresh each time.
  const std::vector<I> in = random_ints(kSmallTile * 2 + 3, 1300);
  json reused = scan_params(ScanKind::exclusive, kSmall);
  reused["rounds"] = 2;
  const Reply r = Request("async_copy_scan_reused").monoid(Plus<I>{}).params(reused).input(in).send();
  for (std::size_t round = 0; round < 2; ++round) {
    INFO("round " << round);
    if (!check_scan(in, output<I>(r, round), ScanKind::exclusive, Plus<I>{})) return;
  }
}

// The emulator's settings below (block order, residency, memory model) are ignored by a GPU runner:
// there these cases check the scan under the hardware's own order and memory model.

TEST_CASE("emulator: the ticket makes every dispatch order and residency safe" * doctest::description("points: 10")) {
  EmuSettingsGuard guard;
  using I = std::int32_t;
  const std::vector<I> in = random_ints(40 * kSmallTile + 3, 1400);
  for (const char* schedule : {"in-order", "reverse", "random"}) {
    for (const unsigned resident : {1u, 2u, 5u}) {
      emu_settings()["schedule"] = schedule;
      emu_settings()["resident"] = resident;
      emu_settings()["seed"] = scanlab::test_seed();
      INFO("emulator: " << emu_settings().dump());
      if (!check_scan(in, scan(kSmall, in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{})) return;
      // Two tiles per block: a grid of as many blocks as are resident, each looping over tiles;
      // with three stages a block holds three tickets at once.
      for (const Tile tile : {kSmall, kSmallThreeStages}) {
        INFO("two tiles per block, " << tile.stages << " stages");
        if (!check_scan(in, scan(tile, in, ScanKind::exclusive, Plus<I>{}, false, 0, Kernel::two_tiles),
                        ScanKind::exclusive, Plus<I>{}))
          return;
      }
    }
  }
}

TEST_CASE("emulator: no thread reads a chunk before its copy has landed (race checker)" *
          doctest::description("points: 15")) {
  EmuSettingsGuard guard;
  emu_settings()["racecheck"] = true;
  using I = std::int32_t;
  for (std::uint64_t k = 0; k < 5; ++k) {
    // The emulator lands each copy at its issue or as late as the barrier allows, by its seed.
    emu_settings()["seed"] = scanlab::derive_seed(scanlab::test_seed(), 1900 + k);
    emu_settings()["schedule"] = k == 1 ? "random" : "in-order";
    INFO("emulator: " << emu_settings().dump() << (k >= 3 ? ", two tiles per block" : "")
                      << (k == 4 ? ", three stages" : ""));
    const std::vector<I> in = random_ints(kSmallTile * 12 + 100, 2000 + k);
    json params = scan_params(ScanKind::inclusive, k == 2 ? kThree : k == 4 ? kSmallThreeStages : kSmall);
    params["two_tiles"] = k >= 3;
    const Reply r = Request("async_copy_scan").monoid(Plus<I>{}).params(params).input(in).send();
    if (!r.ok()) {
      FAIL_CHECK("the scan failed: " << Request::describe(r));
      return;
    }
    if (!check_scan(in, output<I>(r, 0), ScanKind::inclusive, Plus<I>{})) return;
    if (on_emulator()) {
      const json found = r.info.value("emulator", json::array());
      CHECK_MESSAGE(found.empty(), "the emulator's race checker found: " << found.dump(2));
    }
  }
}
