// Chapter 08, given: the host side of the three-phase compaction, the scatter kernel (phase 3) and
// the predicates. Your code, the bit-sliced warp offsets, the count kernel and one scatter round,
// is in stream_compaction.cuh (exercises/08_stream_compaction/, or solutions/ for the reference
// build); nothing here needs changing.
//
//   select_if     phase 1 compact_count_kernel, phase 2 a device-wide exclusive scan of the tile
//   partition_if  counts (scanlab/device_scan.cuh), phase 3 compact_scatter_kernel
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/hd.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/trace.hpp>

// By its path, in quotes: the emulator's translator rewrites the kernels of quoted includes only,
// and it searches the including file's folder and the chapter's folders, not common/include.
#include "../../common/include/scanlab/device_scan.cuh"
#include "stream_compaction.cuh"

namespace ch08 {

// ---- predicates (what to keep) ----------------------------------------------------------------

template <class T>
struct IsPositive {
  SCANLAB_HD bool operator()(T x) const { return x > T(0); }
};

template <class T>
struct GreaterThan {
  T threshold;
  SCANLAB_HD bool operator()(T x) const { return x > threshold; }
};

// Phase 3: block b writes the kept elements of tile t = first_tile + b from out[tile_offsets[t]] on,
// in input order (and, with kPartition, its rejected ones after all kept ones: the launch covers
// the tiles up to the last, so tile_offsets[first_tile + gridDim.x] is the total).
// --8<-- [start:scatter_kernel]
template <bool kPartition, class T, class Pred>
__global__ void compact_scatter_kernel(const T* in, T* out, std::size_t n, std::size_t first_tile,
                                       const unsigned* tile_offsets, Pred pred, scanlab::TraceLog log) {
  __shared__ ScatterStorage storage;
  const std::size_t tile = first_tile + blockIdx.x;
  const std::size_t base = tile * kCompactTile;
  unsigned running = tile_offsets[tile];  // kept elements before this round
  const std::size_t total_kept = kPartition ? tile_offsets[first_tile + gridDim.x] : 0;
  for (int r = 0; r < kCompactRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kCompactThreads + threadIdx.x;
    const bool in_range = i < n;
    const T x = in_range ? in[i] : T{};
    const bool keep = in_range && pred(x);
    running += scatter_round<kPartition>(x, keep, in_range, i, running, total_kept, storage, out);
  }
  // Traced builds (the player's counts view): where this tile wrote from, its count as phase 1
  // counted it (two neighbouring offsets of the scan differ by it) and how many its rounds wrote.
  if (threadIdx.x == 0) {
    SCANLAB_TRACE_EVENT(log, "scatter", static_cast<int>(tile), tile_offsets[tile],
                        tile_offsets[tile + 1] - tile_offsets[tile], running - tile_offsets[tile]);
  }
}
// --8<-- [end:scatter_kernel]

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

inline std::size_t compaction_tiles(std::size_t n) { return (n + kCompactTile - 1) / kCompactTile; }

// Device scratch for compacting up to n elements: tile counts, tile offsets (one more: the total)
// and the scan's partials. Allocate once, reuse for every call with at most n elements.
struct CompactionWorkspace {
  explicit CompactionWorkspace(std::size_t n)
      : capacity(n),
        tile_counts(compaction_tiles(n) + 1),
        tile_offsets(compaction_tiles(n) + 1),
        partials(scanlab::device_scan_tiles<unsigned>(compaction_tiles(n) + 1) + 1) {}
  std::size_t capacity;
  scanlab::DeviceBuffer<unsigned> tile_counts;
  scanlab::DeviceBuffer<unsigned> tile_offsets;
  scanlab::DeviceBuffer<unsigned> partials;
};

namespace detail {
inline void check_compaction_size(std::size_t n, const CompactionWorkspace& ws, const char* who) {
  if (n > 0xffffffffu) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " does not fit the 32-bit output positions (at most 2^32 - 1)");
  }
  if (n > ws.capacity) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is more than the workspace was made for (" + std::to_string(ws.capacity) + ")");
  }
}

// Phase 2, and the count: offsets[b] = sum of counts[0, b), offsets[tiles] = the total, which is
// also copied to *d_num_selected. The scan reads one element past the counts as 0.
struct CountsWithTrailingZero {
  const unsigned* counts;
  std::size_t tiles;
  __device__ unsigned operator()(std::size_t i) const { return i < tiles ? counts[i] : 0u; }
};

inline void scan_tile_counts(CompactionWorkspace& ws, std::size_t tiles, unsigned* d_num_selected, cudaStream_t s) {
  SCANLAB_NVTX_RANGE("ch08::phase 2: scan of the tile counts");
  scanlab::device_scan<unsigned>(CountsWithTrailingZero{ws.tile_counts.data(), tiles},
                                 scanlab::ArrayStore<unsigned>{ws.tile_offsets.data()}, tiles + 1, ws.partials.data(),
                                 scanlab::Plus<unsigned>{}, /*inclusive=*/false, s);
  if (d_num_selected != nullptr) {
    SCANLAB_CUDA_CHECK(
        cudaMemcpyAsync(d_num_selected, ws.tile_offsets.data() + tiles, sizeof(unsigned), cudaMemcpyDeviceToDevice, s));
  }
}

template <bool kPartition, class T, class Pred>
void compact_three_phase(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred,
                         CompactionWorkspace& ws, cudaStream_t s, const char* who, scanlab::TraceLog log) {
  check_compaction_size(n, ws, who);
  if (n == 0) {
    if (d_num_selected != nullptr) SCANLAB_CUDA_CHECK(cudaMemsetAsync(d_num_selected, 0, sizeof(unsigned), s));
    return;
  }
  if (d_in == d_out) {
    throw std::invalid_argument(std::string(who) + ": input and output must not overlap: the three-phase compaction "
                                                   "cannot run in place (see select_if_single_pass)");
  }
  const std::size_t tiles = compaction_tiles(n);
  {
    SCANLAB_NVTX_RANGE("ch08::phase 1: count per tile");
    compact_count_kernel<T, Pred>
        <<<static_cast<unsigned>(tiles), kCompactThreads, 0, s>>>(d_in, n, 0, ws.tile_counts.data(), pred);
    SCANLAB_CHECK_LAUNCH();
  }
  scan_tile_counts(ws, tiles, d_num_selected, s);
  {
    SCANLAB_NVTX_RANGE("ch08::phase 3: scatter");
    compact_scatter_kernel<kPartition, T, Pred>
        <<<static_cast<unsigned>(tiles), kCompactThreads, 0, s>>>(d_in, d_out, n, 0, ws.tile_offsets.data(), pred, log);
    SCANLAB_CHECK_LAUNCH();
  }
}
}  // namespace detail

// Select-if: d_out[0, k) = the elements of d_in[0, n) that satisfy pred, in input order;
// *d_num_selected = k (device memory; may be null). d_out[k, n) is not written.
// --8<-- [start:select_if]
template <class T, class Pred>
void select_if(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred, CompactionWorkspace& ws,
               cudaStream_t s = 0, scanlab::TraceLog log = {}) {
  SCANLAB_NVTX_RANGE("ch08::select_if (three phases)");
  detail::compact_three_phase<false>(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::select_if", log);
}
// --8<-- [end:select_if]

// Partition-if: d_out[0, k) as select_if, d_out[k, n) = the rejected elements, in input order.
template <class T, class Pred>
void partition_if(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred, CompactionWorkspace& ws,
                  cudaStream_t s = 0, scanlab::TraceLog log = {}) {
  SCANLAB_NVTX_RANGE("ch08::partition_if (three phases)");
  detail::compact_three_phase<true>(d_in, d_out, d_num_selected, n, pred, ws, s, "ch08::partition_if", log);
}

// Conveniences that allocate their own workspace (allocation is synchronous: not for timing).
template <class T, class Pred>
void select_if(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred) {
  CompactionWorkspace ws(n);
  select_if(d_in, d_out, d_num_selected, n, pred, ws);
  SCANLAB_CHECK_SYNC();
}

template <class T, class Pred>
void partition_if(const T* d_in, T* d_out, unsigned* d_num_selected, std::size_t n, Pred pred) {
  CompactionWorkspace ws(n);
  partition_if(d_in, d_out, d_num_selected, n, pred, ws);
  SCANLAB_CHECK_SYNC();
}

// ---------------------------------------------------------------------------------------------
// For the book's worked example: the bit-sliced scan of given warp totals, run by one warp.
// ---------------------------------------------------------------------------------------------
template <class Unused = void>  // a template, so that the header can be included by several files
__global__ void warp_offsets_bit_sliced_kernel(const unsigned* totals, int count, unsigned* offsets) {
  const int lane = static_cast<int>(threadIdx.x);
  const unsigned total = lane < count ? totals[lane] : 0u;
  const unsigned offset = warp_offsets_bit_sliced(total);
  if (lane < count) offsets[lane] = offset;
}

// offsets[w] = totals[0] + ... + totals[w - 1] for count <= 32 totals, each in [0, 32].
inline void warp_offsets_bit_sliced_host(const unsigned* d_totals, int count, unsigned* d_offsets, cudaStream_t s = 0) {
  if (count < 0 || count > scanlab::kWarpThreads) {
    throw std::invalid_argument("ch08::warp_offsets_bit_sliced_host: count must be in [0, 32]");
  }
  warp_offsets_bit_sliced_kernel<><<<1, scanlab::kWarpThreads, 0, s>>>(d_totals, count, d_offsets);
  SCANLAB_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------------
// Phases 1 and 3 on their own, from a later tile on
// ---------------------------------------------------------------------------------------------
// Each launches one phase over the tiles [first_tile, compaction_tiles(n)) only: elements before
// the first of them are neither read nor written, so d_in (and d_out from the first tile's offset)
// need only be valid from there on, and the counts and offsets from index first_tile on. The
// grading runs the last tiles of arrays past 2^31 elements with them, with offsets of its own.
template <class T, class Pred>
void compact_count_from(const T* d_in, std::size_t n, std::size_t first_tile, unsigned* d_tile_counts, Pred pred,
                        cudaStream_t s = 0) {
  const std::size_t tiles = compaction_tiles(n);
  if (first_tile >= tiles) return;
  compact_count_kernel<T, Pred>
      <<<static_cast<unsigned>(tiles - first_tile), kCompactThreads, 0, s>>>(d_in, n, first_tile, d_tile_counts, pred);
  SCANLAB_CHECK_LAUNCH();
}

// d_tile_offsets[t] for t in [first_tile, tiles]: the first output position of tile t, and the
// total at index tiles.
template <bool kPartition, class T, class Pred>
void compact_scatter_from(const T* d_in, T* d_out, std::size_t n, std::size_t first_tile,
                          const unsigned* d_tile_offsets, Pred pred, cudaStream_t s = 0) {
  const std::size_t tiles = compaction_tiles(n);
  if (first_tile >= tiles) return;
  compact_scatter_kernel<kPartition, T, Pred><<<static_cast<unsigned>(tiles - first_tile), kCompactThreads, 0, s>>>(
      d_in, d_out, n, first_tile, d_tile_offsets, pred, scanlab::TraceLog{});
  SCANLAB_CHECK_LAUNCH();
}

}  // namespace ch08
