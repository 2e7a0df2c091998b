// Chapter 06: the chained scan, a single-pass scan of any length in which every tile waits for the
// inclusive prefix of the tile before it.
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002), section 3.2 and Fig. 4 (chained scan, as in StreamScan by Yan et al., 2013), and
// section 4.4 for the dynamic tile index ("virtual processors"). The tile work is chapter 04's warp
// scans arranged for wide loads (../../chapters/06_chained_scan/tile_scan.cuh).
//
// One pass, ~2n data movement: block b loads its tile, reduces it, then (one thread) waits until
// tile - 1 has published its inclusive prefix P(tile - 1), publishes P(tile) = P(tile - 1) op
// aggregate(tile), and only then scans and stores its tile seeded with P(tile - 1). The publication
// is value, __threadfence(), flag: a reader that sees the flag must also see the value.
//
// Tiles are numbered by an atomic ticket taken when the block starts, not by blockIdx.x: the GPU may
// run blocks in any order, and a block that waits for a tile whose block is not resident (and cannot
// become resident while the waiting blocks hold all the slots) waits forever. With the ticket, tile t's
// block has started before tile t + 1's, so the wait always ends. The blockIdx.x order is kept
// (TileOrder::block_index) to be watched deadlocking on the emulator.
//
// The price: the prefixes travel one tile at a time, one inter-SM message latency per tile, so the
// throughput is capped at tile_items / latency however fast the memory is (chapter 07 removes that).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>

#include "tile_scan.cuh"

namespace ch06 {

// How a block finds its tile.
enum class TileOrder {
  ticket,       // atomicAdd on a counter: the order in which blocks start (always safe)
  block_index,  // blockIdx.x: deadlocks when a later block is resident before an earlier one
};

// A tile of BLOCK_THREADS threads x ITEMS elements.
template <int BLOCK_THREADS, int ITEMS>
struct Policy {
  static constexpr int kBlockThreads = BLOCK_THREADS;
  static constexpr int kItems = ITEMS;
  template <class T>
  using Shape = tilescan::TileShape<T, BLOCK_THREADS, ITEMS>;
};

using DefaultPolicy = Policy<256, 16>;

// What the tiles publish. flags[t] = 0 until tile t's inclusive prefix is in inclusive[t], then 1.
// ticket = the next tile number. All zero before a launch (one memset: flags and ticket are one
// allocation).
template <class T>
struct ChainState {
  unsigned* flags;
  T* inclusive;
  unsigned* ticket;
};

// ---------------------------------------------------------------------------------------------
// Device side
// ---------------------------------------------------------------------------------------------

// This block's tile number, in every thread. Contains a __syncthreads.
// --8<-- [start:ticket]
__device__ __forceinline__ unsigned chained_tile_index(unsigned* ticket, TileOrder order, unsigned& shared_slot) {
  // BEGIN TODO
  if (threadIdx.x == 0) {
    shared_slot = order == TileOrder::ticket ? atomicAdd(ticket, 1u) : blockIdx.x;
  }
  __syncthreads();
  return shared_slot;
  // END TODO
}
// --8<-- [end:ticket]

// Called by ONE thread per block once the tile's aggregate is known: waits for P(tile - 1),
// publishes P(tile) = P(tile - 1) op aggregate, and returns P(tile - 1) (the identity for tile 0).
// --8<-- [start:wait_and_publish]
template <class T, class Op>
__device__ T chained_wait_and_publish(const ChainState<T>& state, unsigned tile, T aggregate, Op op) {
  // BEGIN TODO
  T before = Op::identity();
  if (tile > 0) {
    while (tilescan::load_volatile(&state.flags[tile - 1]) == 0u) {
      // spin: tile - 1's block has started (ticket order), so the flag will come
    }
    __threadfence();  // order the flag read before the value read
    before = tilescan::load_volatile(&state.inclusive[tile - 1]);
  }
  tilescan::store_volatile(&state.inclusive[tile], op(before, aggregate));
  __threadfence();  // the value must be visible before the flag that announces it
  tilescan::store_volatile(&state.flags[tile], 1u);
  return before;
  // END TODO
}
// --8<-- [end:wait_and_publish]

// One block per tile.
// --8<-- [start:kernel]
template <class Shape, bool INCLUSIVE, class T, class Op>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS)
    chained_scan_kernel(const T* in, T* out, std::size_t n, ChainState<T> state, TileOrder order,
                        bool vectorized, Op op) {
  __shared__ tilescan::WarpTotals<Shape, T> warp_totals;
  __shared__ unsigned tile_slot;
  __shared__ T tile_prefix;

  const unsigned tile = chained_tile_index(state.ticket, order, tile_slot);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = tilescan::valid_in_tile<Shape>(n, tile);
  const bool full = valid == Shape::TILE_ITEMS;

  T items[Shape::ITEMS];
  if (full) tilescan::load_full_tile<Shape>(in + start, items, vectorized);
  else tilescan::load_partial_tile<Shape>(in + start, items, valid, Op::identity());

  tilescan::ThreadSeeds<Shape, T> seeds;
  const T warp_total = tilescan::warp_segment_scan<Shape>(items, seeds, op);
  T warp_prefix;
  const T aggregate = tilescan::block_aggregate_and_warp_prefix<Shape>(warp_total, warp_totals, op, warp_prefix);

  // The chain: one thread waits for the tile before and passes the prefix on.
  if (threadIdx.x == 0) tile_prefix = chained_wait_and_publish(state, tile, aggregate, op);
  __syncthreads();

  tilescan::scan_thread_runs<INCLUSIVE, Shape>(items, seeds, op(tile_prefix, warp_prefix), op);
  if (full) tilescan::store_full_tile<Shape>(out + start, items, vectorized);
  else tilescan::store_partial_tile<Shape>(out + start, items, valid);
}
// --8<-- [end:kernel]

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

// The device state of chained scans of up to max_n elements, reusable (not concurrently).
template <class T, class P = DefaultPolicy>
class ChainedScan {
 public:
  using Shape = typename P::template Shape<T>;
  static constexpr std::size_t kTileItems = Shape::TILE_ITEMS;

  explicit ChainedScan(std::size_t max_n)
      : max_tiles_(tiles_for(max_n)), flags_and_ticket_(max_tiles_ + 1), inclusive_(max_tiles_ > 0 ? max_tiles_ : 1) {}

  static std::size_t tiles_for(std::size_t n) { return (n + kTileItems - 1) / kTileItems; }

  // Exclusive (or inclusive) scan of in[0, n) into out[0, n); in == out is allowed (every tile reads
  // its whole input before it writes). The flag reset is part of the operation.
  template <class Op>
  void exclusive(const T* in, T* out, std::size_t n, Op op, cudaStream_t s = 0, TileOrder order = TileOrder::ticket) {
    run<false>(in, out, n, op, s, order);
  }
  template <class Op>
  void inclusive(const T* in, T* out, std::size_t n, Op op, cudaStream_t s = 0, TileOrder order = TileOrder::ticket) {
    run<true>(in, out, n, op, s, order);
  }

 private:
  template <bool INCLUSIVE, class Op>
  void run(const T* in, T* out, std::size_t n, Op op, cudaStream_t s, TileOrder order) {
    if (n == 0) return;
    const std::size_t tiles = tiles_for(n);
    if (tiles > max_tiles_) {
      throw std::invalid_argument("ch06::ChainedScan: n = " + std::to_string(n) + " is more than this state was made for");
    }
    if (tiles > 0x7fffffffu) throw std::invalid_argument("ch06::ChainedScan: more than 2^31 - 1 tiles");
    SCANLAB_NVTX_RANGE("ch06::chained_scan");
    // flags[0, tiles) and the ticket after them, cleared in one call.
    SCANLAB_CUDA_CHECK(cudaMemsetAsync(flags_and_ticket_.data(), 0, (tiles + 1) * sizeof(unsigned), s));
    const ChainState<T> state{flags_and_ticket_.data(), inclusive_.data(), flags_and_ticket_.data() + tiles};
    const bool vectorized = tilescan::aligned16(in) && tilescan::aligned16(out);
    chained_scan_kernel<Shape, INCLUSIVE, T, Op>
        <<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS, 0, s>>>(in, out, n, state, order, vectorized, op);
    SCANLAB_CHECK_LAUNCH();
  }

  std::size_t max_tiles_;
  scanlab::DeviceBuffer<unsigned> flags_and_ticket_;
  scanlab::DeviceBuffer<T> inclusive_;
};

// One-shot forms (allocate the state, scan, free it). Device pointers.
// --8<-- [start:launch]
template <class T, class Op>
void chained_exclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0,
                            TileOrder order = TileOrder::ticket) {
  ChainedScan<T> scan(n);
  scan.exclusive(d_in, d_out, n, op, s, order);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));  // the state is freed on return
}
// --8<-- [end:launch]

template <class T, class Op>
void chained_inclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0,
                            TileOrder order = TileOrder::ticket) {
  ChainedScan<T> scan(n);
  scan.inclusive(d_in, d_out, n, op, s, order);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace ch06
