// A probe for chapter 11's next step: a block that keeps two tiles, so that bytes are in flight
// while it waits for its look-back. Chapter 11's kernel (one tile per block) leaves 4-6% of a
// copy's time in the look-back (book, Measured on a GPU, "Where the last bytes go"): while warp 0
// waits for the predecessors, the other warps wait at a barrier and the block's stage holds no byte in
// flight. Here each block loops over tickets with two stages:
//
//   take tile t, stage it, reduce it (all warps), publish its aggregate
//   loop: take tile t' and start its copies into the other stage
//         warp 0 looks back for t          | warps 1-3 reduce t' as it lands, publish its aggregate
//         all warps: scan t from its prefix and store it; t = t'
//
// t's aggregate goes out as soon as t has landed, whatever the look-back of the tile before it in
// the block does, so the tiles after t never wait for this block's look-back (a ring of stages
// filled ahead by a producer warp did, which is why the persistent kernel of the book's "What did
// not work" lost). int32, exclusive sum, n a multiple of the tile; every output checked.
//
//   build: nvcc -std=c++17 -O3 -arch=sm_90 -Icommon/include -Ichapters/11_async_copy_scan
//          -Isolutions/11_async_copy_scan tests/gpu/tuning/ch11_two_tiles.cu -o /tmp/two_tiles
//   run:   /tmp/two_tiles          (2^26, 2^28, 2^30: copy, chapter 07, chapter 11, two-tile variants)
//          /tmp/two_tiles 22 once  (2^22, each row run once, untimed: for compute-sanitizer)
#include <cuda/barrier>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/monoid.hpp>

#include "async_copy_scan_dispatch.cuh"  // chapter 11's kernel and scan object (chapters/ and solutions/)
#include "probe_check.cuh"               // probe_input, check_copy_or_sum
#include "sweep_timing.cuh"              // median_ms

namespace sp = scanlab::single_pass;
using Plus = scanlab::Plus<int>;
using Chunk = sp::TileShape<int, 128, 16>;  // chapter 11's chunk

// The total of warp w's part of a staged chunk (any warp may add up any part).
__device__ __forceinline__ int part_total(const int* chunk, int w) {
  const int lane = scanlab::lane_id();
  int sum = 0;
#pragma unroll
  for (int r = 0; r < Chunk::ROWS; ++r) {
    const int4 v = *reinterpret_cast<const int4*>(chunk + Chunk::offset(w, lane, r, 0));
    sum += v.x + v.y + v.z + v.w;
  }
  return scanlab::warp_reduce(sum, Plus{});
}

// Warps 1-3 only (96 threads), barrier 1 (barrier 0 is __syncthreads).
__device__ __forceinline__ void sync_warps_1_to_3() { asm volatile("bar.sync 1, 96;" ::: "memory"); }

template <int CHUNKS, class Desc>
__global__ void __launch_bounds__(128)
    two_tile_scan(const int* in, int* out, unsigned num_tiles, Desc desc, sp::Ticket ticket, sp::PollSchedule polls) {
  constexpr int kTileItems = CHUNKS * Chunk::TILE_ITEMS;
  constexpr int kParts = CHUNKS * Chunk::WARPS;  // parts of 512 elements, in element order
  extern __shared__ __align__(128) unsigned char stage_bytes[];
  int* stages = reinterpret_cast<int*>(stage_bytes);  // 2 x kTileItems
  __shared__ ch11::Barrier landed[2][CHUNKS];
  __shared__ unsigned slot[2];
  __shared__ int totals[2][kParts];
  __shared__ int tile_prefix;
  const Plus op;
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();

  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s)
      for (int c = 0; c < CHUNKS; ++c) init(&landed[s][c], Chunk::BLOCK_THREADS);
    slot[0] = atomicAdd(ticket.counter, 1u);
  }
  __syncthreads();
  int s = 0;
  unsigned tile = slot[0];
  if (tile < num_tiles) {
    {  // the first tile: all warps reduce it
      ch11::Token tokens[CHUNKS];
      ch11::stage_tile<CHUNKS, Chunk::TILE_ITEMS>(landed[0], stages, in + static_cast<std::size_t>(tile) * kTileItems,
                                                  tokens);
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) {
        landed[0][c].wait(std::move(tokens[c]));
        const int t = part_total(stages + c * Chunk::TILE_ITEMS, warp);
        if (lane == 0) totals[0][c * Chunk::WARPS + warp] = t;
      }
      __syncthreads();
      if (warp == 0) {
        int aggregate = 0;
        for (int q = 0; q < kParts; ++q) aggregate += totals[0][q];
        if (lane == 0) desc.publish(tile, tile == 0 ? sp::kPrefix : sp::kAggregate, aggregate);
      }
    }
    while (true) {
      const int ns = s ^ 1;
      if (threadIdx.x == 0) slot[ns] = atomicAdd(ticket.counter, 1u);
      __syncthreads();  // the ticket; and every thread is done with stage ns (its last tile's pass 2)
      const unsigned next = slot[ns];
      const bool has_next = next < num_tiles;
      int* next_stage = stages + ns * kTileItems;
      ch11::Token tokens[CHUNKS];
      if (has_next)
        ch11::stage_tile<CHUNKS, Chunk::TILE_ITEMS>(landed[ns], next_stage,
                                                    in + static_cast<std::size_t>(next) * kTileItems, tokens);
      if (warp == 0) {
        int exclusive = 0;
        if (tile != 0) {
          int aggregate = 0;
          for (int q = 0; q < kParts; ++q) aggregate += totals[s][q];
          exclusive = sp::lookback_warp<int>(desc, tile, op, polls);
          if (lane == 0) desc.publish(tile, sp::kPrefix, exclusive + aggregate);
        }
        if (lane == 0) tile_prefix = exclusive;
      } else if (has_next) {
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {
          landed[ns][c].wait(std::move(tokens[c]));
#pragma unroll
          for (int w = 0; w < Chunk::WARPS; ++w) {
            const int q = c * Chunk::WARPS + w;
            if (q % 3 != warp - 1) continue;
            const int t = part_total(next_stage + c * Chunk::TILE_ITEMS, w);
            if (lane == 0) totals[ns][q] = t;
          }
        }
        sync_warps_1_to_3();
        if (warp == 1) {
          int aggregate = 0;
          for (int q = 0; q < kParts; ++q) aggregate += totals[ns][q];
          if (lane == 0) desc.publish(next, sp::kAggregate, aggregate);
        }
      }
      __syncthreads();  // tile's prefix is known
      const int prefix = tile_prefix;
      const int* stage = stages + s * kTileItems;
      int running = prefix;
#pragma unroll
      for (int c = 0; c < CHUNKS; ++c) {
        int before = running;
#pragma unroll
        for (int w = 0; w < Chunk::WARPS; ++w) {
          if (w < warp) before += totals[s][c * Chunk::WARPS + w];
          running += totals[s][c * Chunk::WARPS + w];
        }
        int items[Chunk::ITEMS];
        sp::load_staged_tile<Chunk>(stage + c * Chunk::TILE_ITEMS, items);
        sp::ThreadSeeds<Chunk, int> seeds;
        (void)sp::warp_segment_scan<Chunk>(items, seeds, op);
        sp::scan_thread_runs<false, Chunk>(items, seeds, before, op);
        sp::store_full_tile<Chunk>(out + static_cast<std::size_t>(tile) * kTileItems + c * Chunk::TILE_ITEMS, items,
                                   true);
      }
      if (!has_next) break;
      if (warp == 0) {
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) landed[ns][c].wait(std::move(tokens[c]));  // (landed already)
      }
      tile = next;
      s = ns;
    }
  }
  sp::clear_stale(ticket);
}

template <int CHUNKS>
struct TwoTiles {
  using Desc = ch11::AsyncCopyScan<int>::Desc;
  static constexpr auto kDesc = ch11::AsyncCopyScan<int>::kDescriptors;
  static constexpr int kTileItems = CHUNKS * Chunk::TILE_ITEMS;
  static constexpr std::size_t kStageBytes = 2 * sizeof(int) * kTileItems;
  sp::DescriptorStorage<int, kDesc, Desc> storage;
  std::size_t resident = 0;
  explicit TwoTiles(std::size_t max_n) : storage(max_n / kTileItems) {
    auto k = two_tile_scan<CHUNKS, Desc>;
    SCANLAB_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStageBytes)));
    resident = scanlab::resident_blocks(k, 128, kStageBytes);
  }
  // blocks_per_sm_cap 0: as many blocks as fit.
  void run(const int* in, int* out, std::size_t n, sp::PollSchedule schedule, std::size_t grid_cap = 0) {
    const std::size_t tiles = n / kTileItems;
    const auto launch = storage.next_launch(tiles, 0);
    const auto polls = sp::polls_for_grid(schedule, tiles, resident);
    std::size_t grid = std::min(tiles, resident);
    if (grid_cap != 0) grid = std::min(grid, grid_cap);
    two_tile_scan<CHUNKS, Desc><<<static_cast<unsigned>(grid), 128, kStageBytes>>>(
        in, out, static_cast<unsigned>(tiles), launch.desc, launch.ticket, polls);
    SCANLAB_CHECK_LAUNCH();
    storage.launched();
  }
};

int main(int argc, char** argv) {
  std::vector<int> logs = {26, 28, 30};
  if (argc > 1) logs = {std::atoi(argv[1])};
  const bool once = argc > 2 && std::string(argv[2]) == "once";
  const std::size_t max_n = std::size_t{1} << *std::max_element(logs.begin(), logs.end());
  int *in, *out;
  SCANLAB_CUDA_CHECK(cudaMalloc(&in, max_n * sizeof(int)));
  SCANLAB_CUDA_CHECK(cudaMalloc(&out, max_n * sizeof(int)));
  const std::vector<int> h_in = probe_input(max_n);
  SCANLAB_CUDA_CHECK(cudaMemcpy(in, h_in.data(), max_n * sizeof(int), cudaMemcpyHostToDevice));
  ch11::AsyncCopyScan<int> scan(max_n);
  ch11::AsyncCopyScan<int, ch11::Policy<128, 16, 8>> scan8(max_n);
  TwoTiles<2> two2(max_n);
  TwoTiles<4> two4(max_n);
  cudaDeviceProp prop;
  SCANLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  const std::size_t sms = prop.multiProcessorCount;
  std::printf("%s, %zu SMs; two tiles of 2 chunks: %zu blocks per SM, of 4 chunks: %zu\n", prop.name, sms,
              two2.resident / sms, two4.resident / sms);
  const ch11::Options staged_always = ch11::kStageEverySize;
  const ch11::Options registers_always = {sp::kDefaultPolls, std::numeric_limits<std::size_t>::max()};
  for (int lg : logs) {
    const std::size_t n = std::size_t{1} << lg;
    struct Row {
      std::string name;
      int scan;
      std::function<void()> run;
    };
    std::vector<Row> rows;
    rows.push_back({"copy", 0, [&] {
                      SCANLAB_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(int), cudaMemcpyDeviceToDevice));
                    }});
    rows.push_back({"ch07", 1, [&] {
                      scan.exclusive(in, out, n, Plus{}, 0, registers_always);
                    }});
    rows.push_back({"ch11 x4", 1, [&] {
                      scan.exclusive(in, out, n, Plus{}, 0, staged_always);
                    }});
    rows.push_back({"ch11 x8", 1, [&] {
                      scan8.exclusive(in, out, n, Plus{}, 0, staged_always);
                    }});
    for (const sp::PollSchedule polls : std::vector<sp::PollSchedule>{{2800, 900}, {1000, 300}, {0, 300}}) {
      const std::string p = " " + std::to_string(polls.first_ns) + "/" + std::to_string(polls.every_ns);
      rows.push_back({"two x2" + p, 1, [&, polls] {
                        two2.run(in, out, n, polls);
                      }});
      rows.push_back({"two x4" + p, 1, [&, polls] {
                        two4.run(in, out, n, polls);
                      }});
    }
    rows.push_back({"two x4 1000/300 grid 2/SM", 1, [&] {
                      two4.run(in, out, n, {1000, 300}, 2 * sms);
                    }});
    rows.push_back({"two x2 1000/300 grid 4/SM", 1, [&] {
                      two2.run(in, out, n, {1000, 300}, 4 * sms);
                    }});
    float copy_ms = 0;
    for (const Row& r : rows) {
      SCANLAB_CUDA_CHECK(cudaMemset(out, 0xff, n * sizeof(int)));
      if (once) {
        r.run();
        SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
        std::printf("2^%d %-28s %s\n", lg, r.name.c_str(), check_copy_or_sum(h_in, out, n, r.scan));
        continue;
      }
      const float ms = median_ms(r.run, 20);
      SCANLAB_CUDA_CHECK(cudaGetLastError());
      if (copy_ms == 0) copy_ms = ms;
      std::printf("2^%d %-28s %8.4f ms  %7.1f GB/s  x copy %.3f  %s\n", lg, r.name.c_str(), ms,
                  2.0 * n * sizeof(int) / ms / 1e6, copy_ms / ms, check_copy_or_sum(h_in, out, n, r.scan));
    }
  }
  SCANLAB_CUDA_CHECK(cudaFree(in));
  SCANLAB_CUDA_CHECK(cudaFree(out));
  return 0;
}
