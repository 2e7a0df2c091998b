// Grading tests for chapter 03: the Blelloch scan with conflict-free shared indexing.
//
// Two things are graded. The scan must still be right: chapter 02's sizes (1 .. 2048, padding cases
// included), random and constant inputs, a non-commutative operator, element 0 checked, and many
// independent tiles. And the padding must actually remove the conflicts: on the host, the slots of
// warp 0's indices at every tree level may put at most two words in one bank; on the emulator, the
// bank-conflict counter, run on the real kernel, must see every level at most 2-way (chapter 02's
// layout reaches 32-way there). A CONFLICT_FREE_OFFSET that pads nothing (like the GPU Gems macro as
// printed, see the book's erratum) or pads every 16 words only partly, fails the second part even
// though its scan is right.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/grading.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
#include <scanlab_emu/diagnostics.hpp>
#include <scanlab_emu/options.hpp>
#endif

#include "bank_conflicts.cuh"

namespace {

using namespace scanlab::grading;

const int kBlockSizes[] = {1, 2, 3, 31, 32, 33, 511, 512, 1023, 1024, 2047, 2048};

// The worst degree the padded layout may leave at any level.
constexpr unsigned kMaxPaddedDegree = 2;

template <class Layout, class T, class Op>
std::vector<T> block_scan(const std::vector<T>& in, ScanKind kind, Op op) {
  const int n = static_cast<int>(in.size());
  return run_on_device(in, [&](T* d_in, T* d_out) {
    if (kind == ScanKind::inclusive) ch03::blelloch_layout_inclusive_scan_block<Layout>(d_in, d_out, n, op);
    else ch03::blelloch_layout_exclusive_scan_block<Layout>(d_in, d_out, n, op);
  });
}

template <class Layout, class T, class Op, class MakeRandom>
void check_block_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant) {
  std::uint64_t stream = 0;
  check_random_and_constant(
      kBlockSizes, make_random, constant, stream, std::string(scanlab::to_string(kind)) + " block scan",
      [&](const std::vector<T>& in) { return check_scan(in, block_scan<Layout>(in, kind, op), kind, op); });
}

// The padded tile scan under test, checked tile by tile.
template <class T, class Op>
bool check_tile_scan(const std::vector<T>& in, int tile, ScanKind kind, Op op) {
  const std::vector<T> got = run_on_device(in, [&](T* d_in, T* d_out) {
    if (kind == ScanKind::inclusive) ch03::blelloch_layout_inclusive_scan_tiles(d_in, d_out, in.size(), tile, op);
    else ch03::blelloch_layout_exclusive_scan_tiles(d_in, d_out, in.size(), tile, op);
  });
  return check_tiles(in, got, static_cast<std::size_t>(tile), kind, op);
}

// The highest number of distinct words that one bank receives when lanes 0..31 of warp 0 access
// the slots of `elements` (one element per lane).
unsigned worst_bank_degree(const std::vector<int>& slots) {
  std::set<int> words(slots.begin(), slots.end());
  unsigned per_bank[ch03::kNumBanks] = {};
  unsigned worst = 0;
  for (const int w : words) worst = std::max(worst, ++per_bank[w % ch03::kNumBanks]);
  return worst;
}

}  // namespace

// ---- the padding itself ---------------------------------------------------------------------

TEST_CASE("padded slots are distinct, increasing, and fit the launch's shared memory" *
          doctest::description("points: 5")) {
  const int m = ch03::kMaxBlockScan;
  for (int i = 1; i < m; ++i) {
    if (ch03::Padded::slot(i) <= ch03::Padded::slot(i - 1)) {
      FAIL_CHECK("slot(" << i << ") = " << ch03::Padded::slot(i) << " is not above slot(" << i - 1
                         << ") = " << ch03::Padded::slot(i - 1));
      break;
    }
  }
  CHECK(ch03::shared_words<ch03::Padded>(m) == ch03::Padded::slot(m - 1) + 1);
  CHECK_MESSAGE(ch03::shared_words<ch03::Padded>(m) > m, "a padded layout needs more words than elements");
  CHECK_MESSAGE(ch03::shared_words<ch03::Padded>(m) <= m + m / 16, "padding should cost a few percent, not more");
}

TEST_CASE("padded slots of warp 0 hit no bank more than twice at any tree level (host computation)" *
          doctest::description("points: 10")) {
  for (int m = 64; m <= ch03::kMaxBlockScan; m *= 2) {
    // Loads and stores: each of a thread's two elements is one warp-wide instruction.
    std::vector<int> first, second;
    for (int t = 0; t < 32; ++t) {
      first.push_back(ch03::Padded::slot(ch03::Padded::kHalves ? t : 2 * t));
      second.push_back(ch03::Padded::slot(ch03::Padded::kHalves ? t + m / 2 : 2 * t + 1));
    }
    INFO("tile " << m << ", load/store");
    CHECK(worst_bank_degree(first) <= kMaxPaddedDegree);
    CHECK(worst_bank_degree(second) <= kMaxPaddedDegree);
    for (int stride = 1; stride < m; stride *= 2) {
      const int active = m / (2 * stride);
      std::vector<int> left, right;
      for (int t = 0; t < std::min(32, active); ++t) {
        left.push_back(ch03::Padded::slot(stride * (2 * t + 1) - 1));
        right.push_back(ch03::Padded::slot(stride * (2 * t + 2) - 1));
      }
      INFO("tile " << m << ", tree level with stride " << stride);
      CHECK(worst_bank_degree(left) <= kMaxPaddedDegree);
      CHECK(worst_bank_degree(right) <= kMaxPaddedDegree);
    }
  }
}

// ---- the scan is still right -----------------------------------------------------------------

TEST_CASE("padded block exclusive scan of int32 equals the oracle, n = 1..2048" *
          doctest::description("points: 15")) {
  check_block_all_sizes<ch03::Padded>(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
}

TEST_CASE("padded block inclusive scans: int32, float32 and running max" * doctest::description("points: 10")) {
  check_block_all_sizes<ch03::Padded>(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7});
  check_block_all_sizes<ch03::Padded>(ScanKind::inclusive, Plus<float>{}, random_floats, kConstantFloat);
  check_block_all_sizes<ch03::Padded>(ScanKind::exclusive, Max<std::int32_t>{}, random_ints, std::int32_t{-3});
}

TEST_CASE("padded block scans keep operand order: non-commutative affine maps over uint32" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
    check_block_all_sizes<ch03::Padded>(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine);
  }
}

TEST_CASE("the same kernel with chapter 02's layout (unpadded, adjacent loads) is right too" *
          doctest::description("points: 5")) {
  check_block_all_sizes<ch03::Unpadded>(ScanKind::exclusive, AffineCompose<std::uint32_t>{}, random_affines,
                                        kConstantAffine);
}

TEST_CASE("padded tile scans scan every tile on its own, with a ragged last tile" *
          doctest::description("points: 10")) {
  std::uint64_t stream = 1000;
  for (const int tile : {2, 64, 1024, 2048}) {
    for (const std::size_t n : {std::size_t(1), std::size_t(tile), std::size_t(3 * tile + tile / 2 + 1)}) {
      INFO("tile = " << tile << ", n = " << n);
      if (!check_tile_scan(random_ints(n, ++stream), tile, ScanKind::exclusive, Plus<std::int32_t>{})) return;
      if (!check_tile_scan(random_affines(n, ++stream), tile, ScanKind::inclusive, AffineCompose<std::uint32_t>{})) return;
    }
  }
}

// ---- the padding works on the real kernel (emulator's bank-conflict counter) -----------------

#if defined(SCANLAB_EMU)
namespace {

struct PhaseWorst {
  unsigned worst = 0;
  std::uint64_t accesses = 0;
};

// Runs one block scan of 2048 int32 with the bank counter on; returns the worst degree per phase
// (barrier interval = tree level) and whether the result was right.
template <class Layout>
std::vector<PhaseWorst> bank_degrees_per_level(bool& verified) {
  const std::vector<std::int32_t> in = random_ints(ch03::kMaxBlockScan, 4242);
  EmuOptionsGuard restore;
  scanlab_emu::options().banks = true;
  scanlab_emu::reset_diagnostics();
  const std::vector<std::int32_t> got = block_scan<Layout>(in, ScanKind::exclusive, Plus<std::int32_t>{});
  std::vector<PhaseWorst> phases;
  for (const scanlab_emu::BankRecord& r : scanlab_emu::diagnostics().banks) {
    if (phases.size() <= r.phase) phases.resize(r.phase + 1);
    phases[r.phase].accesses += r.warp_accesses;
    for (unsigned d = 0; d <= 32; ++d) {
      if (r.degree_count[d] > 0) phases[r.phase].worst = std::max(phases[r.phase].worst, d);
    }
  }
  scanlab_emu::reset_diagnostics();
  verified = check_scan(in, got, ScanKind::exclusive, Plus<std::int32_t>{});
  return phases;
}

}  // namespace

TEST_CASE("emulator: the padded kernel is at most 2-way at every tree level; chapter 02's layout is not" *
          doctest::description("points: 15")) {
  const int levels = 11;  // log2(2048)
  bool padded_ok = false;
  const std::vector<PhaseWorst> padded = bank_degrees_per_level<ch03::Padded>(padded_ok);
  REQUIRE_MESSAGE(padded_ok, "the padded scan must be right before its conflicts count");
  // load, 11 up-sweep levels, 11 down-sweep levels, store: one barrier interval each.
  REQUIRE_MESSAGE(padded.size() == static_cast<std::size_t>(2 * levels + 2),
                  "expected one barrier interval per tree level (found " << padded.size() << ")");
  for (std::size_t p = 0; p < padded.size(); ++p) {
    INFO("phase " << p << " (0 = load, 1..11 up-sweep, 12..22 down-sweep, 23 = store)");
    CHECK_MESSAGE(padded[p].accesses > 0, "no shared-memory access in this level");
    CHECK(padded[p].worst <= kMaxPaddedDegree);
  }

  bool unpadded_ok = false;
  const std::vector<PhaseWorst> unpadded = bank_degrees_per_level<ch03::Unpadded>(unpadded_ok);
  REQUIRE(unpadded_ok);
  unsigned worst = 0;
  for (const PhaseWorst& p : unpadded) worst = std::max(worst, p.worst);
  CHECK_MESSAGE(worst >= 16, "chapter 02's layout should show high-degree conflicts (worst " << worst << ")");
}
#endif
