// Grading tests for chapter 01: the double-buffered Hillis-Steele scan in one block, and many
// independent tiles.
//
// Sizes follow CUB's test habits: single elements, a warp +-1, the half block +-1, the block - 1 and
// the full block of 1024; tiles of 1, 32, 33, 100, 1000 and 1024 elements with a ragged last tile.
// Each result is compared with the oracle (exactly for integers and affine maps, against a float64
// reference for floats) in a poisoned output; element 0 is checked on its own. The affine operator
// is not commutative, so an operand swap anywhere fails. The untouched exercise stubs write nothing,
// so they fail every case below.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include <scanlab/testing.hpp>
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
// Test-side only: the tile tests rerun under each of the emulator's block orders.
#include <scanlab_emu/options.hpp>
#endif

#include "hillis_steele.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

const int kBlockSizes[] = {1, 2, 3, 31, 32, 33, 511, 512, 513, 1023, 1024};

// ---- inputs (never all zeros) --------------------------------------------------------------

std::uint64_t seed_for(std::uint64_t stream) { return scanlab::derive_seed(scanlab::test_seed(), stream); }

std::vector<std::int32_t> random_ints(std::size_t n, std::uint64_t stream) {
  return scanlab::random_vector<std::int32_t>(n, seed_for(stream), -1000, 1000);
}

std::vector<float> random_floats(std::size_t n, std::uint64_t stream) {
  return scanlab::random_vector<float>(n, seed_for(stream), -1.0f, 1.0f);
}

// Odd multipliers keep every composed prefix invertible mod 2^32 (see 00_sequential.cu).
std::vector<Affine<std::uint32_t>> random_affines(std::size_t n, std::uint64_t stream) {
  auto maps = scanlab::random_vector<Affine<std::uint32_t>>(n, seed_for(stream), 0u, 0xffffffffu);
  for (auto& f : maps) f.a |= 1u;
  return maps;
}

const Affine<std::uint32_t> kConstantAffine{3u, 1u};
// A power of two, so every prefix of a constant float input is exact in any order of additions.
// (A constant like 0.1f makes the sequential loop round the same way at every step; its error then
// grows like n, past the length-dependent tolerance, which assumes rounding errors of mixed sign.)
const float kConstantFloat = 0.25f;

// ---- checking ------------------------------------------------------------------------------

// Checks one scanned segment got[0, n) of in[0, n) against the oracle, and element 0 on its own.
// Returns whether both held.
template <class T, class Op>
bool check_segment(const T* in, const T* got, std::size_t n, ScanKind kind, Op op) {
  scanlab::VerifyResult r;
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    r = scanlab::verify_float_scan(in, got, n, kind);
  } else {
    std::vector<T> expected(n);
    if (kind == ScanKind::inclusive) {
      scanlab::inclusive_scan_oracle(in, expected.data(), n, op);
    } else {
      scanlab::exclusive_scan_oracle(in, expected.data(), n, op);
    }
    r = scanlab::verify_exact(expected.data(), got, n);
  }
  CHECK_MESSAGE(r.ok, r.message());
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

// The block scan under test: upload, poison the output, launch, synchronise, download.
template <class T, class Op>
std::vector<T> block_scan(const std::vector<T>& in, ScanKind kind, Op op) {
  const int n = static_cast<int>(in.size());
  scanlab::DeviceBuffer<T> d_in(in.size());
  scanlab::DeviceBuffer<T> d_out(in.size());
  d_in.upload(in);
  d_out.fill_poison();
  if (kind == ScanKind::inclusive) {
    ch01::hillis_steele_inclusive_scan_block(d_in.data(), d_out.data(), n, op);
  } else {
    ch01::hillis_steele_exclusive_scan_block(d_in.data(), d_out.data(), n, op);
  }
  SCANLAB_CHECK_SYNC();
  return d_out.download();
}

// Random and constant inputs of every size in kBlockSizes, up to the first failure.
template <class T, class Op, class MakeRandom>
void check_block_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant) {
  std::uint64_t stream = 0;
  for (const int n : kBlockSizes) {
    INFO(std::string(scanlab::to_string(kind)) << " block scan, n = " << n);
    {
      INFO("random input");
      const std::vector<T> in = make_random(static_cast<std::size_t>(n), ++stream);
      if (!check_segment(in.data(), block_scan(in, kind, op).data(), in.size(), kind, op)) return;
    }
    {
      INFO("constant input");
      const std::vector<T> in = scanlab::constant_vector<T>(static_cast<std::size_t>(n), constant);
      if (!check_segment(in.data(), block_scan(in, kind, op).data(), in.size(), kind, op)) return;
    }
  }
}

// The tile scan under test, checked tile by tile (each tile's prefixes restart) up to the first
// failing tile. Returns whether every tile held.
template <class T, class Op>
bool check_tiles(const std::vector<T>& in, int tile, Op op) {
  scanlab::DeviceBuffer<T> d_in(in.size());
  scanlab::DeviceBuffer<T> d_out(in.size());
  d_in.upload(in);
  d_out.fill_poison();
  ch01::hillis_steele_inclusive_scan_tiles(d_in.data(), d_out.data(), in.size(), tile, op);
  SCANLAB_CHECK_SYNC();
  const std::vector<T> got = d_out.download();
  REQUIRE(got.size() == in.size());
  const std::size_t step = static_cast<std::size_t>(tile);
  for (std::size_t begin = 0; begin < in.size(); begin += step) {
    const std::size_t len = in.size() - begin < step ? in.size() - begin : step;
    INFO("tile starting at element " << begin << " (" << len << " elements)");
    if (!check_segment(in.data() + begin, got.data() + begin, len, ScanKind::inclusive, op)) {
      return false;
    }
  }
  return true;
}

// n for a tile size: a single partial tile, exact multiples, and a ragged last tile.
std::vector<std::size_t> tile_test_sizes(int tile) {
  const std::size_t t = static_cast<std::size_t>(tile);
  std::vector<std::size_t> sizes = {1, t, 3 * t, 3 * t + t / 2 + 1};
  if (t > 2) sizes.push_back(t - 1);
  return sizes;
}

const int kTileSizes[] = {1, 32, 33, 100, 1000, 1024};

// Runs fn once per order in which blocks can run. On the emulator: in order, reversed, and shuffled
// (seeded from the test seed): a block that writes outside its own tile is caught only when the
// tile's owner runs before it, not after. On a GPU: once, in whatever order the hardware picks.
template <class F>
void for_each_block_order(F&& fn) {
#if defined(SCANLAB_EMU)
  struct Restore {
    scanlab_emu::Options saved = scanlab_emu::options();
    ~Restore() { scanlab_emu::options() = saved; }
  } restore;
  for (const auto order : {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse,
                           scanlab_emu::Schedule::random}) {
    scanlab_emu::options().schedule = order;
    scanlab_emu::options().seed = scanlab::test_seed();
    INFO("emulator block order: " << std::string(scanlab_emu::to_string(order)));
    fn();
  }
#else
  fn();
#endif
}

// Every tile size in kTileSizes with the lengths of tile_test_sizes, up to the first failure.
template <class T, class Op, class MakeRandom>
void check_tiles_all_sizes(Op op, MakeRandom make_random, const T& constant) {
  std::uint64_t stream = 1000;
  for (const int tile : kTileSizes) {
    for (const std::size_t n : tile_test_sizes(tile)) {
      INFO("tile scan, tile = " << tile << ", n = " << n);
      {
        INFO("random input");
        if (!check_tiles(make_random(n, ++stream), tile, op)) return;
      }
      {
        INFO("constant input");
        if (!check_tiles(scanlab::constant_vector<T>(n, constant), tile, op)) return;
      }
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

TEST_CASE("block scan limits: n == 1024 scans, n == 0 writes nothing, n > 1024 and n < 0 throw" *
          doctest::description("points: 10")) {
  using Op = Plus<std::int32_t>;
  const std::vector<std::int32_t> in = random_ints(1025, 77);

  const std::vector<std::int32_t> full(in.begin(), in.begin() + 1024);
  check_segment(full.data(), block_scan(full, ScanKind::inclusive, Op{}).data(), full.size(),
                ScanKind::inclusive, Op{});

  scanlab::DeviceBuffer<std::int32_t> d_in(in.size());
  scanlab::DeviceBuffer<std::int32_t> d_out(in.size());
  d_in.upload(in);
  d_out.fill_poison();
  ch01::hillis_steele_inclusive_scan_block(d_in.data(), d_out.data(), 0, Op{});
  ch01::hillis_steele_exclusive_scan_block(d_in.data(), d_out.data(), 0, Op{});
  SCANLAB_CHECK_SYNC();
  CHECK_MESSAGE(scanlab::count_poison(d_out.download().data(), in.size()) == in.size(),
                "n == 0 must not write the output");

  CHECK_THROWS_AS(ch01::hillis_steele_inclusive_scan_block(d_in.data(), d_out.data(), 1025, Op{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch01::hillis_steele_exclusive_scan_block(d_in.data(), d_out.data(), 1025, Op{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch01::hillis_steele_inclusive_scan_block(d_in.data(), d_out.data(), -1, Op{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch01::hillis_steele_inclusive_scan_tiles(d_in.data(), d_out.data(), in.size(), 1025, Op{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch01::hillis_steele_inclusive_scan_tiles(d_in.data(), d_out.data(), in.size(), 0, Op{}),
                  std::invalid_argument);
}

// ---- many tiles -----------------------------------------------------------------------------

TEST_CASE("tile scan of int32 scans every tile on its own, including a ragged last tile" *
          doctest::description("points: 15")) {
  for_each_block_order([] { check_tiles_all_sizes(Plus<std::int32_t>{}, random_ints, std::int32_t{7}); });
}

TEST_CASE("tile scan keeps operand order (affine over uint32) and handles float32" *
          doctest::description("points: 15")) {
  for_each_block_order([] {
    check_tiles_all_sizes(AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
    check_tiles_all_sizes(Plus<float>{}, random_floats, kConstantFloat);
  });
}
