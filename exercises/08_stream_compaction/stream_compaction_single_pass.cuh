// Chapter 08: select-if in ONE pass, the count fused into chapter 07's decoupled look-back, and
// in place.
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002), section 4.4 ("in-place compaction behavior") and 5.2: a compaction is a prefix
// sum over keep-flags, so the look-back can carry the tiles' kept counts instead of a scan's
// aggregates. Each tile loads its elements into registers once, counts its kept ones
// (__syncthreads_count), publishes the count, looks back for the number kept before it, and
// scatters from its registers exactly like the three-phase version's phase 3. The input is read
// once: n reads and k writes, against 2n reads of the three phases.
//
// In place: a tile publishes its count only after it has read all of its input, and it learns its
// own exclusive prefix only after every predecessor has published. So when a tile writes, every
// earlier tile has already read its input; and it writes only below its own end, never into a
// later tile's input. With the three phases there is no such order: the scatter kernel's blocks
// run in any order, and a tile could overwrite an input an earlier tile has not read yet.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>

#include "lookback.cuh"           // chapters/08_stream_compaction -> solutions/07_decoupled_lookback
#include "stream_compaction.cuh"  // the tile shape, scatter_round

namespace ch08 {

// Tiles' kept counts as chapter 07's fused descriptors: {status, count} in one 64-bit word.
using CountDescriptors = ch07::TileDescriptors<unsigned, ch07::Descriptors::fused>;

// --8<-- [start:single_pass_kernel]
template <class T, class Pred>
__global__ void __launch_bounds__(kCompactThreads)
    select_if_single_pass_kernel(const T* in, T* out, std::size_t n, CountDescriptors descriptors,
                                 unsigned* ticket, unsigned* d_num_selected, Pred pred) {
  __shared__ unsigned tile_slot;
  __shared__ unsigned tile_prefix;
  __shared__ ScatterStorage storage;
  CountDescriptors desc = descriptors;
  const unsigned tile = ch07::lookback_tile_index(ticket, ch07::TileOrder::ticket, tile_slot);
  const std::size_t base = static_cast<std::size_t>(tile) * kCompactTile;

  // The whole tile into registers, and its count: after this loop the tile never reads `in` again.
  T items[kCompactRounds];
  bool keep[kCompactRounds];
  unsigned count = 0;
  for (int r = 0; r < kCompactRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kCompactThreads + threadIdx.x;
    items[r] = i < n ? in[i] : T{};
    keep[r] = i < n && pred(items[r]);
    count += static_cast<unsigned>(__syncthreads_count(keep[r] ? 1 : 0));
  }

  // BEGIN TODO
  // TODO(student): the look-back, with the tile's kept count as its aggregate.
  //   Warp 0 (all 32 lanes) calls ch07::publish_and_look_back<ch07::Lookback::warp>(desc, tile,
  //   count, scanlab::Plus<unsigned>{}, ch07::kDefaultPolls): it publishes the count, looks
  //   back, publishes the inclusive prefix and returns the number of kept elements before this tile.
  //   Thread 0 puts it in tile_prefix; after a __syncthreads() every thread starts `running` there.
  (void)desc;
  (void)tile_prefix;
  unsigned running = 0;
  // END TODO
  if (tile == gridDim.x - 1 && threadIdx.x == 0) *d_num_selected = running + count;

  for (int r = 0; r < kCompactRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kCompactThreads + threadIdx.x;
    running += scatter_round<false>(items[r], keep[r], i < n, i, running, 0, storage, out);
  }
}
// --8<-- [end:single_pass_kernel]

// The ticket and one descriptor word per tile, for up to n elements. Reset before every run (timed
// with it, as CUB's init kernel is).
struct SinglePassWorkspace {
  explicit SinglePassWorkspace(std::size_t n)
      : capacity(n), storage(2 + compaction_tiles(n)) {}
  std::size_t capacity;
  scanlab::DeviceBuffer<unsigned long long> storage;  // [ticket, padding, words...]
};

namespace detail {
template <class T, class Pred>
void select_if_single_pass_impl(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                                SinglePassWorkspace& ws, cudaStream_t s, const char* who) {
  if (n > 0xffffffffu || n > ws.capacity) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is more than 2^32 - 1 or than the workspace was made for (" +
                                std::to_string(ws.capacity) + ")");
  }
  if (d_num_selected == nullptr) throw std::invalid_argument(std::string(who) + ": d_num_selected is null");
  if (n == 0) {
    SCANLAB_CUDA_CHECK(cudaMemsetAsync(d_num_selected, 0, sizeof(unsigned), s));
    return;
  }
  const std::size_t tiles = compaction_tiles(n);
  SCANLAB_CUDA_CHECK(cudaMemsetAsync(ws.storage.data(), 0, (2 + tiles) * sizeof(unsigned long long), s));
  CountDescriptors desc{};
  desc.words = ws.storage.data() + 2;
  unsigned* ticket = reinterpret_cast<unsigned*>(ws.storage.data());
  select_if_single_pass_kernel<T, Pred><<<static_cast<unsigned>(tiles), kCompactThreads, 0, s>>>(
      d_in, d_out, n, desc, ticket, d_num_selected, pred);
  SCANLAB_CHECK_LAUNCH();
}
}  // namespace detail

// As select_if, in one kernel. d_num_selected must not be null.
// --8<-- [start:single_pass_host]
template <class T, class Pred>
void select_if_single_pass(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                           SinglePassWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::select_if_single_pass");
  detail::select_if_single_pass_impl(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::select_if_single_pass");
}

// In place: d_data[0, k) becomes the kept elements, in order; d_data[k, n) keeps stale values.
template <class T, class Pred>
void select_if_single_pass_in_place(T* d_data, unsigned* d_num_selected, std::size_t n, Pred pred,
                                    SinglePassWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::select_if_single_pass_in_place");
  detail::select_if_single_pass_impl(d_data, d_data, d_num_selected, n, pred, ws, s,
                                     "ch08::select_if_single_pass_in_place");
}
// --8<-- [end:single_pass_host]

}  // namespace ch08
