// How close chapter 08's single-pass partition can get to a copy (book, chapter 08, "Measured"):
// its data path timed without its look-back, piece by piece, beside the chapter's kernels. int32,
// x > 0 on values in [-2048, 2047] (half kept), medians of 15 runs over two input buffers in turn,
// every output checked against the host's.
//
// The probe kernels take one chunk of 128 threads x 16 elements a block (the two-tile kernel's
// chunk when this probe was measured; since then 4-byte elements take chunks of 256 threads, 384
// for select-if), loaded from global memory into registers, and need no look-back: where each
// chunk's elements go comes from the host, which counted every chunk's kept elements beforehand.
//
//   copy                  cudaMemcpyAsync device to device (the bench's "copy")
//   chunk copy            a chunk to shared memory in input order, then stored as the two-tile
//                         kernel stores a run (store_in_output_order): one aligned run a chunk
//   partition addresses   the same chunk in input order, stored as two runs where the partition's
//                         kept and rejected elements go (out of order on purpose: the partition's
//                         addresses, none of its exchange)
//   partition, no look-back    the partition's keep bits, places, exchange in output order and
//                         stores, each chunk's place given: the two-tile kernel's data path
//   select-if, no look-back    the same for select-if (kept elements only)
//   ch08 partition / select-if the chapter's single pass (two tiles a block, its look-back)
//
//   build: nvcc -std=c++17 -O3 -arch=sm_90 -Icommon/include -Ichapters/08_stream_compaction
//          -Isolutions/08_stream_compaction -Itests/gpu/tuning tests/gpu/tuning/ch08_partition_ceiling.cu
//          -o /tmp/partition_ceiling
//   run:   /tmp/partition_ceiling          (2^24, 2^26, 2^28)
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>

#include "probe_check.cuh"                             // probe_input
#include "stream_compaction_dispatch.cuh"              // ch08::GreaterThan
#include "stream_compaction_single_pass_dispatch.cuh"  // the single pass; tile_exchange.cuh
#include "sweep_timing.cuh"                            // median_ms_by_rep

namespace sp = scanlab::single_pass;
using Chunk = sp::TileShape<int, 128, 16>;
constexpr int kChunkItems = Chunk::TILE_ITEMS;

enum class Probe { kChunkCopy, kPartitionAddresses, kPartition, kSelect };

// One chunk a block; kept_before[c]: the kept elements of the chunks before chunk c (the host's).
template <Probe P>
__global__ void __launch_bounds__(Chunk::BLOCK_THREADS)
    chunk_probe(const int* in, int* out, std::size_t n, const unsigned long long* kept_before,
                ch08::GreaterThan<int> pred) {
  __shared__ __align__(16) int slots[kChunkItems];
  __shared__ unsigned warp_counts[Chunk::WARPS];
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * kChunkItems;
  int items[Chunk::ITEMS];
  sp::load_full_tile<Chunk>(in + start, items, true);
  if constexpr (P == Probe::kChunkCopy || P == Probe::kPartitionAddresses) {
    sp::store_staged_tile<Chunk>(slots, items);
    __syncthreads();
    if constexpr (P == Probe::kChunkCopy) {
      ch08::store_in_output_order<false, Chunk>(slots, kChunkItems, kChunkItems, out, n, start, 0, true);
    } else {
      const std::size_t before = kept_before[blockIdx.x];
      const auto count = static_cast<unsigned>(kept_before[blockIdx.x + 1] - before);
      ch08::store_in_output_order<true, Chunk>(slots, count, kChunkItems, out, n, before, start - before, true);
    }
  } else {
    constexpr bool kPartition = P == Probe::kPartition;
    const unsigned kept = ch08::keep_bits<Chunk, true>(items, kChunkItems, pred);
    unsigned run_place[Chunk::ROWS];
    const unsigned warp_count = ch08::warp_run_places_packed<Chunk>(kept, run_place);
    if (scanlab::lane_id() == 0) warp_counts[scanlab::warp_id()] = warp_count;
    __syncthreads();
    unsigned count = 0;
    const unsigned warp_before =
        sp::fold_chunk_warp_totals(count, warp_counts, scanlab::warp_id(), scanlab::Plus<unsigned>{});
    ch08::exchange_in_output_order<kPartition, Chunk, true>(items, kept, run_place, warp_before, kChunkItems, slots);
    __syncthreads();
    const std::size_t before = kept_before[blockIdx.x];
    ch08::store_in_output_order<kPartition, Chunk>(slots, count, kChunkItems, out, n, before, start - before, true);
  }
}

// The host's answers: each chunk's kept_before (one more at the end: all kept), and each probe's output.
struct Expected {
  std::vector<unsigned long long> kept_before;
  std::vector<int> partition, addresses;  // select-if: the partition's first kept_before.back()
};

Expected expected_for(const std::vector<int>& h, int above) {
  const std::size_t n = h.size();
  Expected e;
  e.partition.resize(n);
  e.addresses.resize(n);
  std::size_t kept = 0, rejected = 0;
  for (std::size_t c = 0; c * kChunkItems < n; ++c) {
    e.kept_before.push_back(kept);
    std::size_t chunk_kept = 0;
    for (int i = 0; i < kChunkItems; ++i) chunk_kept += h[c * kChunkItems + i] > above;
    // partition addresses: the chunk in input order, its first chunk_kept at the kept run's place and
    // the rest at the rejected run's (which runs downwards from the end as the chunks go on)
    const std::size_t kept_run = kept, rejected_run = n - rejected - (kChunkItems - chunk_kept);
    for (std::size_t i = 0; i < kChunkItems; ++i) {
      const int v = h[c * kChunkItems + i];
      if (i < chunk_kept) e.addresses[kept_run + i] = v;
      else e.addresses[rejected_run + (i - chunk_kept)] = v;
      if (v > above) e.partition[kept++] = v;
      else e.partition[n - 1 - rejected++] = v;
    }
  }
  e.kept_before.push_back(kept);
  return e;
}

int main() {
  cudaDeviceProp prop{};
  SCANLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; x > 0, half kept; x copy = the copy's time over the row's\n", prop.name,
              prop.multiProcessorCount);
  for (const int lg : {24, 26, 28}) {
    const std::size_t n = std::size_t{1} << lg;
    const std::vector<int> h = probe_input(n);
    const Expected e = expected_for(h, 0);
    const std::size_t kept = e.kept_before.back();
    const unsigned chunks = static_cast<unsigned>(n / kChunkItems);
    scanlab::DeviceBuffer<int> in(2 * n), out(2 * n);
    scanlab::DeviceBuffer<unsigned long long> kept_before(e.kept_before.size());
    scanlab::DeviceBuffer<unsigned> d_count(1);
    for (int k = 0; k < 2; ++k)
      SCANLAB_CUDA_CHECK(cudaMemcpy(in.data() + k * n, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    SCANLAB_CUDA_CHECK(cudaMemcpy(kept_before.data(), e.kept_before.data(),
                                  e.kept_before.size() * sizeof(unsigned long long), cudaMemcpyHostToDevice));
    ch08::SinglePassWorkspace ws(n);
    const ch08::GreaterThan<int> pred{0};

    struct Row {
      std::string name;
      std::function<void(int)> run;  // on input buffer r % 2
      const std::vector<int>* want;  // the first `length` elements of out must equal it
      std::size_t length;
    };
    auto probe = [&](auto kernel) {
      return [&, kernel](int r) {
        kernel<<<chunks, Chunk::BLOCK_THREADS>>>(in.data() + (r % 2) * n, out.data() + (r % 2) * n, n,
                                                 kept_before.data(), pred);
        SCANLAB_CHECK_LAUNCH();
      };
    };
    const std::vector<Row> rows = {
        {"copy",
         [&](int r) {
           SCANLAB_CUDA_CHECK(cudaMemcpyAsync(out.data() + (r % 2) * n, in.data() + (r % 2) * n, n * sizeof(int),
                                              cudaMemcpyDeviceToDevice));
         },
         &h, n},
        {"chunk copy", probe(chunk_probe<Probe::kChunkCopy>), &h, n},
        {"partition addresses", probe(chunk_probe<Probe::kPartitionAddresses>), &e.addresses, n},
        {"partition, no look-back", probe(chunk_probe<Probe::kPartition>), &e.partition, n},
        {"select-if, no look-back", probe(chunk_probe<Probe::kSelect>), &e.partition, kept},
        {"ch08 partition",
         [&](int r) {
           ch08::partition_if_single_pass(in.data() + (r % 2) * n, out.data() + (r % 2) * n, d_count.data(), n, pred,
                                          ws);
         },
         &e.partition, n},
        {"ch08 select-if",
         [&](int r) {
           ch08::select_if_single_pass(in.data() + (r % 2) * n, out.data() + (r % 2) * n, d_count.data(), n, pred, ws);
         },
         &e.partition, kept},
    };
    float copy_ms = 0;
    std::vector<int> got(n);
    for (const Row& row : rows) {
      SCANLAB_CUDA_CHECK(cudaMemset(out.data(), 0xff, n * sizeof(int)));  // poison
      row.run(0);
      SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
      SCANLAB_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), n * sizeof(int), cudaMemcpyDeviceToHost));
      bool ok = true;
      for (std::size_t i = 0; i < row.length && ok; ++i) ok = got[i] == (*row.want)[i];
      const float ms = median_ms_by_rep(row.run, 15);
      if (row.name == "copy") copy_ms = ms;
      std::printf("2^%d %-24s %8.4f ms  x copy %.3f  %s\n", lg, row.name.c_str(), ms, copy_ms / ms,
                  ok ? "ok" : "WRONG");
    }
  }
}
