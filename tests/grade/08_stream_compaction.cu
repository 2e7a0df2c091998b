// Grading tests for chapter 08: stream compaction in three phases (count, scan, scatter), the
// bit-sliced warp-offset scan, select-if and partition-if, and the single-pass look-back version.
//
// Every result is compared with a sequential copy_if / stable partition, element by element, in a
// poisoned output; the count is checked on its own, and the part of the output past the kept
// elements must stay unwritten. Sizes: 0, 1, a warp +-1, a round (512) +-1, a tile (4096) +-1, several
// tiles with a ragged end. Inputs: random, all kept, none kept, and runs that alternate. The
// multi-tile tests run under the emulator's three block orders. The untouched exercise writes
// nothing, so it fails every case below. This is the checker: the student's code runs in the runner
// (08_stream_compaction_runner.cu), another process. (The launch wrappers' argument checks are
// given code, so no case grades them.) The last case runs phases 1 and 3 over only the last tiles
// of an array of 2^31 + 5 elements, where an index computed in 32 bits wraps
// (scanlab/grading/far.hpp; with --gpu the whole compaction of the whole array).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;
using scanlab::test_seed;

enum class Algo {
  select,
  partition,
  single_pass,
  single_pass_in_place,
  single_pass_partition,
  two_tile_partition,
  two_tile_partition_unaligned,
  two_tile_select,
  two_tile_select_unaligned,
  two_tile_in_place,
  two_tile_in_place_unaligned
};

// The predicates the runner offers (the chapter's ch08::IsPositive and ch08::GreaterThan).
struct IsPositive {
  bool operator()(std::int32_t x) const { return x > 0; }
};
struct GreaterThan {
  float threshold;
  bool operator()(float x) const { return x > threshold; }
};

// The operation's name: in failure messages, and the runner's `algo` parameter.
const char* algo_name(Algo a) {
  switch (a) {
    case Algo::partition: return "partition_if";
    case Algo::single_pass: return "select_if_single_pass";
    case Algo::single_pass_in_place: return "select_if_single_pass_in_place";
    case Algo::single_pass_partition: return "partition_if_single_pass";
    case Algo::two_tile_partition: return "partition_if_single_pass_two_tile";
    case Algo::two_tile_partition_unaligned: return "partition_if_single_pass_two_tile_unaligned";
    case Algo::two_tile_select: return "select_if_single_pass_two_tile";
    case Algo::two_tile_select_unaligned: return "select_if_single_pass_two_tile_unaligned";
    case Algo::two_tile_in_place: return "select_if_single_pass_in_place_two_tile";
    case Algo::two_tile_in_place_unaligned: return "select_if_single_pass_in_place_two_tile_unaligned";
    default: return "select_if";
  }
}

// The single-pass partitions write the rejected elements backwards from the end, as CUB's does.
bool reversed_rejected(Algo a) {
  return a == Algo::single_pass_partition || a == Algo::two_tile_partition || a == Algo::two_tile_partition_unaligned;
}

// The select-ifs into a separate output, which must stay unwritten past the kept elements.
bool select_out_of_place(Algo a) {
  return a == Algo::select || a == Algo::single_pass || a == Algo::two_tile_select ||
         a == Algo::two_tile_select_unaligned;
}

template <class T>
struct Result {
  std::vector<T> out;
  unsigned count = 0;
};

// What a wrong output says about the stores that made it, comparing got[0, want.size()) with want
// as multisets: the right elements in the wrong order (among the kept ones, or among the rejected
// ones of a partition, which start at `kept`), or elements stored over others. "" when neither fits
// (for example when some places were never written).
std::string placement_hint(const std::vector<std::int32_t>& want, const std::vector<std::int32_t>& out,
                           std::size_t kept, Algo algo) {
  if (out.size() < want.size()) return "";
  std::vector<std::int32_t> a(want), b(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(want.size()));
  if (scanlab::count_poison(b.data(), b.size()) > 0) return "";
  const bool kept_right = std::equal(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(kept), out.begin());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a == b && !kept_right) {
    return "\n  hint: these are exactly the right elements, but the kept ones are not in input order: a kept "
           "element's place must come from the number of kept elements BEFORE it (lower lanes, warps and tiles)";
  }
  if (a == b) {
    return std::string("\n  hint: the kept elements are right, and the rest are the rejected elements in the wrong "
                       "order: ") +
           (reversed_rejected(algo)
                ? "the rejected ones go backwards from the end of the output (the first rejected element last)"
                : "the rejected ones follow the kept ones in input order");
  }
  std::vector<std::int32_t> missing;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(missing));
  return "\n  hint: " + std::to_string(missing.size()) +
         " of the elements that belong here are missing and "
         "others take their places: elements were likely stored over each other (two elements given the same "
         "place, or a region written from the wrong end?)";
}

// One compaction in the runner: the output array and the count (poisoned before the call).
template <class T>
Result<T> run(const std::vector<T>& in, Algo algo, const json& params) {
  Request request("compact");
  request.params({{"algo", algo_name(algo)}}).params(params).input(in);
  const Reply reply = request.send();
  Result<T> r;
  r.out = output<T>(reply, 0);
  const std::vector<unsigned> count = output<unsigned>(reply, 1);
  r.count = count.size() == 1 ? count[0] : 0xffffffffu;
  return r;
}

Result<std::int32_t> run(const std::vector<std::int32_t>& in, IsPositive, Algo algo) {
  return run(in, algo, {{"predicate", "is_positive"}});
}

// The sequential meaning of a compaction: the kept elements in order (`kept` of them), then for a
// partition the rejected ones.
template <class Pred>
std::vector<std::int32_t> expected(const std::vector<std::int32_t>& in, Pred pred, Algo algo, std::size_t& kept) {
  std::vector<std::int32_t> want;
  for (auto x : in)
    if (pred(x)) want.push_back(x);
  kept = want.size();
  if (algo == Algo::partition)
    for (auto x : in)
      if (!pred(x)) want.push_back(x);
  if (reversed_rejected(algo)) {  // the rejected ones from the end backwards, as CUB's
    for (auto it = in.rbegin(); it != in.rend(); ++it)
      if (!pred(*it)) want.push_back(*it);
  }
  return want;
}

// Whether one compaction (x > 0) matches its meaning, without reporting anything: not where it
// differs, nor a runner that crashed.
bool matches(const std::vector<std::int32_t>& in, Algo algo) {
  Request request("compact");
  request.params({{"algo", algo_name(algo)}, {"predicate", "is_positive"}}).input(in);
  const Reply reply = request.send_unchecked();
  if (!reply.ok()) return false;
  const std::vector<std::int32_t> out = output<std::int32_t>(reply, 0);
  const std::vector<unsigned> count = output<unsigned>(reply, 1);
  std::size_t kept = 0;
  const std::vector<std::int32_t> want = expected(in, IsPositive{}, algo, kept);
  return out.size() == in.size() && count.size() == 1 && count[0] == kept &&
         std::equal(want.begin(), want.end(), out.begin());
}

// Checks one compaction against the sequential meaning. Returns whether it held.
template <class Pred>
bool check(const std::vector<std::int32_t>& in, Pred pred, Algo algo) {
  const Result<std::int32_t> r = run(in, pred, algo);
  REQUIRE(r.out.size() == in.size());
  std::size_t kept = 0;
  const std::vector<std::int32_t> want = expected(in, pred, algo, kept);
  INFO(std::string(algo_name(algo)) << ", n = " << in.size() << ", " << kept << " kept");
  bool ok = true;
  if (r.count != kept) {
    FAIL_CHECK("the count is " << r.count << ", expected " << kept);
    ok = false;
  }
  const scanlab::VerifyResult v = scanlab::verify_exact(want.data(), r.out.data(), want.size());
  CHECK_MESSAGE(v.ok, v.message() << (v.ok ? std::string() : placement_hint(want, r.out, kept, algo)));
  ok = ok && v.ok;
  if (select_out_of_place(algo)) {
    const std::size_t untouched = scanlab::count_poison(r.out.data() + kept, in.size() - kept);
    CHECK_MESSAGE(untouched == in.size() - kept, "elements past the kept ones were written");
    ok = ok && untouched == in.size() - kept;
  }
  return ok;
}

// Tile boundaries of the single-pass tiles: select-if's 4096 elements, partition-if's 3072, and the
// two-tile kernel's: the partition's chunks of 4096 in tiles of 8192 (one whole tile and one
// element: 8193), select-if's chunks of 6144 in tiles of 12288 (8193: a whole chunk and part of the
// next; 3 * 4096 + 1234: a whole tile and part of the next).
const std::size_t kSizes[] = {
    1,    2, 31, 32, 33, 511, 512, 513, 2047, 2048, 2049, 3071, 3072, 3073, 4095, 4096, 4097, 8193, 3 * 4096 + 1234,
    40000};

constexpr std::size_t kSinglePassTile = 4096;  // the single pass's tile: 128 threads x 32 items

// Random, all kept, none kept, and alternating runs of kept and rejected elements, up to the first
// failure. Returns whether all held.
bool check_all_inputs(Algo algo) {
  std::uint64_t stream = 100;
  for (const std::size_t n : kSizes) {
    const auto random = scanlab::random_vector<std::int32_t>(n, test_seed(++stream), -100, 100);
    if (!check(random, IsPositive{}, algo)) return false;
    const auto all = scanlab::constant_vector<std::int32_t>(n, 7);
    if (!check(all, IsPositive{}, algo)) return false;
    const auto none = scanlab::constant_vector<std::int32_t>(n, -7);
    if (!check(none, IsPositive{}, algo)) return false;
    std::vector<std::int32_t> runs(n);
    for (std::size_t i = 0; i < n; ++i) runs[i] = ((i / 37) % 2 == 0 ? 1 : -1) * static_cast<std::int32_t>(i + 1);
    if (!check(runs, IsPositive{}, algo)) return false;
  }
  return true;
}

// ---- past 2^31 elements --------------------------------------------------------------------------

constexpr std::size_t kTile = 4096;  // the three-phase tile: 512 threads x 8 rounds

// On the emulator: phases 1 and 3 over the last tiles of a large array, with the checker's tile
// offsets in place of phase 2: every earlier element counted as kept, so that the tiles' kept
// elements, and with partition_if their rejected ones, land in out[first, n).
bool check_phases_window(Algo algo, std::size_t n, std::size_t first) {
  const std::vector<std::int32_t> in = far_window(first, n);
  const std::size_t tiles = (in.size() + kTile - 1) / kTile;
  std::vector<unsigned> counts(tiles, 0);
  for (std::size_t i = 0; i < in.size(); ++i) counts[i / kTile] += in[i] > 0 ? 1u : 0u;
  std::vector<unsigned> offsets(tiles + 1, static_cast<unsigned>(first));
  for (std::size_t t = 0; t < tiles; ++t) offsets[t + 1] = offsets[t] + counts[t];
  Request request("phases_window");
  request.params({{"algo", algo == Algo::partition ? "partition_if" : "select_if"}, {"n", n}, {"first", first}});
  const Reply r = request.input(in).input(offsets).send();
  const std::vector<unsigned> got_counts = output<unsigned>(r, 1);
  REQUIRE_MESSAGE(got_counts.size() == tiles,
                  "the runner returned " << got_counts.size() << " tile counts for " << tiles);
  for (std::size_t t = 0; t < tiles; ++t) {
    if (got_counts[t] != counts[t]) {
      FAIL_CHECK("phase 1: tile " << first / kTile + t << " counted "
                                  << scanlab::detail::display_with_poison(got_counts[t]) << " kept elements, expected "
                                  << counts[t]);
      return false;
    }
  }
  std::vector<std::int32_t> want;
  for (auto x : in)
    if (x > 0) want.push_back(x);
  const std::size_t kept = want.size();
  if (algo == Algo::partition)
    for (auto x : in)
      if (x <= 0) want.push_back(x);
  const std::vector<std::int32_t> out = output<std::int32_t>(r, 0);
  REQUIRE(out.size() == in.size());
  const scanlab::VerifyResult v = scanlab::verify_exact(want.data(), out.data(), want.size());
  CHECK_MESSAGE(v.ok, "phase 3, output elements from " << first << " on: " << v.message());
  if (!v.ok) return false;
  if (algo == Algo::select) {
    const std::size_t untouched = scanlab::count_poison(out.data() + kept, out.size() - kept);
    CHECK_MESSAGE(untouched == out.size() - kept, "phase 3 wrote past the kept elements");
    return untouched == out.size() - kept;
  }
  return true;
}

// How many of the first n elements of far_input are kept (positive). One pass over 2^31 hashes,
// which select_if's check and partition_if's share: four such passes (two each) took longer than
// a test case may take.
std::size_t far_kept(std::size_t n) {
  static std::map<std::size_t, std::size_t> counted;  // by n
  const auto it = counted.find(n);
  if (it != counted.end()) return it->second;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) kept += far_input(i) > 0 ? 1 : 0;
  counted[n] = kept;
  return kept;
}

// On a GPU: select_if or partition_if of the whole large array, made on the device. Checked: the
// count, and the last kept elements (select_if, with what follows them unwritten) or the last
// rejected ones (partition_if, out[first, n)).
bool check_compact_far(Algo algo, std::size_t n, std::size_t first) {
  const std::size_t kept = far_kept(n);
  const std::size_t out_first = algo == Algo::select ? (kept > 3 * kTile ? kept - 3 * kTile : 0) : first;
  const std::size_t out_count = algo == Algo::select ? std::min(kept - out_first + 64, n - out_first) : n - first;
  // out[out_first, out_first + out_count) holds the last kept elements (ranks out_first to kept)
  // and, for partition_if, then the last rejected ones (from position kept on, in input order):
  // both are found walking back from the end of the input.
  const std::size_t last_kept = kept > out_first ? kept - out_first : 0;
  const std::size_t last_rejected = algo == Algo::partition ? n - std::max(out_first, kept) : 0;
  std::vector<std::int32_t> want(out_count);
  std::size_t found_kept = 0, found_rejected = 0;
  for (std::size_t i = n; i-- > 0 && (found_kept < last_kept || found_rejected < last_rejected);) {
    const std::int32_t x = far_input(i);
    if (x > 0 && found_kept < last_kept) want[last_kept - 1 - found_kept++] = x;
    if (x <= 0 && found_rejected < last_rejected) want[out_count - 1 - found_rejected++] = x;
  }
  Request request = far_request("compact_far", n, out_first);
  request.params({{"algo", algo == Algo::partition ? "partition_if" : "select_if"}, {"count", out_count}});
  const Reply r = request.send();
  const std::vector<unsigned> count = output<unsigned>(r, 1);
  REQUIRE(count.size() == 1);
  CHECK_MESSAGE(count[0] == kept, "the count is " << count[0] << ", expected " << kept);
  const std::vector<std::int32_t> out = output<std::int32_t>(r, 0);
  REQUIRE(out.size() == out_count);
  const std::size_t checked = algo == Algo::select ? kept - out_first : out_count;
  const scanlab::VerifyResult v = scanlab::verify_exact(want.data(), out.data(), checked);
  CHECK_MESSAGE(v.ok, "output elements from " << out_first << " on: " << v.message());
  bool ok = v.ok && count[0] == kept;
  if (algo == Algo::select) {
    const std::size_t untouched = scanlab::count_poison(out.data() + checked, out_count - checked);
    CHECK_MESSAGE(untouched == out_count - checked, "elements past the kept ones were written");
    ok = ok && untouched == out_count - checked;
  }
  return ok;
}

}  // namespace

TEST_CASE("the article's example: {1,0,0,0,4,3,2,0,6,8,9,0} with x > 0 gives {1,4,3,2,6,8,9}" *
          doctest::description("points: 5")) {
  const std::vector<std::int32_t> in = {1, 0, 0, 0, 4, 3, 2, 0, 6, 8, 9, 0};
  const std::vector<std::int32_t> want = {1, 4, 3, 2, 6, 8, 9};
  const Result<std::int32_t> r = run(in, IsPositive{}, Algo::select);
  REQUIRE(r.out.size() == in.size());
  CHECK(r.count == 7u);
  const std::vector<std::int32_t> got(r.out.begin(), r.out.begin() + 7);
  CHECK(got == want);
  CHECK_MESSAGE(scanlab::count_poison(r.out.data() + 7, 5) == 5, "the last five outputs must stay unwritten");
}

TEST_CASE("bit-sliced warp offsets: totals 16, 18, 17, 13 give 0, 16, 34, 51; random totals up to 32" *
          doctest::description("points: 15")) {
  auto offsets = [](const std::vector<unsigned>& totals) {
    return output<unsigned>(Request("warp_offsets_bit_sliced").input(totals).send());
  };
  CHECK(offsets({16, 18, 17, 13}) == std::vector<unsigned>{0, 16, 34, 51});
  // Totals of 32 need the sixth bit: five bit slices (log2 32) would lose them.
  const std::vector<unsigned> full(32, 32);
  std::vector<unsigned> want(32);
  for (unsigned w = 0; w < 32; ++w) want[w] = 32 * w;
  const std::vector<unsigned> got_full = offsets(full);
  CHECK_MESSAGE(got_full == want, "32 full warps: offsets 0, 32, 64, ... (a total of 32 has bit 5 set)"
                                      << (got_full == std::vector<unsigned>(32, 0u)
                                              ? "\n  hint: every offset is 0, as if each total of 32 were 0: the bit "
                                                "slices stop before bit 5 (a total can be 32, which needs six bits)"
                                              : ""));
  for (int count : {1, 2, 16, 31, 32}) {
    const auto totals = scanlab::random_vector<unsigned>(static_cast<std::size_t>(count),
                                                         test_seed(static_cast<std::uint64_t>(count)), 0u, 32u);
    std::vector<unsigned> expect(totals.size());
    unsigned sum = 0;
    for (std::size_t w = 0; w < totals.size(); ++w) {
      expect[w] = sum;
      sum += totals[w];
    }
    INFO(count << " random warp totals in [0, 32]");
    CHECK(offsets(totals) == expect);
  }
}

TEST_CASE("select_if equals a sequential copy_if for every size, in every block order" *
          doctest::description("points: 15")) {
  for_each_block_order([] {
    check_all_inputs(Algo::select);
  });
}

TEST_CASE("select_if keeps input order: the same elements in another order are wrong" *
          doctest::description("points: 10")) {
  // Distinct increasing values with a random sign: the kept values must come out increasing.
  // A compaction whose positions come from atomics, or that ranks lanes or warps the wrong way
  // round, keeps the right set but not the order.
  for (const std::size_t n : {std::size_t{64}, std::size_t{5000}, std::size_t{70000}}) {
    auto sign = scanlab::random_vector<std::int32_t>(n, test_seed(7 + n), 0, 1);
    std::vector<std::int32_t> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = (sign[i] ? 1 : -1) * static_cast<std::int32_t>(i + 1);
    const Result<std::int32_t> r = run(in, IsPositive{}, Algo::select);
    REQUIRE(r.out.size() == in.size());
    std::vector<std::int32_t> want;
    for (auto x : in)
      if (x > 0) want.push_back(x);
    REQUIRE(r.count == want.size());
    std::vector<std::int32_t> got(r.out.begin(), r.out.begin() + static_cast<std::ptrdiff_t>(want.size()));
    std::size_t out_of_order = 0;
    for (std::size_t k = 1; k < got.size(); ++k) out_of_order += got[k - 1] >= got[k] ? 1 : 0;
    INFO("n = " << n);
    CHECK_MESSAGE(out_of_order == 0, out_of_order << " kept elements follow a larger one: the order is lost");
    CHECK(got == want);
  }
}

TEST_CASE("partition_if: kept elements in order, then the rejected ones in order" *
          doctest::description("points: 15")) {
  for_each_block_order([] {
    check_all_inputs(Algo::partition);
  });
}

TEST_CASE("select_if with float elements and a threshold predicate" * doctest::description("points: 5")) {
  for (const std::size_t n : {std::size_t{1000}, std::size_t{12345}}) {
    const auto in = scanlab::random_vector<float>(n, test_seed(500 + n), -1.0f, 1.0f);
    const GreaterThan pred{0.25f};
    const Result<float> r = run(in, Algo::select, {{"predicate", "greater_than"}, {"threshold", pred.threshold}});
    std::vector<float> want;
    for (float x : in)
      if (pred(x)) want.push_back(x);
    CHECK(r.count == want.size());
    REQUIRE(r.out.size() == in.size());
    const scanlab::VerifyResult v = scanlab::verify_exact(want.data(), r.out.data(), want.size());
    CHECK_MESSAGE(v.ok, v.message());
  }
}

TEST_CASE("limits: n == 0 keeps nothing and writes a count of 0; a small array compacts" *
          doctest::description("points: 5")) {
  const auto in = scanlab::random_vector<std::int32_t>(100, test_seed(3), -5, 5);
  const Result<std::int32_t> r = run(in, Algo::select, {{"predicate", "is_positive"}, {"n", 0}});
  CHECK_MESSAGE(r.count == 0u, "n == 0: the count is " << r.count << ", expected 0");
  CHECK_MESSAGE(scanlab::count_poison(r.out.data(), r.out.size()) == in.size(), "n == 0 must not write the output");
  // And the small case still compacts (the stub must not pass this test on its wrappers alone).
  CHECK(check(in, IsPositive{}, Algo::select));
}

TEST_CASE("select_if_single_pass (count fused into the decoupled look-back) equals copy_if" *
          doctest::description("points: 10")) {
  bool ok = true;
  for_each_block_order([&] {
    ok = ok && check_all_inputs(Algo::single_pass);
  });
  if (!ok || !on_emulator()) return;
  // On the emulator, 1000 tiles: every tile must publish its inclusive count (P) and every
  // look-back stop at the nearest P, or each walks back to tile 0 (right results, quadratic time).
  // The reference's warp look-back reads one window of 32 fused descriptors (31.5 words on average).
  const std::size_t tiles = 1000;
  const auto in = scanlab::random_vector<std::int32_t>(tiles * kSinglePassTile - 77, test_seed(190), -100, 100);
  Request request("compact");
  request.params({{"algo", algo_name(Algo::single_pass)}, {"predicate", "is_positive"}}).input(in);
  const Reply r = request.send();
  INFO(algo_name(Algo::single_pass) << ", n = " << in.size() << " (" << tiles << " tiles of " << kSinglePassTile
                                    << ")");
  check_lookback_depth(r, tiles, 1);
}

TEST_CASE("partition_if_single_pass: kept ones in order, then the rejected ones reversed" *
          doctest::description("points: 5")) {
  for_each_block_order([] {
    check_all_inputs(Algo::single_pass_partition);
  });
}

TEST_CASE("partition_if_single_pass and select_if_single_pass (in place too) with two tiles per block: the "
          "large-input kernel" *
          doctest::description("points: 5")) {
  // The kernel that partitions and selects large inputs, run at every size: a block's look-back
  // warp calls your look_back_kept_count while its other warps count the next tile. Tiles of 4096
  // elements, staged in shared memory when whole; then through unaligned pointers, read and written
  // element by element. (In place through unaligned pointers runs the one-tile kernel.)
  // First one input both ways: a look-back right in the one-tile kernel and wrong here is one
  // that picks its own warp.
  const auto probe = scanlab::random_vector<std::int32_t>(3 * 4096 + 5, test_seed(300), -100, 100);
  if (matches(probe, Algo::single_pass_partition) && !matches(probe, Algo::two_tile_partition)) {
    FAIL_CHECK("partition_if_single_pass of " << probe.size()
                                              << " elements is right with one tile a block and wrong with two tiles "
                                                 "per block.\n  hint: the two-tile kernel calls look_back_kept_count "
                                                 "from its look-back warp, warp 4, not from warp 0: your function must "
                                                 "not pick a warp itself. Every lane of the calling warp calls "
                                                 "publish_and_look_back, and one lane writes tile_prefix.");
    return;
  }
  bool ok = true;
  for_each_block_order([&] {
    for (const Algo algo : {Algo::two_tile_partition, Algo::two_tile_partition_unaligned, Algo::two_tile_select,
                            Algo::two_tile_select_unaligned})
      ok = ok && check_all_inputs(algo);
  });
  if (!ok) return;
  // In place, on the emulator the blocks also take turns barrier by barrier (interleaved): a tile
  // that read its input again after publishing its count would find later tiles' stores there.
  EmuSettingsGuard guard;
  emu_settings()["interleave"] = true;
  for_each_block_order([&] {
    for (const Algo algo : {Algo::two_tile_in_place, Algo::two_tile_in_place_unaligned})
      ok = ok && check_all_inputs(algo);
  });
}

TEST_CASE("select_if_single_pass_in_place compacts over its own input" * doctest::description("points: 5")) {
  // In place, a tile that wrote before an earlier tile had read its input would corrupt that
  // input: the look-back's order rules it out. Under the emulator's reverse block order the
  // tickets still hand out tiles in order, so the result must not change.
  for_each_block_order([] {
    check_all_inputs(Algo::single_pass_in_place);
  });
}

TEST_CASE("past 2^31 elements: the last tiles of select_if and partition_if, from the launch's first tile" *
          doctest::description("points: 5")) {
  // On the emulator only the last tiles exist (the kernels are handed pointers that reach them at
  // their true positions) and phases 1 and 3 run on their own; with --gpu the whole array is made
  // and compacted on the device.
  for (const Algo algo : {Algo::select, Algo::partition}) {
    INFO(std::string(algo_name(algo)) << ", int32 elements kept when positive");
    const bool ok = check_last_units(kTile, 3, "tiles of 4096 elements", "block b handles tile first_tile + b",
                                     {kPast2To31}, [&](std::size_t n, std::size_t first) {
                                       return on_emulator() ? check_phases_window(algo, n, first)
                                                            : check_compact_far(algo, n, first);
                                     });
    if (!ok) return;
  }
}
