// Chapter 08, given: the single-pass compaction's kernel and host side (the workspace, the launch,
// select_if_single_pass, its in-place form and partition_if_single_pass). Your code, the look-back
// the kernel calls, is in stream_compaction_single_pass.cuh (exercises/08_stream_compaction/, or
// solutions/ for the reference build); nothing here needs changing.
//
// The kernel is built from chapter 06's and 07's pieces, from the single-pass library. One tile:
//   1. load     the tile into registers with warp-striped 16-byte streaming loads
//               (scanlab/single_pass/tile.cuh); after this the tile never reads `in` again;
//   2. rank     one bit per element; each kept element's rank within the tile from bit-sliced
//               ballots across the lanes (as in the three-phase scatter) and one barrier for the
//               warps' counts; the tile's count is the total;
//   3. exchange every kept element goes to shared memory at its rank, so that the tile's kept
//               elements lie there densely, in input order (partition: the rejected ones after them);
//   4. look back your look_back_kept_count: publish the count, find the number kept in all earlier
//               tiles (warp 0 only; the other warps do step 3 meanwhile);
//   5. store    consecutive threads copy consecutive kept elements out: every warp's stores are
//               dense and coalesced, whatever fraction is kept.
// The input is read once: n reads and k writes (partition: n writes), the least a compaction moves.
// Large inputs run another kernel with two tiles a block (compact_two_tile.cuh), whose data warps
// land and count the next tile while its look-back warp looks back for this one.
//
// In place (select-if): a tile publishes its count only after it has read all of its input, and it
// learns its own exclusive prefix only after every predecessor has published. So when a tile
// writes, every earlier tile has already read its input; and it writes only below its own end, never
// into a later tile's input. With the three phases there is no such order: the scatter kernel's
// blocks run in any order, and a tile could overwrite an input an earlier tile has not read yet.
// The two-tile kernel publishes a tile's count after all of the tile's reads only when it stages
// the tile, so the in-place select-if runs it only on a 16-byte aligned input, and only where it was
// built with bulk copies (compact_two_tile.cuh, "In place").
// Partition-if writes the rejected elements from the END of the output backwards (rejected element
// number j goes to out[n - 1 - j]), as CUB's DevicePartition::If does: in one pass no tile knows the
// total kept count, where rejected elements in input order would have to start. It cannot run in
// place: it writes the rejected ones into later tiles' input.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/descriptor_storage.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/tile.cuh>

#include "compact_two_tile.cuh"
#include "stream_compaction_single_pass.cuh"
#include "tile_exchange.cuh"

namespace ch08 {

namespace single_pass = scanlab::single_pass;

// The tuning, in chapter 07's policy vocabulary (scanlab/single_pass/policy.cuh), swept on an H100
// and an H200 (tests/gpu/tuning/ch08_single_pass_sweep.sh; the book's "Measured" section):
//   select-if     chapter 07's tile shape, 128 threads x 32 elements (4096 a tile, eight 16-byte
//                 loads per thread for 4-byte types), at least 6 tiles resident per SM (at most 85
//                 registers a thread: the bytes in flight, in registers, are what a single pass
//                 lives on);
//   partition-if  128 x 24 (3072 a tile) with at least 8 resident (64 registers): the same elements
//                 in flight per SM in more, smaller tiles. On an H200 it took 3-7% less time than
//                 128 x 32 at 2^24..2^28 int32; on an H100, 128 x 24 was level with it or faster.
// Both: one fused 64-bit word per tile (the count beside its status), the warp look-back.
using SelectPolicy = single_pass::Policy<128, 32, single_pass::Descriptors::fused, single_pass::Lookback::warp, 6>;
using PartitionPolicy = single_pass::Policy<128, 24, single_pass::Descriptors::fused, single_pass::Lookback::warp, 8>;
template <bool kPartition>
using SinglePassPolicy = std::conditional_t<kPartition, PartitionPolicy, SelectPolicy>;
template <bool kPartition, class T>
using SinglePassShape = typename SinglePassPolicy<kPartition>::template Shape<T>;
// The smaller of the two tiles: a workspace holds descriptors for this many elements a tile.
constexpr std::size_t kSinglePassTile =
    std::min(static_cast<std::size_t>(SelectPolicy::kBlockThreads) * SelectPolicy::kItems,
             static_cast<std::size_t>(PartitionPolicy::kBlockThreads) * PartitionPolicy::kItems);

// Shared memory of one tile.
template <class Shape, class T>
struct SinglePassStorage {
  single_pass::WarpTotals<Shape, unsigned> warp_counts;
  unsigned tile_slot;
  unsigned tile_prefix;           // kept elements in all earlier tiles (from the look-back)
  T exchange[Shape::TILE_ITEMS];  // the tile's kept elements, densely (partition: then the rest)
};

// --8<-- [start:single_pass_kernel]
template <class Shape, bool kPartition, class T, class Pred>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS, SinglePassPolicy<kPartition>::kMinBlocksPerSm)
    select_if_single_pass_kernel(const T* in, T* out, std::size_t n, CountDescriptors descriptors,
                                 single_pass::Ticket ticket, unsigned* d_num_selected, bool vectorized,
                                 single_pass::PollSchedule polls, Pred pred) {
  __shared__ SinglePassStorage<Shape, T> s;
  CountDescriptors desc = descriptors;
  const unsigned tile = single_pass::dynamic_tile_index(ticket.counter, single_pass::TileOrder::ticket, s.tile_slot);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = single_pass::valid_in_tile<Shape>(n, tile);
  const int warp = scanlab::warp_id();

  // 1. The whole tile into registers: after this the tile never reads `in` again.
  T items[Shape::ITEMS];
  if (valid == Shape::TILE_ITEMS) single_pass::load_full_tile<Shape>(in + start, items, vectorized);
  else single_pass::load_partial_tile<Shape>(in + start, items, valid, T{});

  // 2. Keep bits, one per element, and every run's place among the kept elements of the warp's
  //    segment (tile_exchange.cuh); one barrier for the warps' counts; the tile's count is the total.
  const unsigned kept = keep_bits<Shape>(items, valid, pred);
  unsigned run_place[Shape::ROWS];
  const unsigned warp_count = warp_run_places<Shape>(kept, run_place);
  unsigned warp_before;
  const unsigned count = single_pass::block_aggregate_and_warp_prefix<Shape>(warp_count, s.warp_counts,
                                                                             scanlab::Plus<unsigned>{}, warp_before);

  // 3. The exchange: the tile's kept elements densely in s.exchange, in input order (partition: the
  //    rejected ones after them).
  exchange_kept_first<kPartition, Shape>(items, kept, run_place, warp_before, count, valid, s.exchange);

  // 4. The look-back (your code), by warp 0: this tile's count out, the number kept in all earlier
  //    tiles back. The other warps go on to the barrier.
  if (warp == 0) look_back_kept_count(desc, tile, count, polls, s.tile_prefix);
  __syncthreads();  // the exchange is complete and s.tile_prefix is set

  // 5. Dense, coalesced stores: thread t copies slots t, t + BLOCK_THREADS, ...
  const std::size_t kept_before = s.tile_prefix;
  store_exchanged<kPartition, Shape>(s.exchange, count, valid, out, n, start, kept_before);
  if (tile == gridDim.x - 1 && threadIdx.x == 0) *d_num_selected = static_cast<unsigned>(kept_before + count);
  single_pass::clear_stale(ticket);  // the previous run's descriptors, for the next run
}
// --8<-- [end:single_pass_kernel]

// The poll schedules (chapter 07, "Step 4"). A select-if tile has less work after its loads than a
// scan tile (it stores only what it keeps), so its predecessors publish sooner and a shorter first
// sleep pays; a partition tile stores all of its elements, as a scan tile does, and prefers chapter
// 07's. Swept on an H100 (tests/gpu/tuning/ch08_single_pass_sweep.sh polls; int32, half kept):
// on select-if {1500, 300} and {2000, 500} were the best, within the runs' noise (about 3%) of each
// other, and {2800, 900} took 5-6% longer; on partition-if {2800, 900} took 2-4% less than
// {2000, 500}. No first sleep at all took 9-25% longer on both.
constexpr single_pass::PollSchedule kSelectPolls = {2000, 500};
constexpr single_pass::PollSchedule kPartitionPolls = {2800, 900};

// Partition-if from this many elements on runs with two tiles per block (compact_two_tile.cuh).
// Measured on an H100, int32 and float, half and a tenth kept (book, chapter 08, "Measured"): at
// 2^20 and 2^21 the two-tile kernel took 8-13% longer than the one-tile kernel, at 2^22 and 2^23 the
// two were within 4% of each other either way, and from 2^24 on it took less time: 2-5% at 2^24,
// 9-10% at 2^26 and 11-12% at 2^28.
constexpr std::size_t kPartitionTwoTileFrom = std::size_t(1) << 22;
// Select-if from this many elements on. Measured on an H200 (tests/gpu/tuning/ch08_single_pass_sweep.sh
// two_tile_from; book, chapter 08, "Measured"), int32, the two-tile kernel's time over the one-tile
// kernel's: at 2^24 0.90-0.92 with half kept and 0.90-0.91 with a tenth kept; at 2^22 0.97-0.99
// and 1.05; at 2^26 and 2^28 0.84 and 0.79-0.81. (Until the two-tile kernel packed during the
// look-back, it lost at 2^24 and, with a tenth kept, at 2^26, and this was 2^26.)
constexpr std::size_t kSelectTwoTileFrom = std::size_t(1) << 24;

inline std::size_t single_pass_tiles(std::size_t n) { return (n + kSinglePassTile - 1) / kSinglePassTile; }

// The ticket and one descriptor word per tile, for up to n elements: chapter 07's storage, whose
// two sides runs use in turn, each run's blocks clearing the side the run before used (no memset
// between runs; scanlab/single_pass/descriptor_storage.cuh). Reusable, not concurrently.
struct SinglePassWorkspace {
  explicit SinglePassWorkspace(std::size_t n) : capacity(n), storage(single_pass_tiles(n)) {}
  std::size_t capacity;
  single_pass::DescriptorStorage<unsigned, single_pass::Descriptors::fused, CountDescriptors> storage;
  // Partition-if and select-if run the two-tile kernel (compact_two_tile.cuh) from these many
  // elements on (tests set 0 to run it at every size).
  std::size_t partition_two_tile_from = kPartitionTwoTileFrom;
  std::size_t select_two_tile_from = kSelectTwoTileFrom;
};

namespace detail {

template <bool kPartition, class T, class Pred>
void compact_single_pass(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                         SinglePassWorkspace& ws, cudaStream_t s, const char* who) {
  if (n > 0xffffffffu || n > ws.capacity) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is more than 2^32 - 1 or than the workspace was made for (" +
                                std::to_string(ws.capacity) + ")");
  }
  if (d_num_selected == nullptr) throw std::invalid_argument(std::string(who) + ": d_num_selected is null");
  if (n == 0) {
    SCANLAB_CUDA_CHECK(cudaMemsetAsync(d_num_selected, 0, sizeof(unsigned), s));
    return;
  }
  static_assert(two_tile::tile_items<T, kPartition>() >= kSinglePassTile,
                "the workspace counts tiles of kSinglePassTile");
  // In place only where the two-tile kernel stages every whole tile: an aligned input, and a kernel
  // built with bulk copies (compact_two_tile.cuh, "In place").
  const bool two_tile_in_place_safe =
      d_in != d_out || (single_pass::aligned16(d_in) && two_tile::stages_tiles<T, kPartition, Pred>());
  if (n >= (kPartition ? ws.partition_two_tile_from : ws.select_two_tile_from) && two_tile_in_place_safe) {
    two_tile::launch<kPartition>(d_in, d_out, d_num_selected, n, pred, ws.storage, s, who);
    return;
  }
  using Shape = SinglePassShape<kPartition, T>;
  static_assert(Shape::TILE_ITEMS >= kSinglePassTile, "the workspace counts tiles of kSinglePassTile");
  const std::size_t tiles = single_pass::tiles_for<Shape>(n);
  const auto launch = ws.storage.next_launch(tiles, s);
  // The one-wave rule (scanlab/single_pass/polls.cuh); the occupancy is asked once per kernel.
  static const std::size_t resident =
      scanlab::resident_blocks(select_if_single_pass_kernel<Shape, kPartition, T, Pred>, Shape::BLOCK_THREADS);
  const single_pass::PollSchedule polls =
      single_pass::polls_for_grid(kPartition ? kPartitionPolls : kSelectPolls, tiles, resident);
  // Only the loads are vectorized; the stores go out one element per thread, densely.
  const bool vectorized = single_pass::aligned16(d_in);
  select_if_single_pass_kernel<Shape, kPartition, T, Pred>
      <<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS, 0, s>>>(d_in, d_out, n, launch.desc, launch.ticket,
                                                                     d_num_selected, vectorized, polls, pred);
  SCANLAB_CHECK_LAUNCH();
  ws.storage.launched();
}

}  // namespace detail

// As select_if, in one kernel. d_num_selected must not be null.
// --8<-- [start:single_pass_host]
template <class T, class Pred>
void select_if_single_pass(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                           SinglePassWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::select_if_single_pass");
  detail::compact_single_pass<false>(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::select_if_single_pass");
}

// In place: d_data[0, k) becomes the kept elements, in order; d_data[k, n) keeps stale values.
template <class T, class Pred>
void select_if_single_pass_in_place(T* d_data, unsigned* d_num_selected, std::size_t n, Pred pred,
                                    SinglePassWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::select_if_single_pass_in_place");
  detail::compact_single_pass<false>(d_data, d_data, d_num_selected, n, pred, ws, s,
                                     "ch08::select_if_single_pass_in_place");
}

// Partition in one kernel: d_out[0, k) the kept elements in input order, d_out[k, n) the rejected
// ones in REVERSED input order (as cub::DevicePartition::If). Not in place.
template <class T, class Pred>
void partition_if_single_pass(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                              SinglePassWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::partition_if_single_pass");
  if (d_in == d_out && n > 0) throw std::invalid_argument("ch08::partition_if_single_pass: d_in == d_out");
  detail::compact_single_pass<true>(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::partition_if_single_pass");
}
// --8<-- [end:single_pass_host]

}  // namespace ch08
