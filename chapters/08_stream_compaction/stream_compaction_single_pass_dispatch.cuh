// Chapter 08, given: the host side of the single-pass compaction (the workspace, the launch,
// select_if_single_pass and its in-place form). Your code, the look-back inside the kernel, is in
// stream_compaction_single_pass.cuh (exercises/08_stream_compaction/, or solutions/ for the
// reference build); nothing here needs changing.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>

#include "stream_compaction_dispatch.cuh"  // compaction_tiles
#include "stream_compaction_single_pass.cuh"

namespace ch08 {

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
