// Chapter 10, given: the single-pass segmented inclusive scan with its tiles staged in shared
// memory by bulk copies, chapter 11's way, for large inputs with a head-flag array. Nothing here
// needs changing.
//
// Why: a bulk copy keeps a whole tile in flight without holding it in registers (chapter 11,
// "Why: bytes in flight"). A tile here is kChunks chunks of 128 threads x 16 elements: each
// chunk's values and its head-flag bytes are two bulk copies that arrive on one barrier. The block
// runs the single-pass library's two-tile loop (scanlab/single_pass/two_tile_loop.cuh, chapter 11's
// third step): while its look-back warp looks back for tile t over (value, head) pairs, its four
// data warps land the next tile, scan each warp's part of it on its own (warp totals as pairs) and
// publish its aggregate, then finish t from its prefix and store it.
//
// Why the first pass scans and the second only adds: a segmented scan does more work per element
// than a plain one (a head bit to decode, a lifted operator, a head test in every shuffle step), and
// on an H200 two passes of it kept the data warps too busy for the memory. The first pass does not
// need the tile's prefix to scan within a warp's part, so it does that once and leaves the result
// in the stage, with a bit per element that says whether a head lies at or before it in the warp's
// part. The second pass needs only the prefix that reaches each element: where the bit is clear,
// the warp's prefix combined on the left; where it is set, nothing.
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
#include <scanlab/single_pass/read_once_copy.cuh>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/single_pass/two_tile_loop.cuh>

#include "flagged.cuh"
#include "segmented_scan.cuh"

namespace ch10 {

namespace staged {

using Barrier = cuda::barrier<cuda::thread_scope_block>;  // one per chunk: both copies arrive on it
using Token = Barrier::arrival_token;

// 128 threads x 16 elements a chunk, 2 chunks a tile: 4096 elements. Two stages of them take
// 2 x (16 KiB of int32 + 4 KiB of flags) = 40 KiB, and their covered bits 2 KiB: shared memory for
// 5 blocks an SM, and with the 86 (int32) or 90 (float) registers a thread nvcc 13.0 gives the
// kernel, 4 fit. (3 chunks a tile, 60 KiB of stages, 3 blocks an SM, measured the same at 2^26 on
// an H200, 1 to 3% faster at 2^28 and 5 to 9% slower at 2^24: the book's chapter 10, "Measured".)
constexpr int kChunks = 2;
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

// Four head-flag bytes (one 32-bit word, byte k for element k) as four bits, bit k set where byte
// k is not 0, in a handful of instructions instead of a test per byte. Per byte, the low 7 bits
// plus 0x7f carry into the byte's high bit exactly when they are not all 0 (and never into the next
// byte), so with the byte's own high bit OR-ed in, the high bit says "not 0". Shifted down, those
// are bits 0, 8, 16 and 24; one multiply by 1 + 2^7 + 2^14 + 2^21 adds copies of them shifted so
// that they land side by side at bits 21 to 24, and no two copies meet.
__host__ __device__ __forceinline__ unsigned flag_byte_bits(unsigned word) {
  const unsigned high = (word | ((word & 0x7f7f7f7fu) + 0x7f7f7f7fu)) & 0x80808080u;
  return (((high >> 7) * 0x204081u) >> 21) & 0xfu;
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
    bits |= flag_byte_bits(word) << (r * Shape::VEC);
  }
  return bits;
}

// Each run of a thread scanned from its seed (the run's exclusive prefix within the warp's part,
// from warp_segmented_scan_bits): values become their inclusive prefixes within the warp's part,
// and bit j of the result says that a head lies at or before values[j] there, so that no prefix
// from before the warp's part reaches it.
template <class Shape, class Op, class T>
__device__ __forceinline__ unsigned scan_runs_within_warp(
    T (&values)[Shape::ITEMS], unsigned bits, const scanlab::single_pass::ThreadSeeds<Shape, Flagged<T>>& seeds) {
  const Segmented<Op> seg;
  unsigned covered = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    Flagged<T> run = seeds.row[r];
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int j = r * Shape::VEC + k;
      run = seg(run, Flagged<T>{values[j], (bits >> j) & 1u});
      values[j] = run.value;
      covered |= run.head << j;
    }
  }
  return covered;
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
    unsigned covered[kStages][kChunks][kDataThreads];  // scan_runs_within_warp's bits, for the second pass
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

  __device__ void init_barriers() { scanlab::single_pass::init_two_tile_barriers<Shape>(temp.landed, temp.reduced); }
  __device__ std::size_t chunk_start(unsigned tile, int c) const {
    return scanlab::single_pass::chunk_start<Shape, kChunks>(tile, c);
  }
  __device__ int valid_from(std::size_t at) const { return scanlab::single_pass::valid_in_chunk<Shape>(n, at); }

  // Every thread: a full tile's chunks go to stage s, values and flags on one barrier per chunk (on
  // a GPU without bulk copies, before Hopper, the loop never calls this: every tile is read from
  // global memory).
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
        scanlab::single_pass::memcpy_async_tx_read_once(stages + offset, in + at, cuda::aligned_size_t<16>(kValueBytes),
                                                        landed);
        scanlab::single_pass::memcpy_async_tx_read_once(stage_flags + offset, flags + at,
                                                        cuda::aligned_size_t<16>(kFlagBytes), landed);
        tokens.chunk[c] = cuda::device::barrier_arrive_tx(landed, 1, kValueBytes + kFlagBytes);
      } else {
        tokens.chunk[c] = landed.arrive();
      }
    }
    return true;
  }

  __device__ T* stage_values(int s, int c) const { return stages + s * kTileItems + c * Shape::TILE_ITEMS; }

  // The data warps: a chunk scanned within each warp's part (values become the warp-local
  // inclusive prefixes; the result is their covered bits), from its stage or from global memory,
  // and the warp's total pair.
  __device__ unsigned scan_chunk_within_warps(int s, unsigned tile, bool from_stage, int c, T (&values)[Shape::ITEMS],
                                              F& warp_total) const {
    unsigned bits;
    if (from_stage) {
      scanlab::single_pass::load_staged_tile<Shape>(stage_values(s, c), values);
      bits = staged_head_bits<Shape>(stage_flags + s * kTileItems + c * Shape::TILE_ITEMS);
    } else {
      const std::size_t at = chunk_start(tile, c);
      bits = load_chunk_from_global<Shape, T, Op>(in, flags, at, valid_from(at), values);
    }
    scanlab::single_pass::ThreadSeeds<Shape, F> seeds;
    warp_total = warp_segmented_scan_bits<Shape, Op>(values, bits, seeds);
    return scan_runs_within_warp<Shape, Op>(values, bits, seeds);
  }

  // The data warps: each chunk as it lands, scanned within its warps' parts and left in its stage
  // with its covered bits; then the tile's aggregate. (The last tile, read from global memory, has
  // no stage to leave it in: only its totals are kept, and scan_and_store reads it again.)
  __device__ void reduce(int s, unsigned tile, bool from_stage, Tokens& tokens) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      if (from_stage) temp.landed[s][c].wait(std::move(tokens.chunk[c]));
      T values[Shape::ITEMS];
      F total;
      const unsigned covered = scan_chunk_within_warps(s, tile, from_stage, c, values, total);
      if (scanlab::lane_id() == 0) temp.warp_totals[s][c][scanlab::warp_id()] = total;
      if (from_stage) {
        scanlab::single_pass::store_staged_tile<Shape>(stage_values(s, c), values);
        temp.covered[s][c][threadIdx.x] = covered;
      }
    }
    // These stores went to the stage through the threads' (generic) proxy; a later bulk copy will
    // write there through the async proxy, which the fence orders after them (with the barrier the
    // copy's thread passes before it issues the copy).
    if (from_stage) scanlab::single_pass::fence_stage_before_bulk_copy();
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

  // The data warps: each chunk's warp-local prefixes completed with what comes before the warp's
  // part (the tile's prefix and the warps before it), where no head of the part stops it; stored.
  // --8<-- [start:finish_from_prefix]
  __device__ void scan_and_store(int s, unsigned tile, bool from_stage) {
    const Segmented<Op> seg;
    const int warp = scanlab::warp_id();
    F running = temp.tile_prefix;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const F before = scanlab::single_pass::fold_chunk_warp_totals(running, temp.warp_totals[s][c], warp, seg);
      T values[Shape::ITEMS];
      unsigned covered;
      if (from_stage) {
        scanlab::single_pass::load_staged_tile<Shape>(stage_values(s, c), values);
        covered = temp.covered[s][c][threadIdx.x];
      } else {
        F total;  // already in warp_totals
        covered = scan_chunk_within_warps(s, tile, false, c, values, total);
      }
#pragma unroll
      for (int j = 0; j < Shape::ITEMS; ++j) values[j] = seg(before, F{values[j], (covered >> j) & 1u}).value;
      T* chunk_out = out + chunk_start(tile, c);
      if (from_stage) scanlab::single_pass::store_full_tile<Shape>(chunk_out, values, true);
      else scanlab::single_pass::store_partial_tile<Shape>(chunk_out, values, valid_from(chunk_start(tile, c)));
    }
  }
  // --8<-- [end:finish_from_prefix]

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
__global__ void __launch_bounds__(scanlab::single_pass::two_tile_block_threads<Shape>())
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

// Below this many elements the register kernel runs. Measured on an H100 and an H200 (book,
// chapter 10, "Measured"): the staged kernel took 5 to 16% less time than it from 2^22 to 2^28,
// and was the slower in 13 of 16 rows at 2^20 and 2^21.
constexpr std::size_t kStagedFrom = std::size_t(1) << 22;

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
  static const std::size_t resident = scanlab::resident_blocks_with_stage(kernel, sp::two_tile_block_threads<Shape>(),
                                                                          stage_bytes<T>(), "ch10::segmented_scan");
  const auto next = ws.next_launch(tiles, s);
  kernel<<<static_cast<unsigned>(sp::two_tile_grid(tiles, resident)), sp::two_tile_block_threads<Shape>(),
           stage_bytes<T>(), s>>>(in, out, n, flags, next.desc, next.ticket,
                                  sp::polls_for_grid(polls, tiles, resident));
  SCANLAB_CHECK_LAUNCH();
  ws.launched();
}

}  // namespace staged

}  // namespace ch10
