// scanlab/single_pass/scan_kernel.cuh: chapter 07's single-pass scan kernel, one tile per block,
// with the look-back as a parameter. Chapter 07 runs it around the student's publish_and_look_back;
// chapter 11 around the library's (lookback.cuh), for the sizes where staging a tile in shared
// memory does not pay.
//
// The kernel: steps 1, 2 and 6 of the decoupled look-back protocol (Merrill and Garland,
// NVR-2016-002): take a tile number from the ticket, load and reduce the tile, let warp 0 publish
// and look back (steps 3 to 5: the LookBack), then scan the tile from its prefix and store it.
//
// launch_single_pass_scan is its host side: one launch on a DescriptorStorage; and
// launch_single_pass_scan_for the choice of its tile by size (the one-wave tile rule).
//
// Include it in quotes, by a path the CPU emulator's translator finds (relative to the including
// file): it declares shared memory, which the translator rewrites in the files it reaches through
// quoted includes only.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include <scanlab/cuda_check.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/descriptor_storage.cuh>
#include <scanlab/single_pass/policy.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/warp_scan.cuh>

namespace scanlab::single_pass {

// One block per tile. Three barriers: the ticket, the warp totals, the tile prefix.
// LookBack, called by warp 0 only (all 32 lanes):
//   look_back.on_ticket(desc, tile)                         thread 0, once it has its tile number
//   look_back(desc, tile, aggregate, op, polls) -> T        publish, look back, publish: the tile's
//                                                           exclusive prefix
// --8<-- [start:kernel]
template <class Shape, int MIN_BLOCKS, bool INCLUSIVE, class T, class Desc, class Op, class LookBack>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS, MIN_BLOCKS)
    single_pass_scan_kernel(const T* in, T* out, std::size_t n, Desc descriptors, Ticket ticket, TileOrder order,
                            bool vectorized, PollSchedule polls, Op op, LookBack look_back) {
  __shared__ WarpTotals<Shape, T> warp_totals;
  __shared__ unsigned tile_slot;
  __shared__ T tile_prefix;

  Desc desc = descriptors;  // this thread's copy (a traced build keeps per-thread state in it)
  const unsigned tile = dynamic_tile_index(ticket.counter, order, tile_slot);
  if (threadIdx.x == 0) look_back.on_ticket(desc, tile);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = valid_in_tile<Shape>(n, tile);
  const bool full = valid == Shape::TILE_ITEMS;

  T items[Shape::ITEMS];
  if (full) load_full_tile<Shape>(in + start, items, vectorized);
  else load_partial_tile<Shape>(in + start, items, valid, Op::identity());

  ThreadSeeds<Shape, T> seeds;
  const T warp_total = warp_segment_scan<Shape>(items, seeds, op);
  T warp_prefix;
  const T aggregate = block_aggregate_and_warp_prefix<Shape>(warp_total, warp_totals, op, warp_prefix);

  if (scanlab::warp_id() == 0) {
    const T exclusive = look_back(desc, tile, aggregate, op, polls);
    if (threadIdx.x == 0) tile_prefix = exclusive;
  }
  __syncthreads();

  scan_thread_runs<INCLUSIVE, Shape>(items, seeds, op(tile_prefix, warp_prefix), op);
  if (full) store_full_tile<Shape>(out + start, items, vectorized);
  else store_partial_tile<Shape>(out + start, items, valid);
  clear_stale(ticket);  // the previous scan's descriptors, for the next scan
}
// --8<-- [end:kernel]

// Blocks of the kernel for Shape resident on the device at once (scanlab/occupancy.hpp), asked once
// per kernel instantiation and process.
template <class Shape, int MIN_BLOCKS, bool INCLUSIVE, class T, class Desc, class Op, class LookBack>
std::size_t resident_tiles() {
  static const std::size_t resident = scanlab::resident_blocks(
      single_pass_scan_kernel<Shape, MIN_BLOCKS, INCLUSIVE, T, Desc, Op, LookBack>, Shape::BLOCK_THREADS);
  return resident;
}

// One launch of single_pass_scan_kernel over n elements in `tiles` tiles of Shape, on the next side
// of `storage`: 16-byte accesses where both pointers allow them, the poll schedule `polls` under the
// one-wave rule (polls.cuh; the occupancy is asked once per kernel instantiation and process, so
// mixed GPU models in one process would only make this timing choice less exact). `dress` gives
// the launch's descriptors whatever the caller adds to them (chapter 07: its tracing probe).
struct AsTheyAre {
  template <class Desc>
  Desc operator()(const Desc& d) const {
    return d;
  }
};
template <class Shape, int MIN_BLOCKS, bool INCLUSIVE, class T, class Storage, class Op, class LookBack,
          class Dress = AsTheyAre>
void launch_single_pass_scan(Storage& storage, const T* in, T* out, std::size_t n, std::size_t tiles, Op op,
                             LookBack look_back, PollSchedule polls, TileOrder order, cudaStream_t s,
                             Dress dress = {}) {
  using Desc = decltype(storage.view());
  auto* kernel = single_pass_scan_kernel<Shape, MIN_BLOCKS, INCLUSIVE, T, Desc, Op, LookBack>;
  const std::size_t resident = resident_tiles<Shape, MIN_BLOCKS, INCLUSIVE, T, Desc, Op, LookBack>();
  const auto launch = storage.next_launch(tiles, s);
  const bool vectorized = aligned16(in) && aligned16(out);
  kernel<<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS, 0, s>>>(
      in, out, n, dress(launch.desc), launch.ticket, order, vectorized, polls_for_grid(polls, tiles, resident), op,
      look_back);
  SCANLAB_CHECK_LAUNCH();
  storage.launched();
}

// Whether a scan of P's tiles runs as P's tiles or as the one-wave tile (OneWavePolicy, policy.cuh):
// the one-wave tile rule (polls.cuh) applies to the default policy on a GPU. The emulator builds the
// default tile only: it times nothing, and its modelled GPU (8 SMs) holds exactly as many elements in
// one wave of either tile, so the rule would never pick the wide one there.
template <class P>
constexpr bool kHasOneWaveTile =
#if defined(SCANLAB_EMU)
    false;
#else
    std::is_same_v<P, DefaultPolicy>;
#endif

// A scan of n elements with policy P: launch_single_pass_scan with P's tile, or with the one-wave
// tile where the one-wave tile rule says it pays. Checks the tile count against the storage first,
// in the words of `who`.
template <class P, bool INCLUSIVE, class T, class Storage, class Op, class LookBack, class Dress = AsTheyAre>
void launch_single_pass_scan_for(Storage& storage, const T* in, T* out, std::size_t n, Op op, LookBack look_back,
                                 PollSchedule polls, TileOrder order, cudaStream_t s, const char* who,
                                 Dress dress = {}) {
  using Shape = typename P::template Shape<T>;
  using Desc = decltype(storage.view());
  if constexpr (kHasOneWaveTile<P>) {
    using WideShape = OneWavePolicy::Shape<T>;
    constexpr int kWideMin = OneWavePolicy::kMinBlocksPerSm;
    if (one_wave_tiles_pay(
            n, Shape::TILE_ITEMS, resident_tiles<Shape, P::kMinBlocksPerSm, INCLUSIVE, T, Desc, Op, LookBack>(),
            WideShape::TILE_ITEMS, resident_tiles<WideShape, kWideMin, INCLUSIVE, T, Desc, Op, LookBack>())) {
      const std::size_t tiles = tiles_for<WideShape>(n);
      storage.check_tiles(tiles, n, who);
      SCANLAB_NVTX_RANGE("single_pass: the one-wave tile (OneWavePolicy)");  // which kernel ran, in a profile
      launch_single_pass_scan<WideShape, kWideMin, INCLUSIVE>(storage, in, out, n, tiles, op, look_back, polls, order,
                                                              s, dress);
      return;
    }
  }
  const std::size_t tiles = tiles_for<Shape>(n);
  storage.check_tiles(tiles, n, who);
  launch_single_pass_scan<Shape, P::kMinBlocksPerSm, INCLUSIVE>(storage, in, out, n, tiles, op, look_back, polls, order,
                                                                s, dress);
}

}  // namespace scanlab::single_pass
