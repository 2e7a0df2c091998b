// Chapter 10, given: the single-pass segmented inclusive scan with its tiles staged in shared
// memory by bulk copies, chapter 11's way, for large inputs with a head-flag array. Nothing here
// needs changing.
//
// Why: a bulk copy keeps a whole tile in flight without holding it in registers (chapter 11,
// "Why: bytes in flight"). On an H100 this kernel took 4-5% less time than the register-tile
// kernel (segmented_scan_dispatch.cuh) at 2^28 elements (book, chapter 10, "Measured"). A tile here is
// CHUNKS chunks of 128 threads x 16 elements: each chunk's values and its head-flag bytes are two
// bulk copies that arrive on one barrier. Pass 1 scans each chunk as it lands (warp totals as
// (value, head) pairs), warp 0 looks back over pairs as the register kernel does, and pass 2
// reads each chunk again from shared memory, scans it from its prefix and stores it.
//
// Included by segmented_scan_dispatch.cuh after its register kernel: it uses warp_segmented_scan_bits
// and FlaggedDescriptors from there.
#pragma once
// A __shared__ cuda::barrier has a constructor, which nvcc warns about (a __shared__ variable is
// never constructed); init() is what sets it up, so the warning says nothing here.
#pragma nv_diag_suppress static_var_with_dynamic_init

#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include <scanlab/cuda_check.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/lookback.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>

#include "flagged.cuh"
#include "segmented_scan.cuh"

namespace ch10 {

namespace staged {

using Barrier = cuda::barrier<cuda::thread_scope_block>;  // one per chunk: both copies arrive on it
using Token = Barrier::arrival_token;

// 128 threads x 16 elements a chunk, 4 chunks a tile: 8192 elements, 32 KiB of int32 and 8 KiB of
// flags in shared memory.
constexpr int kChunks = 4;
template <class T>
using Chunk = scanlab::single_pass::TileShape<T, 128, 16>;
constexpr int kMinBlocksPerSm = 5;  // 5 x 40 KiB of stages fit in an SM's 228 KiB

template <class T>
constexpr std::size_t tile_items() {
  return static_cast<std::size_t>(kChunks) * Chunk<T>::TILE_ITEMS;
}
template <class T>
constexpr std::size_t stage_bytes() {
  return tile_items<T>() * (sizeof(T) + 1);  // the values, then one flag byte each
}

// A chunk's head flags as bits, from the staged bytes (bit j for values[j], as in the register
// kernel: a thread's run r is the 4 bytes at Chunk::offset(warp, lane, r, 0)).
template <class Shape>
__device__ __forceinline__ unsigned staged_head_bits(const std::uint8_t* chunk_flags) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  unsigned bits = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    const unsigned word = *reinterpret_cast<const unsigned*>(chunk_flags + Shape::offset(warp, lane, r, 0));
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) bits |= (((word >> (8 * k)) & 0xffu) != 0u ? 1u : 0u) << (r * Shape::VEC + k);
  }
  return bits;
}

// The last tile's chunk c from global memory (no copy moves a partial chunk): values past the end
// are the identity with no head, which changes no prefix.
template <class Shape, class T, class Op>
__device__ __forceinline__ unsigned load_chunk_from_global(const T* in, const std::uint8_t* flags,
                                                           std::size_t chunk_start, int valid,
                                                           T (&values)[Shape::ITEMS]) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  scanlab::single_pass::load_partial_tile<Shape>(in + chunk_start, values, valid, Op::identity());
  unsigned bits = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int i = Shape::offset(warp, lane, r, k);
      const unsigned head = i < valid && flags[chunk_start + static_cast<std::size_t>(i)] != 0 ? 1u : 0u;
      bits |= head << (r * Shape::VEC + k);
    }
  }
  return bits;
}

// One tile per block. Full tiles are staged; the last, partial one reads global memory.
template <class Shape, class T, class Op>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS, kMinBlocksPerSm)
    segmented_scan_staged_kernel(const T* in, T* out, std::size_t n, const std::uint8_t* flags,
                                 FlaggedDescriptors<T> descriptors, scanlab::single_pass::Ticket ticket,
                                 scanlab::single_pass::PollSchedule polls) {
  namespace sp = scanlab::single_pass;
  using F = Flagged<T>;
  static_assert(Shape::VEC == 4, "a run's 4 flags are one 32-bit word");
  constexpr int kTileItems = kChunks * Shape::TILE_ITEMS;
  constexpr std::size_t kChunkValueBytes = sizeof(T) * Shape::TILE_ITEMS;
  constexpr std::size_t kChunkFlagBytes = Shape::TILE_ITEMS;
  extern __shared__ __align__(128) unsigned char stage_bytes_[];
  T* stage = reinterpret_cast<T*>(stage_bytes_);
  std::uint8_t* stage_flags = stage_bytes_ + sizeof(T) * kTileItems;
  __shared__ Barrier landed[kChunks];
  __shared__ unsigned tile_slot;
  __shared__ F warp_totals[kChunks][Shape::WARPS];
  __shared__ F tile_prefix;
  const Segmented<Op> seg;

  if (threadIdx.x == 0) {
    for (int c = 0; c < kChunks; ++c) init(&landed[c], Shape::BLOCK_THREADS);
    tile_slot = atomicAdd(ticket.counter, 1u);  // the tile number: blocks that started before this one
  }
  __syncthreads();
  const unsigned tile = tile_slot;
  const std::size_t start = static_cast<std::size_t>(tile) * kTileItems;
  const std::size_t left = n - start;
  const bool full = left >= static_cast<std::size_t>(kTileItems);
  auto valid_in_chunk = [&](int c) -> int {
    const std::size_t chunk_start = static_cast<std::size_t>(c) * Shape::TILE_ITEMS;
    if (left <= chunk_start) return 0;
    const std::size_t rest = left - chunk_start;
    return rest < static_cast<std::size_t>(Shape::TILE_ITEMS) ? static_cast<int>(rest) : Shape::TILE_ITEMS;
  };
  // A chunk's values and head bits: from its stage (full tiles) or from global memory.
  auto read_chunk = [&](int c, T(&values)[Shape::ITEMS]) -> unsigned {
    if (!full) {
      return load_chunk_from_global<Shape, T, Op>(in, flags, start + static_cast<std::size_t>(c) * Shape::TILE_ITEMS,
                                                  valid_in_chunk(c), values);
    }
    sp::load_staged_tile<Shape>(stage + c * Shape::TILE_ITEMS, values);
    return staged_head_bits<Shape>(stage_flags + c * Shape::TILE_ITEMS);
  };

  // Every chunk's two copies in flight before anyone waits.
  Token tokens[kChunks];
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    if (!full) continue;  // (a partial tile reads global memory and leaves its barriers alone)
    if (threadIdx.x == 0) {
      const std::size_t at = start + static_cast<std::size_t>(c) * Shape::TILE_ITEMS;
      cuda::device::memcpy_async_tx(stage + c * Shape::TILE_ITEMS, in + at, cuda::aligned_size_t<16>(kChunkValueBytes),
                                    landed[c]);
      cuda::device::memcpy_async_tx(stage_flags + c * Shape::TILE_ITEMS, flags + at,
                                    cuda::aligned_size_t<16>(kChunkFlagBytes), landed[c]);
      tokens[c] = cuda::device::barrier_arrive_tx(landed[c], 1, kChunkValueBytes + kChunkFlagBytes);
    } else {
      tokens[c] = landed[c].arrive();
    }
  }

  // Pass 1: each warp's total pair of each chunk, chunk by chunk as they land.
  const int warp = scanlab::warp_id();
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    if (full) landed[c].wait(std::move(tokens[c]));
    T values[Shape::ITEMS];
    const unsigned bits = read_chunk(c, values);
    sp::ThreadSeeds<Shape, F> seeds;
    const F total = warp_segmented_scan_bits<Shape, Op>(values, bits, seeds);
    if (scanlab::lane_id() == 0) warp_totals[c][warp] = total;
  }
  __syncthreads();

  // The tile's aggregate, and what comes before this warp's part of each chunk (element order:
  // chunk 0's warps, then chunk 1's, ...).
  F aggregate = Segmented<Op>::identity();
  F before[kChunks];
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    before[c] = aggregate;
#pragma unroll
    for (int w = 0; w < Shape::WARPS; ++w) {
      if (w == warp) before[c] = aggregate;
      aggregate = seg(aggregate, warp_totals[c][w]);
    }
  }
  if (warp == 0) {
    FlaggedDescriptors<T> desc = descriptors;
    const F exclusive = sp::publish_and_look_back<sp::Lookback::warp>(desc, tile, aggregate, seg, polls);
    if (scanlab::lane_id() == 0) tile_prefix = exclusive;
  }
  __syncthreads();
  const F prefix = tile_prefix;

  // Pass 2: each chunk again from shared memory, scanned from its prefix, stored.
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    T values[Shape::ITEMS];
    const unsigned bits = read_chunk(c, values);
    sp::ThreadSeeds<Shape, F> seeds;
    (void)warp_segmented_scan_bits<Shape, Op>(values, bits, seeds);
    const F chunk_before = seg(prefix, before[c]);
#pragma unroll
    for (int r = 0; r < Shape::ROWS; ++r) {
      F running = seg(chunk_before, seeds.row[r]);
#pragma unroll
      for (int k = 0; k < Shape::VEC; ++k) {
        const int j = r * Shape::VEC + k;
        running = seg(running, F{values[j], (bits >> j) & 1u});
        values[j] = running.value;
      }
    }
    T* chunk_out = out + start + static_cast<std::size_t>(c) * Shape::TILE_ITEMS;
    if (full) sp::store_full_tile<Shape>(chunk_out, values, true);
    else sp::store_partial_tile<Shape>(chunk_out, values, valid_in_chunk(c));
  }
  sp::clear_stale(ticket);  // the previous scan's descriptors, for the next scan
}

// Below this many elements the register kernel runs. Measured on an H100 (book, chapter 10,
// "Measured"): staged tiles were 2% slower at 2^24, level at 2^25, 1-2% faster at 2^26 and 4-5%
// faster at 2^28, the same turn as chapter 11's staged scan.
constexpr std::size_t kStagedFrom = std::size_t(1) << 25;

// Whether an inclusive scan of n 4-byte elements with these pointers runs staged, from staged_from
// elements on (a bulk copy needs 16-byte aligned addresses).
template <class T>
bool stages(std::size_t n, std::size_t staged_from, const T* in, const T* out, const std::uint8_t* flags) {
  namespace sp = scanlab::single_pass;
  return n >= staged_from && sp::aligned16(in) && sp::aligned16(out) && sp::aligned16(flags);
}

template <class T>
std::size_t tiles_for(std::size_t n) {
  return (n + tile_items<T>() - 1) / tile_items<T>();
}

// One launch of the staged kernel on the workspace's next side (the caller checked the tile count).
template <class T, class Op, class Workspace>
void launch(const T* in, T* out, std::size_t n, const std::uint8_t* flags, Workspace& ws,
            scanlab::single_pass::PollSchedule polls, cudaStream_t s) {
  namespace sp = scanlab::single_pass;
  using Shape = Chunk<T>;
  auto* kernel = segmented_scan_staged_kernel<Shape, T, Op>;
  static const std::size_t resident = scanlab::resident_blocks(kernel, Shape::BLOCK_THREADS, stage_bytes<T>());
  const std::size_t tiles = tiles_for<T>(n);
  const auto next = ws.next_launch(tiles, s);
  kernel<<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS, stage_bytes<T>(), s>>>(
      in, out, n, flags, next.desc, next.ticket, sp::polls_for_grid(polls, tiles, resident));
  SCANLAB_CHECK_LAUNCH();
  ws.launched();
}

}  // namespace staged

}  // namespace ch10
