// Grading tests for chapter 03: the Blelloch scan with conflict-free shared indexing. This is the
// checker: the student's code runs in the runner (03_bank_conflicts_runner.cu), another process.
//
// Two things are graded. The scan must still be right: chapter 02's sizes (1 .. 2048, padding cases
// included), random and constant inputs, a non-commutative operator, element 0 checked, and many
// independent tiles. And the padding must actually remove the conflicts: here, from the slots the
// runner reports, warp 0's indices at every tree level may put at most two words in one bank; on the
// emulator, the bank-conflict counter, run on the real kernel, must see every level at most 2-way
// (chapter 02's layout reaches 32-way there). A CONFLICT_FREE_OFFSET that pads nothing (like the GPU
// Gems macro as printed, see the book's erratum) or pads every 16 words only partly, fails the second
// part even though its scan is right. (The launch wrappers' argument checks are given code, so no
// case grades them.) The last case runs only the last tiles of arrays of 2^31 + 5 and 2^32 + 5
// elements, where an index computed in 32 bits wraps (scanlab/grading/far.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <scanlab/grading/checker.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;

const int kBlockSizes[] = {1, 2, 3, 31, 32, 33, 511, 512, 1023, 1024, 2047, 2048};

// The largest tile one block scans (1024 threads, two elements each).
constexpr int kMaxBlockScan = 2048;

// Shared memory's banks of 4-byte words (every GPU since Fermi).
constexpr int kNumBanks = 32;

// The worst degree the padded layout may leave at any level.
constexpr unsigned kMaxPaddedDegree = 2;

// The block scan under test (the runner's entry block_scan) under a layout, "padded" (this
// chapter's) or "unpadded" (chapter 02's), into a fresh poisoned output.
template <class T, class Op>
std::vector<T> block_scan(const std::vector<T>& in, ScanKind kind, Op op, const char* layout = "padded") {
  return call_entry("block_scan", op, in, {{"kind", scanlab::to_string(kind)}, {"layout", layout}});
}

template <class T, class Op, class MakeRandom>
void check_block_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant,
                           const char* layout = "padded") {
  std::uint64_t stream = 0;
  check_random_and_constant(kBlockSizes, make_random, constant, stream,
                            std::string(scanlab::to_string(kind)) + " block scan", [&](const std::vector<T>& in) {
                              return check_scan(in, block_scan(in, kind, op, layout), kind, op);
                            });
}

// The padded tile scan under test, checked tile by tile.
template <class T, class Op>
bool check_tile_scan(const std::vector<T>& in, int tile, ScanKind kind, Op op) {
  const std::vector<T> got = call_entry("tile_scan", op, in, {{"kind", scanlab::to_string(kind)}, {"tile", tile}});
  return check_tiles(in, got, static_cast<std::size_t>(tile), kind, op);
}

// The padded layout as the runner reports it: slot[i] = Padded::slot(i) for the elements of the
// largest tile, whether thread t loads elements t and t + m/2 (halves) rather than 2t and 2t + 1,
// and the shared words the launch reserves for that tile.
struct PaddedLayout {
  std::vector<std::int32_t> slot;
  bool halves = false;
  long long shared_words = 0;
};

PaddedLayout padded_layout() {
  const Reply r = Request("padded_slots").params({{"m", kMaxBlockScan}}).send();
  PaddedLayout layout;
  layout.slot = output<std::int32_t>(r, 0);
  REQUIRE_MESSAGE(layout.slot.size() == static_cast<std::size_t>(kMaxBlockScan), "the runner returned no slots");
  layout.halves = r.info.value("halves", false);
  layout.shared_words = r.info.value("shared_words", 0LL);
  return layout;
}

// The highest number of distinct words that one bank receives when lanes 0..31 of warp 0 access
// the shared words `slots` (one per lane).
unsigned worst_bank_degree(const std::vector<int>& slots) {
  std::set<int> words(slots.begin(), slots.end());
  unsigned per_bank[kNumBanks] = {};
  unsigned worst = 0;
  for (const int w : words) worst = std::max(worst, ++per_bank[((w % kNumBanks) + kNumBanks) % kNumBanks]);
  return worst;
}

// Checks that warp 0's accesses to `slots` (one per lane) hit no bank more than kMaxPaddedDegree
// times; the failure says how many.
void check_bank_degree(const std::vector<int>& slots, const char* access) {
  const unsigned degree = worst_bank_degree(slots);
  CHECK_MESSAGE(degree <= kMaxPaddedDegree, "bank conflicts: warp 0's "
                                                << access << " puts " << degree << " different words into one bank ("
                                                << degree << "-way; the padding "
                                                << "must keep every access at " << kMaxPaddedDegree << "-way or less)");
}

}  // namespace

// ---- the padding itself ---------------------------------------------------------------------

TEST_CASE("padded slots are distinct, increasing, and fit the launch's shared memory" *
          doctest::description("points: 10")) {
  const PaddedLayout padded = padded_layout();
  const int m = kMaxBlockScan;
  for (int i = 1; i < m; ++i) {
    if (padded.slot[i] <= padded.slot[i - 1]) {
      FAIL_CHECK("slot(" << i << ") = " << padded.slot[i] << " is not above slot(" << i - 1
                         << ") = " << padded.slot[i - 1]);
      break;
    }
  }
  CHECK(padded.shared_words == padded.slot[m - 1] + 1);
  CHECK_MESSAGE(padded.shared_words > m, "a padded layout needs more words than elements");
  CHECK_MESSAGE(padded.shared_words <= m + m / 16, "padding should cost a few percent, not more");
}

TEST_CASE("padded slots of warp 0 hit no bank more than twice at any tree level (host computation)" *
          doctest::description("points: 10")) {
  const PaddedLayout padded = padded_layout();
  for (int m = 64; m <= kMaxBlockScan; m *= 2) {
    // Loads and stores: each of a thread's two elements is one warp-wide instruction.
    std::vector<int> first, second;
    for (int t = 0; t < 32; ++t) {
      first.push_back(padded.slot[padded.halves ? t : 2 * t]);
      second.push_back(padded.slot[padded.halves ? t + m / 2 : 2 * t + 1]);
    }
    INFO("tile " << m << ", load/store");
    check_bank_degree(first, "load or store of its first elements");
    check_bank_degree(second, "load or store of its second elements");
    for (int stride = 1; stride < m; stride *= 2) {
      const int active = m / (2 * stride);
      std::vector<int> left, right;
      for (int t = 0; t < std::min(32, active); ++t) {
        left.push_back(padded.slot[stride * (2 * t + 1) - 1]);
        right.push_back(padded.slot[stride * (2 * t + 2) - 1]);
      }
      INFO("tile " << m << ", tree level with stride " << stride);
      check_bank_degree(left, "access to the left children");
      check_bank_degree(right, "access to the right children");
    }
  }
}

// ---- the scan is still right -----------------------------------------------------------------

TEST_CASE("padded block exclusive scan of int32 equals the oracle, n = 1..2048" * doctest::description("points: 15")) {
  check_block_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
}

TEST_CASE("padded block inclusive scans: int32, float32 and running max" * doctest::description("points: 10")) {
  check_block_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  check_block_all_sizes(ScanKind::inclusive, Plus<float>{}, random_floats, kConstantFloat);
  check_block_all_sizes(ScanKind::exclusive, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
}

TEST_CASE("padded block scans keep operand order: non-commutative affine maps over uint32" *
          doctest::description("points: 15")) {
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    check_block_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
  }
}

TEST_CASE("the same kernel with chapter 02's layout (unpadded, adjacent loads) is right too" *
          doctest::description("points: 5")) {
  check_block_all_sizes(ScanKind::exclusive, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine,
                        "unpadded");
}

TEST_CASE("padded tile scans scan every tile on its own, with a ragged last tile" *
          doctest::description("points: 10")) {
  std::uint64_t stream = 1000;
  for (const int tile : {2, 64, 1024, 2048}) {
    for (const std::size_t n : {std::size_t(1), std::size_t(tile), std::size_t(3 * tile + tile / 2 + 1)}) {
      INFO("tile = " << tile << ", n = " << n);
      if (!check_tile_scan(random_ints(n, ++stream), tile, ScanKind::exclusive, Plus<std::int32_t>{})) return;
      if (!check_tile_scan(random_affines(n, ++stream), tile, ScanKind::inclusive, AffineCompose<std::uint32_t>{}))
        return;
    }
  }
}

// ---- the padding works on the real kernel (emulator's bank-conflict counter) -----------------

namespace {

struct PhaseWorst {
  unsigned worst = 0;
  std::uint64_t accesses = 0;
};

// Runs one block scan of 2048 int32 under a layout with the emulator's bank counter on; returns the
// worst degree per phase (barrier interval = tree level), empty when the runner has no bank records
// (a GPU), and whether the result was right.
std::vector<PhaseWorst> bank_degrees_per_level(const char* layout, bool& records, bool& verified) {
  const std::vector<std::int32_t> in = random_ints(kMaxBlockScan, 4242);
  EmuSettingsGuard restore;
  emu_settings()["banks"] = true;
  const Reply r = Request("block_scan_banks")
                      .monoid(Plus<std::int32_t>{})
                      .kind(ScanKind::exclusive)
                      .params({{"layout", layout}})
                      .input(in)
                      .send();
  std::vector<PhaseWorst> phases;
  records = r.info.value("bank_records", false);
  if (records && r.info.contains("bank_phases")) {
    for (const json& p : r.info["bank_phases"]) {
      phases.push_back({p.value("worst", 0u), p.value("accesses", std::uint64_t{0})});
    }
  }
  verified = check_scan(in, output<std::int32_t>(r, 0), ScanKind::exclusive, Plus<std::int32_t>{});
  return phases;
}

}  // namespace

TEST_CASE("emulator: the padded kernel is at most 2-way at every tree level; chapter 02's layout is not" *
          doctest::description("points: 15")) {
  const int levels = 11;  // log2(2048)
  bool records = false;
  bool padded_ok = false;
  const std::vector<PhaseWorst> padded = bank_degrees_per_level("padded", records, padded_ok);
  REQUIRE_MESSAGE(padded_ok, "the padded scan must be right before its conflicts count");
  bool unpadded_ok = false;
  bool unpadded_records = false;
  const std::vector<PhaseWorst> unpadded = bank_degrees_per_level("unpadded", unpadded_records, unpadded_ok);
  REQUIRE(unpadded_ok);
  if (!records || !unpadded_records) {
    REQUIRE_MESSAGE(!on_emulator(), "the emulator's runner returned no bank-conflict records");
    MESSAGE("no bank-conflict records on a GPU: only the emulator counts conflicts, so only the scans were "
            "checked here (the host computation of the slots above still grades the padding)");
    return;
  }
  // load, 11 up-sweep levels, 11 down-sweep levels, store: one barrier interval each.
  REQUIRE_MESSAGE(padded.size() == static_cast<std::size_t>(2 * levels + 2),
                  "expected one barrier interval per tree level (found " << padded.size() << ")");
  for (std::size_t p = 0; p < padded.size(); ++p) {
    INFO("phase " << p << " (0 = load, 1..11 up-sweep, 12..22 down-sweep, 23 = store)");
    CHECK_MESSAGE(padded[p].accesses > 0, "no shared-memory access in this level");
    CHECK_MESSAGE(padded[p].worst <= kMaxPaddedDegree,
                  "bank conflicts: the emulator counted "
                      << padded[p].worst << "-way conflicts in this phase (the padded layout must stay at "
                      << kMaxPaddedDegree << "-way or less)");
  }

  unsigned worst = 0;
  for (const PhaseWorst& p : unpadded) worst = std::max(worst, p.worst);
  CHECK_MESSAGE(worst >= 16, "chapter 02's layout should show high-degree conflicts (worst " << worst << ")");
}

TEST_CASE("padded tile scans past 2^31 and 2^32 elements: the last tiles, from the launch's first tile" *
          doctest::description("points: 10")) {
  // On the emulator only the last tiles exist (the kernel is handed pointers that reach them at
  // their true positions); with --gpu the whole array is made and scanned on the device.
  check_far_tile_scans();
}
