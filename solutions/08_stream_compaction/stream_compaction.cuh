// Chapter 08, reference solution of exercises/08_stream_compaction/stream_compaction.cuh: read that
// file for the teaching notes and the hints. The comments here say why the answers are written as
// they are.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

#include <scanlab/warp_scan.cuh>  // kWarpThreads, kFullWarpMask, lanes_below_mask

#include "compaction_tile.cuh"  // given: the tile's constants, ScatterStorage

namespace ch08 {

// --8<-- [start:bit_sliced]
// One ballot per bit column; the popc of the column masked to the lower lanes counts the earlier
// totals with that bit set, worth 2^j each. kWarpTotalBits (6) columns, since a total can be 32.
__device__ inline unsigned warp_offsets_bit_sliced(unsigned total) {
  // BEGIN TODO
  const unsigned below = scanlab::lanes_below_mask(scanlab::lane_id());
  unsigned offset = 0;
  for (int j = 0; j < kWarpTotalBits; ++j) {
    const unsigned column = __ballot_sync(scanlab::kFullWarpMask, (total >> j) & 1u);
    offset += static_cast<unsigned>(__popc(column & below)) << j;
  }
  return offset;
  // END TODO
}
// --8<-- [end:bit_sliced]

// --8<-- [start:count_kernel]
// __syncthreads_count counts the block's flags in the barrier itself; every thread calls it in
// every round, with flag 0 past n (pred is not even called there), so no thread skips a barrier.
template <class T, class Pred>
__global__ void compact_count_kernel(const T* in, std::size_t n, std::size_t first_tile, unsigned* tile_counts,
                                     Pred pred) {
  // BEGIN TODO
  const std::size_t tile = first_tile + blockIdx.x;
  const std::size_t base = tile * kCompactTile;
  unsigned count = 0;
  for (int r = 0; r < kCompactRounds; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kCompactThreads + threadIdx.x;
    const int keep = (i < n && pred(in[i])) ? 1 : 0;
    count += static_cast<unsigned>(__syncthreads_count(keep));
  }
  if (threadIdx.x == 0) tile_counts[tile] = count;
  // END TODO
}
// --8<-- [end:count_kernel]

// --8<-- [start:scatter_round]
// A lane's rank is the popc of the warp's ballot below it; warp 0 scans the warp totals (lane
// kCompactWarps, a warp that does not exist, gets the round's total). Three barriers: the totals
// are written before warp 0 reads them, the offsets before everyone reads them, and everyone has
// read them before the next round overwrites s.
template <bool kPartition, class T>
__device__ unsigned scatter_round(const T& x, bool keep, bool in_range, std::size_t i, unsigned running,
                                  std::size_t total_kept, ScatterStorage& s, T* out) {
  // BEGIN TODO
  const int lane = scanlab::lane_id();
  const int warp = scanlab::warp_id();
  const unsigned ballot = __ballot_sync(scanlab::kFullWarpMask, keep);
  const unsigned rank_in_warp = static_cast<unsigned>(__popc(ballot & scanlab::lanes_below_mask(lane)));
  if (lane == 0) s.warp_totals[warp] = static_cast<unsigned>(__popc(ballot));
  __syncthreads();
  if (warp == 0) {
    const unsigned total = lane < kCompactWarps ? s.warp_totals[lane] : 0u;
    s.warp_offsets[lane] = warp_offsets_bit_sliced(total);
  }
  __syncthreads();
  const unsigned before = running + s.warp_offsets[warp] + rank_in_warp;
  if (keep) {
    out[before] = x;
  } else if (kPartition && in_range) {
    out[total_kept + (i - before)] = x;
  }
  const unsigned round_total = s.warp_offsets[kCompactWarps];
  __syncthreads();  // the next round overwrites s
  return round_total;
  // END TODO
}
// --8<-- [end:scatter_round]

}  // namespace ch08
