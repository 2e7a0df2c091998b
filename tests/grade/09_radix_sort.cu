// Grading tests for chapter 09: the split primitive, LSD radix sort of uint32 keys and pairs, and
// Onesweep (32- and 64-bit keys of every number type, keys and pairs).
//
// The reference is std::stable_sort of the input positions by key. Keys must come out in that
// order, and (pairs, with the input positions as values) every value must be exactly where the
// stable sort puts it: a sort that orders the keys but swaps equal ones fails. Sizes: 1, a warp
// +-1, a tile (2048) +-1, several tiles with a ragged end; keys over the full 32-bit range, over a
// few values only (many equal keys: where instability shows), and already sorted / reversed. The
// multi-tile tests run under the emulator's three block orders. The untouched exercise leaves the
// keys unsorted, so it fails every case. This is the checker: the student's code runs in the runner
// (09_radix_sort_runner.cu), another process. (The workspace's size checks are given code, so no
// case grades them.)
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <cstring>
#include <type_traits>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;
using scanlab::test_seed;
using Keys = std::vector<std::uint32_t>;

enum class Algo { digits_keys, digits_pairs, split_keys, split_pairs };

const char* algo_name(Algo a) {
  switch (a) {
    case Algo::digits_keys: return "radix_sort_keys";
    case Algo::digits_pairs: return "radix_sort_pairs";
    case Algo::split_keys: return "radix_sort_split (keys)";
    default: return "radix_sort_split (pairs)";
  }
}

bool with_values(Algo a) { return a == Algo::digits_pairs || a == Algo::split_pairs; }

const char* wire_name(Algo a) {
  switch (a) {
    case Algo::digits_keys: return "digits_keys";
    case Algo::digits_pairs: return "digits_pairs";
    case Algo::split_keys: return "split_keys";
    default: return "split_pairs";
  }
}

// Sorts keys (values = input positions) with `algo` in the runner; returns keys and values.
std::pair<Keys, Keys> sort_on_device(const Keys& keys, Algo algo, const json& params = json::object()) {
  Keys positions(keys.size());
  std::iota(positions.begin(), positions.end(), 0u);
  const Reply r =
      Request("sort").params({{"algo", wire_name(algo)}}).params(params).input(keys).input(positions).send();
  return {output<std::uint32_t>(r, 0), output<std::uint32_t>(r, 1)};
}

// Checks one sort against std::stable_sort. Returns whether it held.
bool check_sort(const Keys& keys, Algo algo, const char* input) {
  const std::size_t n = keys.size();
  Keys order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return keys[a] < keys[b];
  });
  Keys want_keys(n);
  for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[order[i]];
  const auto [got_keys, got_values] = sort_on_device(keys, algo);
  INFO(std::string(algo_name(algo)) << ", n = " << n << ", " << input);
  REQUIRE(got_keys.size() == n);
  REQUIRE(got_values.size() == n);
  const scanlab::VerifyResult rk = scanlab::verify_exact(want_keys.data(), got_keys.data(), n);
  CHECK_MESSAGE(rk.ok, "keys: " << rk.message());
  if (!rk.ok) return false;
  if (with_values(algo)) {
    const scanlab::VerifyResult rv = scanlab::verify_exact(order.data(), got_values.data(), n);
    CHECK_MESSAGE(rv.ok, "keys are in order but the values (input positions) are not where a STABLE sort puts "
                         "them: "
                             << rv.message());
    if (!rv.ok) return false;
  }
  return true;
}

const std::size_t kSizes[] = {1, 2, 31, 32, 33, 2047, 2048, 2049, 3 * 2048 + 999, 20000};

void check_all_inputs(Algo algo, bool large_sizes) {
  std::uint64_t stream = 200;
  for (const std::size_t n : kSizes) {
    if (!large_sizes && n > 5000) continue;
    if (!check_sort(scanlab::random_vector<std::uint32_t>(n, test_seed(++stream), 0u, 0xffffffffu), algo,
                    "keys over the full 32-bit range"))
      return;
    if (!check_sort(scanlab::random_vector<std::uint32_t>(n, test_seed(++stream), 0u, 5u), algo,
                    "keys in [0, 5]: many equal keys"))
      return;
    Keys high(n);  // equal low digits, different high ones: the last passes decide
    for (std::size_t i = 0; i < n; ++i) high[i] = static_cast<std::uint32_t>((n - i) % 7) << 28 | 0x0000abcdu;
    if (!check_sort(high, algo, "keys differing only in the top digit")) return;
    Keys sorted(n);
    std::iota(sorted.begin(), sorted.end(), 1000u);
    if (!check_sort(sorted, algo, "already sorted")) return;
    std::reverse(sorted.begin(), sorted.end());
    if (!check_sort(sorted, algo, "reversed")) return;
  }
}

// ---- Onesweep -----------------------------------------------------------------------------------

// The order Onesweep sorts in: the keys' bits, twiddled (the sign bit flipped; negative floats'
// bits all flipped), as unsigned numbers. For numbers that is ascending order, with -0.0 before
// +0.0.
template <class Key>
auto ordered_bits(Key k) {
  using Bits = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  Bits b;
  std::memcpy(&b, &k, sizeof(Key));
  const Bits sign = Bits(1) << (8 * sizeof(Key) - 1);
  if constexpr (std::is_floating_point_v<Key>) return (b & sign) ? Bits(~b) : Bits(b | sign);
  else if constexpr (std::is_signed_v<Key>) return Bits(b ^ sign);
  else return b;
}

template <class Key>
const char* key_tag() {
  if constexpr (std::is_same_v<Key, std::uint32_t>) return "u32";
  else if constexpr (std::is_same_v<Key, std::int32_t>) return "i32";
  else if constexpr (std::is_same_v<Key, float>) return "f32";
  else return "u64";
}

// Onesweep of keys (values = input positions) in the runner, checked against std::stable_sort by
// the twiddled bits. Returns whether it held.
template <class Key>
bool check_onesweep(const std::vector<Key>& keys, bool pairs, const char* input, const json& params = json::object()) {
  const std::size_t n = keys.size();
  Keys order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return ordered_bits(keys[a]) < ordered_bits(keys[b]);
  });
  std::vector<Key> want_keys(n);
  for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[order[i]];
  Keys positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  // Before the call, so that a runner's error (an illegal address, say) carries it too.
  INFO((pairs ? "onesweep_sort_pairs" : "onesweep_sort_keys")
       << " of " << key_tag<Key>() << " keys, n = " << n << ", " << input << (params.empty() ? "" : ", ")
       << (params.empty() ? "" : params.dump()));
  const Reply r = Request("onesweep")
                      .params({{"key_type", key_tag<Key>()}, {"pairs", pairs}})
                      .params(params)
                      .input(keys)
                      .input(positions)
                      .send();
  const std::vector<Key> got_keys = output<Key>(r, 0);
  const Keys got_values = output<std::uint32_t>(r, 1);
  REQUIRE(got_keys.size() == n);
  REQUIRE(got_values.size() == n);
  const scanlab::VerifyResult rk = scanlab::verify_exact(want_keys.data(), got_keys.data(), n);
  CHECK_MESSAGE(rk.ok, "keys: " << rk.message());
  if (!rk.ok) return false;
  if (pairs) {
    const scanlab::VerifyResult rv = scanlab::verify_exact(order.data(), got_values.data(), n);
    CHECK_MESSAGE(rv.ok, "keys are in order but the values (input positions) are not where a STABLE sort puts "
                         "them: "
                             << rv.message());
    if (!rv.ok) return false;
  }
  return true;
}

// Random keys of every type: over the whole range, or from 6 values only (many equal keys).
template <class Key>
std::vector<Key> onesweep_keys(std::size_t n, std::uint64_t seed, bool few) {
  const std::vector<std::uint32_t> r = scanlab::random_vector<std::uint32_t>(n, seed, 0u, few ? 5u : 0xffffffffu);
  const std::vector<std::uint32_t> hi = scanlab::random_vector<std::uint32_t>(n, seed ^ 0x5bd1e995u, 0u, 0xffffffffu);
  std::vector<Key> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<Key, std::uint64_t>)
      keys[i] = few ? r[i] * 0x9E3779B97F4A7C15ull : (std::uint64_t(hi[i]) << 32 | r[i]);
    else if constexpr (std::is_floating_point_v<Key>)
      keys[i] = few ? (static_cast<float>(r[i]) - 2.5f) : (static_cast<float>(static_cast<std::int32_t>(r[i])) * 1e-3f);
    else keys[i] = static_cast<Key>(few ? r[i] - 3u : r[i]);
  }
  return keys;
}

// Keys per tile of Onesweep's given shape for this key type, sorting keys or pairs (the runner
// says, once per type and kind).
template <class Key, bool kPairs>
std::size_t onesweep_tile() {
  static const std::size_t tile = [] {
    const Reply r = Request("onesweep")
                        .params({{"key_type", key_tag<Key>()}, {"pairs", kPairs}})
                        .input(std::vector<Key>{Key(1)})
                        .input(Keys{0u})
                        .send();
    return static_cast<std::size_t>(r.info.value("tile_items", 0LL));
  }();
  REQUIRE_MESSAGE(tile > 0, "the runner did not say how many keys a tile holds");
  return tile;
}

// Sizes around Onesweep's tiles: one, a warp +-1, a tile +-1, several tiles with a ragged end.
template <class Key>
void check_onesweep_sizes(bool pairs) {
  const std::size_t tile = pairs ? onesweep_tile<Key, true>() : onesweep_tile<Key, false>();
  std::uint64_t stream = 900;
  for (const std::size_t n : {std::size_t{1}, std::size_t{33}, tile - 1, tile, tile + 1, 5 * tile + 777}) {
    for (const bool few : {false, true}) {
      if (!check_onesweep(onesweep_keys<Key>(n, test_seed(++stream), few), pairs,
                          few ? "keys from 6 values: many equal keys" : "keys over the whole range"))
        return;
    }
  }
}

}  // namespace

TEST_CASE("split by one bit: false keys first, then true keys, each side in input order" *
          doctest::description("points: 15")) {
  for (const std::size_t n : {std::size_t{8}, std::size_t{33}, std::size_t{5000}, std::size_t{70001}}) {
    for (const int bit : {0, 5, 31}) {
      const Keys keys =
          scanlab::random_vector<std::uint32_t>(n, test_seed(n + static_cast<std::uint64_t>(bit)), 0u, 0xffffffffu);
      Keys positions(n);
      std::iota(positions.begin(), positions.end(), 0u);
      Keys want_keys, want_values;
      for (int side = 0; side < 2; ++side) {
        for (std::size_t i = 0; i < n; ++i) {
          if (((keys[i] >> bit) & 1u) == static_cast<std::uint32_t>(side)) {
            want_keys.push_back(keys[i]);
            want_values.push_back(static_cast<std::uint32_t>(i));
          }
        }
      }
      const Reply r = Request("split_by_bit").params({{"bit", bit}}).input(keys).input(positions).send();
      INFO("n = " << n << ", bit " << bit);
      CHECK(output<std::uint32_t>(r, 0) == want_keys);
      CHECK_MESSAGE(output<std::uint32_t>(r, 1) == want_values, "the values must follow their keys, stably");
    }
  }
}

TEST_CASE("radix_sort_keys (4-bit digits) sorts uint32 keys, in every block order" *
          doctest::description("points: 15")) {
  for_each_block_order([] {
    check_all_inputs(Algo::digits_keys, true);
  });
}

TEST_CASE("radix_sort_pairs is stable: every value lands where std::stable_sort puts it" *
          doctest::description("points: 25")) {
  for_each_block_order([] {
    check_all_inputs(Algo::digits_pairs, true);
  });
}

TEST_CASE("stability, pointedly: equal keys keep their input order across tiles" * doctest::description("points: 10")) {
  // Two distinct keys only, interleaved over many tiles: an unstable local sort or a digit table
  // scanned tile-major instead of digit-major reorders the equal keys while the keys look sorted.
  const std::size_t n = 3 * 2048 + 77;
  Keys keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = (i * 2654435761u >> 7) % 2 == 0 ? 0x10u : 0x0fu;
  CHECK(check_sort(keys, Algo::digits_pairs, "two keys, interleaved"));
  CHECK(check_sort(keys, Algo::split_pairs, "two keys, interleaved"));
}

TEST_CASE("radix_sort_split (32 one-bit splits) sorts keys and pairs stably" * doctest::description("points: 15")) {
  check_all_inputs(Algo::split_keys, false);
  check_all_inputs(Algo::split_pairs, false);
}

TEST_CASE("limits: n == 0 leaves the keys alone, and one small sort works" * doctest::description("points: 5")) {
  const Keys keys = scanlab::random_vector<std::uint32_t>(100, test_seed(9), 0u, 1000u);
  CHECK_MESSAGE(sort_on_device(keys, Algo::digits_keys, {{"n", 0}}).first == keys, "n == 0 must not change the keys");
  CHECK(check_sort(keys, Algo::digits_pairs, "small"));
}

TEST_CASE("onesweep sorts uint32 keys and pairs stably, in every block order" * doctest::description("points: 20")) {
  check_onesweep_sizes<std::uint32_t>(false);
  for_each_block_order([] {
    check_onesweep_sizes<std::uint32_t>(true);
  });
}

TEST_CASE("onesweep sorts int32, float and uint64 keys by value (the bit twiddle)" *
          doctest::description("points: 10")) {
  check_onesweep_sizes<std::int32_t>(true);
  check_onesweep_sizes<float>(true);
  check_onesweep_sizes<std::uint64_t>(true);
  // Signs, zeros of both signs, infinities: -0.0 sorts before +0.0 (their bits differ).
  const std::vector<float> special = {3.5f, -0.0f, 1e30f, -1e30f, 0.0f, -2.25f, 2.25f, -0.0f, 7.0f, -7.0f};
  check_onesweep(special, true, "signed floats and both zeros");
}

TEST_CASE("onesweep: many tiles of few digits, and portions that carry the counts on" *
          doctest::description("points: 10")) {
  // Three keys, interleaved over many tiles: every tile's count of a digit has to come from the
  // look-back, and an unstable ranking swaps the equal keys. (Three, not two: a pass of at most
  // two digits is ranked by the given code, without rank_in_warp.)
  // The pairs' tile; keys-only sorts have tiles of their own, so their portions below end inside one.
  const std::size_t tile = onesweep_tile<std::uint32_t, true>();
  const std::size_t n = 9 * tile + 123;
  std::vector<std::uint32_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = 0x0fu + static_cast<std::uint32_t>((i * 2654435761u >> 7) % 3);
  CHECK(check_onesweep(keys, true, "three keys, interleaved"));
  if (on_emulator()) {
    // Blocks taking turns (a few resident at once): look-backs meet predecessors that have
    // published only their own counts (A), not yet the counts up to them (P).
    EmuSettingsGuard guard;
    emu_settings()["resident"] = 4;
    emu_settings()["interleave"] = true;
    CHECK(check_onesweep(onesweep_keys<std::uint32_t>(n, test_seed(79), false), true,
                         "keys over the whole range, blocks taking turns"));
  }
  // Portions of 3 tiles: each launch starts from the bins the previous one left.
  CHECK(check_onesweep(onesweep_keys<std::uint32_t>(n, test_seed(77), false), true, "keys over the whole range",
                       {{"portion", 3 * tile}}));
  CHECK(check_onesweep(onesweep_keys<std::uint32_t>(n, test_seed(78), true), false, "keys from 6 values",
                       {{"portion", 2 * tile}, {"in_place", true}}));
}
