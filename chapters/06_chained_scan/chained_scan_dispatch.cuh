// Chapter 06, given: the chained scan's kernel and host side. Your code is in chained_scan.cuh
// (chained_tile_index and chained_wait_and_publish); this file puts it to work: the kernel (the tile
// work of scanlab/single_pass/tile.cuh around your two functions), the state, the launch and its
// checks.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/single_pass/policy.cuh>
#include <scanlab/single_pass/tile.cuh>

#include "chained_scan.cuh"

namespace ch06 {

// A tile of BLOCK_THREADS threads x ITEMS elements (chapter 06 uses only the policy's tile shape).
template <int BLOCK_THREADS, int ITEMS>
using Policy = single_pass::Policy<BLOCK_THREADS, ITEMS>;

using DefaultPolicy = Policy<256, 16>;

// ---------------------------------------------------------------------------------------------
// Device side
// ---------------------------------------------------------------------------------------------

// One block per tile.
// --8<-- [start:kernel]
template <class Shape, bool INCLUSIVE, class T, class Op>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS)
    chained_scan_kernel(const T* in, T* out, std::size_t n, ChainState<T> state, TileOrder order, bool vectorized,
                        Op op) {
  __shared__ single_pass::WarpTotals<Shape, T> warp_totals;
  __shared__ unsigned tile_slot;
  __shared__ T tile_prefix;

  const unsigned tile = chained_tile_index(state.ticket, order, tile_slot);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = single_pass::valid_in_tile<Shape>(n, tile);
  const bool full = valid == Shape::TILE_ITEMS;

  T items[Shape::ITEMS];
  if (full) single_pass::load_full_tile<Shape>(in + start, items, vectorized);
  else single_pass::load_partial_tile<Shape>(in + start, items, valid, Op::identity());

  single_pass::ThreadSeeds<Shape, T> seeds;
  const T warp_total = single_pass::warp_segment_scan<Shape>(items, seeds, op);
  T warp_prefix;
  const T aggregate = single_pass::block_aggregate_and_warp_prefix<Shape>(warp_total, warp_totals, op, warp_prefix);

  // The chain: one thread waits for the tile before and passes the prefix on.
  if (threadIdx.x == 0) tile_prefix = chained_wait_and_publish(state, tile, aggregate, op);
  __syncthreads();

  single_pass::scan_thread_runs<INCLUSIVE, Shape>(items, seeds, op(tile_prefix, warp_prefix), op);
  if (full) single_pass::store_full_tile<Shape>(out + start, items, vectorized);
  else single_pass::store_partial_tile<Shape>(out + start, items, valid);
}
// --8<-- [end:kernel]

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

// The device state of chained scans of up to max_n elements, reusable (not concurrently).
template <class T, class P = DefaultPolicy>
class ChainedScan {
 public:
  using Shape = typename P::template Shape<T>;
  static constexpr std::size_t kTileItems = Shape::TILE_ITEMS;

  explicit ChainedScan(std::size_t max_n)
      : max_tiles_(tiles_for(max_n)), flags_and_ticket_(max_tiles_ + 1), inclusive_(max_tiles_ > 0 ? max_tiles_ : 1) {}

  static std::size_t tiles_for(std::size_t n) { return (n + kTileItems - 1) / kTileItems; }

  // Exclusive (or inclusive) scan of in[0, n) into out[0, n); in == out is allowed (every tile reads
  // its whole input before it writes). The flag reset is part of the operation.
  template <class Op>
  void exclusive(const T* in, T* out, std::size_t n, Op op, cudaStream_t s = 0, TileOrder order = TileOrder::ticket) {
    run<false>(in, out, n, op, s, order);
  }
  template <class Op>
  void inclusive(const T* in, T* out, std::size_t n, Op op, cudaStream_t s = 0, TileOrder order = TileOrder::ticket) {
    run<true>(in, out, n, op, s, order);
  }

 private:
  template <bool INCLUSIVE, class Op>
  void run(const T* in, T* out, std::size_t n, Op op, cudaStream_t s, TileOrder order) {
    if (n == 0) return;
    const std::size_t tiles = tiles_for(n);
    if (tiles > max_tiles_) {
      throw std::invalid_argument("ch06::ChainedScan: n = " + std::to_string(n) +
                                  " is more than this state was made for");
    }
    if (tiles > 0x7fffffffu) throw std::invalid_argument("ch06::ChainedScan: more than 2^31 - 1 tiles");
    SCANLAB_NVTX_RANGE("ch06::chained_scan");
    // flags[0, tiles) and the ticket after them, cleared in one call.
    SCANLAB_CUDA_CHECK(cudaMemsetAsync(flags_and_ticket_.data(), 0, (tiles + 1) * sizeof(unsigned), s));
    const ChainState<T> state{flags_and_ticket_.data(), inclusive_.data(), flags_and_ticket_.data() + tiles};
    const bool vectorized = single_pass::aligned16(in) && single_pass::aligned16(out);
    chained_scan_kernel<Shape, INCLUSIVE, T, Op>
        <<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS, 0, s>>>(in, out, n, state, order, vectorized, op);
    SCANLAB_CHECK_LAUNCH();
  }

  std::size_t max_tiles_;
  scanlab::DeviceBuffer<unsigned> flags_and_ticket_;
  scanlab::DeviceBuffer<T> inclusive_;
};

// One-shot forms (allocate the state, scan, free it). Device pointers.
// --8<-- [start:launch]
template <class T, class Op>
void chained_exclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0,
                            TileOrder order = TileOrder::ticket) {
  ChainedScan<T> scan(n);
  scan.exclusive(d_in, d_out, n, op, s, order);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));  // the state is freed on return
}
// --8<-- [end:launch]

template <class T, class Op>
void chained_inclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0,
                            TileOrder order = TileOrder::ticket) {
  ChainedScan<T> scan(n);
  scan.inclusive(d_in, d_out, n, op, s, order);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace ch06
