// Grading tests for chapter 06: the chained scan (single pass, each tile waits for its predecessor).
//
// Sizes around the tile (tile - 1, tile, tile + 1), many tiles, odd large sizes and one element;
// random and constant inputs; exclusive, inclusive, in place and through unaligned pointers; a
// non-commutative operator and float sums. Small tiles of two warps (64 threads x 4 items) make many
// tiles on the emulator and catch a block total taken from one warp only. On the emulator: every
// dispatch order and residency must verify (the ticket), tiles ordered by blockIdx.x must deadlock
// under reverse dispatch (reported, never hung), and under the weak memory model the value, fence,
// flag publication must hold over several seeds. The untouched exercise scans every tile on its own
// (its wait returns the identity), so it fails every case.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/grading.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/random.hpp>
#include <scanlab/testing.hpp>
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
#include <scanlab_emu/options.hpp>
#endif

#include "chained_scan.cuh"

namespace {

using namespace scanlab::grading;
using Small = ch06::Policy<64, 4>;  // 256 elements per tile, two warps
constexpr std::size_t kSmallTile = 256;

// The scan under test: upload (at `offset` elements into the buffers), poison, scan, download.
template <class P, class T, class Op>
std::vector<T> scan(const std::vector<T>& in, ScanKind kind, Op op, bool in_place = false, std::size_t offset = 0,
                    ch06::TileOrder order = ch06::TileOrder::ticket) {
  const std::size_t n = in.size();
  return run_on_device(in, [&](T* d_in, T* d_out) {
    ch06::ChainedScan<T, P> chained(n);
    if (kind == ScanKind::inclusive) chained.inclusive(d_in, d_out, n, op, 0, order);
    else chained.exclusive(d_in, d_out, n, op, 0, order);
  }, in_place, offset);
}

// Random and constant inputs of every size, up to the first failure.
template <class P, class T, class Op, class MakeRandom>
bool check_sizes(const std::vector<std::size_t>& sizes, ScanKind kind, Op op, MakeRandom make_random, const T& constant,
                 std::uint64_t stream) {
  return check_random_and_constant(
      sizes, make_random, constant, stream, std::string(scanlab::to_string(kind)) + " scan",
      [&](const std::vector<T>& in) { return check_scan(in, scan<P>(in, kind, op), kind, op); });
}

}  // namespace

TEST_CASE("int32 exclusive sum of any length equals the oracle" *
          doctest::description("points: 20")) {
  if (!check_sizes<Small>(single_pass_test_sizes(kSmallTile), ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                            std::int32_t{3}, 100)) {
    return;
  }
  // The default tile (256 threads x 16, 16-byte vector loads), across a few tiles.
  check_sizes<ch06::DefaultPolicy>({4096 * 3 + 7, 4096 * 40}, ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                                   std::int32_t{-2}, 200);
}

TEST_CASE("int32 inclusive sum and running max equal the oracle" * doctest::description("points: 10")) {
  if (!check_sizes<Small>(single_pass_test_sizes(kSmallTile), ScanKind::inclusive, Plus<std::int32_t>{}, random_ints,
                            std::int32_t{5}, 300)) {
    return;
  }
  check_sizes<Small>({kSmallTile * 5 + 3, 40000}, ScanKind::exclusive, Max<std::int32_t>{}, random_ints,
                       std::int32_t{-7}, 400);
}

TEST_CASE("non-commutative affine maps keep operand order across tiles" *
          doctest::description("points: 15")) {
  if (!check_sizes<Small>(single_pass_test_sizes(kSmallTile), ScanKind::exclusive, AffineCompose<std::uint32_t>{},
                            random_affines, kConstantAffine, 800)) {
    return;
  }
  check_sizes<Small>({33 * kSmallTile + 1}, ScanKind::inclusive,
                                                            AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine, 900);
}

TEST_CASE("float32 sums match a float64 reference and int64 sums are exact" *
          doctest::description("points: 10")) {
  if (!check_sizes<Small>({kSmallTile + 1, 50001}, ScanKind::exclusive, Plus<float>{}, random_floats, kConstantFloat, 1000)) {
    return;
  }
  // Values near 2^40: every prefix needs more than 32 bits, so fused 64-bit words could not hold it.
  auto big = [](std::size_t n, std::uint64_t stream) {
    return scanlab::random_vector<std::int64_t>(n, scanlab::test_seed(stream), std::int64_t{1} << 40, std::int64_t{1} << 41);
  };
  check_sizes<Small>({kSmallTile * 3 + 1, 30001}, ScanKind::inclusive, Plus<std::int64_t>{}, big,
                       std::int64_t{1} << 39, 1100);
}

TEST_CASE("in place (out == in) and through unaligned pointers (no vector loads)" * doctest::description("points: 10")) {
  using I = std::int32_t;
  for (const std::size_t n : {kSmallTile * 7 + 5, std::size_t{4096 * 5 + 1}}) {
    INFO("n = " << n);
    const std::vector<I> in = random_ints(n, 1200 + n);
    INFO("in place, small tiles");
    if (!check_scan(in, scan<Small>(in, ScanKind::exclusive, Plus<I>{}, true), ScanKind::exclusive, Plus<I>{})) return;
    INFO("in place, default tiles");
    if (!check_scan(in, scan<ch06::DefaultPolicy>(in, ScanKind::inclusive, Plus<I>{}, true), ScanKind::inclusive, Plus<I>{})) return;
    INFO("pointers one element past a 16-byte boundary");
    if (!check_scan(in, scan<ch06::DefaultPolicy>(in, ScanKind::exclusive, Plus<I>{}, false, 1), ScanKind::exclusive, Plus<I>{})) return;
  }
}

TEST_CASE("n == 0 writes nothing; the scan object refuses more than it was made for" * doctest::description("points: 5")) {
  using I = std::int32_t;
  scanlab::DeviceBuffer<I> d(kSmallTile * 3);
  d.fill_poison();
  ch06::chained_exclusive_scan(d.data(), d.data(), 0, Plus<I>{});
  SCANLAB_CHECK_SYNC();
  CHECK(scanlab::count_poison(d.download().data(), d.size()) == d.size());
  ch06::ChainedScan<I, Small> small_scan(kSmallTile);
  CHECK_THROWS_AS(small_scan.exclusive(d.data(), d.data(), kSmallTile * 2, Plus<I>{}), std::invalid_argument);
  // And the same object scans correctly twice in a row (its descriptors are reset each time).
  const std::vector<I> in = random_ints(kSmallTile * 2 + 3, 1300);
  ch06::ChainedScan<I, Small> reused(in.size());
  scanlab::DeviceBuffer<I> d_in(in.size()), d_out(in.size());
  d_in.upload(in);
  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);
    d_out.fill_poison();
    reused.exclusive(d_in.data(), d_out.data(), in.size(), Plus<I>{});
    SCANLAB_CHECK_SYNC();
    if (!check_scan(in, d_out.download(), ScanKind::exclusive, Plus<I>{})) return;
  }
}

#if defined(SCANLAB_EMU)

TEST_CASE("emulator: the ticket makes every dispatch order and residency safe" * doctest::description("points: 10")) {
  EmuOptionsGuard guard;
  using I = std::int32_t;
  const std::vector<I> in = random_ints(40 * kSmallTile + 3, 1400);
  for (const auto schedule : {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse,
                              scanlab_emu::Schedule::random}) {
    for (const unsigned resident : {1u, 2u, 5u}) {
      scanlab_emu::options().schedule = schedule;
      scanlab_emu::options().resident = resident;
      scanlab_emu::options().seed = scanlab::test_seed();
      INFO(scanlab_emu::describe_options());
      if (!check_scan(in, scan<Small>(in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{})) return;
    }
  }
}

TEST_CASE("emulator: tiles ordered by blockIdx.x deadlock under reverse dispatch, and it is reported" *
          doctest::description("points: 5")) {
  EmuOptionsGuard guard;
  scanlab_emu::options().schedule = scanlab_emu::Schedule::reverse;
  scanlab_emu::options().resident = 3;
  scanlab_emu::options().watchdog_seconds = 20;
  using I = std::int32_t;
  const std::vector<I> in = random_ints(20 * kSmallTile, 1500);
  // A chain that really waits for its predecessor cannot finish: the launch must fail.
  CHECK_THROWS_AS(scan<Small>(in, ScanKind::exclusive, Plus<I>{}, false, 0, ch06::TileOrder::block_index),
                  scanlab::CudaError);
  // The same dispatch with the ticket verifies.
  CHECK(check_scan(in, scan<Small>(in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{}));
}

TEST_CASE("emulator weak memory: the prefix is published as value then fence then flag (several seeds)" *
          doctest::description("points: 15")) {
  EmuOptionsGuard guard;
  scanlab_emu::options().memory = scanlab_emu::Memory::weak;
  using I = std::int32_t;
  // Many small tiles resident at once, so that readers poll while writers' stores are pending.
  using Tiny = ch06::Policy<32, 2>;
  for (std::uint64_t k = 0; k < 4; ++k) {
    scanlab_emu::options().seed = scanlab::derive_seed(scanlab::test_seed(), 1600 + k);
    scanlab_emu::options().schedule = k % 2 ? scanlab_emu::Schedule::random : scanlab_emu::Schedule::in_order;
    INFO(scanlab_emu::describe_options());
    const std::vector<I> in = random_ints(64 * 150 + 17, 1700 + k);
    if (!check_scan(in, scan<Tiny>(in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{})) return;
    const auto maps = random_affines(64 * 80 + 3, 1800 + k);
    if (!check_scan(maps, scan<Tiny>(maps, ScanKind::inclusive, AffineCompose<std::uint32_t>{}),
               ScanKind::inclusive, AffineCompose<std::uint32_t>{})) {
      return;
    }
  }
}

#endif
