// Chapter 08: select-if and partition-if in ONE pass, on chapter 07's tile machinery, the count
// fused into its decoupled look-back; select-if also in place.
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002), section 4.4 ("in-place compaction behavior") and 5.2: a compaction is a prefix
// sum over keep-flags, so the look-back can carry the tiles' kept counts instead of a scan's
// aggregates. CUB's DeviceSelect::If and DevicePartition::If work the same way. One tile:
//   1. load     the tile into registers with chapter 06's warp-striped 16-byte streaming loads
//               (scanlab/single_pass/tile.cuh); after this the tile never reads `in` again;
//   2. rank     one bit per element; each kept element's rank within the tile from bit-sliced
//               ballots across the lanes (as in the three-phase scatter) and one barrier for the
//               warps' counts; the tile's count is the aggregate;
//   3. exchange every kept element goes to shared memory at its rank, so that the tile's kept
//               elements lie there densely, in input order (partition: the rejected ones after them);
//   4. look back publish the count, find the number kept in all earlier tiles (warp 0 only; the
//               other warps do step 3 meanwhile);
//   5. store    consecutive threads copy consecutive kept elements out: every warp's stores are
//               dense and coalesced, whatever fraction is kept.
// The input is read once: n reads and k writes (partition: n writes), the least a compaction moves.
//
// In place (select-if): a tile publishes its count only after it has read all of its input, and it
// learns its own exclusive prefix only after every predecessor has published. So when a tile
// writes, every earlier tile has already read its input; and it writes only below its own end, never
// into a later tile's input. With the three phases there is no such order: the scatter kernel's
// blocks run in any order, and a tile could overwrite an input an earlier tile has not read yet.
// Partition-if writes the rejected elements from the END of the output backwards (rejected element
// number j goes to out[n - 1 - j]), as CUB's DevicePartition::If does: in one pass no tile knows the
// total kept count, where rejected elements in input order would have to start. It cannot run in
// place: it writes the rejected ones into later tiles' input.
//
// Your code is here: the look-back call inside the kernel. The host side (the workspace, the
// launch, select_if_single_pass, its in-place form and partition_if_single_pass) is given in
// chapters/08_stream_compaction/stream_compaction_single_pass_dispatch.cuh.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cuda_runtime.h>

#include <scanlab/monoid.hpp>
#include <scanlab/single_pass/lookback.cuh>  // chapter 07's decoupled look-back, as a library
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/tile.cuh>      // chapter 06's tile work
#include <scanlab/warp_scan.cuh>

namespace ch08 {

namespace single_pass = scanlab::single_pass;

// Chapter 07's tile shape, 128 threads x 32 elements: 4096 elements a tile, eight 16-byte loads
// per thread for 4-byte types.
constexpr int kSinglePassThreads = 128;
constexpr int kSinglePassItems = 32;
constexpr std::size_t kSinglePassTile = static_cast<std::size_t>(kSinglePassThreads) * kSinglePassItems;
// At least 6 tiles resident per SM (at most 85 registers a thread): the bytes in flight, in
// registers, are what a single pass lives on (chapter 07, "Speed").
constexpr int kSinglePassMinBlocksPerSm = 6;
template <class T>
using SinglePassShape = single_pass::TileShape<T, kSinglePassThreads, kSinglePassItems>;

// Tiles' kept counts as chapter 07's fused descriptors: {status, count} in one 64-bit word.
using CountDescriptors = single_pass::TileDescriptors<unsigned, single_pass::Descriptors::fused>;

// Bits of a count 0..VEC (a run's kept elements): 3 for VEC = 4.
template <int VEC>
constexpr int kRunCountBits = VEC < 2 ? 1 : 1 + kRunCountBits<VEC / 2>;

// Exclusive scan across the 32 lanes of counts below 2^BITS, by bit slices (the three-phase
// version's warp_offsets_bit_sliced, for any width): __ballot_sync of bit b of every lane's count is
// column b of the counts in binary; its popc below this lane counts the earlier counts with bit b
// set, each worth 2^b. Returns the sum of the counts of the lanes below; `total` gets all 32 lanes'.
// Called by all 32 lanes of a warp.
template <int BITS>
__device__ __forceinline__ unsigned lanes_before_bit_sliced(unsigned count, unsigned& total) {
  const unsigned below = scanlab::lanes_below_mask(scanlab::lane_id());
  unsigned before = 0;
  total = 0;
#pragma unroll
  for (int b = 0; b < BITS; ++b) {
    const unsigned column = __ballot_sync(scanlab::kFullWarpMask, (count >> b) & 1u);
    before += static_cast<unsigned>(__popc(column & below)) << b;
    total += static_cast<unsigned>(__popc(column)) << b;
  }
  return before;
}

// A store of an element that nothing reads again soon: the streaming hint ("evict first") where
// CUDA has one for the type, leaving L2 to the tiles' descriptors (chapter 07 measured the same).
template <class T>
__device__ __forceinline__ void store_streaming(T* p, const T& v) {
  if constexpr (std::is_arithmetic_v<T>) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// Shared memory of one tile.
template <class Shape, class T>
struct SinglePassStorage {
  single_pass::WarpTotals<Shape, unsigned> warp_counts;
  unsigned tile_slot;
  unsigned tile_prefix;             // kept elements in all earlier tiles (from the look-back)
  T exchange[Shape::TILE_ITEMS];    // the tile's kept elements, densely (partition: then the rest)
};

// --8<-- [start:single_pass_kernel]
template <class Shape, bool kPartition, class T, class Pred>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS, kSinglePassMinBlocksPerSm)
    select_if_single_pass_kernel(const T* in, T* out, std::size_t n, CountDescriptors descriptors,
                                 unsigned* ticket, unsigned* d_num_selected, bool vectorized,
                                 single_pass::PollSchedule polls, Pred pred) {
  __shared__ SinglePassStorage<Shape, T> s;
  CountDescriptors desc = descriptors;
  const unsigned tile = single_pass::dynamic_tile_index(ticket, single_pass::TileOrder::ticket, s.tile_slot);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = single_pass::valid_in_tile<Shape>(n, tile);
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();

  // 1. The whole tile into registers: after this the tile never reads `in` again.
  T items[Shape::ITEMS];
  if (valid == Shape::TILE_ITEMS) single_pass::load_full_tile<Shape>(in + start, items, vectorized);
  else single_pass::load_partial_tile<Shape>(in + start, items, valid, T{});

  // 2. Keep-flags, one bit per element (bit j for items[j]), and every run's place among the kept
  //    elements of the warp's segment. The segment is row 0 of lanes 0..31, then row 1, and so on,
  //    so a run's place is the kept elements of the rows above plus those of the lanes to its left
  //    in its row: a scan across the lanes of counts 0..VEC, done with bit-sliced ballots.
  static_assert(Shape::ITEMS <= 32, "one bit per element in `kept`");
  constexpr unsigned kRunMask = (1u << Shape::VEC) - 1u;
  unsigned kept = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int j = r * Shape::VEC + k;
      const bool keep = Shape::offset(warp, lane, r, k) < valid && pred(items[j]);
      kept |= (keep ? 1u : 0u) << j;
    }
  }
  unsigned run_place[Shape::ROWS];  // kept elements of the warp's segment before this thread's run r
  unsigned warp_count = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    unsigned row_count;
    const unsigned run = (kept >> (r * Shape::VEC)) & kRunMask;
    run_place[r] = warp_count + lanes_before_bit_sliced<kRunCountBits<Shape::VEC>>(
                                    static_cast<unsigned>(__popc(run)), row_count);
    warp_count += row_count;
  }
  const scanlab::Plus<unsigned> plus;
  unsigned warp_before;
  const unsigned count = single_pass::block_aggregate_and_warp_prefix<Shape>(warp_count, s.warp_counts, plus, warp_before);

  // 3. The exchange: kept element number `rank` of the tile to slot `rank`; with kPartition a
  //    rejected one at tile offset i (it has i - rank rejected ones before it) after all kept ones.
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    const unsigned run = (kept >> (r * Shape::VEC)) & kRunMask;
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int j = r * Shape::VEC + k;
      const unsigned rank = warp_before + run_place[r] + static_cast<unsigned>(__popc(run & ((1u << k) - 1u)));
      if ((run >> k) & 1u) {
        s.exchange[rank] = items[j];
      } else if (kPartition) {
        const int i = Shape::offset(warp, lane, r, k);
        if (i < valid) s.exchange[count + (static_cast<unsigned>(i) - rank)] = items[j];
      }
    }
  }

  // 4. The look-back: this tile's count out, the number kept in all earlier tiles back.
  // BEGIN TODO
  // TODO(student): publish this tile's `count` and find how many elements all earlier tiles kept,
  //   with chapter 07's decoupled look-back (the library's publish_and_look_back, over `desc`, with
  //   `plus` and `polls`). Leave that number in s.tile_prefix; the barrier below makes it visible
  //   to every thread. Exactly one warp may publish and look back for the tile.
  (void)desc;
  (void)polls;
  if (threadIdx.x == 0) s.tile_prefix = 0;  // a placeholder, right only for tile 0
  // END TODO
  __syncthreads();  // the exchange is complete and s.tile_prefix is set

  // 5. Dense, coalesced stores: thread t copies slots t, t + BLOCK_THREADS, ...
  const std::size_t kept_before = s.tile_prefix;
  const std::size_t rejected_before = start - kept_before;
  const int slots = kPartition ? valid : static_cast<int>(count);
  for (int i = static_cast<int>(threadIdx.x); i < slots; i += Shape::BLOCK_THREADS) {
    if (!kPartition || i < static_cast<int>(count)) {
      store_streaming(&out[kept_before + static_cast<std::size_t>(i)], s.exchange[i]);
    } else {
      store_streaming(&out[n - 1 - (rejected_before + static_cast<std::size_t>(i - static_cast<int>(count)))],
                      s.exchange[i]);
    }
  }
  if (tile == gridDim.x - 1 && threadIdx.x == 0) *d_num_selected = static_cast<unsigned>(kept_before + count);
}
// --8<-- [end:single_pass_kernel]

}  // namespace ch08
