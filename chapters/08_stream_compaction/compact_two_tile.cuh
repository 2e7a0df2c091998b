// Chapter 08, given: partition-if and select-if for large inputs, with two tiles per block and the
// tiles staged in shared memory by bulk copies (chapter 11's way). One agent and one kernel serve
// both (kPartition). Nothing here needs changing; it calls your look_back_kept_count as the one-tile
// kernel does.
//
// Why: in the one-tile kernel, while warp 0 looks back for its tile, the block's other warps wait at
// a barrier, and no byte of a next tile is on its way. Partition-if stores every element, as a scan
// does, so those waits are a large part of its time (on an H100 at 2^24, barrier stalls were the
// kernel's largest stall reason, and the memory was busy half the time: the book's chapter 08,
// "Measured"); a select-if stores only what it keeps, so it waits less, and gains only on the
// largest inputs. Here a block runs the single-pass library's two-tile loop
// (scanlab/single_pass/two_tile_loop.cuh): while its look-back warp looks back for tile t, its data
// warps pack t in shared memory, then land the next tile, count its kept elements and publish its
// count; once t's prefix is known, they store t.
//
// A tile is kChunks chunks of 256 threads x 16 elements for the partition, 384 for select-if (128
// for elements of more than 4 bytes; below). Each chunk is packed on its own (tile_exchange.cuh),
// in place in its stage, in output order: its kept elements first, then (partition) its rejected
// ones, the last one first, as they go out backwards from the end of the output. Packing before the
// prefix is known means the slots cannot line up with output addresses, so the stores realign: each
// 16-byte vector of the output is read from the slots with one or two aligned 16-byte loads and a
// shift by whole words (load_vector_at), and goes out in one store, four elements an instruction, a
// warp's stores filling whole 32-byte sectors. Packing after the look-back, with slots lined up
// with the output, left the data warps waiting at the barrier with the packing still to do; packing
// while the look-back warp waits took 9-10% off the select-if's time at 2^26 and 2^28 on an H200
// with a tenth kept; with half kept about 1% in the bench and 3-6% in the tuning sweep (book,
// chapter 08, "Measured"); the partition's stayed the same.
//
// In place (select-if): a tile writes only below its own end, and only once every earlier tile has
// published its count; so its input can be overwritten only by later tiles, after it has published.
// A staged tile publishes once its bulk copies have landed, and never reads global memory again:
// safe, as in the one-tile kernel. A tile that is not staged reads its input from global memory
// twice, in reduce to count it and in pack to pack it, and publishes between the two, when
// a later tile may already write over it. The last, partial tile has no later tile, but an unaligned
// input stages no tile at all, nor does a kernel built for a GPU without bulk copies (before
// Hopper), so the in-place form sends those to the one-tile kernel (stages_tiles below;
// stream_compaction_single_pass_dispatch.cuh). The block's other tile needs no such care: it is a
// later tile, so every store of this one lies below its input.
//
// Included by stream_compaction_single_pass_dispatch.cuh, which runs it for partition-if from
// kPartitionTwoTileFrom elements on, and for select-if from kSelectTwoTileFrom.
#pragma once
// A __shared__ cuda::barrier has a constructor, which nvcc warns about (a __shared__ variable is
// never constructed); init() is what sets it up, so the warning says nothing here.
#pragma nv_diag_suppress static_var_with_dynamic_init

#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include <scanlab/cuda_check.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/read_once_copy.cuh>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/single_pass/two_tile_loop.cuh>

#include "stream_compaction_single_pass.cuh"
#include "tile_exchange.cuh"

namespace ch08 {

namespace two_tile {

namespace single_pass = scanlab::single_pass;

using Barrier = cuda::barrier<cuda::thread_scope_block>;
using Token = Barrier::arrival_token;

// A chunk's width, for elements of 4 bytes or fewer, by what the kernel stores:
//   partition-if  256 threads (eight data warps) x 16 elements a chunk, 2 chunks a tile: 8192
//                 elements. Two stages of 32 KiB (int32) and 4 KiB of keep bits: shared memory for
//                 3 blocks an SM, and registers capped for 3 too (72 a thread; nvcc 13.0 gives its
//                 code for whole tiles 79 uncapped, which leaves room for 2).
//   select-if     384 threads x 16, tiles of 12288: stages of 48 KiB, two blocks an SM.
// On an H200, chunks of 256 threads took 2-4% off both kernels' time from 2^26 on against chunks of
// 128 (tiles of 4096, six blocks an SM): the same elements in flight on each SM, but half the
// tiles, so half the look-backs, each walking back over fewer tiles. A select-if tile stores only
// what it keeps, so its turns of the loop are short, and with tiles of 8192 its data warps waited
// for the look-back in 59-76% of them (the partition's in a third). Tiles of 12288 give each
// look-back more elements: with half kept 1.5-3% less time from 2^26 on, level with a tenth kept
// there, 1-4% more at 2^24 and 2^25. The partition, whose data warps set its pace, was 1% slower
// with them at 2^26 (book, chapter 08, "Measured").
// Larger elements keep chunks of 128 threads: a wider chunk would fill the shared memory with one
// block. They take the registers they need.
constexpr int kChunks = 2;
template <class T, bool kPartition>
constexpr int kChunkThreads = sizeof(T) > 4 ? 128
                              : kPartition  ? 256
                                            : 384;
template <class T, bool kPartition>
constexpr int kMinBlocksPerSm = sizeof(T) > 4 ? 1
                                : kPartition  ? 3
                                              : 2;
constexpr int kStages = 2;  // the two-tile loop's stages
template <class T, bool kPartition>
using Chunk = single_pass::TileShape<T, kChunkThreads<T, kPartition>, 16>;

template <class T, bool kPartition>
constexpr std::size_t tile_items() {
  return static_cast<std::size_t>(kChunks) * Chunk<T, kPartition>::TILE_ITEMS;
}
// A chunk's place in a stage: its elements, a multiple of 16 bytes, so that every chunk's bulk copy
// lands 16-byte aligned.
template <class T, bool kPartition>
constexpr int chunk_slots() {
  static_assert(Chunk<T, kPartition>::TILE_ITEMS * sizeof(T) % 16 == 0, "chunks of whole 16-byte vectors");
  return Chunk<T, kPartition>::TILE_ITEMS;
}
template <class T, bool kPartition>
constexpr std::size_t stage_bytes() {
  return static_cast<std::size_t>(kStages) * kChunks * chunk_slots<T, kPartition>() * sizeof(T);
}

// A tile of kChunks staged chunks, partitioned (kPartition) or compacted, for the two-tile loop.
template <class Shape, bool kPartition, class T, class Pred>
struct CompactAgent {
  static constexpr int kDataThreads = Shape::BLOCK_THREADS;
  static constexpr int kTileItems = kChunks * Shape::TILE_ITEMS;
  static constexpr int kStages = two_tile::kStages;
  struct Tokens {
    Token chunk[kChunks];
  };
  struct TempStorage {
    Barrier landed[kStages][kChunks];
    Barrier data_warps;  // the data warps among themselves (counts written; a chunk read, packed)
    unsigned warp_counts[kStages][kChunks][Shape::WARPS];
    unsigned kept[kStages][kChunks][kDataThreads];  // each thread's keep bits, from reduce
    unsigned tile_prefix;                           // kept elements in all earlier tiles
  };

  TempStorage& temp;
  T* stages;  // kStages x kChunks chunks of chunk_slots<T, kPartition>() elements
  const T* in;
  T* out;
  std::size_t n;
  unsigned* d_num_selected;
  CountDescriptors descriptors;
  bool staged;         // whole tiles are staged (the input is 16-byte aligned)
  bool vector_stores;  // the output is 16-byte aligned
  single_pass::PollSchedule polls;
  Pred pred;

  __device__ void init_barriers() { single_pass::init_two_tile_barriers<Shape>(temp.landed, temp.data_warps); }
  __device__ std::size_t chunk_start(unsigned tile, int c) const {
    return single_pass::chunk_start<Shape, kChunks>(tile, c);
  }
  __device__ int valid_from(std::size_t at) const { return single_pass::valid_in_chunk<Shape>(n, at); }
  __device__ T* stage_chunk(int s, int c) const { return stages + (s * kChunks + c) * chunk_slots<T, kPartition>(); }

  // Every thread: a full tile's chunks go to stage s, one bulk copy and one barrier per chunk (the
  // last, partial tile and an unaligned input are read from global memory instead; so is every
  // tile on a GPU without bulk copies, where the loop never calls this).
  __device__ bool stage(int s, unsigned tile, Tokens& tokens) {
    const std::size_t start = chunk_start(tile, 0);
    if (!staged || n - start < static_cast<std::size_t>(kTileItems)) return false;
    constexpr std::size_t kBytes = sizeof(T) * Shape::TILE_ITEMS;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      Barrier& landed = temp.landed[s][c];
      if (threadIdx.x == 0) {
        single_pass::memcpy_async_tx_read_once(stage_chunk(s, c), in + chunk_start(tile, c),
                                               cuda::aligned_size_t<16>(kBytes), landed);
        tokens.chunk[c] = cuda::device::barrier_arrive_tx(landed, 1, kBytes);
      } else {
        tokens.chunk[c] = landed.arrive();
      }
    }
    return true;
  }

  // The data warps: each chunk's keep bits and warp counts as it lands, then the tile's count
  // published as its aggregate (a P for tile 0), before anyone looks back for it.
  __device__ void reduce(int s, unsigned tile, bool from_stage, Tokens& tokens) {
    if (from_stage) reduce_chunks<true>(s, tile, tokens);
    else reduce_chunks<false>(s, tile, tokens);
    temp.data_warps.arrive_and_wait();
    if (threadIdx.x == 0) {
      CountDescriptors desc = descriptors;
      desc.publish(tile, tile == 0 ? single_pass::kPrefix : single_pass::kAggregate, tile_count(s));
    }
  }

  // The look-back warp: your look_back_kept_count. (It publishes the count again, with the same
  // value, before it looks back; the early publication in reduce is what the tiles after this one
  // wait for.)
  __device__ void look_back(int s, unsigned tile) {
    CountDescriptors desc = descriptors;
    look_back_kept_count(desc, tile, tile_count(s), polls, temp.tile_prefix);
  }

  // The data warps, while the look-back warp looks back for the tile: each chunk packed in place in
  // its stage, in output order (kept elements first; partition: the rejected ones after them).
  // --8<-- [start:pack_and_store]
  static constexpr bool kPacksBeforePrefix = true;
  __device__ void pack(int s, unsigned tile, bool from_stage) {
    if (from_stage) pack_chunks<true>(s, tile);
    else pack_chunks<false>(s, tile);
  }

  // The data warps, once the tile's prefix is known: each chunk's kept elements, and the partition's
  // rejected ones, stored where they go.
  __device__ void scan_and_store(int s, unsigned tile, bool from_stage) {
    std::size_t kept_before = temp.tile_prefix;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      const unsigned count = chunk_count(s, c);
      const std::size_t at = chunk_start(tile, c);
      const int valid = chunk_valid(from_stage, tile, c);
      store_in_output_order<kPartition, Shape>(stage_chunk(s, c), count, valid, out, n, kept_before, at - kept_before,
                                               vector_stores);
      kept_before += count;
    }
    if (tile == last_tile() && threadIdx.x == 0) *d_num_selected = static_cast<unsigned>(kept_before);
    // The packing wrote the stage through the threads' (generic) proxy; a later bulk copy will write
    // there through the async proxy, which this fence orders after them (with the barrier the
    // copy's thread passes before it issues the copy).
    single_pass::fence_stage_before_bulk_copy();
  }

 private:
  // The chunks of a tile, one after the other. kFull: a staged tile, whole, whose code checks no
  // element against the end of the input.
  template <bool kFull>
  __device__ void pack_chunks(int s, unsigned tile) {
    const int warp = scanlab::warp_id();
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      unsigned count = 0;  // the chunk's kept elements
      const unsigned warp_before =
          single_pass::fold_chunk_warp_totals(count, temp.warp_counts[s][c], warp, scanlab::Plus<unsigned>{});
      T items[Shape::ITEMS];
      load_chunk<kFull>(s, tile, c, items);
      const unsigned kept = temp.kept[s][c][threadIdx.x];
      unsigned run_place[Shape::ROWS];
      (void)warp_run_places_packed<Shape>(kept, run_place);
      const int valid = chunk_valid(kFull, tile, c);
      temp.data_warps.arrive_and_wait();  // the chunk is read: its stage may be overwritten
      exchange_in_output_order<kPartition, Shape, kFull>(items, kept, run_place, warp_before, valid, stage_chunk(s, c));
    }
  }
  // --8<-- [end:pack_and_store]

  // The chunks of a tile in reduce (kFull as in pack_chunks).
  template <bool kFull>
  __device__ void reduce_chunks(int s, unsigned tile, Tokens& tokens) {
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      if (kFull) temp.landed[s][c].wait(std::move(tokens.chunk[c]));
      T items[Shape::ITEMS];
      const unsigned kept = load_keep_bits<kFull>(s, tile, c, items);
      unsigned run_place[Shape::ROWS];
      const unsigned warp_count = warp_run_places_packed<Shape>(kept, run_place);
      if (scanlab::lane_id() == 0) temp.warp_counts[s][c][scanlab::warp_id()] = warp_count;
      temp.kept[s][c][threadIdx.x] = kept;
    }
  }
  __device__ unsigned last_tile() const { return static_cast<unsigned>((n - 1) / kTileItems); }
  // The elements of chunk c of `tile` that lie in the input: all of a whole (staged) tile's.
  __device__ int chunk_valid(bool whole, unsigned tile, int c) const {
    return whole ? Shape::TILE_ITEMS : valid_from(chunk_start(tile, c));
  }
  // Chunk c of `tile` into a thread's registers: from stage s (kFull), or from global memory.
  template <bool kFull>
  __device__ void load_chunk(int s, unsigned tile, int c, T (&items)[Shape::ITEMS]) const {
    if (kFull) single_pass::load_staged_tile<Shape>(stage_chunk(s, c), items);
    else single_pass::load_partial_tile<Shape>(in + chunk_start(tile, c), items, chunk_valid(false, tile, c), T{});
  }
  template <bool kFull>
  __device__ unsigned load_keep_bits(int s, unsigned tile, int c, T (&items)[Shape::ITEMS]) const {
    load_chunk<kFull>(s, tile, c, items);
    return keep_bits<Shape, kFull>(items, chunk_valid(kFull, tile, c), pred);
  }
  __device__ unsigned chunk_count(int s, int c) const {  // kept elements of chunk c of stage s
    unsigned total = 0;
#pragma unroll
    for (int w = 0; w < Shape::WARPS; ++w) total += temp.warp_counts[s][c][w];
    return total;
  }
  __device__ unsigned tile_count(int s) const {
    unsigned total = 0;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) total += chunk_count(s, c);
    return total;
  }
};

template <class Shape, bool kPartition, class T, class Pred>
__global__ void __launch_bounds__(single_pass::two_tile_block_threads<Shape>(), kMinBlocksPerSm<T, kPartition>)
    compact_two_tile_kernel(const T* in, T* out, std::size_t n, unsigned* d_num_selected, CountDescriptors descriptors,
                            single_pass::Ticket ticket, bool staged, bool vector_stores,
                            single_pass::PollSchedule polls, Pred pred) {
  using A = CompactAgent<Shape, kPartition, T, Pred>;
  extern __shared__ __align__(128) unsigned char stage_bytes_[];  // both stages
  __shared__ typename A::TempStorage temp;
  __shared__ single_pass::TileSlots<A::kStages> slots;
  A agent{
      temp, reinterpret_cast<T*>(stage_bytes_), in, out, n, d_num_selected, descriptors, staged, vector_stores, polls,
      pred};
  agent.init_barriers();
  single_pass::run_two_tile_loop(agent, (n + A::kTileItems - 1) / A::kTileItems, ticket, slots);
  single_pass::clear_stale(ticket);  // the previous run's descriptors, for the next run
}

// Whether launch() stages the whole tiles of a 16-byte aligned input: not where the kernel was built
// for a GPU without bulk copies, which reads every tile from global memory (read_once_copy.cuh).
template <class T, bool kPartition, class Pred>
bool stages_tiles() {
  auto* kernel = compact_two_tile_kernel<Chunk<T, kPartition>, kPartition, T, Pred>;
  return single_pass::kernel_has_bulk_copies(reinterpret_cast<const void*>(kernel));
}

// The two-tile loop's poll schedule: chapter 11's (measured for the partition; select-if takes the
// same).
constexpr single_pass::PollSchedule kPolls = {1400, 900};

template <class T, bool kPartition>
std::size_t tiles_for(std::size_t n) {
  return (n + tile_items<T, kPartition>() - 1) / tile_items<T, kPartition>();
}

// One launch over n > 0 elements (the caller checked n against the workspace, whose tiles are no
// larger than these) on the storage's next side. `who` names the caller in errors.
template <bool kPartition, class T, class Pred, class Storage>
void launch(const T* in, T* out, unsigned* d_num_selected, std::size_t n, Pred pred, Storage& storage, cudaStream_t s,
            const char* who) {
  using Shape = Chunk<T, kPartition>;
  auto* kernel = compact_two_tile_kernel<Shape, kPartition, T, Pred>;
  static const std::size_t resident = scanlab::resident_blocks_with_stage(
      kernel, single_pass::two_tile_block_threads<Shape>(), stage_bytes<T, kPartition>(), who);
  const std::size_t tiles = tiles_for<T, kPartition>(n);
  const auto next = storage.next_launch(tiles, s);
  kernel<<<static_cast<unsigned>(single_pass::two_tile_grid(tiles, resident)),
           single_pass::two_tile_block_threads<Shape>(), stage_bytes<T, kPartition>(), s>>>(
      in, out, n, d_num_selected, next.desc, next.ticket, single_pass::aligned16(in), single_pass::aligned16(out),
      single_pass::polls_for_grid(kPolls, tiles, resident), pred);
  SCANLAB_CHECK_LAUNCH();
  storage.launched();
}

}  // namespace two_tile

}  // namespace ch08
