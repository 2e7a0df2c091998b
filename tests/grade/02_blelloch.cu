// Grading tests for chapter 02: the Blelloch (work-efficient) scan of one tile in one block, and
// many independent tiles.
//
// Sizes: single elements, a warp +-1, half a tile +-1, the 1024 boundary and the full 2048-element
// tile, so that every padding case (n just above and just below a power of two) is met. Inputs are
// random and constant; each result is compared with the oracle in a poisoned output (exactly for
// integers and affine maps, against a float64 reference for floats), and element 0 is checked on
// its own (the identity for exclusive scans). The affine operator is not commutative, so an operand
// swap anywhere in the up-sweep or the down-sweep fails; the max scan pads with INT32_MIN, so
// padding with a literal 0 instead of Op::identity() fails. The untouched stubs write nothing and
// fail every case.
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

#include "blelloch.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

const int kBlockSizes[] = {1, 2, 3, 31, 32, 33, 511, 512, 1023, 1024, 2047, 2048};

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
// A power of two: every prefix of a constant float input is exact in any order of additions.
const float kConstantFloat = 0.25f;

// ---- checking ------------------------------------------------------------------------------

// Checks got[0, n) against the oracle's scan of in[0, n), and element 0 on its own.
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

template <class T, class Op>
std::vector<T> block_scan(const std::vector<T>& in, ScanKind kind, Op op) {
  const int n = static_cast<int>(in.size());
  scanlab::DeviceBuffer<T> d_in(in.size());
  scanlab::DeviceBuffer<T> d_out(in.size());
  d_in.upload(in);
  d_out.fill_poison();
  if (kind == ScanKind::inclusive) {
    ch02::blelloch_inclusive_scan_block(d_in.data(), d_out.data(), n, op);
  } else {
    ch02::blelloch_exclusive_scan_block(d_in.data(), d_out.data(), n, op);
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

template <class T, class Op>
bool check_tiles(const std::vector<T>& in, int tile, ScanKind kind, Op op) {
  scanlab::DeviceBuffer<T> d_in(in.size());
  scanlab::DeviceBuffer<T> d_out(in.size());
  d_in.upload(in);
  d_out.fill_poison();
  if (kind == ScanKind::inclusive) {
    ch02::blelloch_inclusive_scan_tiles(d_in.data(), d_out.data(), in.size(), tile, op);
  } else {
    ch02::blelloch_exclusive_scan_tiles(d_in.data(), d_out.data(), in.size(), tile, op);
  }
  SCANLAB_CHECK_SYNC();
  const std::vector<T> got = d_out.download();
  REQUIRE(got.size() == in.size());
  const std::size_t step = static_cast<std::size_t>(tile);
  for (std::size_t begin = 0; begin < in.size(); begin += step) {
    const std::size_t len = in.size() - begin < step ? in.size() - begin : step;
    INFO("tile starting at element " << begin << " (" << len << " elements)");
    if (!check_segment(in.data() + begin, got.data() + begin, len, kind, op)) return false;
  }
  return true;
}

// A single partial tile, exact multiples, and a ragged last tile.
std::vector<std::size_t> tile_test_sizes(int tile) {
  const std::size_t t = static_cast<std::size_t>(tile);
  std::vector<std::size_t> sizes = {1, t, 3 * t, 3 * t + t / 2 + 1};
  if (t > 2) sizes.push_back(t - 1);
  return sizes;
}

const int kTileSizes[] = {2, 64, 1024, 2048};

// On the emulator: in order, reversed and shuffled block dispatch (a block that writes outside its
// tile is caught only when the tile's owner runs first). On a GPU: once.
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

template <class T, class Op, class MakeRandom>
void check_tiles_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant) {
  std::uint64_t stream = 1000;
  for (const int tile : kTileSizes) {
    for (const std::size_t n : tile_test_sizes(tile)) {
      INFO(scanlab::to_string(kind) << " tile scan, tile = " << tile << ", n = " << n);
      {
        INFO("random input");
        if (!check_tiles(make_random(n, ++stream), tile, kind, op)) return;
      }
      {
        INFO("constant input");
        if (!check_tiles(scanlab::constant_vector<T>(n, constant), tile, kind, op)) return;
      }
    }
  }
}

}  // namespace

// ---- one block ------------------------------------------------------------------------------

TEST_CASE("the worked example 3 1 7 0 4 1 6 3 scans like the oracle, both kinds" *
          doctest::description("points: 5")) {
  const std::vector<std::int32_t> in = {3, 1, 7, 0, 4, 1, 6, 3};
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    INFO(scanlab::to_string(kind));
    check_segment(in.data(), block_scan(in, kind, Plus<std::int32_t>{}).data(), in.size(), kind,
                  Plus<std::int32_t>{});
  }
}

TEST_CASE("block exclusive scan of int32 starts with the identity and equals the oracle, n = 1..2048" *
          doctest::description("points: 15")) {
  check_block_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
}

TEST_CASE("block inclusive scan of int32 equals the oracle, n = 1..2048" *
          doctest::description("points: 10")) {
  check_block_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
}

TEST_CASE("block scans of float32 match a float64 reference within the length-dependent tolerance" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    check_block_all_sizes(kind, Plus<float>{}, random_floats, kConstantFloat);
  }
}

TEST_CASE("block scans keep operand order in both sweeps: non-commutative affine maps over uint32" *
          doctest::description("points: 15")) {
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    check_block_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
  }
}

TEST_CASE("block scans pad the tile with the monoid's identity: running max of int32 (INT32_MIN)" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    check_block_all_sizes(kind, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
  }
}

TEST_CASE("block scan limits: n == 2048 scans, n == 0 writes nothing, n > 2048 and n < 0 throw" *
          doctest::description("points: 10")) {
  using Op = Plus<std::int32_t>;
  const std::vector<std::int32_t> in = random_ints(2049, 77);

  const std::vector<std::int32_t> full(in.begin(), in.begin() + 2048);
  const bool full_ok = check_segment(full.data(), block_scan(full, ScanKind::exclusive, Op{}).data(),
                                     full.size(), ScanKind::exclusive, Op{});
  REQUIRE(full_ok);

  scanlab::DeviceBuffer<std::int32_t> d_in(in.size());
  scanlab::DeviceBuffer<std::int32_t> d_out(in.size());
  d_in.upload(in);
  d_out.fill_poison();
  ch02::blelloch_exclusive_scan_block(d_in.data(), d_out.data(), 0, Op{});
  ch02::blelloch_inclusive_scan_block(d_in.data(), d_out.data(), 0, Op{});
  SCANLAB_CHECK_SYNC();
  CHECK_MESSAGE(scanlab::count_poison(d_out.download().data(), in.size()) == in.size(),
                "n == 0 must not write the output");

  CHECK_THROWS_AS(ch02::blelloch_exclusive_scan_block(d_in.data(), d_out.data(), 2049, Op{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch02::blelloch_inclusive_scan_block(d_in.data(), d_out.data(), -1, Op{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch02::blelloch_inclusive_scan_tiles(d_in.data(), d_out.data(), in.size(), 4096, Op{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(ch02::blelloch_exclusive_scan_tiles(d_in.data(), d_out.data(), in.size(), 1000, Op{}),
                  std::invalid_argument);
}

// ---- many tiles -----------------------------------------------------------------------------

TEST_CASE("tile scans of int32 scan every tile on its own, both kinds, with a ragged last tile" *
          doctest::description("points: 15")) {
  for_each_block_order([] {
    check_tiles_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
    check_tiles_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  });
}

TEST_CASE("tile scans keep operand order (affine over uint32)" * doctest::description("points: 10")) {
  for_each_block_order([] {
    check_tiles_all_sizes(ScanKind::exclusive, AffineCompose<std::uint32_t>{}, random_affines,
                          kConstantAffine);
  });
}
