// Chapter 06, reference solution of exercises/06_chained_scan/chained_scan.cuh: read that file for
// the teaching notes and the hints. The comments here say why the answers are written as they are.
#pragma once

#include <cuda_runtime.h>

#include <scanlab/single_pass/protocol.cuh>  // load_volatile, store_volatile, TileOrder

#include "chain_state.cuh"  // given: ChainState

namespace ch06 {

namespace single_pass = scanlab::single_pass;
using single_pass::TileOrder;  // ticket (atomic counter) or block_index (blockIdx.x)

// --8<-- [start:ticket]
// One thread takes the number (atomicAdd returns the count before its own increment) and the
// barrier hands it to the block through shared memory: no thread reads the slot before it is
// written, and every thread gets the same number.
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

// --8<-- [start:wait_and_publish]
// Message passing through global memory, both halves: the writer stores the value, fences, then
// raises the flag; the reader sees the flag, fences, then loads the value. Tile 0 waits for no one.
template <class T, class Op>
__device__ T chained_wait_and_publish(const ChainState<T>& state, unsigned tile, T aggregate, Op op) {
  // BEGIN TODO
  T before = Op::identity();
  if (tile > 0) {
    while (single_pass::load_volatile(&state.flags[tile - 1]) == 0u) {
      // spin: tile - 1's block has started (ticket order), so the flag will come
    }
    __threadfence();  // order the flag read before the value read
    before = single_pass::load_volatile(&state.inclusive[tile - 1]);
  }
  single_pass::store_volatile(&state.inclusive[tile], op(before, aggregate));
  __threadfence();  // the value must be visible before the flag that announces it
  single_pass::store_volatile(&state.flags[tile], 1u);
  return before;
  // END TODO
}
// --8<-- [end:wait_and_publish]

}  // namespace ch06
