// Chapter 11, reference solution of exercises/11_async_copy_scan/async_copy_scan.cuh: read that file
// for the teaching notes and the hints. The comments here say why the answers are written as they
// are.
#pragma once

#include "staging.cuh"  // given: Barrier, Token, and the tile library as single_pass

namespace ch11 {

// --8<-- [start:stage_tile]
// Thread 0 issues the chunk's copy, then arrives announcing its bytes: the phase cannot complete
// before thread 0's arrival, so the bytes are expected in time however fast the copy lands. Every
// chunk is in flight before anyone waits, which is the point of staging.
template <int CHUNKS, int CHUNK_ITEMS, class T>
__device__ __forceinline__ void stage_tile(Barrier (&landed)[CHUNKS], T* stage, const T* tile_in,
                                           Token (&tokens)[CHUNKS]) {
  // BEGIN TODO
  constexpr std::size_t kChunkBytes = sizeof(T) * CHUNK_ITEMS;
#pragma unroll
  for (int c = 0; c < CHUNKS; ++c) {
    if (threadIdx.x == 0) {
      cuda::device::memcpy_async_tx(stage + c * CHUNK_ITEMS, tile_in + c * CHUNK_ITEMS,
                                    cuda::aligned_size_t<16>(kChunkBytes), landed[c]);
      tokens[c] = cuda::device::barrier_arrive_tx(landed[c], 1, kChunkBytes);  // arrive, and expect the bytes
    } else {
      tokens[c] = landed[c].arrive();
    }
  }
  // END TODO
}
// --8<-- [end:stage_tile]

// --8<-- [start:read_staged_chunk]
// wait consumes this thread's token of the chunk's phase; it returns once every thread has arrived
// and the announced bytes have landed, so the shared-memory reads see the copied chunk.
template <class Shape, class T>
__device__ __forceinline__ void read_staged_chunk(Barrier& landed, Token& token, const T* chunk,
                                                  T (&items)[Shape::ITEMS]) {
  // BEGIN TODO
  landed.wait(std::move(token));
  single_pass::load_staged_tile<Shape>(chunk, items);
  // END TODO
}
// --8<-- [end:read_staged_chunk]

}  // namespace ch11
