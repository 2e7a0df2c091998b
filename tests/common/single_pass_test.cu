// Tests of the single-pass library (common/include/scanlab/single_pass/): the tile work, the ticket,
// the volatile accesses, the policy helpers and the decoupled look-back, on the emulator and, with
// SCANLAB_GPU_TESTS, on a GPU. The look-back is checked the way chapter 07's grader checks a
// student's: a whole single-pass scan built from the library's pieces, against the oracle, under the
// emulator's dispatch orders, residencies and (for the fenced descriptors) its weak memory model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/oracle.hpp"
#include "scanlab/random.hpp"
#include "scanlab/single_pass/descriptor_storage.cuh"
#include "scanlab/single_pass/lookback.cuh"
#include "scanlab/single_pass/policy.cuh"
#include "scanlab/single_pass/polls.cuh"
#include "scanlab/single_pass/protocol.cuh"
#include "scanlab/single_pass/tile.cuh"
#include "scanlab/testing.hpp"
#include "scanlab/verify.hpp"

#include "../../common/include/scanlab/single_pass/scan_kernel.cuh"  // by path: it has a kernel

#if defined(SCANLAB_EMU)
#include <scanlab_emu/options.hpp>
#endif

namespace sp = scanlab::single_pass;

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Plus;
using U32Map = Affine<std::uint32_t>;

template <class T>
std::vector<T> scan_input(std::size_t n, std::uint64_t stream) {
  return scanlab::random_scan_input<T>(n, scanlab::test_seed(stream));
}

// ---- kernels built from the library's pieces ---------------------------------------------------

// Every tile (tile = blockIdx.x) loaded and stored back: full tiles through load_full_tile and
// store_full_tile, the last one through the partial forms.
template <class Shape, class T>
__global__ void copy_tiles(const T* in, T* out, std::size_t n, bool vectorized, T fill) {
  const unsigned tile = blockIdx.x;
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = sp::valid_in_tile<Shape>(n, tile);
  T items[Shape::ITEMS];
  if (valid == Shape::TILE_ITEMS) {
    sp::load_full_tile<Shape>(in + start, items, vectorized);
    sp::store_full_tile<Shape>(out + start, items, vectorized);
  } else {
    sp::load_partial_tile<Shape>(in + start, items, valid, fill);
    sp::store_partial_tile<Shape>(out + start, items, valid);
  }
}

// Each tile scanned on its own (phases 1 to 4 with the identity as the tile's prefix); thread 0
// writes the tile's aggregate.
template <class Shape, bool INCLUSIVE, class T, class Op>
__global__ void scan_tiles_independently(const T* in, T* out, T* aggregates, std::size_t n, Op op) {
  __shared__ sp::WarpTotals<Shape, T> warp_totals;
  const unsigned tile = blockIdx.x;
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = sp::valid_in_tile<Shape>(n, tile);
  T items[Shape::ITEMS];
  sp::load_partial_tile<Shape>(in + start, items, valid, Op::identity());
  sp::ThreadSeeds<Shape, T> seeds;
  const T warp_total = sp::warp_segment_scan<Shape>(items, seeds, op);
  T warp_prefix;
  const T aggregate = sp::block_aggregate_and_warp_prefix<Shape>(warp_total, warp_totals, op, warp_prefix);
  sp::scan_thread_runs<INCLUSIVE, Shape>(items, seeds, warp_prefix, op);
  sp::store_partial_tile<Shape>(out + start, items, valid);
  if (threadIdx.x == 0) aggregates[tile] = aggregate;
}

// tiles[blockIdx.x] = the tile number the block was given.
__global__ void record_tile_numbers(unsigned* ticket, sp::TileOrder order, unsigned* tiles) {
  __shared__ unsigned slot;
  const unsigned tile = sp::dynamic_tile_index(ticket, order, slot);
  if (threadIdx.x == 0) tiles[blockIdx.x] = tile;
}

template <class T>
__global__ void copy_volatile(const T* in, T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) sp::store_volatile(&out[i], sp::load_volatile(&in[i]));
}

// publish_and_look_back<Lookback::serial> with lookback_window in lane 0 (chapter 09's look-back
// over its digit counts): Window predecessors a round.
template <int Window, class T, class Desc, class Op>
__device__ T publish_and_look_back_window(Desc& desc, unsigned tile, const T& aggregate, Op op,
                                          sp::PollSchedule polls) {
  if (scanlab::lane_id() != 0) return Op::identity();
  if (tile == 0) {
    desc.publish(0, sp::kPrefix, aggregate);
    return Op::identity();
  }
  desc.publish(tile, sp::kAggregate, aggregate);
  const T exclusive = sp::lookback_window<T, Window>(desc, tile, op, polls);
  desc.publish(tile, sp::kPrefix, op(exclusive, aggregate));
  return exclusive;
}

// A single-pass exclusive scan from the library alone, as a later chapter would write it: the
// ticket, the tile's aggregate, publish_and_look_back in warp 0, the tile scanned with its prefix.
// Window > 0: publish_and_look_back_window<Window> instead.
template <class P, int Window, class T, class Desc, class Op>
__global__ void __launch_bounds__(P::kBlockThreads)
    library_exclusive_scan(const T* in, T* out, std::size_t n, Desc desc, unsigned* ticket, Op op) {
  using Shape = typename P::template Shape<T>;
  __shared__ sp::WarpTotals<Shape, T> warp_totals;
  __shared__ unsigned tile_slot;
  __shared__ T tile_prefix;
  const unsigned tile = sp::dynamic_tile_index(ticket, sp::TileOrder::ticket, tile_slot);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = sp::valid_in_tile<Shape>(n, tile);
  T items[Shape::ITEMS];
  sp::load_partial_tile<Shape>(in + start, items, valid, Op::identity());
  sp::ThreadSeeds<Shape, T> seeds;
  const T warp_total = sp::warp_segment_scan<Shape>(items, seeds, op);
  T warp_prefix;
  const T aggregate = sp::block_aggregate_and_warp_prefix<Shape>(warp_total, warp_totals, op, warp_prefix);
  if (scanlab::warp_id() == 0) {
    // Polls of 0: reads at once (under the emulator a sleep is a yield either way).
    const sp::PollSchedule polls{0, 0};
    T exclusive;
    if constexpr (Window == 0) {
      exclusive = sp::publish_and_look_back<P::kLookback>(desc, tile, aggregate, op, polls);
    } else {
      exclusive = publish_and_look_back_window<Window>(desc, tile, aggregate, op, polls);
    }
    if (threadIdx.x == 0) tile_prefix = exclusive;
  }
  __syncthreads();
  sp::scan_thread_runs<false, Shape>(items, seeds, op(tile_prefix, warp_prefix), op);
  sp::store_partial_tile<Shape>(out + start, items, valid);
}

// Host side of library_exclusive_scan: zeroed descriptors and ticket, one launch, the result.
template <class P, int Window, class T, class Op>
std::vector<T> library_scan(const std::vector<T>& in, Op op) {
  using Shape = typename P::template Shape<T>;
  constexpr sp::Descriptors kD = sp::resolve_descriptors<T>(P::kDescriptors);
  using Desc = sp::TileDescriptors<T, kD>;
  const std::size_t n = in.size();
  const std::size_t tiles = (n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS;
  scanlab::DeviceBuffer<T> d_in(in), d_out(n);
  d_out.fill_poison();
  scanlab::DeviceBuffer<unsigned> ticket(1);
  std::size_t words_per_tile = 1;  // fused: each tile's word kWordStride words from the last (lookback.cuh)
  if constexpr (kD == sp::Descriptors::fused) words_per_tile = Desc::kWordStride;
  scanlab::DeviceBuffer<unsigned long long> words(tiles * words_per_tile);
  scanlab::DeviceBuffer<unsigned> flags(tiles);  // fenced
  scanlab::DeviceBuffer<T> aggregates(tiles), inclusives(tiles);
  SCANLAB_CUDA_CHECK(cudaMemset(ticket.data(), 0, sizeof(unsigned)));
  SCANLAB_CUDA_CHECK(cudaMemset(words.data(), 0, words.size() * sizeof(unsigned long long)));
  SCANLAB_CUDA_CHECK(cudaMemset(flags.data(), 0, tiles * sizeof(unsigned)));
  Desc desc{};
  if constexpr (kD == sp::Descriptors::fused) {
    desc.words = words.data();
  } else {
    desc.flags = flags.data();
    desc.aggregates = aggregates.data();
    desc.inclusives = inclusives.data();
  }
  library_exclusive_scan<P, Window, T, Desc, Op>
      <<<static_cast<unsigned>(tiles), P::kBlockThreads>>>(d_in.data(), d_out.data(), n, desc, ticket.data(), op);
  SCANLAB_CHECK_SYNC();
  return d_out.download();
}

template <class P, int Window = 0, class T, class Op>
bool library_scan_matches_oracle(const std::vector<T>& in, Op op) {
  const scanlab::VerifyResult r =
      scanlab::verify_exact(scanlab::exclusive_scan_oracle(in, op), library_scan<P, Window>(in, op));
  INFO(r.message());
  CHECK(r.ok);
  return r.ok;
}

}  // namespace

// ---- the tile shape and the host-side helpers ----------------------------------------------------

TEST_CASE("single_pass: the tile shape picks 16-byte vectors when they fit") {
  using Int128x32 = sp::TileShape<std::int32_t, 128, 32>;
  static_assert(Int128x32::VEC == 4 && Int128x32::ROWS == 8 && Int128x32::VECTORIZABLE);
  static_assert(Int128x32::TILE_ITEMS == 4096 && Int128x32::WARPS == 4 && Int128x32::WARP_ITEMS == 1024);
  using Int64 = sp::TileShape<std::int64_t, 64, 4>;
  static_assert(Int64::VEC == 2 && Int64::ROWS == 2 && Int64::VECTORIZABLE);
  using Odd = sp::TileShape<std::int32_t, 32, 3>;  // ITEMS not a multiple of 4: scalar accesses
  static_assert(Odd::VEC == 1 && Odd::ROWS == 3 && !Odd::VECTORIZABLE);
  struct Twelve {
    std::uint32_t w[3];
  };
  static_assert(sp::TileShape<Twelve, 32, 4>::VEC == 1);
  static_assert(sp::DefaultPolicy::kBlockThreads == 128 && sp::DefaultPolicy::kItems == 32);
  CHECK(sp::aligned16(reinterpret_cast<const void*>(std::uintptr_t{256})));
  CHECK_FALSE(sp::aligned16(reinterpret_cast<const void*>(std::uintptr_t{260})));
}

TEST_CASE("single_pass: descriptors resolve by value size; the one-wave rule drops only the first sleep") {
  static_assert(sp::resolve_descriptors<std::int32_t>(sp::Descriptors::automatic) == sp::Descriptors::fused);
  static_assert(sp::resolve_descriptors<float>(sp::Descriptors::automatic) == sp::Descriptors::fused);
  static_assert(sp::resolve_descriptors<std::int64_t>(sp::Descriptors::automatic) == sp::Descriptors::fenced);
  static_assert(sp::resolve_descriptors<std::int32_t>(sp::Descriptors::fenced) == sp::Descriptors::fenced);
  const sp::PollSchedule one_wave = sp::polls_for_grid(sp::kDefaultPolls, 100, 100);
  CHECK(one_wave.first_ns == 0);
  CHECK(one_wave.every_ns == sp::kDefaultPolls.every_ns);
  const sp::PollSchedule two_waves = sp::polls_for_grid(sp::kDefaultPolls, 101, 100);
  CHECK(two_waves.first_ns == sp::kDefaultPolls.first_ns);
  CHECK(two_waves.every_ns == sp::kDefaultPolls.every_ns);
  CHECK(sp::kDefaultPolls.first_ns > 0);  // the tuned schedule sleeps before its first read
}

TEST_CASE("single_pass: the one-wave tile rule takes the wide tile only just past one wave") {
  // An H200's numbers for int32: 924 default tiles of 4096 resident, 528 one-wave tiles of 8192.
  constexpr std::size_t kTile = 4096, kResident = 924, kWide = 8192, kWideResident = 528;
  auto pays = [&](std::size_t n) {
    return sp::one_wave_tiles_pay(n, kTile, kResident, kWide, kWideResident);
  };
  CHECK_FALSE(pays(0));
  CHECK_FALSE(pays(std::size_t(1) << 20));
  CHECK_FALSE(pays(kTile * kResident));  // one wave of default tiles: nothing to gain
  CHECK(pays(kTile * kResident + 1));    // one tile more: a second wave of one tile
  CHECK(pays(std::size_t(1) << 22));     // 1024 tiles, or 512 wide ones
  CHECK(pays(kWide * kWideResident));    // the last size one wave of wide tiles holds
  CHECK_FALSE(pays(kWide * kWideResident + 1));
  CHECK_FALSE(pays(std::size_t(1) << 28));
  // A GPU whose wide tiles hold no more than its default ones: never.
  for (std::size_t n : {std::size_t(1), std::size_t(524288), std::size_t(524289), std::size_t(1) << 24})
    CHECK_FALSE(sp::one_wave_tiles_pay(n, 4096, 128, 8192, 64));
  static_assert(sp::OneWavePolicy::kBlockThreads * sp::OneWavePolicy::kItems ==
                    2 * sp::DefaultPolicy::kBlockThreads * sp::DefaultPolicy::kItems,
                "the one-wave tile holds twice the default's elements");
}

// ---- the tile work -------------------------------------------------------------------------------

namespace {
// Copies n elements starting `offset` elements into the buffers (offset 1: not 16-byte aligned),
// and checks every element arrived and nothing past n was written.
template <class Shape, class T>
void check_copy(std::size_t n, std::size_t offset, bool vectorized, std::uint64_t stream) {
  INFO("n = " << n << ", offset = " << offset << ", vectorized = " << vectorized);
  const std::vector<T> in = scan_input<T>(n, stream);
  const std::size_t slack = Shape::TILE_ITEMS;  // room past the end that must stay poisoned
  scanlab::DeviceBuffer<T> d_in(n + offset), d_out(n + offset + slack);
  d_in.fill_poison();
  d_out.fill_poison();
  SCANLAB_CUDA_CHECK(cudaMemcpy(d_in.data() + offset, in.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  const T* src = d_in.data() + offset;
  T* dst = d_out.data() + offset;
  const bool vec = vectorized && sp::aligned16(src) && sp::aligned16(dst);
  const unsigned tiles = static_cast<unsigned>((n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS);
  copy_tiles<Shape, T><<<tiles, Shape::BLOCK_THREADS>>>(src, dst, n, vec, T{});
  SCANLAB_CHECK_SYNC();
  const std::vector<T> all = d_out.download();
  const std::vector<T> got(all.begin() + static_cast<std::ptrdiff_t>(offset),
                           all.begin() + static_cast<std::ptrdiff_t>(offset + n));
  const scanlab::VerifyResult r = scanlab::verify_exact(in, got);
  INFO(r.message());
  CHECK(r.ok);
  CHECK(scanlab::count_poison(all.data() + offset + n, slack) == slack);
}
}  // namespace

TEST_CASE("single_pass: full and partial tiles load and store every element once, and no other") {
  using Int = sp::TileShape<std::int32_t, 64, 8>;
  for (const std::size_t n :
       {std::size_t{1}, std::size_t{511}, std::size_t{512}, std::size_t{513}, std::size_t{512 * 5 + 77}}) {
    check_copy<Int, std::int32_t>(n, 0, true, 10 + n);
    check_copy<Int, std::int32_t>(n, 0, false, 20 + n);
    check_copy<Int, std::int32_t>(n, 1, true, 30 + n);  // unaligned: the scalar path
  }
  check_copy<sp::TileShape<U32Map, 32, 4>, U32Map>(128 * 3 + 5, 0, true, 40);
  check_copy<sp::TileShape<std::int32_t, 32, 3>, std::int32_t>(96 * 4 + 1, 0, true, 50);
}

namespace {
template <class Shape, bool INCLUSIVE, class T, class Op>
void check_tile_scans(std::size_t n, Op op, std::uint64_t stream) {
  INFO("n = " << n << ", " << (INCLUSIVE ? "inclusive" : "exclusive") << ", " << Shape::BLOCK_THREADS << " x "
              << Shape::ITEMS);
  const std::vector<T> in = scan_input<T>(n, stream);
  const std::size_t tile = Shape::TILE_ITEMS;
  const std::size_t tiles = (n + tile - 1) / tile;
  scanlab::DeviceBuffer<T> d_in(in), d_out(n), d_aggregates(tiles);
  d_out.fill_poison();
  scan_tiles_independently<Shape, INCLUSIVE, T, Op>
      <<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS>>>(d_in.data(), d_out.data(), d_aggregates.data(), n, op);
  SCANLAB_CHECK_SYNC();
  std::vector<T> expected(n), aggregates(tiles);
  for (std::size_t t = 0; t < tiles; ++t) {
    const std::size_t begin = t * tile, count = std::min(tile, n - begin);
    if (INCLUSIVE) scanlab::inclusive_scan_oracle(in.data() + begin, expected.data() + begin, count, op);
    else scanlab::exclusive_scan_oracle(in.data() + begin, expected.data() + begin, count, op);
    aggregates[t] = scanlab::reduce_oracle(in.data() + begin, count, op);
  }
  const scanlab::VerifyResult scans = scanlab::verify_exact(expected, d_out.download());
  INFO(scans.message());
  CHECK(scans.ok);
  const scanlab::VerifyResult totals = scanlab::verify_exact(aggregates, d_aggregates.download());
  INFO("aggregates: " << totals.message());
  CHECK(totals.ok);
}
}  // namespace

TEST_CASE("single_pass: each tile's scan and aggregate equal the oracle (non-commutative too)") {
  using I = std::int32_t;
  check_tile_scans<sp::TileShape<I, 64, 4>, false, I>(256 * 3 + 17, Plus<I>{}, 100);
  check_tile_scans<sp::TileShape<I, 64, 4>, true, I>(256 * 3 + 17, Plus<I>{}, 110);
  check_tile_scans<sp::TileShape<I, 128, 32>, false, I>(4096 * 2 + 1, Plus<I>{}, 120);  // the default tile
  check_tile_scans<sp::TileShape<I, 32, 3>, true, I>(96 * 2 + 50, Plus<I>{}, 130);      // VEC = 1
  check_tile_scans<sp::TileShape<U32Map, 64, 4>, false, U32Map>(256 * 2 + 3, AffineCompose<std::uint32_t>{}, 140);
  check_tile_scans<sp::TileShape<U32Map, 64, 4>, true, U32Map>(256 * 2 + 3, AffineCompose<std::uint32_t>{}, 150);
}

// ---- the protocol pieces -------------------------------------------------------------------------

TEST_CASE("single_pass: the ticket hands every tile out once, in the order blocks start") {
  constexpr unsigned kBlocks = 37;
  scanlab::DeviceBuffer<unsigned> ticket(1), tiles(kBlocks);
  auto run = [&](sp::TileOrder order) {
    SCANLAB_CUDA_CHECK(cudaMemset(ticket.data(), 0, sizeof(unsigned)));
    record_tile_numbers<<<kBlocks, 64>>>(ticket.data(), order, tiles.data());
    SCANLAB_CHECK_SYNC();
    return tiles.download();
  };
  const std::vector<unsigned> by_index = run(sp::TileOrder::block_index);
  for (unsigned b = 0; b < kBlocks; ++b) CHECK(by_index[b] == b);
  std::vector<unsigned> by_ticket = run(sp::TileOrder::ticket);
  std::vector<unsigned> sorted = by_ticket;
  std::sort(sorted.begin(), sorted.end());
  for (unsigned t = 0; t < kBlocks; ++t) CHECK(sorted[t] == t);
#if defined(SCANLAB_EMU)
  // Blocks started last-first: the ticket follows the start order, not blockIdx.x.
  scanlab_emu::OptionsGuard guard;
  scanlab_emu::options().schedule = scanlab_emu::Schedule::reverse;
  scanlab_emu::options().resident = 1;
  by_ticket = run(sp::TileOrder::ticket);
  for (unsigned b = 0; b < kBlocks; ++b) CHECK(by_ticket[b] == kBlocks - 1 - b);
#endif
}

TEST_CASE("single_pass: volatile loads and stores move values of 4, 8 and 16 bytes whole") {
  auto check = [](auto tag, std::uint64_t stream) {
    using T = decltype(tag);
    const std::vector<T> in = scan_input<T>(300, stream);
    scanlab::DeviceBuffer<T> d_in(in), d_out(in.size());
    d_out.fill_poison();
    copy_volatile<<<3, 128>>>(d_in.data(), d_out.data(), static_cast<int>(in.size()));
    SCANLAB_CHECK_SYNC();
    const scanlab::VerifyResult r = scanlab::verify_exact(in, d_out.download());
    INFO(r.message());
    CHECK(r.ok);
  };
  check(std::int32_t{}, 200);
  check(std::int64_t{}, 210);
  check(U32Map{}, 220);
  check(Affine<std::uint64_t>{}, 230);
}

// ---- the decoupled look-back ---------------------------------------------------------------------

namespace {
template <sp::Descriptors D, sp::Lookback L>
using Tiny = sp::Policy<32, 2, D, L>;  // 64 elements per tile: many tiles, windows of 32 and more
}  // namespace

TEST_CASE("single_pass: a scan over the library's look-back equals the oracle, every descriptor and look-back") {
  using I = std::int32_t;
  using sp::Descriptors;
  using sp::Lookback;
  for (const std::size_t n : {std::size_t{1}, std::size_t{64}, std::size_t{65}, std::size_t{64 * 70 + 9}}) {
    INFO("n = " << n);
    const std::vector<I> ints = scan_input<I>(n, 300 + n);
    if (!library_scan_matches_oracle<Tiny<Descriptors::fused, Lookback::warp>>(ints, Plus<I>{})) return;
    if (!library_scan_matches_oracle<Tiny<Descriptors::fused, Lookback::serial>>(ints, Plus<I>{})) return;
    if (!library_scan_matches_oracle<Tiny<Descriptors::fenced, Lookback::warp>>(ints, Plus<I>{})) return;
    if (!library_scan_matches_oracle<Tiny<Descriptors::fenced, Lookback::serial>>(ints, Plus<I>{})) return;
    if (!library_scan_matches_oracle<Tiny<Descriptors::fused, Lookback::serial>, 2>(ints, Plus<I>{})) return;
    if (!library_scan_matches_oracle<Tiny<Descriptors::fused, Lookback::serial>, 5>(ints, Plus<I>{})) return;
    // Affine maps: 64-bit values (fenced) and an operator that is not commutative.
    const std::vector<U32Map> maps = scan_input<U32Map>(n, 400 + n);
    if (!library_scan_matches_oracle<Tiny<Descriptors::automatic, Lookback::warp>>(maps,
                                                                                   AffineCompose<std::uint32_t>{}))
      return;
    if (!library_scan_matches_oracle<Tiny<Descriptors::automatic, Lookback::serial>>(maps,
                                                                                     AffineCompose<std::uint32_t>{}))
      return;
  }
  const std::vector<I> big = scan_input<I>(4096 * 5 + 3, 500);
  library_scan_matches_oracle<sp::DefaultPolicy>(big, Plus<I>{});
}

namespace {
// Scans with the library's kernel on one DescriptorStorage, launch after launch: the storage's
// two sides, each cleared by the launch after the one that used it, and the memset it falls back
// on when a launch did not report back (launched() not called).
template <class P, class T, class Op>
struct StorageScanner {
  using Shape = typename P::template Shape<T>;
  static constexpr sp::Descriptors kD = sp::resolve_descriptors<T>(P::kDescriptors);
  using Desc = sp::TileDescriptors<T, kD>;
  sp::DescriptorStorage<T, kD, Desc> storage;
  explicit StorageScanner(std::size_t max_tiles) : storage(max_tiles) {}

  bool scan_matches_oracle(std::size_t tiles, std::uint64_t stream, bool report_launch) {
    const std::size_t n = tiles * Shape::TILE_ITEMS - 1;  // a partial last tile
    const std::vector<T> in = scan_input<T>(n, stream);   // new values each time: stale flags would show
    scanlab::DeviceBuffer<T> d_in(in), d_out(n);
    d_out.fill_poison();
    const auto launch = storage.next_launch(tiles, 0);
    // A launch that does not report back stands for one that failed: it clears nothing.
    const sp::Ticket ticket = report_launch ? launch.ticket : sp::Ticket{launch.ticket.counter, nullptr, 0};
    using LookBack = sp::LibraryLookBack<P::kLookback>;
    auto* kernel = sp::single_pass_scan_kernel<Shape, 1, false, T, Desc, Op, LookBack>;
    kernel<<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS>>>(d_in.data(), d_out.data(), n, launch.desc, ticket,
                                                                   sp::TileOrder::ticket, true, sp::PollSchedule{0, 0},
                                                                   Op{}, LookBack{});
    SCANLAB_CHECK_SYNC();
    if (report_launch) storage.launched();
    const scanlab::VerifyResult r = scanlab::verify_exact(scanlab::exclusive_scan_oracle(in, Op{}), d_out.download());
    INFO("tiles = " << tiles << ", launched() " << (report_launch ? "called" : "not called"));
    INFO(r.message());
    CHECK(r.ok);
    return r.ok;
  }
};

template <class P, class T, class Op>
void scans_on_one_storage() {
  StorageScanner<P, T, Op> scanner(9);
  // Growing, shrinking, the same size twice: each launch's side was last used two launches ago,
  // with other tiles counts and other values.
  std::uint64_t stream = 700;
  for (const std::size_t tiles : {5, 2, 9, 9, 1, 7, 3})
    if (!scanner.scan_matches_oracle(tiles, stream++, true)) return;
  // A launch that did not report back (and cleared nothing) leaves its predecessor's side dirty:
  // the launch after it uses that side, so it must get a memset.
  if (!scanner.scan_matches_oracle(6, stream++, false)) return;
  if (!scanner.scan_matches_oracle(8, stream++, true)) return;
  scanner.scan_matches_oracle(4, stream++, true);
}
}  // namespace

TEST_CASE("single_pass: a scan object refuses more tiles than it was made for, and more than 2^31 - 1") {
  CHECK_NOTHROW(sp::check_tile_count(100, 100, 409600, "scan"));
  CHECK_THROWS_WITH_AS(sp::check_tile_count(101, 100, 409601, "ch07::DecoupledLookbackScan"),
                       "ch07::DecoupledLookbackScan: n = 409601 is more than this scan object was made for",
                       std::invalid_argument);
  const std::size_t most = 0x7fffffffu;
  CHECK_NOTHROW(sp::check_tile_count(most, most, most * 4096, "scan"));
  CHECK_THROWS_WITH_AS(sp::check_tile_count(most + 1, most + 1, (most + 1) * 4096, "ch11::AsyncCopyScan"),
                       "ch11::AsyncCopyScan: more than 2^31 - 1 tiles", std::invalid_argument);
  // Through a storage: the count it was made for.
  using I = std::int32_t;
  using Desc = sp::TileDescriptors<I, sp::Descriptors::fused>;
  const sp::DescriptorStorage<I, sp::Descriptors::fused, Desc> storage(8);
  CHECK_NOTHROW(storage.check_tiles(8, 8 * 4096, "scan"));
  CHECK_THROWS_AS(storage.check_tiles(9, 8 * 4096 + 1, "scan"), std::invalid_argument);
}

TEST_CASE("single_pass: a small launch after a large one leaves the large side to a memset") {
  // What each launch's blocks are asked to clear (the scans above check that the result is right).
  using I = std::int32_t;
  using Desc = sp::TileDescriptors<I, sp::Descriptors::fused>;
  sp::DescriptorStorage<I, sp::Descriptors::fused, Desc> storage(100);
  const std::size_t words_of_one_tile = (16 + 32) / 4;  // the ticket's 16 bytes and one tile's 32-byte sector
  storage.next_launch(100, 0);
  storage.launched();
  CHECK(storage.next_launch(1, 0).ticket.stale_words == 0);  // 100 tiles' words: not for one tile
  storage.launched();
  CHECK(storage.next_launch(1, 0).ticket.stale_words == words_of_one_tile);  // (and a memset of 100)
  storage.launched();
  CHECK(storage.next_launch(100, 0).ticket.stale_words == words_of_one_tile);
  SCANLAB_CHECK_SYNC();
}

TEST_CASE("single_pass: one DescriptorStorage serves launch after launch without a memset between them") {
  using I = std::int32_t;
  scans_on_one_storage<Tiny<sp::Descriptors::fused, sp::Lookback::warp>, I, Plus<I>>();
  scans_on_one_storage<Tiny<sp::Descriptors::fenced, sp::Lookback::serial>, I, Plus<I>>();
  scans_on_one_storage<Tiny<sp::Descriptors::automatic, sp::Lookback::warp>, U32Map, AffineCompose<std::uint32_t>>();
}

#if !defined(SCANLAB_EMU)
TEST_CASE("single_pass GPU: scans on either side of the one-wave tile's window equal the oracle") {
  // Through launch_single_pass_scan_for with the default policy, as chapters 07 and 11 scan: the
  // default tile up to one wave of it, then the one-wave tile while one wave of those holds the
  // input, then the default tile again. The window comes from this GPU's occupancy.
  using I = std::int32_t;
  using P = sp::DefaultPolicy;
  using Shape = P::Shape<I>;
  using Wide = sp::OneWavePolicy;
  using WideShape = Wide::Shape<I>;
  constexpr sp::Descriptors kD = sp::resolve_descriptors<I>(P::kDescriptors);
  using Desc = sp::TileDescriptors<I, kD>;
  using LookBack = sp::LibraryLookBack<P::kLookback>;
  const std::size_t resident = sp::resident_tiles<Shape, P::kMinBlocksPerSm, false, I, Desc, Plus<I>, LookBack>();
  const std::size_t wide_resident =
      sp::resident_tiles<WideShape, Wide::kMinBlocksPerSm, false, I, Desc, Plus<I>, LookBack>();
  const std::size_t first = resident * Shape::TILE_ITEMS + 1;      // one element past one wave of default tiles
  const std::size_t last = wide_resident * WideShape::TILE_ITEMS;  // all that one wave of wide tiles holds
  INFO("resident: " << resident << " default tiles, " << wide_resident << " one-wave tiles");
  if (last < first) {
    MESSAGE("on this GPU one wave of wide tiles holds no more than one of default tiles: the rule never applies");
    CHECK_FALSE(sp::one_wave_tiles_pay(first, Shape::TILE_ITEMS, resident, WideShape::TILE_ITEMS, wide_resident));
    return;
  }
  CHECK(sp::one_wave_tiles_pay(first, Shape::TILE_ITEMS, resident, WideShape::TILE_ITEMS, wide_resident));
  CHECK_FALSE(sp::one_wave_tiles_pay(last + 1, Shape::TILE_ITEMS, resident, WideShape::TILE_ITEMS, wide_resident));
  sp::DescriptorStorage<I, kD, Desc> storage(sp::tiles_for<Shape>(last + 1));
  std::uint64_t stream = 900;
  for (const std::size_t n : {first - 1, first, (first + last) / 2, last, last + 1, first + 7}) {
    INFO("n = " << n);
    const std::vector<I> in = scan_input<I>(n, stream++);
    scanlab::DeviceBuffer<I> d_in(in), d_out(n);
    d_out.fill_poison();
    sp::launch_single_pass_scan_for<P, false>(storage, d_in.data(), d_out.data(), n, Plus<I>{}, LookBack{},
                                              sp::kDefaultPolls, sp::TileOrder::ticket, 0, "single_pass test");
    SCANLAB_CHECK_SYNC();
    const scanlab::VerifyResult r =
        scanlab::verify_exact(scanlab::exclusive_scan_oracle(in, Plus<I>{}), d_out.download());
    INFO(r.message());
    CHECK(r.ok);
    if (!r.ok) return;
  }
}
#endif

#if defined(SCANLAB_EMU)

TEST_CASE("single_pass emulator: the look-back under every dispatch order, residency and interleaving") {
  scanlab_emu::OptionsGuard guard;
  using I = std::int32_t;
  using sp::Descriptors;
  using sp::Lookback;
  const std::vector<I> in = scan_input<I>(64 * 45 + 5, 600);
  const std::vector<U32Map> maps = scan_input<U32Map>(64 * 40 + 1, 610);
  for (const auto schedule :
       {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse, scanlab_emu::Schedule::random}) {
    for (const unsigned resident : {1u, 3u}) {
      for (const bool interleave : {false, true}) {
        scanlab_emu::options().schedule = schedule;
        scanlab_emu::options().resident = resident;
        scanlab_emu::options().interleave = interleave;
        scanlab_emu::options().seed = scanlab::test_seed(620);
        INFO(scanlab_emu::describe_options());
        if (!library_scan_matches_oracle<Tiny<Descriptors::fused, Lookback::warp>>(in, Plus<I>{})) return;
        if (!library_scan_matches_oracle<Tiny<Descriptors::fenced, Lookback::serial>>(in, Plus<I>{})) return;
        // Affine maps: interleaved, a look-back walks past A's, whose order only a
        // non-commutative operator shows.
        if (!library_scan_matches_oracle<Tiny<Descriptors::fenced, Lookback::warp>>(maps,
                                                                                    AffineCompose<std::uint32_t>{}))
          return;
        if (!library_scan_matches_oracle<Tiny<Descriptors::fenced, Lookback::serial>>(maps,
                                                                                      AffineCompose<std::uint32_t>{}))
          return;
        // Windows of 3: a round that meets an X part-way folds what is nearer and waits there.
        if (!library_scan_matches_oracle<Tiny<Descriptors::fused, Lookback::serial>, 3>(in, Plus<I>{})) return;
        if (!library_scan_matches_oracle<Tiny<Descriptors::fenced, Lookback::serial>, 3>(
                maps, AffineCompose<std::uint32_t>{}))
          return;
      }
    }
  }
}

TEST_CASE("single_pass emulator weak memory: the fenced descriptors publish value, fence, flag") {
  scanlab_emu::OptionsGuard guard;
  scanlab_emu::options().memory = scanlab_emu::Memory::weak;
  using I = std::int32_t;
  using sp::Descriptors;
  using sp::Lookback;
  for (std::uint64_t k = 0; k < 3; ++k) {
    scanlab_emu::options().seed = scanlab::test_seed(700 + k);
    scanlab_emu::options().schedule = k % 2 ? scanlab_emu::Schedule::random : scanlab_emu::Schedule::in_order;
    INFO(scanlab_emu::describe_options());
    const std::vector<I> in = scan_input<I>(64 * 150 + 17, 710 + k);
    if (!library_scan_matches_oracle<Tiny<Descriptors::fenced, Lookback::serial>>(in, Plus<I>{})) return;
    if (!library_scan_matches_oracle<Tiny<Descriptors::fused, Lookback::serial>>(in, Plus<I>{})) return;
    // The warp look-back polls through __ballot_sync: other blocks' stores must drain meanwhile.
    if (!library_scan_matches_oracle<Tiny<Descriptors::fenced, Lookback::warp>>(in, Plus<I>{})) return;
    if (!library_scan_matches_oracle<Tiny<Descriptors::fused, Lookback::warp>>(in, Plus<I>{})) return;
  }
}

#endif
