// Grading tests for chapter 09: the split primitive, LSD radix sort of uint32 keys and pairs, and
// Onesweep (32- and 64-bit keys of every number type, keys and pairs).
//
// First each of the student's functions on its own, with inputs chosen to show one thing, so that the
// first failure is the smallest one and its message can say what the function returned and what
// that means (split_destination, block_split_by_bit, scatter_destination, then the whole sorts of
// the first half; Onesweep's descriptors, rank_in_warp and look_back_digit, then Onesweep's sorts).
// A message shows expected and actual values (a small array whole, a large one around its first
// difference) and, where the output shows it, the cause.
//
// The reference of the whole sorts is std::stable_sort of the input positions by key. Keys must come out in that
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
#include <cstring>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;
using scanlab::test_seed;
using Keys = std::vector<std::uint32_t>;

// ---- showing what was seen ------------------------------------------------------------------------

template <class T>
std::string shown(const T& v) {
  return scanlab::is_poison(v) ? std::string("unwritten") : scanlab::to_display_string(v);
}

// Elements [from, to) of v: "{a, b, c}".
template <class T>
std::string slice(const std::vector<T>& v, std::size_t from, std::size_t to) {
  std::string text = "{";
  for (std::size_t i = from; i < to && i < v.size(); ++i) text += (i > from ? ", " : "") + shown(v[i]);
  return text + "}";
}

template <class T>
std::size_t first_difference(const std::vector<T>& want, const std::vector<T>& got) {
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  return i;
}

// Expected and actual `what`: whole arrays of up to 32 elements, else 6 either side of the first
// difference.
template <class T>
std::string expected_and_got(const char* what, const std::vector<T>& want, const std::vector<T>& got) {
  const std::size_t i = first_difference(want, got);
  std::ostringstream os;
  if (want.size() <= 32) {
    os << what << ": expected " << slice(want, 0, want.size()) << "\n  got      " << slice(got, 0, got.size())
       << "\n  (first difference at index " << i << ")";
  } else {
    const std::size_t from = i >= 6 ? i - 6 : 0;
    const std::size_t to = std::min(want.size(), i + 7);
    os << what << " " << from << " to " << to - 1 << " of " << want.size() << " (first difference at index " << i
       << "): expected " << slice(want, from, to) << "\n  got      " << slice(got, from, to);
  }
  return os.str();
}

// Checks got == want; on a difference fails with both shown and `cause` (when not empty).
template <class T>
bool check_equal(const char* what, const std::vector<T>& want, const std::vector<T>& got,
                 const std::string& cause = "") {
  if (got == want) return true;
  CHECK_MESSAGE(got == want, expected_and_got(what, want, got) << (cause.empty() ? "" : "\n  " + cause));
  return false;
}

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
  INFO(std::string(algo_name(algo)) << ", n = " << n << ", " << input);
  const auto [got_keys, got_values] = sort_on_device(keys, algo);
  if (got_keys.size() != n || got_values.size() != n) return false;  // the reply's failure says why
  if (!check_equal("keys", want_keys, got_keys)) return false;
  if (with_values(algo)) {
    return check_equal("values (input positions)", order, got_values,
                       "unstable: the keys are in order but equal keys are not in input order, as a STABLE sort "
                       "leaves them");
  }
  return true;
}

const std::size_t kSizes[] = {1, 2, 31, 32, 33, 2047, 2048, 2049, 3 * 2048 + 999};

// Which of kSizes a case sorts: a tile (2048 keys) or less is one block, which every block order
// runs alike, so the cases run those once and only the sizes of several tiles in every block order.
enum class Sizes { one_tile, several_tiles, up_to_5000 };

bool sorts_size(Sizes sizes, std::size_t n) {
  switch (sizes) {
    case Sizes::one_tile: return n <= 2048;
    case Sizes::several_tiles: return n > 2048;
    default: return n <= 5000;
  }
}

void check_all_inputs(Algo algo, Sizes sizes) {
  std::uint64_t stream = 200;
  for (const std::size_t n : kSizes) {
    if (!sorts_size(sizes, n)) continue;
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
  if (got_keys.size() != n || got_values.size() != n) return false;  // the reply's failure says why
  if (!check_equal("keys", want_keys, got_keys)) return false;
  if (pairs) {
    return check_equal("values (input positions)", order, got_values,
                       "unstable: the keys are in order but equal keys are not in input order, as a STABLE sort "
                       "leaves them");
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

// ---- the first half's functions, one at a time ---------------------------------------------------

namespace {

constexpr std::size_t kTile = 2048;                // the local sort's tile (kSortTile)
constexpr int kTableDigits = 16;                   // the 4-bit digits (kDigits)
constexpr std::uint32_t kUnwritten = 0xcdcdcdcdu;  // a slot of block_split's output no key reached (the poison)

bool bit_set(std::uint32_t key, int bit) { return ((key >> bit) & 1u) != 0; }

// The cause split_destination's destinations show, when they show one.
std::string split_cause(const Keys& keys, int bit, const std::vector<std::uint64_t>& want,
                        const std::vector<std::uint64_t>& got) {
  const std::size_t n = keys.size();
  bool falses_right = true, trues_same_shift = true;
  long long shift = 0;
  bool first_true = true;
  for (std::size_t i = 0; i < n; ++i) {
    const long long delta = static_cast<long long>(got[i]) - static_cast<long long>(want[i]);
    if (!bit_set(keys[i], bit)) {
      falses_right = falses_right && delta == 0;
    } else if (first_true) {
      shift = delta;
      first_true = false;
    } else {
      trues_same_shift = trues_same_shift && delta == shift;
    }
  }
  if (falses_right && !first_true && trues_same_shift && shift != 0) {
    std::ostringstream os;
    os << "every key whose bit " << bit << " is set went " << (shift < 0 ? -shift : shift) << " place"
       << (shift == 1 || shift == -1 ? "" : "s") << (shift < 0 ? " too low" : " too high")
       << ", and every key whose bit is clear went to the right place: the number of false keys (F) you used is "
       << (shift < 0 ? "short" : "too large") << " by " << (shift < 0 ? -shift : shift);
    if (shift == -1 && !bit_set(keys[n - 1], bit)) {
      os << ". Here the last key is false itself, and the count leaves it out: F counts ALL the false keys, the "
            "last one too";
    }
    return os.str();
  }
  std::map<std::uint64_t, std::size_t> first_at;
  for (std::size_t i = 0; i < n; ++i) {
    const auto [it, fresh] = first_at.emplace(got[i], i);
    if (!fresh) {
      std::ostringstream os;
      os << "keys " << it->second << " and " << i << " were both sent to position " << got[i]
         << ": two keys share a place, so one overwrites the other and some position is never written";
      return os.str();
    }
  }
  if (!falses_right) {
    return "a key whose bit is clear (a false key) must go to its rank among the false keys: the false keys "
           "fill positions 0, 1, ..., F - 1 in input order";
  }
  return "a key whose bit is set (a true key) must go after all the false keys, at its rank among the true keys: "
         "positions F, F + 1, ..., n - 1 in input order";
}

// One request of split_destination for every key; checks the destinations.
bool check_split_destination(const Keys& keys, int bit, const char* what) {
  const std::size_t n = keys.size();
  Keys f(n + 1, 0);  // the exclusive scan of the "bit is 0" flags, f[n] = all the false keys
  for (std::size_t i = 0; i < n; ++i) f[i + 1] = f[i] + (bit_set(keys[i], bit) ? 0u : 1u);
  std::vector<std::uint64_t> want(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = bit_set(keys[i], bit) ? i - f[i] + f[n] : f[i];
  std::ostringstream inputs;
  inputs << "split_destination(f, n = " << n << ", i, keys[i], bit = " << bit << ") for every key i, " << what;
  if (n <= 16) inputs << "\n  keys = " << slice(keys, 0, n) << ", f = " << slice(f, 0, n + 1);
  INFO(inputs.str());
  const Reply r = Request("split_destination").params({{"bit", bit}}).input(keys).input(f).send();
  const std::vector<std::uint64_t> got = output<std::uint64_t>(r, 0);
  if (!r.ok() || got.size() != n) return false;
  return check_equal("destinations", want, got, got == want ? "" : split_cause(keys, bit, want, got));
}

// The cause a block split's output shows (values: the keys' input slots).
std::string block_split_cause(const Keys& keys, int bit, const Keys& got_keys, const Keys& got_values) {
  const std::size_t n = keys.size();
  std::vector<int> seen(n, 0);
  std::vector<std::size_t> unwritten;
  for (std::size_t p = 0; p < n; ++p) {
    if (got_values[p] == kUnwritten) unwritten.push_back(p);
    else if (got_values[p] < n) ++seen[got_values[p]];
  }
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < n; ++i)
    if (seen[i] == 0) missing.push_back(i);
  std::ostringstream os;
  if (!unwritten.empty() || !missing.empty()) {
    os << unwritten.size() << " slot(s) of the split tile were never written (the first: slot "
       << (unwritten.empty() ? 0 : unwritten[0]) << ") and " << missing.size()
       << " key(s) are missing from it (the first: the key of slot " << (missing.empty() ? 0 : missing[0])
       << "): a rank shared by two keys. Two keys were given the same slot and one overwrote the other";
    return os.str();
  }
  for (std::size_t p = 0; p < n; ++p) {
    if (got_values[p] >= n || got_keys[p] != keys[got_values[p]]) {
      os << "slot " << p << " holds key " << got_keys[p] << " with the value of slot " << got_values[p]
         << ": a value must move with its key";
      return os.str();
    }
  }
  for (std::size_t p = 1; p < n; ++p) {
    if (bit_set(got_keys[p - 1], bit) && !bit_set(got_keys[p], bit)) {
      os << "not split: slot " << p - 1 << " holds a key whose bit " << bit << " is set, before slot " << p
         << " whose bit is clear. Every key whose bit is clear comes first";
      return os.str();
    }
  }
  for (std::size_t p = 1; p < n; ++p) {
    if (bit_set(got_keys[p - 1], bit) == bit_set(got_keys[p], bit) && got_values[p - 1] > got_values[p]) {
      os << "unstable: the keys are split by the bit, but slots " << p - 1 << " and " << p
         << " hold the keys of input slots " << got_values[p - 1] << " and " << got_values[p] << " (both with bit "
         << bit << (bit_set(got_keys[p], bit) ? " set" : " clear")
         << "), in the reverse of their input order. Each side of the split keeps its keys in input order";
      return os.str();
    }
  }
  return "";
}

bool check_block_split(const Keys& keys, int bit, const char* what) {
  INFO("block_split_by_bit<true>(s, 0, bit = " << bit << ") of one tile of " << keys.size()
                                               << " keys whose values are their slots, " << what);
  Keys want_keys, want_values;
  for (int side = 0; side < 2; ++side) {
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (static_cast<int>(bit_set(keys[i], bit)) == side) {
        want_keys.push_back(keys[i]);
        want_values.push_back(static_cast<std::uint32_t>(i));
      }
    }
  }
  const Reply r = Request("block_split").params({{"bit", bit}}).input(keys).send();
  const Keys got_keys = output<std::uint32_t>(r, 0);
  const Keys got_values = output<std::uint32_t>(r, 1);
  if (!r.ok() || got_keys.size() != keys.size() || got_values.size() != keys.size()) return false;
  if (got_keys == want_keys && got_values == want_values) return true;
  const std::string cause = block_split_cause(keys, bit, got_keys, got_values);
  if (got_keys != want_keys) return check_equal("keys of the split tile", want_keys, got_keys, cause);
  return check_equal("values (input slots) of the split tile", want_values, got_values, cause);
}

// The cause scatter_destination's positions show: alternatives a wrong reading of the table gives.
std::string scatter_cause(const Keys& sorted, int shift, const Keys& offsets, std::size_t tiles, std::size_t tile,
                          const std::vector<std::uint64_t>& got) {
  std::vector<std::uint64_t> tile_first(kTile), no_rank(kTile);
  std::vector<std::size_t> start(kTableDigits, 0);
  for (std::size_t p = kTile; p-- > 0;) start[(sorted[p] >> shift) & 15u] = p;
  bool tile_first_fits = true, no_rank_fits = true;
  for (std::size_t p = 0; p < kTile; ++p) {
    const std::size_t d = (sorted[p] >> shift) & 15u;
    const std::size_t rank = p - start[d];
    tile_first_fits = tile_first_fits && tile * kTableDigits + d < offsets.size() &&
                      got[p] == offsets[tile * kTableDigits + d] + rank;
    no_rank_fits = no_rank_fits && got[p] == offsets[d * tiles + tile] + p;
  }
  if (tile_first_fits) {
    return "these are the positions of a table indexed by tile first (the 16 digits of tile 0, then of tile 1, "
           "...): the scanned table is digit-major, the counts of digit 0 in every tile first, then digit 1's, so "
           "that all keys of a smaller digit come first and, within a digit, the earlier tiles' keys";
  }
  if (no_rank_fits) {
    return "each key went to the table's entry plus its place in the whole tile: the entry already counts every "
           "key before this tile's keys of the digit, so what is added is the key's rank among the tile's keys of "
           "its digit (its place minus where its digit starts in the sorted tile)";
  }
  return "";
}

bool check_scatter_destination(std::uint64_t seed) {
  const std::size_t tiles = 3, tile = 1;
  const int shift = 4;
  // A tile sorted by the digit at bits 4..7, digits 3, 6 and 9 missing; other tiles' counts random.
  Keys sorted = scanlab::random_vector<std::uint32_t>(kTile, seed, 0u, 0xffffffffu);
  for (auto& k : sorted) {
    const std::uint32_t d = (k >> shift) & 15u;
    if (d == 3 || d == 6 || d == 9) k ^= 1u << shift;
  }
  std::stable_sort(sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) {
    return ((a >> shift) & 15u) < ((b >> shift) & 15u);
  });
  Keys table(kTableDigits * tiles);
  const Keys other = scanlab::random_vector<std::uint32_t>(table.size(), seed ^ 0x9e37u, 0u, 300u);
  for (std::size_t d = 0; d < kTableDigits; ++d) {
    for (std::size_t b = 0; b < tiles; ++b) table[d * tiles + b] = other[d * tiles + b];
    table[d * tiles + tile] = 0;
  }
  for (const std::uint32_t k : sorted) ++table[((k >> shift) & 15u) * tiles + tile];
  Keys offsets(table.size());
  std::uint32_t sum = 0;
  for (std::size_t e = 0; e < table.size(); ++e) {
    offsets[e] = sum;
    sum += table[e];
  }
  std::vector<std::size_t> start(kTableDigits, 0);
  for (std::size_t p = kTile; p-- > 0;) start[(sorted[p] >> shift) & 15u] = p;
  std::vector<std::uint64_t> want(kTile);
  for (std::size_t p = 0; p < kTile; ++p) {
    const std::size_t d = (sorted[p] >> shift) & 15u;
    want[p] = offsets[d * tiles + tile] + (p - start[d]);
  }
  INFO("scatter_destination(digit_offsets, tiles = "
       << tiles << ", tile = " << tile << ", d, p, s) for every place p of a tile of " << kTile
       << " keys sorted by the digit at bits 4 to 7 (digits 3, 6 and 9 absent); digit_offsets = "
       << slice(offsets, 0, offsets.size()) << " (the exclusive scan of the digit-major table "
       << slice(table, 0, table.size()) << ")");
  const Reply r = Request("scatter_destination")
                      .params({{"tiles", tiles}, {"tile", tile}, {"shift", shift}})
                      .input(sorted)
                      .input(offsets)
                      .send();
  const std::vector<std::uint64_t> got = output<std::uint64_t>(r, 0);
  if (!r.ok() || got.size() != kTile) return false;
  return check_equal("positions", want, got,
                     got == want ? "" : scatter_cause(sorted, shift, offsets, tiles, tile, got));
}

}  // namespace

TEST_CASE("split_destination: false keys first, true keys after them, each side in input order" *
          doctest::description("points: 5")) {
  if (!check_split_destination({3, 1, 7, 0, 4, 1, 6, 3}, 0, "the book's example")) return;
  if (!check_split_destination({3, 1, 7, 0, 4, 1, 6, 2}, 0, "the book's example with a false key last")) return;
  Keys keys = scanlab::random_vector<std::uint32_t>(33, test_seed(31), 0u, 0xffffffffu);
  keys.back() &= ~(1u << 5);
  if (!check_split_destination(keys, 5, "33 random keys, the last one false")) return;
  keys = scanlab::random_vector<std::uint32_t>(1000, test_seed(32), 0u, 0xffffffffu);
  keys.back() |= 1u << 31;
  check_split_destination(keys, 31, "1000 random keys, the last one true");
}

TEST_CASE("block_split_by_bit: one tile split by a bit, stably, every key once" * doctest::description("points: 5")) {
  if (!check_block_split(scanlab::random_vector<std::uint32_t>(kTile, test_seed(41), 0u, 15u), 0,
                         "keys in [0, 15]: many equal bits"))
    return;
  check_block_split(scanlab::random_vector<std::uint32_t>(kTile, test_seed(42), 0u, 0xffffffffu), 3,
                    "keys over the full 32-bit range");
}

TEST_CASE("scatter_destination: a sorted tile's keys to their global positions" * doctest::description("points: 5")) {
  check_scatter_destination(test_seed(51));
}

TEST_CASE("split by one bit: false keys first, then true keys, each side in input order" *
          doctest::description("points: 10")) {
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
      INFO("split_by_bit of " << n << " random keys by bit " << bit << " (values: the input positions)"
                              << (n <= 16 ? "; keys = " + slice(keys, 0, n) : std::string()));
      const Reply r = Request("split_by_bit").params({{"bit", bit}}).input(keys).input(positions).send();
      if (!r.ok()) return;
      if (!check_equal("keys", want_keys, output<std::uint32_t>(r, 0))) return;
      if (!check_equal("values (input positions)", want_values, output<std::uint32_t>(r, 1),
                       "the keys are right, so the values did not move with their keys"))
        return;
    }
  }
}

TEST_CASE("radix_sort_keys (4-bit digits) sorts uint32 keys, in every block order" *
          doctest::description("points: 5")) {
  check_all_inputs(Algo::digits_keys, Sizes::one_tile);
  for_each_block_order([] {
    check_all_inputs(Algo::digits_keys, Sizes::several_tiles);
  });
}

TEST_CASE("radix_sort_pairs is stable: every value lands where std::stable_sort puts it" *
          doctest::description("points: 10")) {
  check_all_inputs(Algo::digits_pairs, Sizes::one_tile);
  for_each_block_order([] {
    check_all_inputs(Algo::digits_pairs, Sizes::several_tiles);
  });
}

TEST_CASE("stability, pointedly: equal keys keep their input order across tiles" * doctest::description("points: 5")) {
  // Two distinct keys only, interleaved over many tiles: an unstable local sort or a digit table
  // scanned tile-major instead of digit-major reorders the equal keys while the keys look sorted.
  const std::size_t n = 3 * 2048 + 77;
  Keys keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = (i * 2654435761u >> 7) % 2 == 0 ? 0x10u : 0x0fu;
  CHECK(check_sort(keys, Algo::digits_pairs, "two keys, interleaved"));
  CHECK(check_sort(keys, Algo::split_pairs, "two keys, interleaved"));
}

// Keys and pairs are two cases: together they were the longest case of the lab on the emulator
// (37 s of the 60 a case may take, on a slow two-core machine).
TEST_CASE("radix_sort_split (32 one-bit splits) sorts uint32 keys" * doctest::description("points: 5")) {
  check_all_inputs(Algo::split_keys, Sizes::up_to_5000);
}

TEST_CASE("radix_sort_split (32 one-bit splits) sorts pairs stably" * doctest::description("points: 5")) {
  check_all_inputs(Algo::split_pairs, Sizes::up_to_5000);
}

TEST_CASE("limits: n == 0 leaves the keys alone, and one small sort works" * doctest::description("points: 5")) {
  const Keys keys = scanlab::random_vector<std::uint32_t>(100, test_seed(9), 0u, 1000u);
  CHECK_MESSAGE(sort_on_device(keys, Algo::digits_keys, {{"n", 0}}).first == keys, "n == 0 must not change the keys");
  CHECK(check_sort(keys, Algo::digits_pairs, "small"));
}

// ---- Onesweep's functions, one at a time ----------------------------------------------------------

namespace {

constexpr unsigned kDigits256 = 256;                           // Onesweep's digits (kOnesweepDigits)
constexpr unsigned kNoDigit = kDigits256;                      // a lane past the end of the input
constexpr unsigned kCountBits = 30;                            // a descriptor: the status in the top 2 bits,
constexpr std::uint32_t kCountMask = (1u << kCountBits) - 1u;  // the count in the low 30
constexpr std::uint32_t kA = 1, kP = 2;                        // the statuses A and P (X is 0)

std::uint32_t word_of(std::uint32_t status, std::uint32_t count) { return status << kCountBits | count; }

std::string word_text(std::uint32_t w) {
  static const char* const names[] = {"X", "A", "P", "status 3"};
  return std::string(names[w >> kCountBits]) + " " + std::to_string(w & kCountMask);
}

// The cause a publish shows.
std::string publish_cause(const Keys& want, const Keys& got, unsigned tiles, unsigned tile, std::uint32_t status,
                          const Keys& counts) {
  bool digit_major = true, count_right = true, nothing = true;
  for (unsigned d = 0; d < kDigits256; ++d) {
    digit_major = digit_major && got[d * tiles + tile] == word_of(status, counts[d]);
    count_right = count_right && (got[tile * kDigits256 + d] & kCountMask) == counts[d];
  }
  for (std::size_t i = 0; i < got.size(); ++i) nothing = nothing && got[i] == 0;
  if (nothing) return "publish wrote nothing: every word is still X (0)";
  if (digit_major) {
    return "each word went to entry digit x tiles + tile: the words are laid out tile by tile, a tile's 256 words "
           "together (tile t's word of digit d is words[t * 256 + d])";
  }
  if (count_right) {
    std::ostringstream os;
    os << "the counts are in the low 30 bits, but the status is not in the top two (bits 30 and 31): digit 0's word "
       << "is 0x" << std::hex << got[tile * kDigits256] << " for status " << status << std::dec << " and count "
       << counts[0];
    return os.str();
  }
  (void)want;
  return "";
}

bool check_publish(const Keys& words, unsigned tile, std::uint32_t status, const Keys& counts) {
  const unsigned tiles = static_cast<unsigned>(words.size() / kDigits256);
  INFO("DigitCountDescriptors{words, d}.publish(tile = " << tile << ", " << (status == kP ? "P" : "A")
                                                         << ", counts[d]) by thread d of 256, into the words of "
                                                         << tiles << " tiles");
  Keys want = words;
  for (unsigned d = 0; d < kDigits256; ++d) want[tile * kDigits256 + d] = word_of(status, counts[d]);
  const Reply r = Request("digit_descriptors")
                      .params({{"op", "publish"}, {"tile", tile}, {"status", status}})
                      .input(words)
                      .input(counts)
                      .send();
  const Keys got = output<std::uint32_t>(r, 0);
  if (!r.ok() || got.size() != want.size()) return false;
  return check_equal("words (status in bits 30 and 31, count below)", want, got,
                     got == want ? "" : publish_cause(want, got, tiles, tile, status, counts));
}

bool check_read(const Keys& words, unsigned pred) {
  const unsigned tiles = static_cast<unsigned>(words.size() / kDigits256);
  INFO("DigitCountDescriptors{words, d}.read(pred = " << pred << ", count) by thread d of 256, over the words of "
                                                      << tiles << " tiles; tile " << pred
                                                      << "'s words: " << word_text(words[pred * kDigits256]) << ", "
                                                      << word_text(words[pred * kDigits256 + 1]) << ", ...");
  Keys want_counts(kDigits256), want_statuses(kDigits256);
  for (unsigned d = 0; d < kDigits256; ++d) {
    want_counts[d] = words[pred * kDigits256 + d] & kCountMask;
    want_statuses[d] = words[pred * kDigits256 + d] >> kCountBits;
  }
  const Reply r = Request("digit_descriptors").params({{"op", "read"}, {"pred", pred}}).input(words).send();
  const Keys got_counts = output<std::uint32_t>(r, 0);
  const Keys got_statuses = output<std::uint32_t>(r, 1);
  if (!r.ok() || got_counts.size() != kDigits256 || got_statuses.size() != kDigits256) return false;
  if (got_counts != want_counts) {
    bool whole = true, next = pred + 1 < tiles, previous = pred > 0;
    for (unsigned d = 0; d < kDigits256; ++d) {
      whole = whole && got_counts[d] == words[pred * kDigits256 + d];
      next = next && got_counts[d] == (words[(pred + 1) * kDigits256 + d] & kCountMask);
      previous = previous && got_counts[d] == (words[(pred - 1) * kDigits256 + d] & kCountMask);
    }
    std::string cause;
    if (whole) {
      cause = "each count is the whole word: a count read with the status bits left in. The count is the word's "
              "low 30 bits (kCountMask); the top two are the status";
    } else if (next) {
      cause = "these are the counts of tile pred + 1, the tile after the one asked for: read the words of tile pred";
    } else if (previous) {
      cause = "these are the counts of tile pred - 1, the tile before the one asked for: read the words of tile pred";
    }
    return check_equal("counts read", want_counts, got_counts, cause);
  }
  return check_equal("statuses read (1: A, 2: P)", want_statuses, got_statuses,
                     "the status is the word's top two bits, as they are: X (0), A (1) or P (2)");
}

// Expected ranks of rank_in_warp and the counters after: place = counter + peers in lower lanes.
void expected_ranks(const Keys& digits, Keys counters, Keys& ranks, Keys& counters_after) {
  ranks.assign(digits.size(), 0);
  for (std::size_t j = 0; j < digits.size() / 32; ++j) {
    for (unsigned lane = 0; lane < 32; ++lane) {
      const unsigned d = digits[j * 32 + lane];
      if (d == kNoDigit) continue;
      unsigned below = 0;
      for (unsigned l = 0; l < lane; ++l) below += digits[j * 32 + l] == d ? 1u : 0u;
      ranks[j * 32 + lane] = counters[d] + below;
    }
    for (unsigned lane = 0; lane < 32; ++lane)
      if (digits[j * 32 + lane] != kNoDigit) ++counters[digits[j * 32 + lane]];
  }
  counters_after = counters;
}

std::string rank_cause(const Keys& digits, const Keys& got) {
  std::ostringstream os;
  // Two valid lanes of the warp with one place, in any items.
  std::map<std::uint32_t, std::size_t> owner;
  for (std::size_t k = 0; k < digits.size(); ++k) {
    if (digits[k] == kNoDigit) continue;
    const auto [it, fresh] = owner.emplace(got[k], k);
    if (!fresh) {
      const std::size_t a = it->second;
      os << "a rank shared by two keys: item " << a / 32 << " lane " << a % 32 << " (digit " << digits[a]
         << ") and item " << k / 32 << " lane " << k % 32 << " (digit " << digits[k] << ") both got place " << got[k]
         << ". Each lane's place counts the peers in lower lanes as the meeting word shows them once every "
            "peer's bit is in, and a counter moves on past every peer; a lane that reads the word before all the "
            "bits are in, or after the leader cleared it, sees too few peers (the __syncwarp calls order the "
            "warp's lanes around the meeting word)";
      return os.str();
    }
  }
  for (std::size_t j = 0; j < digits.size() / 32; ++j) {
    for (unsigned a = 0; a < 32; ++a) {
      for (unsigned b = a + 1; b < 32; ++b) {
        const std::size_t ka = j * 32 + a, kb = j * 32 + b;
        if (digits[ka] != kNoDigit && digits[ka] == digits[kb] && got[ka] > got[kb]) {
          os << "unstable rank: in item " << j << ", lanes " << a << " and " << b << " (both digit " << digits[ka]
             << ") got places " << got[ka] << " and " << got[kb]
             << ": the lower lane must get the lower place, so that keys of one digit keep their input order";
          return os.str();
        }
      }
    }
  }
  return "";
}

bool check_rank_in_warp(const Keys& digits, const Keys& counters, const char* what) {
  INFO("rank_in_warp(digit, warp_counts, warp_match) by one warp, item by item, " << what);
  Keys want, want_counters;
  expected_ranks(digits, counters, want, want_counters);
  const Reply r = Request("rank_in_warp").input(digits).input(counters).send();
  Keys got = output<std::uint32_t>(r, 0);
  const Keys got_counters = output<std::uint32_t>(r, 1);
  const Keys got_match = output<std::uint32_t>(r, 2);
  if (!r.ok() || got.size() != digits.size() || got_counters.size() != kDigits256 || got_match.size() != kDigits256)
    return false;
  for (std::size_t k = 0; k < digits.size(); ++k)
    if (digits[k] == kNoDigit) got[k] = want[k];  // a lane past the end: its result is not used
  if (got != want) {
    const std::size_t j = first_difference(want, got) / 32;
    const Keys item_digits(digits.begin() + static_cast<long>(j * 32), digits.begin() + static_cast<long>(j * 32 + 32));
    const Keys item_want(want.begin() + static_cast<long>(j * 32), want.begin() + static_cast<long>(j * 32 + 32));
    const Keys item_got(got.begin() + static_cast<long>(j * 32), got.begin() + static_cast<long>(j * 32 + 32));
    INFO("item " << j << ": the lanes' digits " << slice(item_digits, 0, 32) << " (256: past the end)");
    return check_equal("places of the item's lanes", item_want, item_got, rank_cause(digits, got));
  }
  for (unsigned d = 0; d < kDigits256; ++d) {
    if (got_match[d] != 0) {
      CHECK_MESSAGE(got_match[d] == 0, "after the last item, the meeting word of digit "
                                           << d << " holds 0x" << std::hex << got_match[d] << std::dec
                                           << ": every word must be zero again after each item, ready for the next");
      return false;
    }
  }
  return check_equal("counters after the last item", want_counters, got_counters,
                     "each counter must end past every key of its digit in the items");
}

// The words of tiles 0 .. tile for the look-back: tile 0 P, and before `tile` for digit d the
// nearest P at a tile that depends on d (so that look-backs stop at different depths), A's after it;
// the tile's own word A. Counts in own[t][d].
struct LookBackCase {
  unsigned tile;
  std::vector<Keys> own;  // own[t][d]
  Keys words;
  Keys before;  // expected
};

LookBackCase look_back_case(unsigned tile, std::uint64_t seed) {
  LookBackCase c{tile, {}, Keys((tile + 1) * kDigits256), Keys(kDigits256)};
  for (unsigned t = 0; t <= tile; ++t)
    c.own.push_back(scanlab::random_vector<std::uint32_t>(kDigits256, seed + t, 0u, 40u));
  for (unsigned d = 0; d < kDigits256; ++d) {
    const unsigned nearest_p = tile == 0 ? 0 : (d % 4 == 0 ? 0 : tile - 1 - (d % 4 - 1) % tile);
    std::uint32_t sum = 0;
    for (unsigned t = 0; t < tile; ++t) {
      sum += c.own[t][d];
      c.words[t * kDigits256 + d] = t <= nearest_p ? word_of(kP, sum) : word_of(kA, c.own[t][d]);
    }
    c.before[d] = sum;
    c.words[tile * kDigits256 + d] = word_of(tile == 0 ? kP : kA, c.own[tile][d]);
  }
  return c;
}

std::string look_back_cause(const LookBackCase& c, const Keys& got) {
  bool plus_own = true, status_bits = true, took_a = true, any_a = false;
  for (unsigned d = 0; d < kDigits256; ++d) {
    plus_own = plus_own && got[d] == c.before[d] + c.own[c.tile][d];
    const std::uint32_t extra = got[d] - c.before[d];
    status_bits = status_bits && (extra & kCountMask) == 0;
    const std::uint32_t w = c.words[(c.tile - 1) * kDigits256 + d];
    if (w >> kCountBits == kA) {
      any_a = true;
      took_a = took_a && got[d] == (w & kCountMask);
    }
  }
  if (plus_own) {
    return "each result includes the tile's own count: look_back_digit returns the keys of the digit in the tiles "
           "BEFORE this one (the tile's own keys start right after them)";
  }
  if (status_bits) {
    return "each result is off by a multiple of 2^30: counts read with the status bits left in (a descriptor's "
           "count is its low 30 bits)";
  }
  if (any_a && took_a) {
    return "where the tile before holds an A, the result is that tile's own count alone: an A (one tile's own "
           "count) was taken for a P (the count of all tiles up to it). The look-back goes on past an A";
  }
  return "";
}

bool check_look_back(unsigned tile, std::uint64_t seed) {
  const LookBackCase c = look_back_case(tile, seed);
  std::ostringstream shown_words;
  for (unsigned t = 0; t <= tile; ++t)
    shown_words << (t ? ", " : "") << "tile " << t << ": " << word_text(c.words[t * kDigits256 + 1]);
  INFO("look_back_digit(desc, tile = " << tile << ", count, polls) by thread d of 256, each tile's words published ("
                                       << "digit 1's: " << shown_words.str() << ")");
  const Reply r = Request("look_back").params({{"tile", tile}}).input(c.words).input(c.own[tile]).send();
  const Keys got = output<std::uint32_t>(r, 0);
  const Keys got_words = output<std::uint32_t>(r, 1);
  if (!r.ok() || got.size() != kDigits256 || got_words.size() != c.words.size()) return false;
  if (!check_equal("results (the digit's keys in earlier tiles)", c.before, got,
                   got == c.before || tile == 0 ? "" : look_back_cause(c, got)))
    return false;
  Keys want_words = c.words;
  for (unsigned d = 0; d < kDigits256; ++d)
    want_words[tile * kDigits256 + d] = word_of(kP, c.before[d] + c.own[tile][d]);
  const Keys mine(got_words.begin() + static_cast<long>(tile * kDigits256), got_words.end());
  const Keys want_mine(want_words.begin() + static_cast<long>(tile * kDigits256), want_words.end());
  std::string cause;
  bool exclusive = true, not_p = true;
  for (unsigned d = 0; d < kDigits256; ++d) {
    exclusive = exclusive && mine[d] == word_of(kP, c.before[d]);
    not_p = not_p && (mine[d] >> kCountBits) != kP;
  }
  if (exclusive && mine != want_mine) {
    cause = "the tile published P with the count of the tiles before it, without its own: a P holds the keys of the "
            "digit in every tile up to AND including this one (an inclusive count), so a later tile that stops "
            "here misses none";
  } else if (not_p) {
    cause = "the tile did not publish P: once it knows the count up to it, it publishes P with the count up to and "
            "including itself, which ends the later tiles' look-backs here";
  }
  for (std::size_t i = 0; i < tile * kDigits256; ++i) {
    if (got_words[i] != c.words[i]) {
      CHECK_MESSAGE(got_words[i] == c.words[i], "the word of tile " << i / kDigits256 << ", digit " << i % kDigits256
                                                                    << " changed from " << word_text(c.words[i])
                                                                    << " to " << word_text(got_words[i])
                                                                    << ": a tile publishes only its own words");
      return false;
    }
  }
  return check_equal("the tile's words after (status in bits 30 and 31, count below)", want_mine, mine, cause);
}

}  // namespace

TEST_CASE("Onesweep's descriptors: publish and read one 32-bit word per tile and digit" *
          doctest::description("points: 5")) {
  const Keys counts = scanlab::random_vector<std::uint32_t>(kDigits256, test_seed(61), 0u, (1u << 20));
  Keys counts_big = counts;
  counts_big[255] = kCountMask;  // the largest count
  if (!check_publish(Keys(4 * kDigits256, 0u), 2, kA, counts_big)) return;
  if (!check_publish(Keys(4 * kDigits256, 0u), 3, kP, counts)) return;
  Keys words(4 * kDigits256);
  const Keys c = scanlab::random_vector<std::uint32_t>(words.size(), test_seed(62), 0u, kCountMask);
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = word_of(i % 3 == 0 ? kA : kP, c[i]);
  check_read(words, 2);
}

TEST_CASE("rank_in_warp: each key's place among its digit, stable, every place once" *
          doctest::description("points: 5")) {
  // Three digits in a warp's items, and a last item that ends at lane 19 (the input ends there).
  const unsigned three[] = {7, 42, 200};
  const Keys r = scanlab::random_vector<std::uint32_t>(4 * 32, test_seed(71), 0u, 2u);
  Keys digits(r.size());
  for (std::size_t k = 0; k < r.size(); ++k) digits[k] = k >= 3 * 32 + 20 ? kNoDigit : three[r[k]];
  Keys counters = scanlab::random_vector<std::uint32_t>(kDigits256, test_seed(72), 0u, 5000u);
  counters[7] = 100;
  counters[42] = 300;
  counters[200] = 500;
  if (!check_rank_in_warp(digits, counters,
                          "4 items of digits 7, 42 and 200, the last item's lanes 20 to 31 past "
                          "the end; counters of 7, 42, 200 at 100, 300, 500"))
    return;
  const Keys many = scanlab::random_vector<std::uint32_t>(3 * 32, test_seed(73), 0u, 255u);
  Keys apart(kDigits256);
  for (unsigned d = 0; d < kDigits256; ++d) apart[d] = 100 * d;
  check_rank_in_warp(many, apart, "3 items of digits over [0, 255], the counter of digit d at 100 x d");
}

TEST_CASE("look_back_digit: the keys of each digit in the tiles before, then P" * doctest::description("points: 5")) {
  if (!check_look_back(0, test_seed(81))) return;
  check_look_back(5, test_seed(82));
}

TEST_CASE("onesweep sorts uint32 keys and pairs stably, in every block order" * doctest::description("points: 10")) {
  check_onesweep_sizes<std::uint32_t>(false);
  for_each_block_order([] {
    check_onesweep_sizes<std::uint32_t>(true);
  });
}

TEST_CASE("onesweep sorts int32, float and uint64 keys by value (the bit twiddle)" *
          doctest::description("points: 5")) {
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
