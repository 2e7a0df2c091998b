// Grading tests for chapter 04: warp-shuffle scans, the block scan from warp scans, and the
// items-per-thread tile scan.
//
// Every construction scans independent tiles, so each result is checked tile by tile against the
// oracle (exactly for integers and affine maps, against a float64 reference for floats), in a
// poisoned output, with element 0 of every tile checked on its own. Sizes sit around the warp, the
// warp-count boundaries of a block and the tile (0, 1, 31, 32, 33, tile - 1, tile, tile + 1,
// 2 * tile + 1) plus random lengths. The affine operator is not commutative, so a swapped operand
// anywhere fails; blocks with several warps catch a warp total taken from the wrong lane. The
// untouched exercise stubs scan nothing, so they fail every case below.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/grading.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/random.hpp>
#include <scanlab/testing.hpp>
#include <scanlab/verify.hpp>

#include "warp_and_registers_dispatch.cuh"

namespace {

using namespace scanlab::grading;

enum class Construction { warp, block, items };

std::size_t tile_of(Construction c, int items_tile) {
  switch (c) {
    case Construction::warp: return ch04::kWarp;
    case Construction::block: return ch04::kBlockScanThreads;
    default: return static_cast<std::size_t>(items_tile);
  }
}

const char* name_of(Construction c) {
  switch (c) {
    case Construction::warp: return "warp_scan_tiles";
    case Construction::block: return "block_scan_tiles";
    default: return "items_scan_tiles";
  }
}

// Runs one construction over `in` (in a fresh poisoned output, or in place) and checks every tile.
template <class T, class Op>
bool run_and_check(Construction c, int items_tile, const std::vector<T>& in, ScanKind kind, Op op,
                   bool in_place = false) {
  const std::size_t n = in.size();
  const bool inclusive = kind == ScanKind::inclusive;
  const std::vector<T> got = run_on_device(in, [&](T* d_in, T* d_out) {
    switch (c) {
      case Construction::warp: ch04::warp_scan_tiles(d_in, d_out, n, inclusive, op); break;
      case Construction::block: ch04::block_scan_tiles(d_in, d_out, n, inclusive, op); break;
      default: ch04::items_scan_tiles(d_in, d_out, n, items_tile, inclusive, op);
    }
  }, in_place);
  INFO(name_of(c));
  return check_tiles(in, got, tile_of(c, items_tile), kind, op);
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

// Random and constant inputs of every size, up to the first failure.
template <class T, class Op, class MakeRandom>
void check_all_sizes(Construction c, int items_tile, ScanKind kind, Op op, MakeRandom make_random,
                     const T& constant) {
  std::uint64_t stream = static_cast<std::uint64_t>(c) * 1000 + static_cast<std::uint64_t>(items_tile);
  const std::vector<std::size_t> sizes = sizes_for(tile_of(c, items_tile), stream);
  check_random_and_constant(sizes, make_random, constant, stream,
                            std::string(scanlab::to_string(kind)) + " scan",
                            [&](const std::vector<T>& in) { return run_and_check(c, items_tile, in, kind, op); });
}

}  // namespace

// ---- warp ---------------------------------------------------------------------------------------

TEST_CASE("warp scans of int32 (inclusive and exclusive) equal the oracle in every 32-element tile" *
          doctest::description("points: 15")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(Construction::warp, 0, kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  }
}

TEST_CASE("warp scans keep operand order (affine over uint32) and pad with the identity (max)" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(Construction::warp, 0, kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
    check_all_sizes(Construction::warp, 0, kind, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
  }
}

// ---- block: one value per thread -------------------------------------------------------------

TEST_CASE("block scans from warp scans (1024 threads, one value each) equal the oracle" *
          doctest::description("points: 15")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(Construction::block, 0, kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  }
}

TEST_CASE("block scans keep operand order across warps (affine over uint32) and handle float32" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(Construction::block, 0, kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
    check_all_sizes(Construction::block, 0, kind, Plus<float>{}, random_floats, kConstantFloat);
  }
}

// ---- items per thread --------------------------------------------------------------------------

TEST_CASE("items-per-thread tile scans of int32 equal the oracle for tiles of 1024 to 8192" *
          doctest::description("points: 20")) {
  for (const int tile : ch04::kItemsTiles) {
    INFO("tile = " << tile);
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      check_all_sizes(Construction::items, tile, kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
    }
  }
}

TEST_CASE("items-per-thread scans keep operand order (affine), pad with the identity (max), float32" *
          doctest::description("points: 15")) {
  for (const int tile : {1024, 4096}) {
    INFO("tile = " << tile);
    for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
      check_all_sizes(Construction::items, tile, kind, AffineCompose<std::uint32_t>{}, random_affines,
                      kConstantAffine);
      check_all_sizes(Construction::items, tile, kind, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
      check_all_sizes(Construction::items, tile, kind, Plus<float>{}, random_floats, kConstantFloat);
    }
  }
}

TEST_CASE("items-per-thread scans work in place, from unaligned pointers, and reject bad tiles" *
          doctest::description("points: 15")) {
  using Op = Plus<std::int32_t>;
  const int tile = 2048;
  // In place, a ragged last tile.
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    INFO("in place, " << scanlab::to_string(kind));
    CHECK(run_and_check(Construction::items, tile, random_ints(3 * tile + 5, 900), kind, Op{}, true));
    CHECK(run_and_check(Construction::block, 0, random_ints(2 * 1024 + 7, 901), kind, Op{}, true));
  }
  // One element past a 16-byte boundary: full tiles cannot use vector loads and must still scan.
  {
    INFO("input and output one element past an aligned address");
    const std::size_t n = 2 * tile + 3;
    const std::vector<std::int32_t> in = random_ints(n, 902);
    scanlab::DeviceBuffer<std::int32_t> d_in(n + 1);
    scanlab::DeviceBuffer<std::int32_t> d_out(n + 1);
    SCANLAB_CUDA_CHECK(cudaMemcpy(d_in.data() + 1, in.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    d_out.fill_poison();
    ch04::items_scan_tiles(d_in.data() + 1, d_out.data() + 1, n, tile, true, Op{});
    SCANLAB_CHECK_SYNC();
    const std::vector<std::int32_t> all = d_out.download();
    CHECK_MESSAGE(scanlab::is_poison(all[0]), "the element before the output was written");
    check_tiles(in, std::vector<std::int32_t>(all.begin() + 1, all.end()), tile, ScanKind::inclusive, Op{});
  }
  // n == 0 writes nothing; a tile size that is not offered throws.
  scanlab::DeviceBuffer<std::int32_t> d_in(16);
  scanlab::DeviceBuffer<std::int32_t> d_out(16);
  d_in.upload(random_ints(16, 903));
  d_out.fill_poison();
  ch04::items_scan_tiles(d_in.data(), d_out.data(), 0, tile, true, Op{});
  ch04::warp_scan_tiles(d_in.data(), d_out.data(), 0, true, Op{});
  ch04::block_scan_tiles(d_in.data(), d_out.data(), 0, false, Op{});
  SCANLAB_CHECK_SYNC();
  CHECK_MESSAGE(scanlab::count_poison(d_out.download().data(), 16) == 16, "n == 0 must not write the output");
  CHECK_THROWS_AS(ch04::items_scan_tiles(d_in.data(), d_out.data(), 16, 1000, true, Op{}), std::invalid_argument);
}
