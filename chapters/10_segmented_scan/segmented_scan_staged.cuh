// Chapter 10, given: the single-pass segmented inclusive scan with its tiles staged in shared
// memory by bulk copies, chapter 11's way, for large inputs with a head-flag array. Nothing here
// needs changing.
//
// Why: a bulk copy keeps a whole tile in flight without holding it in registers (chapter 11,
// "Why: bytes in flight"). A tile here is kChunks chunks of 128 threads x 16 elements: each
// chunk's values and its head-flag bytes are two bulk copies that arrive on one barrier. The block
// runs the single-pass library's two-tile loop (scanlab/single_pass/two_tile_loop.cuh, chapter 11's
// third step): while its look-back warp looks back for tile t over (value, head) pairs, its four
// data warps land and reduce the next tile (warp totals as pairs) and publish its aggregate, then
// read t again from shared memory, scan it from its prefix and store it.
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
#include <utility>

#include <scanlab/cuda_check.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/lookback.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/single_pass/two_tile_loop.cuh>

#include "flagged.cuh"
#include "segmented_scan.cuh"

namespace ch10 {

namespace staged {

using Barrier = cuda::barrier<cuda::thread_scope_block>;  // one per chunk: both copies arrive on it
using Token = Barrier::arrival_token;

// 128 threads x 16 elements a chunk, 3 chunks a tile: 6144 elements. Two stages of them take
// 2 x (24 KiB of int32 + 6 KiB of flags) = 60 KiB, so 3 blocks fit in an SM's 228 KiB (with 4
// chunks, 80 KiB: 2 blocks).
constexpr int kChunks = 3;
constexpr int kStages = 2;  // the two-tile loop's stages
template <class T>
using Chunk = scanlab::single_pass::TileShape<T, 128, 16>;

template <class T>
constexpr std::size_t tile_items() {
  return static_cast<std::size_t>(kChunks) * Chunk<T>::TILE_ITEMS;
}
template <class T>
constexpr std::size_t stage_bytes() {  // all stages: the values, then the flag bytes
  return kStages * tile_items<T>() * (sizeof(T) + 1);
}
template <class Shape>
__host__ __device__ constexpr int block_threads() {  // the data warps and the look-back warp
  return Shape::BLOCK_THREADS + 32;
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

// The last tile's chunk from global memory (no copy moves a partial chunk): values past the end
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

// A tile of kChunks staged chunks of values and flags, for the two-tile loop.
template <class Shape, class T, class Op>
struct Agent {
  using F = Flagged<T>;
  static constexpr int kDataThreads = Shape::BLOCK_THREADS;
  static constexpr int kTileItems = kChunks * Shape::TILE_ITEMS;
  static constexpr int kStages = staged::kStages;
  static_assert(Shape::VEC == 4, "a run's 4 flags are one 32-bit word");
  struct Tokens {
    Token chunk[kChunks];
  };
  struct TempStorage {
    Barrier landed[kStages][kChunks];
    Barrier reduced;  // the data warps' totals of a tile are all written
    F warp_totals[kStages][kChunks][Shape::WARPS];
    F tile_prefix;
  };

  TempStorage& temp;
  T* stages;                  // kStages x kTileItems values
  std::uint8_t* stage_flags;  // kStages x kTileItems flag bytes
  const T* in;
  T* out;
  std::size_t n;
  const std::uint8_t* flags;
  FlaggedDescriptors<T> descriptors;
  scanlab::single_pass::PollSchedule polls;

  __device__ void init_barriers() {
    if (threadIdx.x != 0) return;
    for (int s = 0; s < kStages; ++s)
      for (int c = 0; c < kChunks; ++c) init(&temp.landed[s][c], block_threads<Shape>());
    init(&temp.reduced, kDataThreads);
  }
  __device__ std::size_t chunk_start(unsigned tile, int c) const {
    return static_cast<std::size_t>(tile) * kTileItems + static_cast<std::size_t>(c) * Shape::TILE_ITEMS;
  }
  __device__ int valid_from(std::size_t at) const {
    if (n <= at) return 0;
    return n - at < static_cast<std::size_t>(Shape::TILE_ITEMS) ? static_cast<int>(n - at) : Shape::TILE_ITEMS;
  }

  // Every thread: a full tile's chunks go to stage s, values and flags on one barrier per chunk.
  __device__ bool stage(int s, unsigned tile, Tokens& tokens) {
    const std::size_t start = chunk_start(tile, 0);
    if (n - start < static_cast<std::size_t>(kTileItems)) return false;  // the last, partial tile
    constexpr std::size_t kValueBytes = sizeof(T) * Shape::TILE_ITEMS;
    constexpr std::size_t kFlagBytes = Shape::TILE_ITEMS;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      Barrier& landed = temp.landed[s][c];
      if (threadIdx.x == 0) {
        const std::size_t at = chunk_start(tile, c);
        const int offset = s * kTileItems + c * Shape::TILE_ITEMS;
        cuda::device::memcpy_async_tx(stages + offset, in + at, cuda::aligned_size_t<16>(kValueBytes), landed);
        cuda::device::memcpy_async_tx(stage_flags + offset, flags + at, cuda::aligned_size_t<16>(kFlagBytes), landed);
        tokens.chunk[c] = cuda::device::barrier_arrive_tx(landed, 1, kValueBytes + kFlagBytes);
      } else {
        tokens.chunk[c] = landed.arrive();
      }
    }
    return true;
  }

  // The data warps: a chunk's values and head bits, from its stage or from global memory.
  __device__ unsigned read_chunk(int s, unsigned tile, bool from_stage, int c, T (&values)[Shape::ITEMS]) const {
    if (!from_stage) {
      const std::size_t at = chunk_start(tile, c);
      return load_chunk_from_global<Shape, T, Op>(in, flags, at, valid_from(at), values);
    }
    const int offset = s * kTileItems + c * Shape::TILE_ITEMS;
    scanlab::single_pass::load_staged_tile<Shape>(stages + offset, values);
    return staged_head_bits<Shape>(stage_flags + offset);
  }

  // The data warps: each warp's total pair of each chunk as it lands, then the tile's aggregate.
  __device__ void reduce(int s, unsigned tile, bool from_stage, Tokens& tokens) {
    const int warp = scanlab::warp_id();
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      if (from_stage) temp.landed[s][c].wait(std::move(tokens.chunk[c]));
      T values[Shape::ITEMS];
      const unsigned bits = read_chunk(s, tile, from_stage, c, values);
      scanlab::single_pass::ThreadSeeds<Shape, F> seeds;
      const F total = warp_segmented_scan_bits<Shape, Op>(values, bits, seeds);
      if (scanlab::lane_id() == 0) temp.warp_totals[s][c][warp] = total;
    }
    temp.reduced.arrive_and_wait();
    if (threadIdx.x == 0) {
      FlaggedDescriptors<T> desc = descriptors;
      desc.publish(tile, tile == 0 ? scanlab::single_pass::kPrefix : scanlab::single_pass::kAggregate, aggregate(s));
    }
  }

  // The look-back warp: the tile's exclusive prefix pair (tile 0 published its P when reduced).
  __device__ void look_back(int s, unsigned tile) {
    const Segmented<Op> seg;
    F exclusive = Segmented<Op>::identity();
    if (tile != 0) {
      FlaggedDescriptors<T> desc = descriptors;
      exclusive = scanlab::single_pass::lookback_warp<F>(desc, tile, seg, polls);
      if (scanlab::lane_id() == 0) desc.publish(tile, scanlab::single_pass::kPrefix, seg(exclusive, aggregate(s)));
    }
    if (scanlab::lane_id() == 0) temp.tile_prefix = exclusive;
  }

  // The data warps: each chunk again, scanned from its prefix, stored.
  __device__ void scan_and_store(int s, unsigned tile, bool from_stage) {
    const Segmented<Op> seg;
    const int warp = scanlab::warp_id();
    F running = temp.tile_prefix;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const F before = scanlab::single_pass::fold_chunk_warp_totals(running, temp.warp_totals[s][c], warp, seg);
      T values[Shape::ITEMS];
      const unsigned bits = read_chunk(s, tile, from_stage, c, values);
      scanlab::single_pass::ThreadSeeds<Shape, F> seeds;
      (void)warp_segmented_scan_bits<Shape, Op>(values, bits, seeds);
#pragma unroll
      for (int r = 0; r < Shape::ROWS; ++r) {
        F run = seg(before, seeds.row[r]);
#pragma unroll
        for (int k = 0; k < Shape::VEC; ++k) {
          const int j = r * Shape::VEC + k;
          run = seg(run, F{values[j], (bits >> j) & 1u});
          values[j] = run.value;
        }
      }
      T* chunk_out = out + chunk_start(tile, c);
      if (from_stage) scanlab::single_pass::store_full_tile<Shape>(chunk_out, values, true);
      else scanlab::single_pass::store_partial_tile<Shape>(chunk_out, values, valid_from(chunk_start(tile, c)));
    }
  }

 private:
  __device__ F aggregate(int s) const {
    const Segmented<Op> seg;
    F total = Segmented<Op>::identity();
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
#pragma unroll
      for (int w = 0; w < Shape::WARPS; ++w) total = seg(total, temp.warp_totals[s][c][w]);
    return total;
  }
};

template <class Shape, class T, class Op>
__global__ void __launch_bounds__(block_threads<Shape>())
    segmented_scan_staged_kernel(const T* in, T* out, std::size_t n, const std::uint8_t* flags,
                                 FlaggedDescriptors<T> descriptors, scanlab::single_pass::Ticket ticket,
                                 scanlab::single_pass::PollSchedule polls) {
  using A = Agent<Shape, T, Op>;
  extern __shared__ __align__(128) unsigned char stage_bytes_[];  // both stages' values, then their flags
  __shared__ typename A::TempStorage temp;
  __shared__ scanlab::single_pass::TileSlots<A::kStages> slots;
  A agent{temp,
          reinterpret_cast<T*>(stage_bytes_),
          stage_bytes_ + A::kStages * sizeof(T) * A::kTileItems,
          in,
          out,
          n,
          flags,
          descriptors,
          polls};
  agent.init_barriers();
  scanlab::single_pass::run_two_tile_loop(agent, (n + A::kTileItems - 1) / A::kTileItems, ticket, slots);
  scanlab::single_pass::clear_stale(ticket);  // the previous scan's descriptors, for the next scan
}

// Below this many elements the register kernel runs. Measured on an H100 (book, chapter 10,
// "Measured"): the two-tile staged kernel was slower at 2^22, level at 2^24, and 8-13% faster from
// 2^25 to 2^28.
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

// One launch of the staged kernel over n elements in `tiles` tiles (tiles_for; the caller checked
// the count against the workspace) on the workspace's next side.
template <class T, class Op, class Workspace>
void launch(const T* in, T* out, std::size_t n, std::size_t tiles, const std::uint8_t* flags, Workspace& ws,
            scanlab::single_pass::PollSchedule polls, cudaStream_t s) {
  namespace sp = scanlab::single_pass;
  using Shape = Chunk<T>;
  auto* kernel = segmented_scan_staged_kernel<Shape, T, Op>;
  static const std::size_t resident =
      scanlab::resident_blocks_with_stage(kernel, block_threads<Shape>(), stage_bytes<T>(), "ch10::segmented_scan");
  const auto next = ws.next_launch(tiles, s);
  kernel<<<static_cast<unsigned>(sp::two_tile_grid(tiles, resident)), block_threads<Shape>(), stage_bytes<T>(), s>>>(
      in, out, n, flags, next.desc, next.ticket, sp::polls_for_grid(polls, tiles, resident));
  SCANLAB_CHECK_LAUNCH();
  ws.launched();
}

}  // namespace staged

}  // namespace ch10
