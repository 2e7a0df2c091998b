// Chapter 06: the chained scan, a single-pass scan of any length in which every tile waits for the
// inclusive prefix of the tile before it.
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002), section 3.2 and Fig. 4 (chained scan, as in StreamScan by Yan et al., 2013), and
// section 4.4 for the dynamic tile index ("virtual processors").
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
//
// Your code: the two device functions below. Given, in
// chapters/06_chained_scan/chained_scan_dispatch.cuh: the kernel that calls them (the tile work of
// scanlab/single_pass/tile.cuh around them) and the host side.
#pragma once

#include <cuda_runtime.h>

#include <scanlab/single_pass/protocol.cuh>  // load_volatile, store_volatile, TileOrder

#include "chain_state.cuh"  // given: ChainState

namespace ch06 {

namespace single_pass = scanlab::single_pass;
using single_pass::TileOrder;  // ticket (atomic counter) or block_index (blockIdx.x)

// ChainState<T> {flags, inclusive, ticket} is given in chapters/06_chained_scan/chain_state.cuh:
// flags[t] becomes 1 once tile t's inclusive prefix is in inclusive[t]; all zero before a launch.

// This block's tile number, in every thread: with TileOrder::ticket, the number of blocks that took
// one before this block (from *ticket, shared by the whole grid); with TileOrder::block_index,
// blockIdx.x. shared_slot is a __shared__ variable of the block. Every thread of the block calls it
// and must get the same number, so it contains a __syncthreads that every thread reaches.
// --8<-- [start:ticket]
__device__ __forceinline__ unsigned chained_tile_index(unsigned* ticket, TileOrder order, unsigned& shared_slot) {
  // BEGIN TODO
  // TODO(student): the tile number, as described above. (This stub returns blockIdx.x, which is
  //   exactly what can deadlock.)
  (void)ticket;
  (void)order;
  (void)shared_slot;
  return blockIdx.x;
  // END TODO
}
// --8<-- [end:ticket]

// Called by ONE thread per block once the tile's aggregate is known: waits for P(tile - 1),
// publishes P(tile) = P(tile - 1) op aggregate, and returns P(tile - 1) (the identity for tile 0).
// Contract: another block that sees flags[tile] == 1 must also see inclusive[tile]; reads and writes
// of other blocks' state go through single_pass::load_volatile / store_volatile (the L2, which all
// SMs share). The predecessor is on the LEFT of op.
// --8<-- [start:wait_and_publish]
template <class T, class Op>
__device__ T chained_wait_and_publish(const ChainState<T>& state, unsigned tile, T aggregate, Op op) {
  // BEGIN TODO
  // TODO(student): wait for the predecessor's flag, read its inclusive prefix, publish this tile's
  //   (value before flag), return the predecessor's.
  (void)state;
  (void)tile;
  (void)aggregate;
  (void)op;
  return Op::identity();
  // END TODO
}
// --8<-- [end:wait_and_publish]

}  // namespace ch06
