// Chapter 12, given: one rank's part of a scan across devices. Your code, the offset of a rank
// (combine_preceding) and the seeded look-back (seeded_publish_and_look_back), is in
// multi_gpu_scan.cuh (exercises/12_multi_gpu_scan/, or solutions/ for the reference build); this
// file puts it to work:
//   slice_of                    which elements are a rank's
//   seeded_scan_kernel          chapter 07's single-pass kernel (the tile work and the look-back of
//                               the single-pass library) started from a seed; in its reduce mode
//                               the same kernel stores nothing and hands out the slice's total
//   SeededScan                  its descriptors, ticket and launches (the host side of chapter 07)
//   add_offset_kernel           out[i] = offset op out[i], for the scan-then-add form
//   multi_gpu_scan              the four steps of one rank, for any Communicator
// Nothing here needs changing.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/descriptor_storage.cuh>
#include <scanlab/single_pass/lookback.cuh>
#include <scanlab/single_pass/policy.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/verify.hpp>  // ScanKind
#include <scanlab/warp_scan.cuh>

#include "communicator.hpp"
#include "multi_gpu_scan.cuh"

namespace ch12 {

using scanlab::ScanKind;
using single_pass::DefaultPolicy;

// ---------------------------------------------------------------------------------------------
// Which elements are a rank's
// ---------------------------------------------------------------------------------------------

// Rank r of `ranks` owns [begin, begin + size): the first n % ranks ranks one element more than
// the others. With n < ranks the last ranks own nothing; they still take part in the exchange.
struct Slice {
  std::size_t begin = 0;
  std::size_t size = 0;
};

inline Slice slice_of(std::size_t n, int ranks, int rank) {
  if (ranks < 1 || rank < 0 || rank >= ranks) throw std::invalid_argument("slice_of: rank out of range");
  const std::size_t k = static_cast<std::size_t>(ranks), r = static_cast<std::size_t>(rank);
  const std::size_t base = n / k, extra = n % k;
  return Slice{r * base + std::min(r, extra), base + (r < extra ? 1 : 0)};
}

// ---------------------------------------------------------------------------------------------
// Device side
// ---------------------------------------------------------------------------------------------

// What the kernel does with its tile: scan it (inclusive or exclusive) or only reduce it.
enum class TileWork { inclusive, exclusive, reduce };

// Chapter 07's kernel, with two additions: the seed (your seeded_publish_and_look_back puts it
// into tile 0's inclusive prefix, where every look-back ends), and the slice's total: the last
// tile's inclusive prefix, which its warp 0 knows once it has looked back, goes to *total when
// total is not null. In reduce mode nothing is stored: the same tile work and look-back, read-only,
// so the total costs one read of the slice.
// --8<-- [start:kernel]
template <class Shape, int MIN_BLOCKS, single_pass::Lookback L, TileWork WORK, class T, class Desc, class Op>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS, MIN_BLOCKS)
    seeded_scan_kernel(const T* in, T* out, std::size_t n, T seed, T* total, Desc descriptors,
                       single_pass::Ticket ticket, bool vectorized, single_pass::PollSchedule polls, Op op) {
  __shared__ single_pass::WarpTotals<Shape, T> warp_totals;
  __shared__ unsigned tile_slot;
  __shared__ T tile_prefix;

  Desc desc = descriptors;
  const unsigned tile = single_pass::dynamic_tile_index(ticket.counter, single_pass::TileOrder::ticket, tile_slot);
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

  if (scanlab::warp_id() == 0) {
    const T exclusive = seeded_publish_and_look_back<L>(desc, tile, aggregate, seed, op, polls);
    if (threadIdx.x == 0) {
      tile_prefix = exclusive;
      if (total != nullptr && start + static_cast<std::size_t>(valid) == n) *total = op(exclusive, aggregate);
    }
  }
  if constexpr (WORK != TileWork::reduce) {
    __syncthreads();
    single_pass::scan_thread_runs<WORK == TileWork::inclusive, Shape>(items, seeds, op(tile_prefix, warp_prefix), op);
    if (full) single_pass::store_full_tile<Shape>(out + start, items, vectorized);
    else single_pass::store_partial_tile<Shape>(out + start, items, valid);
  }
  single_pass::clear_stale(ticket);  // the previous scan's descriptors, for the next scan
}
// --8<-- [end:kernel]

// The scan-then-add form's second pass: the offset goes on the LEFT of every element.
template <class T, class Op>
__global__ void add_offset_kernel(T* data, std::size_t n, T offset, Op op) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    data[i] = op(offset, data[i]);
  }
}

// ---------------------------------------------------------------------------------------------
// Host side: the single-pass scan with a seed
// ---------------------------------------------------------------------------------------------

// The descriptors and the ticket for scans of up to max_n elements on the current device; reusable
// (not concurrently). As chapter 07's DecoupledLookbackScan (single_pass::DescriptorStorage: one
// allocation, two sides that launches use in turn, each launch clearing the other), plus room in its
// header for the slice's total.
template <class T, class P = DefaultPolicy>
class SeededScan {
 public:
  using Shape = typename P::template Shape<T>;
  static constexpr single_pass::Descriptors kDescriptors = single_pass::resolve_descriptors<T>(P::kDescriptors);
  using Desc = single_pass::TileDescriptors<T, kDescriptors>;
  static constexpr std::size_t kTileItems = Shape::TILE_ITEMS;

  explicit SeededScan(std::size_t max_n) : storage_(tiles_for(max_n), kHeader) {}

  static std::size_t tiles_for(std::size_t n) { return (n + kTileItems - 1) / kTileItems; }

  // out[i] = seed op in[0] op ... op in[i] (inclusive) or seed op in[0] op ... op in[i - 1]
  // (exclusive; out[0] = seed). in == out is allowed. With total != nullptr (device memory) the
  // slice's total, seed included, lands there too.
  template <class Op>
  void scan(ScanKind kind, const T* in, T* out, std::size_t n, const T& seed, Op op, T* total = nullptr,
            cudaStream_t s = 0) {
    if (kind == ScanKind::inclusive) run<TileWork::inclusive>(in, out, n, seed, op, total, s);
    else run<TileWork::exclusive>(in, out, n, seed, op, total, s);
  }

  // *total (device memory) = in[0] op ... op in[n - 1]; nothing else is written.
  template <class Op>
  void reduce(const T* in, std::size_t n, Op op, T* total, cudaStream_t s = 0) {
    run<TileWork::reduce>(in, nullptr, n, Op::identity(), op, total, s);
  }

  // A device element the scans can put a total in (part of this object's storage).
  T* total_slot() { return reinterpret_cast<T*>(storage_.header()); }

 private:
  static constexpr std::size_t kHeader = sizeof(T);  // the total
  template <TileWork WORK, class Op>
  using Kernel = void (*)(const T*, T*, std::size_t, T, T*, Desc, single_pass::Ticket, bool, single_pass::PollSchedule,
                          Op);

  template <TileWork WORK, class Op>
  static Kernel<WORK, Op> kernel() {
    return seeded_scan_kernel<Shape, P::kMinBlocksPerSm, P::kLookback, WORK, T, Desc, Op>;
  }

  template <TileWork WORK, class Op>
  void run(const T* in, T* out, std::size_t n, const T& seed, Op op, T* total, cudaStream_t s) {
    if (n == 0) {
      // Nothing to scan: the total of no elements is the seed (the identity for a reduction).
      if (total != nullptr) SCANLAB_CUDA_CHECK(cudaMemcpyAsync(total, &seed, sizeof(T), cudaMemcpyHostToDevice, s));
      SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));  // `seed` is the caller's, and may go away
      return;
    }
    const std::size_t tiles = tiles_for(n);
    storage_.check_tiles(tiles, n, "ch12::SeededScan");
    const auto launch = storage_.next_launch(tiles, s);
    const bool vectorized = single_pass::aligned16(in) && (out == nullptr || single_pass::aligned16(out));
    const single_pass::PollSchedule polls =
        single_pass::polls_for_grid(single_pass::kDefaultPolls, tiles, resident_blocks<WORK, Op>());
    seeded_scan_kernel<Shape, P::kMinBlocksPerSm, P::kLookback, WORK, T, Desc, Op>
        <<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS, 0, s>>>(in, out, n, seed, total, launch.desc,
                                                                       launch.ticket, vectorized, polls, op);
    SCANLAB_CHECK_LAUNCH();
    storage_.launched();
  }

  // The one-wave rule's count, asked once per kernel and process (a rank is a process of its own).
  template <TileWork WORK, class Op>
  static std::size_t resident_blocks() {
    static const std::size_t blocks = scanlab::resident_blocks(kernel<WORK, Op>(), Shape::BLOCK_THREADS);
    return blocks;
  }

  single_pass::DescriptorStorage<T, kDescriptors, Desc> storage_;
};

// ---------------------------------------------------------------------------------------------
// Host side: one rank's part of the scan across ranks
// ---------------------------------------------------------------------------------------------

enum class Form {
  fused,         // reduce, exchange, seeded scan: the slice read twice, written once (3 x its bytes)
  scan_then_add  // scan, exchange, add the offset: read twice, written twice (4 x; rank 0: 2 x)
};

inline const char* to_string(Form f) { return f == Form::fused ? "fused" : "scan-then-add"; }

// What a rank learnt on the way, for the driver's report.
template <class T>
struct RankResult {
  std::vector<T> totals;   // every rank's slice total, in rank order (the allgather's result)
  T offset;                // this rank's offset: the totals before it combined
  double step_ms[4] = {};  // host time of steps 1-4, each ending when its work is done
};

// One rank's part of the scan of the whole array, whose slice [d_in, d_in + n) this rank holds on
// its current device (the slice that slice_of gives it; in place when d_in == d_out). A
// collective: every rank of `comm` calls it, in the same order as its other collectives, with the
// same kind, operator and form. `scan` must be made for at least n elements.
//
// The fused form: the last rank's total is needed by no rank (no rank comes after it), so it skips
// the reduction and contributes the identity. With one rank the scan is chapter 07's: one pass.
// --8<-- [start:rank_steps]
template <class T, class Op, class P>
RankResult<T> multi_gpu_scan(Communicator& comm, SeededScan<T, P>& scan, const T* d_in, T* d_out, std::size_t n,
                             ScanKind kind, Op op, Form form = Form::fused, cudaStream_t s = 0) {
  RankResult<T> result;
  auto clock = std::chrono::steady_clock::now();
  auto step_done = [&](int step) {
    const auto now = std::chrono::steady_clock::now();
    result.step_ms[step - 1] = std::chrono::duration<double, std::milli>(now - clock).count();
    clock = now;
  };
  const bool last_rank = comm.rank() == comm.size() - 1;
  T total = Op::identity();
  if (form == Form::fused) {
    if (!last_rank) {
      SCANLAB_NVTX_RANGE("ch12 1. reduce the slice");
      scan.reduce(d_in, n, op, scan.total_slot(), s);
      SCANLAB_CUDA_CHECK(cudaMemcpyAsync(&total, scan.total_slot(), sizeof(T), cudaMemcpyDeviceToHost, s));
      SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
    }
  } else {
    SCANLAB_NVTX_RANGE("ch12 1. scan the slice (its total on the way)");
    scan.scan(kind, d_in, d_out, n, Op::identity(), op, scan.total_slot(), s);
    SCANLAB_CUDA_CHECK(cudaMemcpyAsync(&total, scan.total_slot(), sizeof(T), cudaMemcpyDeviceToHost, s));
    SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  step_done(1);
  {
    SCANLAB_NVTX_RANGE("ch12 2. allgather the totals");
    result.totals = allgather(comm, total);
  }
  step_done(2);
  {
    SCANLAB_NVTX_RANGE("ch12 3. combine the totals before this rank");
    result.offset = combine_preceding(result.totals.data(), comm.rank(), op);
  }
  step_done(3);
  if (form == Form::fused) {
    SCANLAB_NVTX_RANGE("ch12 4. scan the slice from the offset");
    scan.scan(kind, d_in, d_out, n, result.offset, op, nullptr, s);
  } else if (comm.rank() > 0 && n > 0) {
    SCANLAB_NVTX_RANGE("ch12 4. add the offset");
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 65535));
    add_offset_kernel<<<blocks, 256, 0, s>>>(d_out, n, result.offset, op);
    SCANLAB_CHECK_LAUNCH();
  }
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
  step_done(4);
  return result;
}
// --8<-- [end:rank_steps]

}  // namespace ch12
