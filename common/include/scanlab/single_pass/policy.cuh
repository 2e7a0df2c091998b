// scanlab/single_pass/policy.cuh: the compile-time choices of a single-pass scan: the tile shape,
// the kind of tile descriptors, the look-back, and the register cap (chapter 07, and chapter 06,
// which uses only the tile shape).
#pragma once

#include <scanlab/single_pass/tile.cuh>

namespace scanlab::single_pass {

// What the tiles' descriptors are made of (chapter 07, steps 1 and 2):
//   fenced     flag word + aggregate + inclusive prefix per tile; value, __threadfence(), flag (any T)
//   fused      {status, value} in ONE 64-bit word, stored and loaded whole: no fence (values of at
//              most 32 bits)
//   automatic  fused when the value fits next to the status in 64 bits, else fenced
enum class Descriptors { automatic, fenced, fused };

// Who looks back (chapter 07, steps 1 and 3): one thread, one predecessor at a time; or a warp, 32
// predecessors at a time with a segmented reduction from the nearest P.
enum class Lookback { serial, warp };

template <class T>
constexpr Descriptors resolve_descriptors(Descriptors d) {
  return d != Descriptors::automatic ? d : (sizeof(T) <= 4 ? Descriptors::fused : Descriptors::fenced);
}

// BLOCK_THREADS x ITEMS per tile, the descriptor kind and the look-back. MIN_BLOCKS_PER_SM goes to
// __launch_bounds__: it caps the registers per thread so that that many blocks fit on one SM. A
// single-pass scan is limited by the bytes it has in flight, and those live in registers (a
// thread's ITEMS), so more resident tiles can matter more than a few spilled registers.
template <int BLOCK_THREADS, int ITEMS, Descriptors D = Descriptors::automatic, Lookback L = Lookback::warp,
          int MIN_BLOCKS_PER_SM = 1>
struct Policy {
  static constexpr int kBlockThreads = BLOCK_THREADS;
  static constexpr int kItems = ITEMS;
  static constexpr Descriptors kDescriptors = D;
  static constexpr Lookback kLookback = L;
  static constexpr int kMinBlocksPerSm = MIN_BLOCKS_PER_SM;
  template <class T>
  using Shape = TileShape<T, BLOCK_THREADS, ITEMS>;
};

// 128 threads x 32 items: 4096 elements (16 KiB of int32) per tile, eight 16-byte loads per thread.
// Measured on an H200 against other shapes (chapter 07, "Speed"): with more items per thread, more
// of the registers hold data in flight.
using DefaultPolicy = Policy<128, 32>;

// The one-wave tile: twice the default's elements (8192), over 256 threads with registers capped for
// four resident blocks per SM. A scan whose default tiles need a little more than one wave of
// blocks (2^22 elements make 1024 of them; an H100 or H200 holds 924 at once) runs in one wave of
// these instead (512; 528 fit), and does not wait for a second wave's few tiles: the one-wave tile
// rule (polls.cuh), measured on an H200 in chapter 07's "Speed".
using OneWavePolicy = Policy<256, 32, Descriptors::automatic, Lookback::warp, 4>;

}  // namespace scanlab::single_pass
