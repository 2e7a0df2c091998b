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

// Called by EVERY thread of the block, once per tile: start the copies of the tile's CHUNKS chunks
// of CHUNK_ITEMS elements each, from global memory (tile_in, 16-byte aligned) into shared memory
// (stage, chunk c at stage + c * CHUNK_ITEMS), and arrive on each chunk's barrier, keeping this
// thread's arrival token for chunk c in tokens[c]. landed[c] expects one arrival per thread of the
// block. One thread (thread 0) issues each copy and announces its bytes on the chunk's barrier as
// part of its arrival; the barrier's phase then completes only when every thread has arrived and
// all announced bytes have landed.
// --8<-- [start:stage_tile]
template <int CHUNKS, int CHUNK_ITEMS, class T>
__device__ __forceinline__ void stage_tile(Barrier (&landed)[CHUNKS], T* stage, const T* tile_in,
                                           Token (&tokens)[CHUNKS]) {
  // BEGIN TODO
  // TODO(student): for each chunk c: thread 0 issues the bulk copy (cuda::device::memcpy_async_tx,
  //   size cuda::aligned_size_t<16>(bytes of a chunk), completing on landed[c]) and arrives while
  //   announcing the chunk's bytes (cuda::device::barrier_arrive_tx(landed[c], 1, bytes)); every
  //   other thread just arrives (landed[c].arrive()). Keep each token in tokens[c].
  //   (This stub copies nothing: every thread only arrives, and the stage keeps whatever it held.)
  (void)stage;
  (void)tile_in;
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) tokens[c] = landed[c].arrive();
  // END TODO
}
// --8<-- [end:stage_tile]

// Called by every thread: this thread's items of a staged chunk (Shape's warp-striped arrangement,
// single_pass::load_staged_tile), read only once the chunk has landed: wait on its barrier with the
// token this thread got from stage_tile.
// --8<-- [start:read_staged_chunk]
template <class Shape, class T>
__device__ __forceinline__ void read_staged_chunk(Barrier& landed, Token& token, const T* chunk,
                                                  T (&items)[Shape::ITEMS]) {
  // BEGIN TODO
  // TODO(student): wait for the chunk's phase with your token, then read the chunk
  //   (single_pass::load_staged_tile<Shape>). (This stub reads at once, without waiting.)
  (void)landed;
  (void)token;
  single_pass::load_staged_tile<Shape>(chunk, items);
  // END TODO
}
// --8<-- [end:read_staged_chunk]

}  // namespace ch11
