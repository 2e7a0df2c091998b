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

#include <scanlab/grading/checker.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;

// A tile shape of the runner: block_threads x items elements per tile.
struct Tile {
  int block_threads;
  int items;
};
constexpr Tile kSmall{64, 4};      // 256 elements per tile, two warps
constexpr Tile kTiny{32, 2};       // 64 elements per tile, one warp: many tiles resident at once
constexpr Tile kDefault{256, 16};  // the chapter's default (16-byte vector loads)
constexpr std::size_t kSmallTile = 256;

json scan_params(ScanKind kind, Tile tile) {
  return {{"kind", scanlab::to_string(kind)}, {"block_threads", tile.block_threads}, {"items", tile.items}};
}

// The scan under test (the runner's chained_scan entry) into a poisoned output: in place, or at
// `offset` elements into the buffers.
template <class T, class Op>
std::vector<T> scan(Tile tile, const std::vector<T>& in, ScanKind kind, Op op, bool in_place = false,
                    std::size_t offset = 0) {
  json params = scan_params(kind, tile);
  params["in_place"] = in_place;
  params["offset"] = offset;
  return call_entry("chained_scan", op, in, params);
}

// Random and constant inputs of every size, up to the first failure.
template <class T, class Op, class MakeRandom>
bool check_sizes(Tile tile, const std::vector<std::size_t>& sizes, ScanKind kind, Op op, MakeRandom make_random,
                 const T& constant, std::uint64_t stream) {
  return check_random_and_constant(sizes, make_random, constant, stream,
                                   std::string(scanlab::to_string(kind)) + " scan", [&](const std::vector<T>& in) {
                                     return check_scan(in, scan(tile, in, kind, op), kind, op);
                                   });
}

}  // namespace

TEST_CASE("int32 exclusive sum of any length equals the oracle" * doctest::description("points: 20")) {
  if (!check_sizes(kSmall, single_pass_test_sizes(kSmallTile), ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                   std::int32_t{3}, 100)) {
    return;
  }
  // The default tile (256 threads x 16, 16-byte vector loads), across a few tiles.
  check_sizes(kDefault, {4096 * 3 + 7, 4096 * 40}, ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
              std::int32_t{-2}, 200);
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

TEST_CASE("float32 sums match a float64 reference and int64 sums are exact" * doctest::description("points: 10")) {
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
  for (const std::size_t n : {kSmallTile * 7 + 5, std::size_t{4096 * 5 + 1}}) {
    INFO("n = " << n);
    const std::vector<I> in = random_ints(n, 1200 + n);
    INFO("in place, small tiles");
    if (!check_scan(in, scan(kSmall, in, ScanKind::exclusive, Plus<I>{}, true), ScanKind::exclusive, Plus<I>{})) return;
    INFO("in place, default tiles");
    if (!check_scan(in, scan(kDefault, in, ScanKind::inclusive, Plus<I>{}, true), ScanKind::inclusive, Plus<I>{}))
      return;
    INFO("pointers one element past a 16-byte boundary");
    if (!check_scan(in, scan(kDefault, in, ScanKind::exclusive, Plus<I>{}, false, 1), ScanKind::exclusive, Plus<I>{})) {
      return;
    }
  }
}

// (That the scan object refuses more than it was made for is the given host code's check, not
// yours: it earns nothing and is no longer graded here.)
TEST_CASE("n == 0 writes nothing; the same scan object scans correctly twice in a row" *
          doctest::description("points: 5")) {
  using I = std::int32_t;
  json params = scan_params(ScanKind::exclusive, kDefault);
  params["n"] = 0;
  const std::vector<I> none = call_entry("chained_scan", Plus<I>{}, random_ints(kSmallTile * 3, 1250), params);
  CHECK_MESSAGE(scanlab::count_poison(none.data(), none.size()) == none.size(), "n == 0 must not write the output");
  // The same object twice: its descriptors and ticket must start afresh each time.
  const std::vector<I> in = random_ints(kSmallTile * 2 + 3, 1300);
  json reused = scan_params(ScanKind::exclusive, kSmall);
  reused["rounds"] = 2;
  const Reply r = Request("chained_scan_reused").monoid(Plus<I>{}).params(reused).input(in).send();
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
    }
  }
}

TEST_CASE("emulator: tiles ordered by blockIdx.x deadlock under reverse dispatch, and it is reported" *
          doctest::description("points: 5")) {
  EmuSettingsGuard guard;
  emu_settings()["schedule"] = "reverse";
  emu_settings()["resident"] = 3;
  emu_settings()["watchdog"] = 20.0;
  using I = std::int32_t;
  const std::vector<I> in = random_ints(20 * kSmallTile, 1500);
  if (on_emulator()) {
    // A chain that really waits for its predecessor cannot finish: the launch must fail, and the
    // runner report it as an error (a wait that returns at once would scan, wrongly or not).
    json request = {{"entry", "chained_scan"},
                    {"monoid", scanlab::wire::monoid_tag<Plus<I>>()},
                    {"params", scan_params(ScanKind::exclusive, kSmall)},
                    {"emu", emu_settings()},
                    {"inputs", json::array({scanlab::wire::encode_array(in)})}};
    request["params"]["order"] = "block_index";
    const Reply r = call_runner(request);
    CHECK_MESSAGE(r.status == Reply::Status::error,
                  "tiles ordered by blockIdx.x under reverse dispatch must deadlock and fail the launch; the runner's "
                  "reply: "
                      << (r.ok() ? std::string("ok") : Request::describe(r)));
  }
  // The same dispatch with the ticket verifies.
  CHECK(check_scan(in, scan(kSmall, in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{}));
}

TEST_CASE("emulator weak memory: the prefix is published as value then fence then flag (several seeds)" *
          doctest::description("points: 15")) {
  EmuSettingsGuard guard;
  emu_settings()["memory"] = "weak";
  using I = std::int32_t;
  // Many small tiles resident at once, so that readers poll while writers' stores are pending.
  for (std::uint64_t k = 0; k < 4; ++k) {
    emu_settings()["seed"] = scanlab::derive_seed(scanlab::test_seed(), 1600 + k);
    emu_settings()["schedule"] = k % 2 ? "random" : "in-order";
    INFO("emulator: " << emu_settings().dump());
    const std::vector<I> in = random_ints(64 * 150 + 17, 1700 + k);
    if (!check_scan(in, scan(kTiny, in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{})) return;
    const auto maps = random_affines(64 * 80 + 3, 1800 + k);
    if (!check_scan(maps, scan(kTiny, maps, ScanKind::inclusive, AffineCompose<std::uint32_t>{}), ScanKind::inclusive,
                    AffineCompose<std::uint32_t>{})) {
      return;
    }
  }
}
