// Chapter 08, given: the host side of the single-pass compaction (the workspace, the launch,
// select_if_single_pass, its in-place form and partition_if_single_pass). Your code, the look-back
// inside the kernel, is in stream_compaction_single_pass.cuh (exercises/08_stream_compaction/, or
// solutions/ for the reference build); nothing here needs changing.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/tile.cuh>

#include "stream_compaction_single_pass.cuh"

namespace ch08 {

// The poll schedule (chapter 07, "Step 4"): a compaction tile has less work after its loads than a
// scan tile, so its predecessors publish sooner and a shorter first sleep pays. Swept on an H100
// (tests/gpu/tuning/ch08_single_pass_sweep.sh polls; int32, half kept, select and partition):
// {1500, 300} and {2000, 500} were the best, within the runs' noise (about 3%) of each other and of
// CUB or above from 2^24 to 2^28. Chapter 07's {2800, 900} took 5-6% longer on select-if (and up to
// 4% less on partition-if); no first sleep at all took 9-25% longer.
constexpr single_pass::PollSchedule kCompactionPolls = {2000, 500};

inline std::size_t single_pass_tiles(std::size_t n) { return (n + kSinglePassTile - 1) / kSinglePassTile; }

// The ticket and one descriptor word per tile, for up to n elements. Reset before every run (timed
// with it, as CUB's init kernel is).
struct SinglePassWorkspace {
  explicit SinglePassWorkspace(std::size_t n) : capacity(n), storage(2 + single_pass_tiles(n)) {}
  std::size_t capacity;
  scanlab::DeviceBuffer<unsigned long long> storage;  // [ticket, padding, words...]
};

namespace detail {

// Blocks of one kernel instantiation that fit on an SM, times the SMs: the tiles that run at once
// (chapter 07's one-wave rule: when every tile is resident, the first poll's sleep only adds
// latency). Asked once per instantiation and process.
template <bool kPartition, class T, class Pred>
std::size_t resident_tiles() {
  static const std::size_t tiles = [] {
    int device = 0, sms = 0, per_sm = 0;
    SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
    SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    SCANLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, select_if_single_pass_kernel<SinglePassShape<T>, kPartition, T, Pred>, kSinglePassThreads, 0));
    return static_cast<std::size_t>(sms) * static_cast<std::size_t>(per_sm);
  }();
  return tiles;
}

template <bool kPartition, class T, class Pred>
void compact_single_pass(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
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
  using Shape = SinglePassShape<T>;
  static_assert(Shape::TILE_ITEMS == kSinglePassTile, "the workspace counts tiles of kSinglePassTile");
  const std::size_t tiles = single_pass_tiles(n);
  SCANLAB_CUDA_CHECK(cudaMemsetAsync(ws.storage.data(), 0, (2 + tiles) * sizeof(unsigned long long), s));
  CountDescriptors desc{};
  desc.words = ws.storage.data() + 2;
  unsigned* ticket = reinterpret_cast<unsigned*>(ws.storage.data());
  const single_pass::PollSchedule polls =
      single_pass::polls_for_grid(kCompactionPolls, tiles, resident_tiles<kPartition, T, Pred>());
  // Only the loads are vectorized; the stores go out one element per thread, densely.
  const bool vectorized = single_pass::aligned16(d_in);
  select_if_single_pass_kernel<Shape, kPartition, T, Pred><<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS, 0, s>>>(
      d_in, d_out, n, desc, ticket, d_num_selected, vectorized, polls, pred);
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace detail

// As select_if, in one kernel. d_num_selected must not be null.
// --8<-- [start:single_pass_host]
template <class T, class Pred>
void select_if_single_pass(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                           SinglePassWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::select_if_single_pass");
  detail::compact_single_pass<false>(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::select_if_single_pass");
}

// In place: d_data[0, k) becomes the kept elements, in order; d_data[k, n) keeps stale values.
template <class T, class Pred>
void select_if_single_pass_in_place(T* d_data, unsigned* d_num_selected, std::size_t n, Pred pred,
                                    SinglePassWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::select_if_single_pass_in_place");
  detail::compact_single_pass<false>(d_data, d_data, d_num_selected, n, pred, ws, s,
                                     "ch08::select_if_single_pass_in_place");
}

// Partition in one kernel: d_out[0, k) the kept elements in input order, d_out[k, n) the rejected
// ones in REVERSED input order (as cub::DevicePartition::If). Not in place.
template <class T, class Pred>
void partition_if_single_pass(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                              SinglePassWorkspace& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch08::partition_if_single_pass");
  if (d_in == d_out && n > 0) throw std::invalid_argument("ch08::partition_if_single_pass: d_in == d_out");
  detail::compact_single_pass<true>(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::partition_if_single_pass");
}
// --8<-- [end:single_pass_host]

}  // namespace ch08
