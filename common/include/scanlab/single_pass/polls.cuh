// scanlab/single_pass/polls.cuh: WHEN a tile reads its predecessors' descriptors (chapter 07, "Step
// 4: when to look"): the poll schedule, the waiting it makes, and the one-wave rule.
//
// None of this changes a result, only when it is found. Under the emulator __nanosleep is a yield.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace scanlab::single_pass {

// --8<-- [start:polls]
// How warp 0 polls its predecessors' descriptors (CUB tunes the same two delays per GPU):
//   first_ns  sleep once after publishing A, before the first read. A read is a round trip through
//             an L2 that is also streaming the scan's data, and right after A goes out the nearby
//             predecessors often have no P yet: reading early walks back over more windows of A
//             and adds polling traffic on the cache lines that the others are publishing to.
//   every_ns  sleep between two reads of a window in which a predecessor that matters is still X.
// 0 spins. Neither changes a result, only when it is found.
struct PollSchedule {
  unsigned first_ns;
  unsigned every_ns;
};

// Tuned on an H200 at 2^28 int32 (book, "Speed"). The host drops first_ns when the whole grid fits
// on the GPU at once (one wave, below), where it would only add latency.
constexpr PollSchedule kDefaultPolls = {2800, 900};
// --8<-- [end:polls]

// --8<-- [start:one_wave]
// The one-wave rule (host): when all `tiles` are resident at once (`resident_tiles` = blocks per SM
// x SMs, scanlab::resident_blocks in scanlab/occupancy.hpp), no tile waits behind earlier waves' prefixes, and the
// sleep before the first read only adds latency (measured on an H200: book, "Speed").
constexpr PollSchedule polls_for_grid(PollSchedule polls, std::size_t tiles, std::size_t resident_tiles) {
  if (tiles <= resident_tiles) polls.first_ns = 0;
  return polls;
}
// --8<-- [end:one_wave]

// --8<-- [start:one_wave_tiles]
// The one-wave tile rule (host), the same idea for the tile size: when a scan's tiles need more
// than one wave (tiles > resident_tiles), the last few start only when the first ones finish, and
// the scan takes two tile lifetimes for little more than one wave of work. If tiles of
// wide_tile_items elements all fit at once (wide_resident of them), they do the same work in one.
// Past that, both need several waves and the default tile is faster (measured on an H200: chapter
// 07, "Speed").
constexpr bool one_wave_tiles_pay(std::size_t n, std::size_t tile_items, std::size_t resident_tiles,
                                  std::size_t wide_tile_items, std::size_t wide_resident) {
  const std::size_t tiles = (n + tile_items - 1) / tile_items;
  const std::size_t wide_tiles = (n + wide_tile_items - 1) / wide_tile_items;
  return tiles > resident_tiles && wide_tiles <= wide_resident;
}
// --8<-- [end:one_wave_tiles]

// --8<-- [start:poll_delay]
// A look-back's waiting: constructing one sleeps first_ns (before the first read); wait() sleeps
// every_ns (after a read that found a needed predecessor still X).
struct PollDelay {
  unsigned every_ns;
  __device__ explicit PollDelay(PollSchedule s) : every_ns(s.every_ns) {
    if (s.first_ns != 0) __nanosleep(s.first_ns);
  }
  __device__ void wait() const {
    if (every_ns != 0) __nanosleep(every_ns);
  }
};
// --8<-- [end:poll_delay]

}  // namespace scanlab::single_pass
