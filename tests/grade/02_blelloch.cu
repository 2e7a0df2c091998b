// Grading tests for chapter 02: the Blelloch (work-efficient) scan of one tile in one block, and
// many independent tiles. This is the checker: the student's code runs in the runner
// (02_blelloch_runner.cu), another process.
//
// Sizes: single elements, a warp +-1, half a tile +-1, the 1024 boundary and the full 2048-element
// tile, so that every padding case (n just above and just below a power of two) is met. Inputs are
// random and constant; each result is compared with the oracle in a poisoned output (exactly for
// integers and affine maps, against a float64 reference for floats), and element 0 is checked on
// its own (the identity for exclusive scans). The affine operator is not commutative, so an operand
// swap anywhere in the up-sweep or the down-sweep fails; the max scan pads with INT32_MIN, so
// padding with a literal 0 instead of Op::identity() fails. The untouched stubs write nothing and
// fail every case. (The launch wrappers' argument checks are given code, so no case grades them.)
// The last case runs only the last tiles of arrays of 2^31 + 5 and 2^32 + 5 elements, where an
// index computed in 32 bits wraps (scanlab/grading/far.hpp; with --gpu the whole array).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;

const int kBlockSizes[] = {1, 2, 3, 31, 32, 33, 511, 512, 1023, 1024, 2047, 2048};
const int kTileSizes[] = {2, 64, 1024, 2048};

// The block scan under test (the runner's entry block_scan), into a fresh poisoned output.
template <class T, class Op>
std::vector<T> block_scan(const std::vector<T>& in, ScanKind kind, Op op) {
  return call_entry("block_scan", op, in, {{"kind", scanlab::to_string(kind)}});
}

// Random and constant inputs of every size in kBlockSizes, up to the first failure.
template <class T, class Op, class MakeRandom>
void check_block_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant) {
  std::uint64_t stream = 0;
  const auto check = [&](const std::vector<T>& in) {
    return check_scan(in, block_scan(in, kind, op), kind, op);
  };
  check_random_and_constant(kBlockSizes, make_random, constant, stream,
                            std::string(scanlab::to_string(kind)) + " block scan", check);
}

// Every tile size with the lengths of tile_test_sizes, checked tile by tile, up to the first failure.
template <class T, class Op, class MakeRandom>
void check_tiles_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant) {
  std::uint64_t stream = 1000;
  for (const int tile : kTileSizes) {
    const auto tile_scan = [&](const std::vector<T>& in) {
      const std::vector<T> got = call_entry("tile_scan", op, in, {{"kind", scanlab::to_string(kind)}, {"tile", tile}});
      return check_tiles(in, got, static_cast<std::size_t>(tile), kind, op);
    };
    if (!check_random_and_constant(tile_test_sizes(tile), make_random, constant, stream,
                                   std::string(scanlab::to_string(kind)) + " tile scan, tile = " + std::to_string(tile),
                                   tile_scan)) {
      return;
    }
  }
}

}  // namespace

// ---- one block ------------------------------------------------------------------------------

TEST_CASE("the worked example 3 1 7 0 4 1 6 3 scans like the oracle, both kinds" * doctest::description("points: 5")) {
  const std::vector<std::int32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    INFO(std::string(scanlab::to_string(kind)));
    check_scan(in, block_scan(in, kind, Plus<std::int32_t>{}), kind, Plus<std::int32_t>{});
  }
}

TEST_CASE("block exclusive scan of int32 starts with the identity and equals the oracle, n = 1..2048" *
          doctest::description("points: 15")) {
  check_block_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
}

TEST_CASE("block inclusive scan of int32 equals the oracle, n = 1..2048" * doctest::description("points: 10")) {
  check_block_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
}

TEST_CASE("block scans of float32 match a float64 reference within the length-dependent tolerance" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    check_block_all_sizes(kind, Plus<float>{}, random_floats, kConstantFloat);
  }
}

TEST_CASE("block scans keep operand order in both sweeps and clear the root to the identity: affine maps" *
          doctest::description("points: 15")) {
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    check_block_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
  }
}

TEST_CASE("block scans start the down-sweep from the identity: running max of int32 (INT32_MIN)" *
          doctest::description("points: 5")) {
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    check_block_all_sizes(kind, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
  }
}

TEST_CASE("block scan limits: n == 2048 scans, n == 0 writes nothing" * doctest::description("points: 10")) {
  using Op = Plus<std::int32_t>;
  const std::vector<std::int32_t> in = random_ints(2049, 77);

  {  // its own scope, so that this INFO names only this check
    const std::vector<std::int32_t> full(in.begin(), in.begin() + 2048);
    INFO("exclusive block scan of int32 (plus) with n == 2048, the largest one block takes");
    const bool full_ok = check_scan(full, block_scan(full, ScanKind::exclusive, Op{}), ScanKind::exclusive, Op{});
    REQUIRE(full_ok);
  }

  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    INFO(std::string(scanlab::to_string(kind)) << " block scan told n == 0");
    const std::vector<std::int32_t> got =
        call_entry("block_scan", Op{}, in, {{"kind", scanlab::to_string(kind)}, {"n", 0}});
    CHECK_MESSAGE(scanlab::count_poison(got.data(), got.size()) == in.size(), "n == 0 must not write the output");
  }
}

// ---- many tiles -----------------------------------------------------------------------------

TEST_CASE("tile scans of int32 scan every tile on its own, both kinds, with a ragged last tile" *
          doctest::description("points: 10")) {
  for_each_block_order([] {
    check_tiles_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
    check_tiles_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  });
}

TEST_CASE("tile scans keep operand order (affine over uint32)" * doctest::description("points: 10")) {
  for_each_block_order([] {
    check_tiles_all_sizes(ScanKind::exclusive, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
  });
}

TEST_CASE("tile scans past 2^31 and 2^32 elements: the last tiles, from the launch's first tile" *
          doctest::description("points: 10")) {
  // On the emulator only the last tiles exist (the kernel is handed pointers that reach them at
  // their true positions); with --gpu the whole array is made and scanned on the device.
  check_far_tile_scans();
}
