// Grading tests for chapter 07: single-pass scan with decoupled look-back. This is the checker: the
// student's code runs in the runner (07_decoupled_lookback_runner.cu), another process.
//
// Sizes follow CUB's habits around the tile (tile - 1, tile, tile + 1), across a 32-tile window of
// the warp look-back (33 tiles and more), odd large sizes and a single element; random and constant
// inputs; exclusive, inclusive, in place and through unaligned pointers; a non-commutative operator
// (affine maps, 64-bit values: fenced descriptors) and float sums against a float64 reference. Most
// cases use small tiles of two warps (64 threads x 4 items = 256 elements), so that many tiles take
// part on the emulator and a block total taken from one warp only is caught. After a scan every
// tile must have published its inclusive prefix (P): a tile left at A gives right results, but
// every later look-back walks past it, so the scan becomes quadratic in the number of tiles. On the
// emulator, which counts the descriptor words each block reads, the mean look-back over 2000 tiles
// must stay within a few warp windows: a look-back that walks past every P down to tile 0 (right
// results, every tile at P) reads half the tiles.
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

#include <scanlab/grading/checker.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;

// A policy of the runner: block_threads x items elements per tile, the descriptors ("automatic":
// fused where the value fits in 32 bits, else fenced) and the look-back.
struct Policy {
  int block_threads;
  int items;
  const char* descriptors;
  const char* lookback;
};
constexpr Policy kSmall{64, 4, "automatic", "warp"};  // 256 elements per tile, two warps
constexpr Policy kSmallFencedSerial{64, 4, "fenced", "serial"};
constexpr Policy kSmallFusedSerial{64, 4, "fused", "serial"};
constexpr Policy kSmallFencedWarp{64, 4, "fenced", "warp"};
constexpr Policy kDefault{128, 32, "automatic", "warp"};        // the chapter's default (16-byte vector loads)
constexpr Policy kTinyFencedSerial{32, 2, "fenced", "serial"};  // 64 elements per tile, one warp
constexpr Policy kTinyFusedSerial{32, 2, "fused", "serial"};
constexpr Policy kTinyFencedWarp{32, 2, "fenced", "warp"};
constexpr Policy kTinyFusedWarp{32, 2, "fused", "warp"};
constexpr std::size_t kSmallTile = 256;

json scan_params(ScanKind kind, Policy p) {
  return {{"kind", scanlab::to_string(kind)},
          {"block_threads", p.block_threads},
          {"items", p.items},
          {"descriptors", p.descriptors},
          {"lookback", p.lookback}};
}

// The scan under test (the runner's decoupled_lookback_scan entry) into a poisoned output: in
// place, or at `offset` elements into the buffers.
template <class T, class Op>
std::vector<T> scan(Policy p, const std::vector<T>& in, ScanKind kind, Op op, bool in_place = false,
                    std::size_t offset = 0) {
  json params = scan_params(kind, p);
  params["in_place"] = in_place;
  params["offset"] = offset;
  return call_entry("decoupled_lookback_scan", op, in, params);
}

// Random and constant inputs of every size, up to the first failure.
template <class T, class Op, class MakeRandom>
bool check_sizes(Policy p, const std::vector<std::size_t>& sizes, ScanKind kind, Op op, MakeRandom make_random,
                 const T& constant, std::uint64_t stream) {
  return check_random_and_constant(sizes, make_random, constant, stream,
                                   std::string(scanlab::to_string(kind)) + " scan", [&](const std::vector<T>& in) {
                                     return check_scan(in, scan(p, in, kind, op), kind, op);
                                   });
}

// A tile's status as the book writes it.
std::string status_name(std::uint32_t status) {
  switch (status) {
    case 0: return "X (nothing published)";
    case 1: return "A (only its aggregate published)";
    case 2: return "P";
    default: return "an unknown status " + std::to_string(status);
  }
}

// Checks that each of the `tiles` tiles of a finished scan is at P (statuses: one per tile, read
// back from the descriptors), up to the first one that is not.
bool check_every_tile_at_p(const std::vector<std::uint32_t>& statuses, std::size_t tiles) {
  REQUIRE_MESSAGE(statuses.size() == tiles,
                  "the runner returned " << statuses.size() << " tile statuses for " << tiles << " tiles");
  for (std::size_t t = 0; t < tiles; ++t) {
    if (statuses[t] != 2) {
      CHECK_MESSAGE(statuses[t] == 2, "after the scan, tile "
                                          << t << " of " << tiles << " is at " << status_name(statuses[t])
                                          << ", not P: a tile must publish its inclusive prefix once its look-back "
                                             "ends, or every later look-back walks past it (down to tile 0: the "
                                             "scan becomes quadratic in the number of tiles)");
      return false;
    }
  }
  return true;
}

// How far look-backs reach, on the emulator (scanlab/grading/checker.hpp, check_lookback_depth):
// a fused descriptor is one word, a fenced one two (flag and value). The reference on 1000 tiles
// of one warp, mean words per block: serial 1 to 4, warp 31.5 (fused) and 63 (fenced) under the
// block orders checked here; with every tile in flight at once, 24 and 33 (serial), 77 and 154
// (warp), 0.6 of the bound. A walk down to tile 0 reads 1000 descriptors on 2000 tiles (7.8 times
// the bound).
bool check_lookback_depth(const Reply& r, Policy p, std::size_t tiles) {
  return scanlab::grading::check_lookback_depth(r, tiles, std::string(p.descriptors) == "fenced" ? 2 : 1);
}

}  // namespace

TEST_CASE("int32 exclusive sum with the warp look-back and fused descriptors equals the oracle" *
          doctest::description("points: 15")) {
  if (!check_sizes(kSmall, single_pass_test_sizes(kSmallTile), ScanKind::exclusive, Plus<std::int32_t>{}, random_ints,
                   std::int32_t{3}, 100)) {
    return;
  }
  // The default tile (128 threads x 32, 16-byte vector loads), across a few tiles.
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

TEST_CASE("every step of the book scans: serial or warp look-back with fenced or fused descriptors" *
          doctest::description("points: 10")) {
  const std::vector<std::size_t> sizes = {kSmallTile + 1, 40 * kSmallTile + 9, 70001};
  using I = std::int32_t;
  {
    INFO("serial look-back, fenced descriptors");
    if (!check_sizes(kSmallFencedSerial, sizes, ScanKind::exclusive, Plus<I>{}, random_ints, I{1}, 500)) return;
  }
  {
    INFO("serial look-back, fused descriptors");
    if (!check_sizes(kSmallFusedSerial, sizes, ScanKind::exclusive, Plus<I>{}, random_ints, I{1}, 600)) return;
  }
  INFO("warp look-back, fenced descriptors");
  check_sizes(kSmallFencedWarp, sizes, ScanKind::inclusive, Plus<I>{}, random_ints, I{1}, 700);
}

TEST_CASE("non-commutative affine maps (64-bit values, fenced descriptors) keep operand order" *
          doctest::description("points: 15")) {
  if (!check_sizes(kSmall, single_pass_test_sizes(kSmallTile), ScanKind::exclusive, AffineCompose<std::uint32_t>{},
                   random_affines, kConstantAffine, 800)) {
    return;
  }
  {
    INFO("serial look-back, fenced descriptors");
    if (!check_sizes(kSmallFencedSerial, {33 * kSmallTile + 1}, ScanKind::inclusive, AffineCompose<std::uint32_t>{},
                     random_affines, kConstantAffine, 900)) {
      return;
    }
  }
  // Blocks that take turns pass by pass make look-backs walk past predecessors that have published
  // only A, so each combines several values: the order of those operands shows only there.
  if (on_emulator()) {
    EmuSettingsGuard guard;
    emu_settings()["resident"] = 5u;
    emu_settings()["interleave"] = true;
    for (const Policy p : {kSmallFencedSerial, kSmall}) {
      INFO(p.lookback << " look-back, " << p.descriptors << " descriptors, emulator: " << emu_settings().dump());
      if (!check_sizes(p, {40 * kSmallTile + 3}, ScanKind::exclusive, AffineCompose<std::uint32_t>{}, random_affines,
                       kConstantAffine, 950)) {
        return;
      }
    }
  }
}

TEST_CASE("float32 sums match a float64 reference and int64 sums wider than 32 bits are exact" *
          doctest::description("points: 5")) {
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

TEST_CASE("in place (out == in) and through unaligned pointers (no vector loads)" * doctest::description("points: 5")) {
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
  json params = scan_params(ScanKind::exclusive, kSmall);
  params["n"] = 0;
  const std::vector<I> none =
      call_entry("decoupled_lookback_scan", Plus<I>{}, random_ints(kSmallTile * 3, 1250), params);
  CHECK_MESSAGE(scanlab::count_poison(none.data(), none.size()) == none.size(), "n == 0 must not write the output");
  // The same object twice: its descriptors and ticket must start afresh each time.
  const std::vector<I> in = random_ints(kSmallTile * 2 + 3, 1300);
  json reused = scan_params(ScanKind::exclusive, kSmall);
  reused["rounds"] = 2;
  const Reply r = Request("decoupled_lookback_scan_reused").monoid(Plus<I>{}).params(reused).input(in).send();
  for (std::size_t round = 0; round < 2; ++round) {
    INFO("round " << round);
    if (!check_scan(in, output<I>(r, round), ScanKind::exclusive, Plus<I>{})) return;
  }
}

TEST_CASE("every tile publishes its inclusive prefix (P), so that look-backs stay short" *
          doctest::description("points: 10")) {
  using I = std::int32_t;
  // Every step of the book, across more than one 32-tile window, under every block order on the
  // emulator (interleaved, so that look-backs meet predecessors that have published only A).
  EmuSettingsGuard guard;
  emu_settings()["resident"] = 5;
  emu_settings()["interleave"] = true;
  const std::size_t n = 40 * kSmallTile + 9;
  const std::size_t tiles = (n + kSmallTile - 1) / kSmallTile;
  std::uint64_t stream = 1900;
  bool ok = true;  // up to the first failure
  for_each_block_order([&] {
    for (const Policy p : {kSmall, kSmallFencedWarp, kSmallFencedSerial, kSmallFusedSerial}) {
      if (!ok) return;
      INFO(std::string(p.lookback) << " look-back, " << std::string(p.descriptors) << " descriptors");
      const std::vector<I> in = random_ints(n, ++stream);
      const Reply r = Request("decoupled_lookback_scan")
                          .monoid(Plus<I>{})
                          .params(scan_params(ScanKind::exclusive, p))
                          .input(in)
                          .send();
      ok = check_scan(in, output<I>(r, 0), ScanKind::exclusive, Plus<I>{}) &&
           check_every_tile_at_p(output<std::uint32_t>(r, 1), tiles);
    }
  });
  // On the emulator, 2000 tiles of one warp: how deep the look-backs went (see
  // check_lookback_depth), for each step of the book.
  if (!ok || !on_emulator()) return;
  const std::size_t many_tiles = 2000;
  for_each_block_order([&] {
    for (const Policy p : {kTinyFencedSerial, kTinyFusedSerial, kTinyFencedWarp, kTinyFusedWarp}) {
      if (!ok) return;
      INFO(std::string(p.lookback) << " look-back, " << std::string(p.descriptors) << " descriptors, " << many_tiles
                                   << " tiles");
      const std::size_t tile = static_cast<std::size_t>(p.block_threads) * p.items;
      const std::vector<I> in = random_ints(many_tiles * tile - 5, ++stream);
      const Reply r = Request("decoupled_lookback_scan")
                          .monoid(Plus<I>{})
                          .params(scan_params(ScanKind::exclusive, p))
                          .input(in)
                          .send();
      ok = check_scan(in, output<I>(r, 0), ScanKind::exclusive, Plus<I>{}) &&
           check_every_tile_at_p(output<std::uint32_t>(r, 1), many_tiles) && check_lookback_depth(r, p, many_tiles);
    }
  });
}

// The emulator's settings below (block order, residency, interleaving, memory model) are ignored by
// a GPU runner: there these cases check the scan under the hardware's own order and memory model.

TEST_CASE("emulator: the ticket makes every dispatch order and residency safe" * doctest::description("points: 10")) {
  EmuSettingsGuard guard;
  using I = std::int32_t;
  const std::vector<I> in = random_ints(40 * kSmallTile + 3, 1400);
  for (const char* schedule : {"in-order", "reverse", "random"}) {
    for (const unsigned resident : {1u, 2u, 5u}) {
      // Interleaved, resident blocks take turns pass by pass, as on a GPU: a look-back then meets
      // predecessors that have published only their aggregate (A), and must walk past them.
      for (const bool interleave : {false, true}) {
        emu_settings()["schedule"] = schedule;
        emu_settings()["resident"] = resident;
        emu_settings()["interleave"] = interleave;
        emu_settings()["seed"] = scanlab::test_seed();
        INFO("emulator: " << emu_settings().dump());
        if (!check_scan(in, scan(kSmall, in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{})) return;
        if (!check_scan(in, scan(kSmallFencedSerial, in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive,
                        Plus<I>{})) {
          return;
        }
      }
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
  // The serial look-back (one thread polls) and the warp look-back (a warp polls through
  // __ballot_sync): the emulator recognises both polling loops as waiting and reports the deadlock.
  if (on_emulator()) {
    // A look-back that really waits for its predecessors cannot finish: the launch must fail, and
    // the runner report it as an error (a look-back that returns at once would scan, wrongly or not).
    // (Request::send would fail the check on that error, so the request is sent as it is.)
    for (const Policy policy : {kSmallFusedSerial, kSmall}) {
      json request = {{"entry", "decoupled_lookback_scan"},
                      {"monoid", scanlab::wire::monoid_tag<Plus<I>>()},
                      {"params", scan_params(ScanKind::exclusive, policy)},
                      {"emu", emu_settings()},
                      {"inputs", json::array({scanlab::wire::encode_array(in)})}};
      request["params"]["order"] = "block_index";
      const Reply r = call_runner(request);
      CHECK_MESSAGE(r.status == Reply::Status::error,
                    "tiles ordered by blockIdx.x under reverse dispatch must deadlock and fail the launch ("
                        << policy.lookback << " look-back); the runner's reply: " << to_string(r.status)
                        << (r.message.empty() ? "" : ": " + r.message));
    }
  }
  // The same dispatch with the ticket verifies.
  CHECK(check_scan(in, scan(kSmallFusedSerial, in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{}));
}

TEST_CASE(
    "emulator weak memory: fenced descriptors (value, fence, flag) and fused ones (one 64-bit word) publish safely" *
    doctest::description("points: 10")) {
  EmuSettingsGuard guard;
  emu_settings()["memory"] = "weak";
  using I = std::int32_t;
  // Many small tiles resident at once, so that readers poll while writers' stores are pending; from
  // the third round on, blocks also take turns pass by pass (interleaved), so that a reader often
  // finds a flag set while the value's store is still new: a plain load of the value then may return
  // an old one, unless a fence (or a volatile load) comes between. Each round's seed draws other old
  // values; ten rounds make a missing reader fence show in practically every grade.
  for (std::uint64_t k = 0; k < 10; ++k) {
    emu_settings()["seed"] = scanlab::derive_seed(scanlab::test_seed(), 1600 + k);
    emu_settings()["schedule"] = k % 2 ? "random" : "in-order";
    emu_settings()["interleave"] = k >= 2;
    INFO("emulator: " << emu_settings().dump());
    const std::vector<I> in = random_ints(64 * 150 + 17, 1700 + k);
    {
      INFO("serial look-back, fenced descriptors, int32 sums");
      if (!check_scan(in, scan(kTinyFencedSerial, in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive,
                      Plus<I>{})) {
        return;
      }
    }
    {
      INFO("serial look-back, fenced descriptors, affine maps (64-bit values)");
      const auto maps = random_affines(64 * 80 + 3, 1800 + k);
      if (!check_scan(maps, scan(kTinyFencedSerial, maps, ScanKind::inclusive, AffineCompose<std::uint32_t>{}),
                      ScanKind::inclusive, AffineCompose<std::uint32_t>{})) {
        return;
      }
    }
    // Fused words need no fence: a reader sees the whole word or none of it.
    {
      INFO("serial look-back, fused descriptors (status and value in ONE 64-bit store), int32 sums");
      if (!check_scan(in, scan(kTinyFusedSerial, in, ScanKind::inclusive, Plus<I>{}), ScanKind::inclusive, Plus<I>{})) {
        return;
      }
    }
    // The warp look-back: 32 lanes poll through __ballot_sync while other blocks' stores drain.
    {
      INFO("warp look-back, fenced descriptors (value, fence, flag), int32 sums");
      if (!check_scan(in, scan(kTinyFencedWarp, in, ScanKind::exclusive, Plus<I>{}), ScanKind::exclusive, Plus<I>{})) {
        return;
      }
    }
    {
      INFO("warp look-back, fused descriptors (status and value in ONE 64-bit store), int32 sums");
      if (!check_scan(in, scan(kTinyFusedWarp, in, ScanKind::inclusive, Plus<I>{}), ScanKind::inclusive, Plus<I>{})) {
        return;
      }
    }
  }
}
