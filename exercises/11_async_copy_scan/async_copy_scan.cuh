// Chapter 11: a single-pass scan whose tiles reach shared memory by asynchronous bulk copies.
//
// Chapter 07's block loads its tile into registers: every byte in flight needs a register to land
// in, so the registers of the resident blocks bound the bytes in flight, and with them the
// bandwidth (Little's law: bytes in flight = bandwidth x latency). Here the block asks the copy
// engine of its SM (the Tensor Memory Accelerator of a Hopper GPU) to bring its tile into shared
// memory: one instruction per chunk, no register per byte, and the block holds several chunks in
// flight at once. Each chunk has a barrier in shared memory (cuda::barrier, an mbarrier) that
// completes when every thread of the block has arrived AND the chunk's bytes have landed: the copy
// counts its bytes down as they arrive, against the number that was announced.
//
// Builds on the CUDA C++ Programming Guide's "Asynchronous Data Copies" (cuda::memcpy_async with
// cuda::barrier, and the Hopper bulk copies cuda::device::memcpy_async_tx with
// cuda::device::barrier_arrive_tx), and on Merrill and Garland's decoupled look-back (chapter 07).
//
// Your code: the two device functions below. Given: the barrier and token types (staging.cuh); in
// chapters/11_async_copy_scan/async_copy_scan_dispatch.cuh: the kernel that calls them (the tile
// work of scanlab/single_pass/tile.cuh and chapter 07's look-back around them) and the host side.
#pragma once

#include "staging.cuh"  // given: Barrier, Token, and the tile library as single_pass

namespace ch11 {

// Called by EVERY thread of the block, once per tile. The tile is CHUNKS chunks of CHUNK_ITEMS
// elements in global memory from tile_in (16-byte aligned); chunk c goes to the same offset in the
// shared-memory stage, and landed[c] is its barrier (initialised for one arrival per thread of the
// block, no bytes announced yet). On return: every chunk's copy is on its way, completing its bytes
// on landed[c], and this thread has arrived once on each landed[c], the token of that arrival in
// tokens[c]. What must hold: each chunk is copied once (by one thread, not by every thread), and the
// bytes announced on landed[c] in this phase are exactly the bytes its copy brings, so that the
// phase completes when, and only when, every thread has arrived and the whole chunk has landed.
// --8<-- [start:stage_tile]
template <int CHUNKS, int CHUNK_ITEMS, class T>
__device__ __forceinline__ void stage_tile(Barrier (&landed)[CHUNKS], T* stage, const T* tile_in,
                                           Token (&tokens)[CHUNKS]) {
  // BEGIN TODO
  // TODO(student): the copies and arrivals described above, with the primitives of the book's
  //   chapter 11 ("Knowing when the bytes have landed"). (This stub copies nothing: every thread
  //   only arrives, and the stage keeps whatever it held.)
  (void)stage;
  (void)tile_in;
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) tokens[c] = landed[c].arrive();
  // END TODO
}
// --8<-- [end:stage_tile]

// Called by every thread, with the token stage_tile gave it for this chunk: items = this thread's
// items of the chunk (Shape's warp-striped arrangement, as single_pass::load_staged_tile reads
// them), as the copy brought them. What must hold: no read of the chunk before its phase (the one
// the token names) has completed; until then the stage may still hold the previous tile's bytes.
// --8<-- [start:read_staged_chunk]
template <class Shape, class T>
__device__ __forceinline__ void read_staged_chunk(Barrier& landed, Token& token, const T* chunk,
                                                  T (&items)[Shape::ITEMS]) {
  // BEGIN TODO
  // TODO(student): read the chunk only once it has landed. (This stub reads at once, without
  //   waiting.)
  (void)landed;
  (void)token;
  single_pass::load_staged_tile<Shape>(chunk, items);
  // END TODO
}
// --8<-- [end:read_staged_chunk]

}  // namespace ch11
