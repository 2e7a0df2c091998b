// Chapter 05, given: what a tile is (Policy) and how a block loads one (detail::load_tile).
// multi_block_scan.cuh, where your code is, includes this file; nothing here needs changing.
#pragma once

#include <cstddef>
#include <type_traits>

#include <cuda_runtime.h>

#include <scanlab/block_load_store.cuh>

namespace ch05 {

// A tile: BLOCK_THREADS threads with ITEMS items each, moved with the given TileIo. The lab's one
// policy vocabulary (Policy<BLOCK_THREADS, ITEMS, ...>, kBlockThreads, kItems: scanlab::single_pass::
// Policy of chapters 06 to 08, ch11::Policy) with chapter 05's own choice, the TileIo, last.
template <int BLOCK_THREADS, int ITEMS, scanlab::TileIo IO = scanlab::TileIo::transpose>
struct Policy {
  static constexpr int kBlockThreads = BLOCK_THREADS;
  static constexpr int kItems = ITEMS;
  static constexpr int kTile = BLOCK_THREADS * ITEMS;
  static constexpr scanlab::TileIo kIo = IO;
};

// 4096 items per tile: 256 threads x 16 (64 bytes of int32 per thread, four 16-byte vectors). Not
// tuned; chosen for teaching. Measured on an NVIDIA H200 next to 512 x 16 (book, chapter 05,
// "Measured"): within 2% of it from 2^24 elements up, 5 to 10% faster below.
using LargeTiles = Policy<256, 16>;
// 32 items per tile, one warp with one item per lane: many blocks and several recursion levels at
// small n, for pictures and for tests.
using WarpTiles = Policy<32, 1>;

namespace detail {

// Shared memory that the load and the store of a tile take turns with (a barrier between them).
template <class A, class B>
union SharedUnion {
  A first;
  B second;
};

template <class Acc, class In, int N>
__device__ __forceinline__ void convert(const In (&from)[N], Acc (&to)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) to[i] = static_cast<Acc>(from[i]);
}

// The number of elements of tile `tile` inside [0, n): Policy::kTile except for the last tile.
template <class Policy>
__host__ __device__ __forceinline__ int valid_in_tile(std::size_t n, std::size_t tile) {
  const std::size_t left = n - tile * Policy::kTile;
  return left < static_cast<std::size_t>(Policy::kTile) ? static_cast<int>(left) : Policy::kTile;
}

// Loads tile `tile` of in[0, n) into items, in the blocked arrangement, converted to Acc: thread t
// gets the tile's items [t * kItems, (t + 1) * kItems). valid receives the number of the tile's
// elements inside [0, n) (Policy::kTile except for the last tile); the items past them hold
// `identity`. Every thread of the block must call it (the transposing load has a barrier).
template <class Policy, class In, class Acc, class Load>
__device__ __forceinline__ void load_tile(Load& load, const In* in, std::size_t n, std::size_t tile,
                                          Acc (&items)[Policy::kItems], Acc identity, int& valid) {
  const std::size_t begin = tile * Policy::kTile;
  valid = valid_in_tile<Policy>(n, tile);
  if constexpr (std::is_same_v<In, Acc>) {
    if (valid == Policy::kTile) load.load(in + begin, items);
    else load.load(in + begin, items, valid, identity);
  } else {
    In raw[Policy::kItems];
    if (valid == Policy::kTile) load.load(in + begin, raw);
    else load.load(in + begin, raw, valid, static_cast<In>(identity));
    convert(raw, items);
  }
}

}  // namespace detail
}  // namespace ch05
