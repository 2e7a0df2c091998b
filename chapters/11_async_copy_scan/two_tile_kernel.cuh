// Chapter 11, given: the third step, a block that holds two tiles, so that bytes are in flight while
// it waits for its look-back. Nothing here needs changing; it runs your stage_tile and
// read_staged_chunk (async_copy_scan.cuh) as the one-tile kernel does.
//
// Why: in the one-tile kernel (async_copy_scan_dispatch.cuh), while warp 0 waits for the tiles
// before its own, the block's other warps wait at a barrier and its stage has no byte in flight;
// on an H100 that wait cost 4-6% of a copy's time (book, chapter 11, "Where the last bytes go").
// Here a block is five warps and two stages, and it loops over tiles:
//
//   take tile t, stage it; warps 0-3 reduce it and publish its aggregate
//   loop: take tile t' and start its copies into the other stage
//           warp 4 looks back for t     |  warps 0-3 reduce t' as it lands, publish its aggregate
//         warps 0-3 scan t from its prefix and store it; t = t'
//
// So the look-back's wait is spent landing and reducing the next tile. t' publishes its aggregate
// as soon as it has landed, whatever t's look-back does, so the tiles after it never wait for this
// block's look-back. (A ring of stages filled ahead by a producer warp, the book's "What did not
// work", publishes a tile only when a consumer reaches it, and lost.) It cannot deadlock: a tile
// is taken only by a running block, which publishes its aggregate once its bytes land.
#pragma once

#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include <scanlab/single_pass/lookback.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>

#include "async_copy_scan.cuh"

namespace ch11 {

// Warps 0..Chunk::WARPS-1 move and scan the data, as in the one-tile kernel (the chunk shape's
// warp numbers); one more warp looks back.
template <class Chunk>
constexpr int two_tile_block_threads() {
  return Chunk::BLOCK_THREADS + 32;
}

// --8<-- [start:two_tile_kernel]
template <class Chunk, int CHUNKS, bool INCLUSIVE, class T, class Desc, class Op>
__global__ void __launch_bounds__(two_tile_block_threads<Chunk>())
    two_tile_scan_kernel(const T* in, T* out, std::size_t n, Desc descriptors, single_pass::Ticket ticket, bool staged,
                         single_pass::PollSchedule polls, Op op) {
  constexpr int kTileItems = CHUNKS * Chunk::TILE_ITEMS;
  constexpr int kLookbackWarp = Chunk::WARPS;
  extern __shared__ __align__(128) unsigned char stage_bytes[];  // 2 stages of kTileItems elements
  T* const stages = reinterpret_cast<T*>(stage_bytes);
  __shared__ Barrier landed[2][CHUNKS];
  __shared__ Barrier reduced;  // the data warps' totals of a tile are all written
  __shared__ unsigned tile_slot[2];
  __shared__ T warp_totals[2][CHUNKS][Chunk::WARPS];
  __shared__ T tile_prefix;
  const std::size_t num_tiles = (n + kTileItems - 1) / kTileItems;
  const int warp = scanlab::warp_id();
  const bool data_warp = warp < kLookbackWarp;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  constexpr bool kBulkCopies = false;  // (no bulk copies before Hopper: every tile from global memory)
#else
  constexpr bool kBulkCopies = true;
#endif

  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s)
      for (int c = 0; c < CHUNKS; ++c) init(&landed[s][c], two_tile_block_threads<Chunk>());
    init(&reduced, Chunk::BLOCK_THREADS);
    tile_slot[0] = atomicAdd(ticket.counter, 1u);
  }
  __syncthreads();

  // Stage tile `tile` in stage s if it is a full tile (every thread arrives); the last, partial
  // tile and unaligned arrays are read from global memory instead, as in the one-tile kernel.
  auto stage_if_full = [&](int s, unsigned tile, Token(&tokens)[CHUNKS]) -> bool {
    const std::size_t start = static_cast<std::size_t>(tile) * kTileItems;
    const bool use_stage = kBulkCopies && staged && n - start >= static_cast<std::size_t>(kTileItems);
    if constexpr (kBulkCopies) {
      if (use_stage) stage_tile<CHUNKS, Chunk::TILE_ITEMS>(landed[s], stages + s * kTileItems, in + start, tokens);
    }
    return use_stage;
  };
  // Elements of the array in the chunk that starts at chunk_start (the last tile's may have fewer).
  auto valid_from = [&](std::size_t chunk_start) -> int {
    if (n <= chunk_start) return 0;
    const std::size_t rest = n - chunk_start;
    return rest < static_cast<std::size_t>(Chunk::TILE_ITEMS) ? static_cast<int>(rest) : Chunk::TILE_ITEMS;
  };
  // A data warp's part of chunk c of a tile: from the stage (waiting for it) or from global memory.
  auto read_chunk = [&](int s, unsigned tile, bool use_stage, int c, Token& token, T(&items)[Chunk::ITEMS]) {
    const std::size_t chunk_start = static_cast<std::size_t>(tile) * kTileItems + c * Chunk::TILE_ITEMS;
    if (use_stage) {
      read_staged_chunk<Chunk>(landed[s][c], token, stages + s * kTileItems + c * Chunk::TILE_ITEMS, items);
    } else {
      single_pass::load_partial_tile<Chunk>(in + chunk_start, items, valid_from(chunk_start), Op::identity());
    }
  };
  // The tile's aggregate, from its warps' totals in element order.
  auto aggregate_of = [&](int s) {
    T aggregate = Op::identity();
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c)
#pragma unroll
      for (int w = 0; w < Chunk::WARPS; ++w) aggregate = op(aggregate, warp_totals[s][c][w]);
    return aggregate;
  };
  // Data warps: each warp's total of each chunk as it lands, then the tile's aggregate published
  // (a P for tile 0, which has no predecessor).
  auto reduce_and_publish = [&](int s, unsigned tile, bool use_stage, Token(&tokens)[CHUNKS]) {
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      T items[Chunk::ITEMS];
      read_chunk(s, tile, use_stage, c, tokens[c], items);
      single_pass::ThreadSeeds<Chunk, T> seeds;
      const T total = single_pass::warp_segment_scan<Chunk>(items, seeds, op);
      if (scanlab::lane_id() == 0) warp_totals[s][c][warp] = total;
    }
    reduced.arrive_and_wait();
    if (threadIdx.x == 0) {
      Desc desc = descriptors;
      desc.publish(tile, tile == 0 ? single_pass::kPrefix : single_pass::kAggregate, aggregate_of(s));
    }
  };

  int s = 0;
  unsigned tile = tile_slot[0];
  if (tile < num_tiles) {
    Token tokens[CHUNKS];
    bool use_stage = stage_if_full(0, tile, tokens);
    if (data_warp) reduce_and_publish(0, tile, use_stage, tokens);
    while (true) {
      const int ns = s ^ 1;
      if (threadIdx.x == 0) tile_slot[ns] = atomicAdd(ticket.counter, 1u);
      __syncthreads();  // the next ticket is known, t's totals are written, and stage ns is free
      const unsigned next = tile_slot[ns];
      const bool has_next = next < num_tiles;
      Token next_tokens[CHUNKS];
      const bool next_staged = has_next && stage_if_full(ns, next, next_tokens);
      if (!data_warp) {
        // The look-back warp: t's exclusive prefix (tile 0 published its P when it was reduced).
        T exclusive = Op::identity();
        if (tile != 0) {
          Desc desc = descriptors;
          exclusive = single_pass::lookback_warp<T>(desc, tile, op, polls);
          if (scanlab::lane_id() == 0) desc.publish(tile, single_pass::kPrefix, op(exclusive, aggregate_of(s)));
        }
        if (scanlab::lane_id() == 0) tile_prefix = exclusive;
      } else if (has_next) {
        reduce_and_publish(ns, next, next_staged, next_tokens);
      }
      __syncthreads();  // t's prefix is known
      if (data_warp) {
        // Pass 2: each chunk of t again (from the stage, where it still is), scanned from its prefix.
        T running = tile_prefix;
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {
          T before = running;
#pragma unroll
          for (int w = 0; w < Chunk::WARPS; ++w) {
            if (w == warp) before = running;
            running = op(running, warp_totals[s][c][w]);
          }
          T items[Chunk::ITEMS];
          const std::size_t chunk_start = static_cast<std::size_t>(tile) * kTileItems + c * Chunk::TILE_ITEMS;
          if (use_stage) {
            single_pass::load_staged_tile<Chunk>(stages + s * kTileItems + c * Chunk::TILE_ITEMS, items);
          } else {
            Token unused;
            read_chunk(s, tile, false, c, unused, items);
          }
          single_pass::ThreadSeeds<Chunk, T> seeds;
          (void)single_pass::warp_segment_scan<Chunk>(items, seeds, op);
          single_pass::scan_thread_runs<INCLUSIVE, Chunk>(items, seeds, before, op);
          if (use_stage) {
            single_pass::store_full_tile<Chunk>(out + chunk_start, items, true);
          } else {
            single_pass::store_partial_tile<Chunk>(out + chunk_start, items, valid_from(chunk_start));
          }
        }
      }
      if (!has_next) break;
      tile = next;
      s = ns;
      use_stage = next_staged;
    }
  }
  single_pass::clear_stale(ticket);  // the previous scan's descriptors, for the next scan
}
// --8<-- [end:two_tile_kernel]

}  // namespace ch11
