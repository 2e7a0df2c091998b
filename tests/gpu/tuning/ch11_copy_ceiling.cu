// Where chapter 11's time goes (book, Measured on a GPU, "Where the last bytes go"): how close to
// a device-to-device copy a kernel of chapter 11's tile can get when it does no scan at all, and what
// each part of the scan costs on top of that. int32, one input of n elements, medians of 20 runs,
// every output checked (a copy against the input, a scan against the sequential sum).
//
//   copy                 cudaMemcpyAsync device to device (the bench's "copy")
//   copy_registers       chapter 07's tile (128 threads x 32 items) loaded to registers and stored
//   copy_staged          chapter 11's tile (4 chunks of 128 x 16) staged by bulk copies, read from
//                        shared memory and stored by the threads: chapter 11 without the scan
//   copy_bulk            the same chunks staged by bulk copies and written back by bulk copies
//                        (cp.async.bulk shared -> global): no thread touches the data
//   ch07, ch11           the chapters' scans (ch07 = chapter 11's scan object below staged_from,
//                        ch11 its one-tile kernel, "ch11 two tiles" its two-tile kernel)
//   parts: ...           chapter 11's kernel with its look-back and its scan switched on one at a
//                        time (ch11_parts below), and with bulk stores
//   wN polls F/E         the whole kernel with a look-back window of N predecessors (32: the
//                        library's) and a poll schedule of F ns before the first read, E between
//
//   build: nvcc -std=c++17 -O3 -arch=sm_90 -Icommon/include -Ichapters/11_async_copy_scan
//          -Isolutions/11_async_copy_scan tests/gpu/tuning/ch11_copy_ceiling.cu -o /tmp/ceiling
//   run:   /tmp/ceiling            (the rows above at 2^26, 2^28, 2^30)
//          /tmp/ceiling grid       (copy, ch07, and the scan object with tiles of 4, 8 and 12 chunks
//                                  under six poll schedules, at 2^26, 2^27, 2^28, 2^30)
//          /tmp/ceiling once 28    (each row twice at 2^28, untimed: for ncu)
#include <cuda/barrier>
#include <cuda/ptx>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
namespace ptx = cuda::ptx;
using Plus = scanlab::Plus<int>;
using Chunk = sp::TileShape<int, 128, 16>;  // chapter 11's default chunk
constexpr int kChunks = 4;
constexpr int kTileItems = kChunks * Chunk::TILE_ITEMS;
constexpr std::size_t kStageBytes = sizeof(int) * kTileItems;

// ---- copies -----------------------------------------------------------------------------------

using RegisterShape = sp::TileShape<int, 128, 32>;

__global__ void __launch_bounds__(128) copy_registers(const int* in, int* out) {
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * RegisterShape::TILE_ITEMS;
  int items[RegisterShape::ITEMS];
  sp::load_staged_tile<RegisterShape>(in + start, items);  // (a plain vector load, here from global memory)
  sp::store_full_tile<RegisterShape>(out + start, items, true);
}

// Thread 0 stages the tile's chunks as chapter 11 does; every thread waits for them.
__device__ __forceinline__ void stage_chunks(ch11::Barrier (&landed)[kChunks], int* stage, const int* tile_in,
                                             ch11::Token (&tokens)[kChunks]) {
  if (threadIdx.x == 0) {
    for (int c = 0; c < kChunks; ++c) init(&landed[c], Chunk::BLOCK_THREADS);
  }
  __syncthreads();
  ch11::stage_tile<kChunks, Chunk::TILE_ITEMS>(landed, stage, tile_in, tokens);
}

// Chapter 11's tile staged by bulk copies, then written out by the threads from shared memory
// (BULK_STORE false), or by thread 0 with one bulk copy per chunk (true: no thread touches the data).
template <bool BULK_STORE>
__global__ void __launch_bounds__(128) copy_staged(const int* in, int* out) {
  extern __shared__ __align__(128) unsigned char stage_bytes[];
  int* stage = reinterpret_cast<int*>(stage_bytes);
  __shared__ ch11::Barrier landed[kChunks];
  ch11::Token tokens[kChunks];
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * kTileItems;
  stage_chunks(landed, stage, in + start, tokens);
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    int* chunk_out = out + start + c * Chunk::TILE_ITEMS;
    if constexpr (BULK_STORE) {
      landed[c].wait(std::move(tokens[c]));
      if (threadIdx.x == 0) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, chunk_out, stage + c * Chunk::TILE_ITEMS,
                           static_cast<unsigned>(sizeof(int) * Chunk::TILE_ITEMS));
        ptx::cp_async_bulk_commit_group();
      }
    } else {
      int items[Chunk::ITEMS];
      ch11::read_staged_chunk<Chunk>(landed[c], tokens[c], stage + c * Chunk::TILE_ITEMS, items);
      sp::store_full_tile<Chunk>(chunk_out, items, true);
    }
  }
  if constexpr (BULK_STORE) {
    if (threadIdx.x == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});  // shared memory is read before exit
  }
}

// ---- a wider look-back window -----------------------------------------------------------------------
// As sp::lookback_warp, but each lane reads K consecutive predecessors, so one round trip to L2
// covers 32 x K tiles: lane l holds base + l*K .. base + l*K + K-1, lane 31's last is the nearest.
template <int K, class T, class Desc, class Op>
__device__ T lookback_wide(const Desc& desc, unsigned tile, Op op, sp::PollSchedule polls) {
  const int lane = scanlab::lane_id();
  T exclusive = Op::identity();
  sp::PollDelay delay(polls);
  for (long long base = static_cast<long long>(tile) - 32 * K;; base -= 32 * K) {
    T values[K];
    sp::Status status[K];
    unsigned prefix_lanes;
    int my_p;  // this lane's nearest P (largest j), or -1
    while (true) {
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const long long pred = base + lane * K + j;
        status[j] = pred >= 0 ? desc.read(pred, values[j]) : sp::kPrefix;
        if (pred < 0) values[j] = Op::identity();
      }
      my_p = -1;
#pragma unroll
      for (int j = 0; j < K; ++j)
        if (status[j] == sp::kPrefix) my_p = j;
      prefix_lanes = __ballot_sync(scanlab::kFullWarpMask, my_p >= 0);
      const int nearest_lane = prefix_lanes ? 31 - __clz(static_cast<int>(prefix_lanes)) : -1;
      bool waiting = false;  // a predecessor after the nearest P is still X
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const bool needed = lane > nearest_lane || (lane == nearest_lane && j > my_p);
        waiting |= needed && status[j] == sp::kInvalid;
      }
      if (__ballot_sync(scanlab::kFullWarpMask, waiting) == 0) break;
      delay.wait();
    }
    const int nearest_lane = prefix_lanes ? 31 - __clz(static_cast<int>(prefix_lanes)) : -1;
    T mine = Op::identity();
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const bool counted = lane > nearest_lane || (lane == nearest_lane && j >= my_p);
      if (counted) mine = op(mine, values[j]);
    }
    exclusive = op(scanlab::warp_reduce(mine, op), exclusive);
    if (prefix_lanes != 0) return exclusive;
  }
}

// publish_and_look_back with a window of 32 x K (K = 1: the library's).
template <int K, class T, class Desc, class Op>
__device__ T publish_and_look_back_wide(Desc& desc, unsigned tile, const T& aggregate, Op op, sp::PollSchedule polls) {
  if constexpr (K == 1) {
    return sp::publish_and_look_back<sp::Lookback::warp>(desc, tile, aggregate, op, polls);
  } else {
    const int lane = scanlab::lane_id();
    if (tile == 0) {
      if (lane == 0) desc.publish(0, sp::kPrefix, aggregate);
      return Op::identity();
    }
    if (lane == 0) desc.publish(tile, sp::kAggregate, aggregate);
    const T exclusive = lookback_wide<K, T>(desc, tile, op, polls);
    if (lane == 0) desc.publish(tile, sp::kPrefix, op(exclusive, aggregate));
    return exclusive;
  }
}

// ---- chapter 11's kernel, in parts --------------------------------------------------------------
// As ch11::async_copy_scan_kernel (full tiles only: n a multiple of the tile here), with its parts
// switched off one at a time to see what each costs: LOOK_BACK false publishes nothing and takes
// the identity for the tile's prefix (the output is then wrong past tile 0); SCAN false skips pass
// 1 and the scans of pass 2 (only the prefix is added, so the look-back waits on the same things
// with a zero aggregate); BULK_STORE true puts each scanned chunk back where it was staged and has
// thread 0 store it with one bulk copy (cp.async.bulk shared -> global) instead of the threads.
template <bool LOOK_BACK, bool SCAN, bool BULK_STORE, int K, class Desc>
__global__ void __launch_bounds__(128)
    ch11_parts(const int* in, int* out, Desc descriptors, sp::Ticket ticket, sp::PollSchedule polls) {
  extern __shared__ __align__(128) unsigned char stage_bytes[];
  int* stage = reinterpret_cast<int*>(stage_bytes);
  __shared__ ch11::Barrier landed[kChunks];
  __shared__ unsigned tile_slot;
  __shared__ int warp_totals[kChunks][Chunk::WARPS];
  __shared__ int tile_prefix;
  Plus op;
  if (threadIdx.x == 0) {
    for (int c = 0; c < kChunks; ++c) init(&landed[c], Chunk::BLOCK_THREADS);
    tile_slot = atomicAdd(ticket.counter, 1u);
  }
  __syncthreads();
  const unsigned tile = tile_slot;
  const std::size_t start = static_cast<std::size_t>(tile) * kTileItems;
  ch11::Token tokens[kChunks];
  ch11::stage_tile<kChunks, Chunk::TILE_ITEMS>(landed, stage, in + start, tokens);
  const int warp = scanlab::warp_id();
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    int items[Chunk::ITEMS];
    ch11::read_staged_chunk<Chunk>(landed[c], tokens[c], stage + c * Chunk::TILE_ITEMS, items);
    if constexpr (SCAN) {
      sp::ThreadSeeds<Chunk, int> seeds;
      const int warp_total = sp::warp_segment_scan<Chunk>(items, seeds, op);
      if (scanlab::lane_id() == 0) warp_totals[c][warp] = warp_total;
    }
  }
  int aggregate = 0;
  int before[kChunks] = {};
  if constexpr (SCAN) {
    __syncthreads();
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
      before[c] = aggregate;
#pragma unroll
      for (int w = 0; w < Chunk::WARPS; ++w) {
        if (w == warp) before[c] = aggregate;
        aggregate = op(aggregate, warp_totals[c][w]);
      }
    }
  }
  if (warp == 0) {
    int exclusive = 0;
    if constexpr (LOOK_BACK) {
      Desc desc = descriptors;
      exclusive = publish_and_look_back_wide<K>(desc, tile, aggregate, op, polls);
    }
    if (threadIdx.x == 0) tile_prefix = exclusive;
  }
  __syncthreads();
  const int prefix = tile_prefix;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    int* chunk = stage + c * Chunk::TILE_ITEMS;
    int items[Chunk::ITEMS];
    sp::load_staged_tile<Chunk>(chunk, items);
    if constexpr (SCAN) {
      sp::ThreadSeeds<Chunk, int> seeds;
      (void)sp::warp_segment_scan<Chunk>(items, seeds, op);
      sp::scan_thread_runs<false, Chunk>(items, seeds, op(prefix, before[c]), op);
    } else {
#pragma unroll
      for (int i = 0; i < Chunk::ITEMS; ++i) items[i] += prefix;
    }
    if constexpr (BULK_STORE) {
      // Back where this thread read them (the same 16-byte vectors), then visible to the copy engine.
      uint4* vectors = reinterpret_cast<uint4*>(chunk + Chunk::offset(warp, scanlab::lane_id(), 0, 0));
#pragma unroll
      for (int r = 0; r < Chunk::ROWS; ++r) std::memcpy(&vectors[r * 32], &items[r * Chunk::VEC], 16);
      ptx::fence_proxy_async(ptx::space_shared);
      __syncthreads();
      if (threadIdx.x == 0) {
        ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out + start + c * Chunk::TILE_ITEMS, chunk,
                           static_cast<unsigned>(sizeof(int) * Chunk::TILE_ITEMS));
        ptx::cp_async_bulk_commit_group();
      }
    } else {
      sp::store_full_tile<Chunk>(out + start + c * Chunk::TILE_ITEMS, items, true);
    }
  }
  sp::clear_stale(ticket);
  if constexpr (BULK_STORE) {
    if (threadIdx.x == 0) ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});  // shared memory read before exit
  }
}

// One launch of a ch11_parts kernel on its own descriptors.
template <bool LOOK_BACK, bool SCAN, bool BULK_STORE, int K = 1>
struct Parts {
  using Desc = ch11::AsyncCopyScan<int>::Desc;
  static constexpr auto kDesc = ch11::AsyncCopyScan<int>::kDescriptors;
  sp::DescriptorStorage<int, kDesc, Desc> storage;
  std::size_t resident = 0;
  explicit Parts(std::size_t max_n) : storage(max_n / kTileItems) {
    auto k = ch11_parts<LOOK_BACK, SCAN, BULK_STORE, K, Desc>;
    SCANLAB_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStageBytes)));
    resident = scanlab::resident_blocks(k, 128, kStageBytes);
  }
  void run(const int* in, int* out, std::size_t n, sp::PollSchedule schedule = sp::kDefaultPolls) {
    const std::size_t tiles = n / kTileItems;
    const auto launch = storage.next_launch(tiles, 0);
    const auto polls = sp::polls_for_grid(schedule, tiles, resident);
    ch11_parts<LOOK_BACK, SCAN, BULK_STORE, K, Desc>
        <<<static_cast<unsigned>(tiles), 128, kStageBytes>>>(in, out, launch.desc, launch.ticket, polls);
    SCANLAB_CHECK_LAUNCH();
    storage.launched();
  }
};

// ---- timing and checking --------------------------------------------------------------------------

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "parts";
  const bool once = mode == "once", grid = mode == "grid";
  std::vector<int> logs = grid ? std::vector<int>{26, 27, 28, 30} : std::vector<int>{26, 28, 30};
  if (once) logs = {argc > 2 ? std::atoi(argv[2]) : 28};
  const std::size_t max_n = std::size_t{1} << *std::max_element(logs.begin(), logs.end());
  int *in, *out;
  SCANLAB_CUDA_CHECK(cudaMalloc(&in, max_n * sizeof(int)));
  SCANLAB_CUDA_CHECK(cudaMalloc(&out, max_n * sizeof(int)));
  const std::vector<int> h_in = probe_input(max_n);
  SCANLAB_CUDA_CHECK(cudaMemcpy(in, h_in.data(), max_n * sizeof(int), cudaMemcpyHostToDevice));
  SCANLAB_CUDA_CHECK(
      cudaFuncSetAttribute(copy_staged<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStageBytes)));
  SCANLAB_CUDA_CHECK(
      cudaFuncSetAttribute(copy_staged<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kStageBytes)));

  ch11::AsyncCopyScan<int> scan(max_n);
  Parts<true, true, false> parts_all(max_n);
  Parts<false, false, false> parts_none(max_n);
  Parts<true, false, false> parts_look_back(max_n);
  Parts<false, true, false> parts_scan(max_n);
  Parts<true, true, true> parts_bulk_store(max_n);
  Parts<true, true, false, 2> parts_window64(max_n);
  Parts<true, true, false, 4> parts_window128(max_n);
  ch11::AsyncCopyScan<int, ch11::Policy<128, 16, 8>> scan8(max_n);
  ch11::AsyncCopyScan<int, ch11::Policy<128, 16, 12>> scan12(max_n);
  cudaDeviceProp prop;
  SCANLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs; chapter 11's kernel: %zu blocks per SM\n", prop.name, prop.multiProcessorCount,
              parts_all.resident / prop.multiProcessorCount);

  const ch11::Options staged_always = ch11::kStageEverySize;
  const ch11::Options registers_always = {sp::kDefaultPolls, std::numeric_limits<std::size_t>::max()};
  for (int lg : logs) {
    const std::size_t n = std::size_t{1} << lg;
    const unsigned tiles = static_cast<unsigned>(n / kTileItems);
    // A row: its name, what its output must be (kCopy, kScan, or kUnchecked: a part's timing only)
    // and one run of it.
    enum Check { kUnchecked = -1, kCopy = 0, kScan = 1 };
    struct Row {
      std::string name;
      int check;
      std::function<void()> run;
    };
    std::vector<Row> rows;
    auto add = [&](std::string name, int check, std::function<void()> run) {
      rows.push_back({std::move(name), check, std::move(run)});
    };
    const unsigned register_tiles = static_cast<unsigned>(n / RegisterShape::TILE_ITEMS);
    add("copy", kCopy, [&] {
      SCANLAB_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(int), cudaMemcpyDeviceToDevice));
    });
    if (grid) {  // chapter 11's scan object: tiles of 4, 8 and 12 chunks under several poll schedules
      add("ch07", kScan, [&] {
        scan.exclusive(in, out, n, Plus{}, 0, registers_always);
      });
      const std::vector<sp::PollSchedule> schedules = {{2800, 900}, {4200, 300}, {5600, 300},
                                                       {8400, 300}, {5600, 900}, {8400, 900}};
      for (const sp::PollSchedule polls : schedules) {
        const ch11::Options o = {polls, 0};
        const std::string p = std::to_string(polls.first_ns) + "/" + std::to_string(polls.every_ns);
        add("ch11 x4 " + p, kScan, [&, o] {
          scan.exclusive(in, out, n, Plus{}, 0, o);
        });
        add("ch11 x8 " + p, kScan, [&, o] {
          scan8.exclusive(in, out, n, Plus{}, 0, o);
        });
        add("ch11 x12 " + p, kScan, [&, o] {
          scan12.exclusive(in, out, n, Plus{}, 0, o);
        });
      }
    } else {
      add("copy_registers", kCopy, [&] {
        copy_registers<<<register_tiles, 128>>>(in, out);
      });
      add("copy_staged", kCopy, [&] {
        copy_staged<false><<<tiles, 128, kStageBytes>>>(in, out);
      });
      add("copy_bulk", kCopy, [&] {
        copy_staged<true><<<tiles, 128, kStageBytes>>>(in, out);
      });
      add("ch07", kScan, [&] {
        scan.exclusive(in, out, n, Plus{}, 0, registers_always);
      });
      add("ch11", kScan, [&] {
        scan.exclusive(in, out, n, Plus{}, 0, staged_always);
      });
      add("ch11 two tiles", kScan, [&] {
        scan.exclusive(in, out, n, Plus{}, 0, ch11::kTwoTilesEverySize);
      });
      add("parts: staging", kCopy, [&] {
        parts_none.run(in, out, n);
      });
      // With a zero aggregate the look-back's output is the input; without it the scan's is wrong.
      add("parts: +look-back", kCopy, [&] {
        parts_look_back.run(in, out, n);
      });
      add("parts: +scan", kUnchecked, [&] {
        parts_scan.run(in, out, n);
      });
      add("parts: all", kScan, [&] {
        parts_all.run(in, out, n);
      });
      add("parts: bulk store", kScan, [&] {
        parts_bulk_store.run(in, out, n);
      });
      for (const sp::PollSchedule polls :
           std::vector<sp::PollSchedule>{{2800, 900}, {0, 0}, {1000, 300}, {4200, 300}}) {
        const std::string p = " polls " + std::to_string(polls.first_ns) + "/" + std::to_string(polls.every_ns);
        if (polls.first_ns != 2800)
          add("w32" + p, kScan, [&, polls] {
            parts_all.run(in, out, n, polls);
          });
        if (polls.first_ns == 4200) continue;
        add("w64" + p, kScan, [&, polls] {
          parts_window64.run(in, out, n, polls);
        });
        add("w128" + p, kScan, [&, polls] {
          parts_window128.run(in, out, n, polls);
        });
      }
    }
    float copy_ms = 0;
    for (const Row& r : rows) {
      SCANLAB_CUDA_CHECK(cudaMemset(out, 0xff, n * sizeof(int)));
      if (once) {
        r.run();
        r.run();
        SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
        std::printf("2^%d %-20s %s\n", lg, r.name.c_str(), check_copy_or_sum(h_in, out, n, r.check));
        continue;
      }
      const float ms = median_ms(r.run);
      SCANLAB_CUDA_CHECK(cudaGetLastError());
      if (copy_ms == 0) copy_ms = ms;
      std::printf("2^%d %-20s %8.4f ms  %7.1f GB/s  x copy %.3f  %s\n", lg, r.name.c_str(), ms,
                  2.0 * n * sizeof(int) / ms / 1e6, copy_ms / ms, check_copy_or_sum(h_in, out, n, r.check));
    }
  }
  SCANLAB_CUDA_CHECK(cudaFree(in));
  SCANLAB_CUDA_CHECK(cudaFree(out));
  return 0;
}
