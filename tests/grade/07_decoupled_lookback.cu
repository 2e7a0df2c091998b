// Grading tests for chapter 07: single-pass scan with decoupled look-back.
//
// Sizes follow CUB's habits around the tile (tile - 1, tile, tile + 1), across a 32-tile window of
// the warp look-back (33 tiles and more), odd large sizes and a single element; random and constant
// inputs; exclusive, inclusive, in place and through unaligned pointers; a non-commutative operator
// (affine maps, 64-bit values: fenced descriptors) and float sums against a float64 reference. Most
// cases use small tiles of two warps (64 threads x 4 items = 256 elements), so that many tiles take
// part on the emulator and a block total taken from one warp only is caught.
//
// On the emulator the protocol is also checked where a GPU hides it: under every block dispatch
// order and number of resident blocks (the ticket), under the weak memory model with several seeds
// (value, fence, flag: a publication without the fence is read half-done and caught), and tiles
// ordered by blockIdx.x must deadlock, reported and never hung. The untouched exercise scans every
// tile on its own (its look-back returns the identity), so it fails every case.
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

#include "decoupled_lookback.cuh"

namespace {

using namespace scanlab::grading;
using ch07::Descriptors;
using ch07::Lookback;

template <Descriptors D = Descriptors::automatic, Lookback L = Lookback::warp>
using Small = ch07::Policy<64, 4, D, L>;  // 256 elements per tile, two warps
constexpr std::size_t kSmallTile = 256;

// The scan under test: upload (at `offset` elements into the buffers), poison, scan, download.
template <class P, class T, class Op>
std::vector<T> scan(const std::vector<T>& in, ScanKind kind, Op op, bool in_place = false, std::size_t offset = 0,
                    const ch07::Options& o = {}) {
  const std::size_t n = in.size();
  return run_on_device(in, [&](T* d_in, T* d_out) {
    if (kind == ScanKind::inclusive) ch07::decoupled_lookback_inclusive_scan<P>(d_in, d_out, n, op, 0, o);
    else ch07::decoupled_lookback_exclusive_scan<P>(d_in, d_out, n, op, 0, o);
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

TEST_CASE("int32 exclusive sum with the warp look-back and fused descriptors equals the oracle" *
          doctest::description("points: 15")) {
  if (!check_sizes<Small<>>(single_pass_test_sizes(kSmallTile), ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                            std::int32_t{3}, 100)) {
    return;
  }
  // The default tile (128 threads x 32, 16-byte vector loads), across a few tiles.
  check_sizes<ch07::DefaultPolicy>({4096 * 3 + 7, 4096 * 40}, ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                                   std::int32_t{-2}, 200);
}

TEST_CASE("int32 inclusive sum and running max equal the oracle" * doctest::description("points: 10")) {
  if (!check_sizes<Small<>>(single_pass_test_sizes(kSmallTile), ScanKind::inclusive, Plus<std::int32_t>{}, random_ints,
                            std::int32_t{5}, 300)) {
    return;
  }
  check_sizes<Small<>>({kSmallTile * 5 + 3, 40000}, ScanKind::exclusive, Max<std::int32_t>{}, random_ints,
                       std::int32_t{-7}, 400);
}

TEST_CASE("every step of the book scans: serial or warp look-back with fenced or fused descriptors" *
          doctest::description("points: 15")) {
  const std::vector<std::size_t> sizes = {kSmallTile + 1, 40 * kSmallTile + 9, 70001};
  using I = std::int32_t;
  INFO("serial look-back, fenced descriptors");
  if (!check_sizes<Small<Descriptors::fenced, Lookback::serial>>(sizes, ScanKind::exclusive, Plus<I>{}, random_ints, I{1}, 500)) return;
  INFO("serial look-back, fused descriptors");
  if (!check_sizes<Small<Descriptors::fused, Lookback::serial>>(sizes, ScanKind::exclusive, Plus<I>{}, random_ints, I{1}, 600)) return;
  INFO("warp look-back, fenced descriptors");
  check_sizes<Small<Descriptors::fenced, Lookback::warp>>(sizes, ScanKind::inclusive, Plus<I>{}, random_ints, I{1}, 700);
}

TEST_CASE("non-commutative affine maps (64-bit values, fenced descriptors) keep operand order" *
          doctest::description("points: 15")) {
  if (!check_sizes<Small<>>(single_pass_test_sizes(kSmallTile), ScanKind::exclusive, AffineCompose<std::uint32_t>{},
                            random_affines, kConstantAffine, 800)) {
    return;
  }
  check_sizes<Small<Descriptors::fenced, Lookback::serial>>({33 * kSmallTile + 1}, ScanKind::inclusive,
                                                            AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine, 900);
}

TEST_CASE("float32 sums match a float64 reference and int64 sums wider than 32 bits are exact" *
          doctest::description("points: 10")) {
  if (!check_sizes<Small<>>({kSmallTile + 1, 50001}, ScanKind::exclusive, Plus<float>{}, random_floats, kConstantFloat, 1000)) {
    return;
  }
  // Values near 2^40: every prefix needs more than 32 bits, so fused 64-bit words could not hold it.
  auto big = [](std::size_t n, std::uint64_t stream) {
    return scanlab::random_vector<std::int64_t>(n, scanlab::test_seed(stream), std::int64_t{1} << 40, std::int64_t{1} << 41);
  };
  check_sizes<Small<>>({kSmallTile * 3 + 1, 30001}, ScanKind::inclusive, Plus<std::int64_t>{}, big,
                       std::int64_t{1} << 39, 1100);
}

TEST_CASE("in place (out == in) and through unaligned pointers (no vector loads)" * doctest::description("points: 10")) {
  using I = std::int32_t;
  for (const std::size_t n : {kSmallTile * 7 + 5, std::size_t{4096 * 5 + 1}}) {
    INFO("n = " << n);
    const std::vector<I> in = random_ints(n, 1200 + n);
    INFO("in place, small tiles");
    if (!check_scan(in, scan<Small<>>(in, ScanKind::exclusive, Plus<I>{}, true), ScanKind::exclusive, Plus<I>{})) return;
    INFO("in place, default tiles");
    if (!check_scan(in, scan<ch07::DefaultPolicy>(in, ScanKind::inclusive, Plus<I>{}, true), ScanKind::inclusive, Plus<I>{})) return;
    INFO("pointers one element past a 16-byte boundary");
    if (!check_scan(in, scan<ch07::DefaultPolicy>(in, ScanKind::exclusive, Plus<I>{}, false, 1), ScanKind::exclusive, Plus<I>{})) return;
  }
}

TEST_CASE("n == 0 writes nothing; the scan object refuses more than it was made for" * doctest::description("points: 5")) {
  using I = std::int32_t;
  scanlab::DeviceBuffer<I> d(kSmallTile * 3);
  d.fill_poison();
  ch07::decoupled_lookback_exclusive_scan<Small<>>(d.data(), d.data(), 0, Plus<I>{});
  SCANLAB_CHECK_SYNC();
  CHECK(scanlab::count_poison(d.download().data(), d.size()) == d.size());
  ch07::DecoupledLookbackScan<I, Small<>> small_scan(kSmallTile);
  CHECK_THROWS_AS(small_scan.exclusive(d.data(), d.data(), kSmallTile * 2, Plus<I>{}), std::invalid_argument);
  // And the same object scans correctly twice in a row (its descriptors are reset each time).
  const std::vector<I> in = random_ints(kSmallTile * 2 + 3, 1300);
  ch07::DecoupledLookbackScan<I, Small<>> reused(in.size());
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
      // Interleaved, resident blocks take turns pass by pass, as on a GPU: a look-back then meets
      // predecessors that have published only their aggregate (A), and must walk past them.
      for (const bool interleave : {false, true}) {
        scanlab_emu::options().schedule = schedule;
        scanlab_emu::options().resident = resident;
        scanlab_emu::options().interleave = interleave;
        scanlab_emu::options().seed = scanlab::test_seed();
        INFO(scanlab_emu::describe_options());
        if (!check_scan(in, scan<Small<>>(in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{})) return;
        if (!check_scan(in, scan<Small<Descriptors::fenced, Lookback::serial>>(in, ScanKind::exclusive, Plus<I>{}),
                   ScanKind::exclusive, Plus<I>{})) {
          return;
        }
      }
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
  ch07::Options o;
  o.order = ch07::TileOrder::block_index;
  // A look-back that really waits for its predecessors cannot finish: the launch must fail. (The
  // serial look-back: the emulator recognises one thread's polling loop as waiting; a warp polling
  // through __ballot_sync is not recognised yet, and would run until the test's time limit.)
  using Serial = Small<Descriptors::fused, Lookback::serial>;
  CHECK_THROWS_AS(scan<Serial>(in, ScanKind::exclusive, Plus<I>{}, false, 0, o), scanlab::CudaError);
  // The same dispatch with the ticket verifies.
  CHECK(check_scan(in, scan<Serial>(in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{}));
}

TEST_CASE("emulator weak memory: fenced descriptors publish value then fence then flag (several seeds)" *
          doctest::description("points: 15")) {
  EmuOptionsGuard guard;
  scanlab_emu::options().memory = scanlab_emu::Memory::weak;
  using I = std::int32_t;
  // Many small tiles resident at once, so that readers poll while writers' stores are pending.
  using SerialFenced = ch07::Policy<32, 2, Descriptors::fenced, Lookback::serial>;
  using SerialAffine = ch07::Policy<32, 2, Descriptors::fenced, Lookback::serial>;
  for (std::uint64_t k = 0; k < 4; ++k) {
    scanlab_emu::options().seed = scanlab::derive_seed(scanlab::test_seed(), 1600 + k);
    scanlab_emu::options().schedule = k % 2 ? scanlab_emu::Schedule::random : scanlab_emu::Schedule::in_order;
    INFO(scanlab_emu::describe_options());
    const std::vector<I> in = random_ints(64 * 150 + 17, 1700 + k);
    if (!check_scan(in, scan<SerialFenced>(in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{})) return;
    const auto maps = random_affines(64 * 80 + 3, 1800 + k);
    if (!check_scan(maps, scan<SerialAffine>(maps, ScanKind::inclusive, AffineCompose<std::uint32_t>{}),
               ScanKind::inclusive, AffineCompose<std::uint32_t>{})) {
      return;
    }
    // Fused words need no fence: a reader sees the whole word or none of it.
    using SerialFused = ch07::Policy<32, 2, Descriptors::fused, Lookback::serial>;
    if (!check_scan(in, scan<SerialFused>(in, ScanKind::inclusive, Plus<I>{}), ScanKind::inclusive, Plus<I>{})) return;
    // (The warp look-back is left out here: the emulator's weak mode does not yet let stores of other
    // blocks drain while a warp polls through __ballot_sync, so it would wait forever.)
  }
}

#endif
