// Chapter 11, given: the third step, a block that holds two tiles, so that bytes are in flight while
// it waits for its look-back. Nothing here needs changing; it runs your stage_tile and
// read_staged_chunk (async_copy_scan.cuh) as the one-tile kernel does.
//
// Why: in the one-tile kernel (async_copy_scan_dispatch.cuh), while warp 0 waits for the tiles
// before its own, the block's other warps wait at a barrier and its stage has no byte in flight;
// on an H100 that wait cost 4-6% of a copy's time (book, Measured on a GPU, "Where the last bytes
// go").
// Here a block is five warps and two stages: while warp 4 looks back for tile t, warps 0-3 land
// and reduce the next tile and publish its aggregate, then scan t and store it. The loop that
// does this is the single-pass library's (scanlab/single_pass/two_tile_loop.cuh, which says why
// it cannot deadlock); this file is what a tile is here: TwoTileAgent.
#pragma once

#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include <scanlab/single_pass/lookback.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/single_pass/two_tile_loop.cuh>

#include "async_copy_scan.cuh"

namespace ch11 {

// --8<-- [start:two_tile_agent]
// A tile of CHUNKS chunks, staged by your stage_tile and read by your read_staged_chunk, for the
// single-pass library's two-tile loop (scanlab/single_pass/two_tile_loop.cuh). Its state lives in
// the kernel's shared memory (TempStorage); one thread sets the barriers up.
template <class Chunk, int CHUNKS, int STAGES, bool INCLUSIVE, class T, class Desc, class Op>
struct TwoTileAgent {
  static constexpr int kDataThreads = Chunk::BLOCK_THREADS;
  static constexpr int kTileItems = CHUNKS * Chunk::TILE_ITEMS;
  static constexpr int kStages = STAGES;
  struct Tokens {
    Token chunk[CHUNKS];
  };
  struct TempStorage {
    Barrier landed[STAGES][CHUNKS];
    Barrier reduced;  // the data warps' totals of a tile are all written
    T warp_totals[STAGES][CHUNKS][Chunk::WARPS];
    T tile_prefix;
  };

  TempStorage& temp;
  T* stages;  // STAGES x kTileItems elements (dynamic shared memory)
  const T* in;
  T* out;
  std::size_t n;
  Desc descriptors;
  bool staged;  // whole tiles are staged (aligned arrays, on Hopper)
  single_pass::PollSchedule polls;
  Op op;

  __device__ void init_barriers() { single_pass::init_two_tile_barriers<Chunk>(temp.landed, temp.reduced); }

  // Elements of the array in the chunk that starts at chunk_start (the last tile's may have fewer).
  __device__ int valid_from(std::size_t chunk_start) const {
    return single_pass::valid_in_chunk<Chunk>(n, chunk_start);
  }
  __device__ std::size_t chunk_start(unsigned tile, int c) const {
    return single_pass::chunk_start<Chunk, CHUNKS>(tile, c);
  }
  __device__ T* stage_chunk(int s, int c) const { return stages + s * kTileItems + c * Chunk::TILE_ITEMS; }

  // Every thread: a full tile goes to stage s (the last, partial tile and unaligned arrays are read
  // from global memory instead, as in the one-tile kernel; so is every tile before Hopper, where the
  // loop never calls this).
  __device__ bool stage(int s, unsigned tile, Tokens& tokens) {
    const std::size_t start = chunk_start(tile, 0);
    if (!staged || n - start < static_cast<std::size_t>(kTileItems)) return false;
    stage_tile<CHUNKS, Chunk::TILE_ITEMS>(temp.landed[s], stages + s * kTileItems, in + start, tokens.chunk);
    return true;
  }

  // The data warps: each warp's total of each chunk as it lands, then the tile's aggregate
  // published (a P for tile 0, which has no predecessor).
  __device__ void reduce(int s, unsigned tile, bool from_stage, Tokens& tokens) {
    const int warp = scanlab::warp_id();
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      T items[Chunk::ITEMS];
      if (from_stage) read_staged_chunk<Chunk>(temp.landed[s][c], tokens.chunk[c], stage_chunk(s, c), items);
      else load_from_global(tile, c, items);
      single_pass::ThreadSeeds<Chunk, T> seeds;
      const T total = single_pass::warp_segment_scan<Chunk>(items, seeds, op);
      if (scanlab::lane_id() == 0) temp.warp_totals[s][c][warp] = total;
    }
    temp.reduced.arrive_and_wait();
    if (threadIdx.x == 0) {
      Desc desc = descriptors;
      desc.publish(tile, tile == 0 ? single_pass::kPrefix : single_pass::kAggregate, aggregate(s));
    }
  }

  // The look-back warp: the tile's exclusive prefix (tile 0 published its P when it was reduced).
  __device__ void look_back(int s, unsigned tile) {
    T exclusive = Op::identity();
    if (tile != 0) {
      Desc desc = descriptors;
      exclusive = single_pass::lookback_warp<T>(desc, tile, op, polls);
      if (scanlab::lane_id() == 0) desc.publish(tile, single_pass::kPrefix, op(exclusive, aggregate(s)));
    }
    if (scanlab::lane_id() == 0) temp.tile_prefix = exclusive;
  }

  // The data warps: each chunk again (from the stage, where it still is), scanned from its prefix.
  __device__ void scan_and_store(int s, unsigned tile, bool from_stage) {
    const int warp = scanlab::warp_id();
    T running = temp.tile_prefix;
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      const T before = single_pass::fold_chunk_warp_totals(running, temp.warp_totals[s][c], warp, op);
      T items[Chunk::ITEMS];
      if (from_stage) single_pass::load_staged_tile<Chunk>(stage_chunk(s, c), items);
      else load_from_global(tile, c, items);
      single_pass::ThreadSeeds<Chunk, T> seeds;
      (void)single_pass::warp_segment_scan<Chunk>(items, seeds, op);
      single_pass::scan_thread_runs<INCLUSIVE, Chunk>(items, seeds, before, op);
      if (from_stage) single_pass::store_full_tile<Chunk>(out + chunk_start(tile, c), items, true);
      else single_pass::store_partial_tile<Chunk>(out + chunk_start(tile, c), items, valid_from(chunk_start(tile, c)));
    }
  }

 private:
  __device__ void load_from_global(unsigned tile, int c, T (&items)[Chunk::ITEMS]) const {
    const std::size_t at = chunk_start(tile, c);
    single_pass::load_partial_tile<Chunk>(in + at, items, valid_from(at), Op::identity());
  }
  // The tile's aggregate, from its warps' totals in element order.
  __device__ T aggregate(int s) const {
    T total = Op::identity();
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c)
#pragma unroll
      for (int w = 0; w < Chunk::WARPS; ++w) total = op(total, temp.warp_totals[s][c][w]);
    return total;
  }
};
// --8<-- [end:two_tile_agent]

template <class Chunk, int CHUNKS, int STAGES, bool INCLUSIVE, class T, class Desc, class Op>
__global__ void __launch_bounds__(single_pass::two_tile_block_threads<Chunk>())
    two_tile_scan_kernel(const T* in, T* out, std::size_t n, Desc descriptors, single_pass::Ticket ticket, bool staged,
                         single_pass::PollSchedule polls, Op op) {
  using Agent = TwoTileAgent<Chunk, CHUNKS, STAGES, INCLUSIVE, T, Desc, Op>;
  extern __shared__ __align__(128) unsigned char stage_bytes[];  // STAGES stages of a tile
  __shared__ typename Agent::TempStorage temp;
  __shared__ single_pass::TileSlots<STAGES> slots;
  Agent agent{temp, reinterpret_cast<T*>(stage_bytes), in, out, n, descriptors, staged, polls, op};
  agent.init_barriers();
  single_pass::run_two_tile_loop(agent, (n + Agent::kTileItems - 1) / Agent::kTileItems, ticket, slots);
  single_pass::clear_stale(ticket);  // the previous scan's descriptors, for the next scan
}

}  // namespace ch11
