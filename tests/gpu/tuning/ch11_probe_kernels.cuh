// Chapter 11's first experiments, which lost to chapter 07 (tests/gpu/tuning/ch11_probe.cu times them
// beside the chapter's kernel, chapters/11_async_copy_scan/async_copy_scan_dispatch.cuh, which was
// draft 3 of this file). Draft 1: a persistent, warp-specialised decoupled look-back scan. One producer warp per
// block takes tiles by ticket and stages them into a ring of STAGES shared-memory buffers with bulk
// asynchronous copies (cp.async.bulk through cuda::device::memcpy_async_tx), each guarded by a
// "full" barrier that counts the bytes in flight; the consumer warps (Shape::BLOCK_THREADS threads)
// read a staged tile, give the buffer back through its "empty" barrier, scan it, look back (warp 0)
// and store. The producer runs up to STAGES tiles ahead, so a block keeps loads in flight while it
// scans and looks back: the bytes in flight no longer live in registers.
#pragma once

#pragma nv_diag_suppress static_var_with_dynamic_init

#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>

#include <scanlab/single_pass/lookback.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/warp_scan.cuh>

namespace ch11 {

namespace single_pass = scanlab::single_pass;
using Barrier = cuda::barrier<cuda::thread_scope_block>;

// A staged full tile: the tile library's warp-striped read from shared memory.
using single_pass::load_staged_tile;

template <class Shape, int STAGES, int MIN_BLOCKS, bool INCLUSIVE, class T, class Desc, class Op>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS + 32, MIN_BLOCKS)
    specialized_scan_kernel(const T* in, T* out, std::size_t n, Desc descriptors, unsigned* ticket, bool staged,
                            single_pass::PollSchedule polls, Op op) {
  constexpr int kConsumers = Shape::BLOCK_THREADS;
  constexpr std::size_t kTileBytes = sizeof(T) * Shape::TILE_ITEMS;
  extern __shared__ __align__(128) unsigned char ring[];  // STAGES x kTileBytes
  __shared__ Barrier full[STAGES];   // a staged tile has landed: kConsumers + 1 arrivals, plus its bytes
  __shared__ Barrier empty[STAGES];  // the consumers are done reading a stage: kConsumers + 1 arrivals
  __shared__ Barrier consumers;      // the consumer warps' own barrier (the producer takes no part)
  __shared__ unsigned stage_tile[STAGES];
  __shared__ single_pass::WarpTotals<Shape, T> warp_totals;
  __shared__ T tile_prefix;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      init(&full[s], kConsumers + 1);
      init(&empty[s], kConsumers + 1);
    }
    init(&consumers, kConsumers);
  }
  __syncthreads();

  const std::size_t tiles = (n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS;
  if (scanlab::warp_id() == Shape::WARPS) {
    // The producer: one lane takes tickets and issues the copies; the warp's other lanes are done.
    if (scanlab::lane_id() != 0) return;
    for (unsigned k = 0;; ++k) {
      const int s = static_cast<int>(k % STAGES);
      if (k >= STAGES) empty[s].arrive_and_wait();  // the consumers gave stage s back
      const unsigned tile = atomicAdd(ticket, 1u);
      stage_tile[s] = tile;
      const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
      if (tile < tiles && staged && start + Shape::TILE_ITEMS <= n) {
        T* stage = reinterpret_cast<T*>(ring + s * kTileBytes);
        cuda::device::memcpy_async_tx(stage, in + start, cuda::aligned_size_t<16>(kTileBytes), full[s]);
        (void)cuda::device::barrier_arrive_tx(full[s], 1, kTileBytes);
      } else {
        (void)full[s].arrive();  // nothing staged: the last tile, an unaligned input, or the end
      }
      if (tile >= tiles) return;
    }
  }

  Desc desc = descriptors;
  for (unsigned k = 0;; ++k) {
    const int s = static_cast<int>(k % STAGES);
    full[s].wait(full[s].arrive());
    const unsigned tile = stage_tile[s];
    if (tile >= tiles) break;
    const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
    const int valid = single_pass::valid_in_tile<Shape>(n, tile);
    const bool full = valid == Shape::TILE_ITEMS;

    T items[Shape::ITEMS];
    if (full && staged) load_staged_tile<Shape>(reinterpret_cast<const T*>(ring + s * kTileBytes), items);
    else if (full) single_pass::load_full_tile<Shape>(in + start, items, false);
    else single_pass::load_partial_tile<Shape>(in + start, items, valid, Op::identity());
    (void)empty[s].arrive();  // stage s may be refilled

    single_pass::ThreadSeeds<Shape, T> seeds;
    const T warp_total = single_pass::warp_segment_scan<Shape>(items, seeds, op);
    const int warp = scanlab::warp_id();
    if (scanlab::lane_id() == 0) warp_totals.warp[warp] = warp_total;
    consumers.arrive_and_wait();
    T aggregate = warp_totals.warp[0];
    T warp_prefix = Op::identity();
#pragma unroll
    for (int w = 1; w < Shape::WARPS; ++w) {
      if (w == warp) warp_prefix = aggregate;
      aggregate = op(aggregate, warp_totals.warp[w]);
    }
    if (warp == 0) {
      const T exclusive =
          single_pass::publish_and_look_back<single_pass::Lookback::warp>(desc, tile, aggregate, op, polls);
      if (scanlab::lane_id() == 0) tile_prefix = exclusive;
    }
    consumers.arrive_and_wait();
    single_pass::scan_thread_runs<INCLUSIVE, Shape>(items, seeds, op(tile_prefix, warp_prefix), op);
    if (full) single_pass::store_full_tile<Shape>(out + start, items, staged);
    else single_pass::store_partial_tile<Shape>(out + start, items, valid);
  }
}

}  // namespace ch11

// ---------------------------------------------------------------------------------------------
// Draft 2: one tile per consumer WARP. Each consumer warp owns STAGES_PER_WARP stages of the ring
// and scans its tiles alone (the warp's segment scan gives the tile's aggregate; the warp itself
// looks back), so no block-wide barrier is on any tile's path. Producer lane w serves consumer
// warp w: it takes a ticket only when one of that warp's stages is free, so a ticket is never more
// than STAGES_PER_WARP tiles ahead of its consumer.
// ---------------------------------------------------------------------------------------------
namespace ch11 {

template <class WarpShape, class T>
__device__ __forceinline__ void load_warp_tile_from_stage(const T* stage, T (&items)[WarpShape::ITEMS]) {
  const int lane = scanlab::lane_id();
  if constexpr (WarpShape::VECTORIZABLE) {
    const uint4* vectors = reinterpret_cast<const uint4*>(stage + WarpShape::offset(0, lane, 0, 0));
#pragma unroll
    for (int r = 0; r < WarpShape::ROWS; ++r) {
      const uint4 word = vectors[r * 32];
      memcpy(&items[r * WarpShape::VEC], &word, 16);
    }
  } else {
#pragma unroll
    for (int r = 0; r < WarpShape::ROWS; ++r)
#pragma unroll
      for (int k = 0; k < WarpShape::VEC; ++k) items[r * WarpShape::VEC + k] = stage[WarpShape::offset(0, lane, r, k)];
  }
}

template <class WarpShape, class T>
__device__ __forceinline__ void load_warp_tile_global(const T* tile, T (&items)[WarpShape::ITEMS], int valid, T fill) {
  const int lane = scanlab::lane_id();
#pragma unroll
  for (int r = 0; r < WarpShape::ROWS; ++r)
#pragma unroll
    for (int k = 0; k < WarpShape::VEC; ++k) {
      const int i = WarpShape::offset(0, lane, r, k);
      items[r * WarpShape::VEC + k] = i < valid ? tile[i] : fill;
    }
}

template <class WarpShape, class T>
__device__ __forceinline__ void store_warp_tile(T* tile, const T (&items)[WarpShape::ITEMS], int valid,
                                                bool vectorized) {
  const int lane = scanlab::lane_id();
  if constexpr (WarpShape::VECTORIZABLE) {
    if (vectorized && valid == WarpShape::TILE_ITEMS) {
      uint4* vectors = reinterpret_cast<uint4*>(tile + WarpShape::offset(0, lane, 0, 0));
#pragma unroll
      for (int r = 0; r < WarpShape::ROWS; ++r) {
        uint4 word;
        memcpy(&word, &items[r * WarpShape::VEC], 16);
        __stcs(&vectors[r * 32], word);
      }
      return;
    }
  }
#pragma unroll
  for (int r = 0; r < WarpShape::ROWS; ++r)
#pragma unroll
    for (int k = 0; k < WarpShape::VEC; ++k) {
      const int i = WarpShape::offset(0, lane, r, k);
      if (i < valid) tile[i] = items[r * WarpShape::VEC + k];
    }
}

// WarpShape: TileShape<T, 32, ITEMS> (a tile is one warp's); CONSUMER_WARPS consumer warps and one
// producer warp per block; the ring holds CONSUMER_WARPS * STAGES_PER_WARP tiles.
template <class WarpShape, int CONSUMER_WARPS, int STAGES_PER_WARP, int MIN_BLOCKS, bool INCLUSIVE, class T, class Desc,
          class Op>
__global__ void __launch_bounds__(32 * (CONSUMER_WARPS + 1), MIN_BLOCKS)
    warp_tile_scan_kernel(const T* in, T* out, std::size_t n, Desc descriptors, unsigned* ticket, bool staged,
                          single_pass::PollSchedule polls, Op op) {
  static_assert(WarpShape::BLOCK_THREADS == 32, "a tile is one warp's");
  static_assert(CONSUMER_WARPS <= 32, "one producer lane per consumer warp");
  constexpr int kStages = CONSUMER_WARPS * STAGES_PER_WARP;
  constexpr std::size_t kTileBytes = sizeof(T) * WarpShape::TILE_ITEMS;
  extern __shared__ __align__(128) unsigned char ring[];  // kStages x kTileBytes
  __shared__ Barrier full[kStages];   // 32 consumer lanes + the producer lane, plus the tile's bytes
  __shared__ Barrier empty[kStages];  // 32 consumer lanes + the producer lane
  __shared__ unsigned stage_tile[kStages];

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      init(&full[s], 33);
      init(&empty[s], 33);
    }
  }
  __syncthreads();

  const std::size_t tiles = (n + WarpShape::TILE_ITEMS - 1) / WarpShape::TILE_ITEMS;
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  if (warp == CONSUMER_WARPS) {
    if (lane >= CONSUMER_WARPS) return;
    const int w = lane;  // this lane fills consumer warp w's stages
    for (unsigned k = 0;; ++k) {
      const int s = w * STAGES_PER_WARP + static_cast<int>(k % STAGES_PER_WARP);
      if (k >= STAGES_PER_WARP) empty[s].arrive_and_wait();
      const unsigned tile = atomicAdd(ticket, 1u);
      stage_tile[s] = tile;
      const std::size_t start = static_cast<std::size_t>(tile) * WarpShape::TILE_ITEMS;
      if (tile < tiles && staged && start + WarpShape::TILE_ITEMS <= n) {
        T* stage = reinterpret_cast<T*>(ring + s * kTileBytes);
        cuda::device::memcpy_async_tx(stage, in + start, cuda::aligned_size_t<16>(kTileBytes), full[s]);
        (void)cuda::device::barrier_arrive_tx(full[s], 1, kTileBytes);
      } else {
        (void)full[s].arrive();
      }
      if (tile >= tiles) return;
    }
  }

  Desc desc = descriptors;
  for (unsigned k = 0;; ++k) {
    const int s = warp * STAGES_PER_WARP + static_cast<int>(k % STAGES_PER_WARP);
    full[s].wait(full[s].arrive());
    const unsigned tile = stage_tile[s];
    if (tile >= tiles) break;
    const std::size_t start = static_cast<std::size_t>(tile) * WarpShape::TILE_ITEMS;
    const int valid = single_pass::valid_in_tile<WarpShape>(n, tile);
    T items[WarpShape::ITEMS];
    if (valid == WarpShape::TILE_ITEMS && staged)
      load_warp_tile_from_stage<WarpShape>(reinterpret_cast<const T*>(ring + s * kTileBytes), items);
    else load_warp_tile_global<WarpShape>(in + start, items, valid, Op::identity());
    (void)empty[s].arrive();

    single_pass::ThreadSeeds<WarpShape, T> seeds;
    const T aggregate = single_pass::warp_segment_scan<WarpShape>(items, seeds, op);
    const T exclusive =
        single_pass::publish_and_look_back<single_pass::Lookback::warp>(desc, tile, aggregate, op, polls);
    single_pass::scan_thread_runs<INCLUSIVE, WarpShape>(items, seeds, exclusive, op);
    store_warp_tile<WarpShape>(out + start, items, valid, staged);
  }
}

}  // namespace ch11
