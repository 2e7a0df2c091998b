// scanlab/single_pass/two_tile_loop.cuh: a block that holds two tiles, so that the next tile's bytes
// land while one warp looks back for this tile (chapter 11, "The kernel: two tiles per block").
//
// In a one-tile-per-block single pass, while warp 0 waits for its predecessors the rest of the block
// waits at a barrier, and nothing of the next tile is on its way. Here the block's data warps stage,
// reduce, scan and store, one more warp looks back, and the block loops over tiles with two stages:
//
//   take tile t, stage it; the data warps reduce it and publish its aggregate
//   loop: take tile t' and start staging it in the other stage
//           the look-back warp: t's prefix  |  the data warps: reduce t', publish its aggregate
//         the data warps scan t from its prefix and store it; t = t'
//
// A tile's aggregate goes out once it has landed and been reduced, whatever the look-back of the
// tile before it in the block does, so the tiles after it wait only for bytes. It cannot deadlock:
// a tile is taken only by a running block, and its aggregate waits for nothing but its bytes and,
// with more than two stages, the look-backs of the block's earlier tiles, which wait only for
// tiles before them; so, tile by tile from tile 0, every tile publishes. The grid is persistent (at
// most as many blocks as fit at once; each takes tiles by ticket until none is left).
//
// A third stage (Agent::kStages = 3) keeps the tile after next in flight while the data warps scan
// and store: more bytes in flight per block, but each tile is taken one round earlier, before the
// block can publish its aggregate, and on an H100 and an H200 that cost more than the bytes gained
// (book, Measured on a GPU, chapter 11's diary).
//
// What a tile is, how it is staged and scanned, is the agent's (chapters 08, 10 and 11 have one each):
//   Agent::kDataThreads                       the data warps: threads 0 .. kDataThreads - 1
//   Agent::Tokens                             what a thread keeps between staging and waiting
//   bool stage(int s, unsigned tile, Tokens&)         every thread; whether the tile went to stage s
//                                                     (false: it is read from global memory). Called
//                                                     only where the GPU has bulk copies
//                                                     (kHasBulkCopies): elsewhere every tile is
//                                                     read from global memory, and stage(), whose
//                                                     copies would not compile there, is not built
//   void reduce(int s, unsigned tile, bool staged, Tokens&)   data threads: the tile's totals, then
//                                                     its aggregate published (they may sync among
//                                                     themselves, never with the look-back warp)
//   void look_back(int s, unsigned tile)              the look-back warp: the tile's prefix, kept
//                                                     where scan_and_store finds it
//   void scan_and_store(int s, unsigned tile, bool staged)    data threads: pass 2
//   optional: kPacksBeforePrefix = true and void pack(int s, unsigned tile, bool staged)
//                                                     data threads, while the look-back warp looks
//                                                     back for the tile: what of pass 2 needs no
//                                                     prefix (chapter 08 packs its tile)
// Stage s (0 .. kStages - 1) is free again once the loop has passed the __syncthreads after its
// scan_and_store.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <utility>

#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/read_once_copy.cuh>

namespace scanlab::single_pass {

// The loop's own shared memory: the tile number of each stage. (The kernel declares it __shared__:
// a library header declares no shared memory, which the emulator's translation of a kernel's own
// files sets up.)
template <int STAGES>
struct TileSlots {
  unsigned tile[STAGES];
};

// Whether the agent has a pack step (Agent::kPacksBeforePrefix, above).
template <class Agent, class = void>
struct PacksBeforePrefix : std::false_type {};
template <class Agent>
struct PacksBeforePrefix<Agent, std::void_t<decltype(Agent::kPacksBeforePrefix)>>
    : std::bool_constant<Agent::kPacksBeforePrefix> {};

// Agent::stage where the GPU has bulk copies; elsewhere no tile is staged (see the top of this file).
template <class Agent, class Tokens>
__device__ __forceinline__ bool stage_if_bulk_copies(Agent& agent, int s, unsigned tile, Tokens& tokens) {
  if constexpr (kHasBulkCopies) {
    return agent.stage(s, tile, tokens);
  } else {
    return false;
  }
}

// Every thread of the block (Agent::kDataThreads + 32 of them), after the agent's barriers are set
// up by one thread (this loop's first __syncthreads orders that before any use). The agent has
// Agent::kStages stages (2 or more): the tile looked back for and scanned, the tile reduced
// meanwhile, and kStages - 2 more tiles whose bytes are on their way.
// --8<-- [start:two_tile_loop]
template <class Agent>
__device__ void run_two_tile_loop(Agent& agent, std::size_t num_tiles, const Ticket& ticket,
                                  TileSlots<Agent::kStages>& slots) {
  constexpr int S = Agent::kStages;
  static_assert(S >= 2, "a stage for the tile looked back for, one for the tile reduced meanwhile");
  unsigned(&tile_slot)[S] = slots.tile;
  const bool data_thread = threadIdx.x < Agent::kDataThreads;
  // The first tile, and S - 2 more already on their way (the tile numbers: chapter 06's tickets).
  if (threadIdx.x == 0)
    for (int k = 0; k < S - 1; ++k) tile_slot[k] = atomicAdd(ticket.counter, 1u);
  __syncthreads();
  unsigned tile = tile_slot[0];
  if (tile >= num_tiles) return;
  int s = 0;
  typename Agent::Tokens tokens[S - 1];  // of the tiles staged and not yet reduced, oldest first
  bool staged_ahead[S - 1];
  typename Agent::Tokens first_tokens;
  bool staged = stage_if_bulk_copies(agent, 0, tile, first_tokens);
#pragma unroll
  for (int k = 1; k < S - 1; ++k)
    staged_ahead[k - 1] = tile_slot[k] < num_tiles && stage_if_bulk_copies(agent, k, tile_slot[k], tokens[k - 1]);
  if (data_thread) agent.reduce(0, tile, staged, first_tokens);
  while (true) {
    const int free_stage = (s + S - 1) % S;  // the stage of the tile scanned before t
    const int ns = (s + 1) % S;              // the stage of the tile reduced next
    if (threadIdx.x == 0) tile_slot[free_stage] = atomicAdd(ticket.counter, 1u);
    __syncthreads();  // the new ticket is known, t's totals are written, and free_stage is free
    const unsigned newest = tile_slot[free_stage];
    staged_ahead[S - 2] = newest < num_tiles && stage_if_bulk_copies(agent, free_stage, newest, tokens[S - 2]);
    const unsigned next = tile_slot[ns];
    const bool has_next = next < num_tiles;
    const bool next_staged = staged_ahead[0];
    if (!data_thread) {
      agent.look_back(s, tile);
    } else {
      if constexpr (PacksBeforePrefix<Agent>::value) agent.pack(s, tile, staged);
      if (has_next) agent.reduce(ns, next, next_staged, tokens[0]);
    }
    __syncthreads();  // t's prefix is known
    if (data_thread) agent.scan_and_store(s, tile, staged);
    if (!has_next) return;
#pragma unroll
    for (int k = 0; k + 1 < S - 1; ++k) {  // the tiles on their way move up a place
      tokens[k] = std::move(tokens[k + 1]);
      staged_ahead[k] = staged_ahead[k + 1];
    }
    tile = next;
    s = ns;
    staged = next_staged;
  }
}
// --8<-- [end:two_tile_loop]

// A two-tile block: Chunk::BLOCK_THREADS data threads (the chunk shape's warps) and one look-back
// warp after them.
template <class Chunk>
__host__ __device__ constexpr int two_tile_block_threads() {
  return Chunk::BLOCK_THREADS + 32;
}

// Thread 0 of a two-tile block, before the loop (its first __syncthreads orders this before any
// use): the barrier of each stage's chunk waits for every thread of the block (and the bytes the
// bulk copies bring), `data_warps` for the data threads alone.
template <class Chunk, class Barrier, int STAGES, int CHUNKS>
__device__ __forceinline__ void init_two_tile_barriers(Barrier (&landed)[STAGES][CHUNKS], Barrier& data_warps) {
  if (threadIdx.x != 0) return;
  for (int s = 0; s < STAGES; ++s)
    for (int c = 0; c < CHUNKS; ++c) init(&landed[s][c], two_tile_block_threads<Chunk>());
  init(&data_warps, Chunk::BLOCK_THREADS);
}

// A two-tile kernel's tile is CHUNKS chunks of Chunk::TILE_ITEMS elements (the agents of chapters
// 08, 10 and 11): where chunk c of `tile` starts in the array, and how many of the array's n
// elements lie in the chunk that starts at `at` (Chunk::TILE_ITEMS, fewer in the last, 0 past it).
template <class Chunk, int CHUNKS>
__device__ __forceinline__ std::size_t chunk_start(unsigned tile, int c) {
  return static_cast<std::size_t>(tile) * (CHUNKS * Chunk::TILE_ITEMS) +
         static_cast<std::size_t>(c) * Chunk::TILE_ITEMS;
}
template <class Chunk>
__device__ __forceinline__ int valid_in_chunk(std::size_t n, std::size_t at) {
  if (n <= at) return 0;
  return n - at < static_cast<std::size_t>(Chunk::TILE_ITEMS) ? static_cast<int>(n - at) : Chunk::TILE_ITEMS;
}

// Blocks of a two-tile kernel to launch for `tiles` tiles: as many as fit at once, at most one a tile.
inline std::size_t two_tile_grid(std::size_t tiles, std::size_t resident_blocks) {
  return tiles < resident_blocks ? tiles : resident_blocks;
}

}  // namespace scanlab::single_pass
