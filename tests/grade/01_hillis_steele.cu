// Grading tests for chapter 01: the double-buffered Hillis-Steele scan in one block, and many
// independent tiles. This is the checker: the student's code runs in the runner
// (01_hillis_steele_runner.cu), another process.
//
// Sizes follow CUB's test habits: single elements, a warp +-1, the half block +-1, the block - 1 and
// the full block of 1024; tiles of 1, 32, 33, 100, 1000 and 1024 elements with a ragged last tile.
// Each result is compared with the oracle (exactly for integers and affine maps, against a float64
// reference for floats) in a poisoned output; element 0 is checked on its own. The affine operator
// is not commutative, so an operand swap anywhere fails. The untouched exercise stubs write nothing,
// so they fail every case below. (The launch wrappers' argument checks are given code, so no case
// grades them.) The last case runs only the last tiles of arrays of 2^31 + 5 and 2^32 + 5 elements,
// where an index computed in 32 bits wraps (scanlab/grading/far.hpp; with --gpu the whole array).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;

const int kBlockSizes[] = {1, 2, 3, 31, 32, 33, 511, 512, 513, 1023, 1024};
const int kTileSizes[] = {1, 32, 33, 100, 1000, 1024};

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

// Every tile size in kTileSizes with the lengths of tile_test_sizes, each result checked tile by
// tile, up to the first failure.
template <class T, class Op, class MakeRandom>
void check_tiles_all_sizes(Op op, MakeRandom make_random, const T& constant) {
  std::uint64_t stream = 1000;
  for (const int tile : kTileSizes) {
    const auto tile_scan = [&](const std::vector<T>& in) {
      const std::vector<T> got = call_entry("tile_scan", op, in, {{"tile", tile}});
      return check_tiles(in, got, static_cast<std::size_t>(tile), ScanKind::inclusive, op);
    };
    if (!check_random_and_constant(tile_test_sizes(tile), make_random, constant, stream,
                                   "tile scan, tile = " + std::to_string(tile), tile_scan)) {
      return;
    }
  }
}

}  // namespace

// ---- one block ------------------------------------------------------------------------------

TEST_CASE("block inclusive scan of int32 equals the oracle for every n from 1 to 1024" *
          doctest::description("points: 15")) {
  check_block_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
}

TEST_CASE("block exclusive scan of int32 starts with the identity and equals the oracle" *
          doctest::description("points: 15")) {
  check_block_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
}

TEST_CASE("block scans of float32 match a float64 reference within the length-dependent tolerance" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_block_all_sizes(kind, Plus<float>{}, random_floats, kConstantFloat);
  }
}

TEST_CASE("block scans keep operand order: non-commutative affine maps over uint32" *
          doctest::description("points: 15")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_block_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
  }
}

TEST_CASE("block scans pad with the monoid's identity: running max of int32 (identity INT32_MIN)" *
          doctest::description("points: 5")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_block_all_sizes(kind, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
  }
}

TEST_CASE("block scan limits: n == 1024 scans, n == 0 writes nothing" * doctest::description("points: 10")) {
  using Op = Plus<std::int32_t>;
  const std::vector<std::int32_t> in = random_ints(1025, 77);

  {  // its own scope, so that this INFO names only this check
    const std::vector<std::int32_t> full(in.begin(), in.begin() + 1024);
    INFO("inclusive block scan of int32 (plus) with n == 1024, the largest one block takes");
    check_scan(full, block_scan(full, ScanKind::inclusive, Op{}), ScanKind::inclusive, Op{});
  }

  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    INFO(std::string(scanlab::to_string(kind)) << " block scan told n == 0");
    const std::vector<std::int32_t> got =
        call_entry("block_scan", Op{}, in, {{"kind", scanlab::to_string(kind)}, {"n", 0}});
    CHECK_MESSAGE(scanlab::count_poison(got.data(), got.size()) == in.size(), "n == 0 must not write the output");
  }
}

// ---- many tiles -----------------------------------------------------------------------------

TEST_CASE("tile scan of int32 scans every tile on its own, including a ragged last tile" *
          doctest::description("points: 10")) {
  for_each_block_order([] {
    check_tiles_all_sizes(Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  });
}

TEST_CASE("tile scan keeps operand order (affine over uint32) and handles float32" *
          doctest::description("points: 10")) {
  for_each_block_order([] {
    check_tiles_all_sizes(AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
    check_tiles_all_sizes(Plus<float>{}, random_floats, kConstantFloat);
  });
}

TEST_CASE("tile scan past 2^31 and 2^32 elements: the last tiles, from the launch's first tile" *
          doctest::description("points: 10")) {
  // On the emulator only the last tiles exist (the kernel is handed pointers that reach them at
  // their true positions); with --gpu the whole array is made and scanned on the device.
  for (const int tile : {1024, 33}) {
    INFO("tile = " << tile);
    const bool ok = check_last_units(
        static_cast<std::size_t>(tile), 3, "tiles of " + std::to_string(tile) + " elements",
        "block b scans tile first_tile + b", {kPast2To31, kPast2To32}, [&](std::size_t n, std::size_t first) {
          const Reply r =
              far_request("tile_scan_far", n, first).monoid(Plus<std::int32_t>{}).params({{"tile", tile}}).send();
          return check_tiles(far_window(first, n), output<std::int32_t>(r), static_cast<std::size_t>(tile),
                             ScanKind::inclusive, Plus<std::int32_t>{});
        });
    if (!ok) return;
  }
}
