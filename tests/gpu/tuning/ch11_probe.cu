// Chapter 11's first measurement: the warp-specialised, bulk-copy-staged scan against a
// device-to-device copy, cub::DeviceScan::ExclusiveSum and chapter 07, in one process, int32
// exclusive sums, every output checked against CUB's. Built by hand on a GPU machine:
//   nvcc -O3 -std=c++20 -arch=sm_90a -Icommon/include -Ichapters/07_decoupled_lookback
//        -Isolutions/07_decoupled_lookback -Ichapters/11_async_copy_scan -Isolutions/11_async_copy_scan
//        tests/gpu/tuning/ch11_probe.cu tests/gpu/tuning/ch11_probe_ch07.cu -o /tmp/ch11_probe
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/single_pass/descriptor_storage.cuh>

#include "async_copy_scan_dispatch.cuh"  // the chapter's kernel (chapters/ and solutions/11_async_copy_scan)
#include "ch11_probe_kernels.cuh"
#include "sweep_timing.cuh"  // median_ms

using Plus = scanlab::Plus<int>;
void ch07_exclusive_sum(const int* in, int* out, std::size_t n, std::size_t max_n);  // ch11_probe_ch07.cu

template <int THREADS, int ITEMS, int STAGES, int MINB>
struct Specialized {
  using Shape = scanlab::single_pass::TileShape<int, THREADS, ITEMS>;
  using Desc = scanlab::single_pass::TileDescriptors<int, scanlab::single_pass::Descriptors::fused>;
  static constexpr std::size_t kRing = STAGES * sizeof(int) * Shape::TILE_ITEMS;
  scanlab::single_pass::DescriptorStorage<int, scanlab::single_pass::Descriptors::fused, Desc> storage;
  unsigned grid = 0;
  explicit Specialized(std::size_t max_n) : storage((max_n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS) {
    auto k = ch11::specialized_scan_kernel<Shape, STAGES, MINB, false, int, Desc, Plus>;
    SCANLAB_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kRing));
    grid = static_cast<unsigned>(scanlab::resident_blocks(k, THREADS + 32, kRing));
  }
  void run(const int* in, int* out, std::size_t n) {
    const std::size_t tiles = (n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS;
    // These kernels do not clear the other side: without launched(), each launch is given a memset.
    const auto launch = storage.next_launch(tiles, 0);
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(grid, tiles));
    const auto polls = scanlab::single_pass::polls_for_grid(scanlab::single_pass::kDefaultPolls, tiles, grid);
    ch11::specialized_scan_kernel<Shape, STAGES, MINB, false, int, Desc, Plus>
        <<<blocks, THREADS + 32, kRing>>>(in, out, n, launch.desc, launch.ticket.counter, true, polls, Plus{});
    SCANLAB_CUDA_CHECK(cudaGetLastError());
  }
};

template <int ITEMS, int WARPS, int SPW, int MINB>
struct WarpTiled {
  using Shape = scanlab::single_pass::TileShape<int, 32, ITEMS>;
  using Desc = scanlab::single_pass::TileDescriptors<int, scanlab::single_pass::Descriptors::fused>;
  static constexpr std::size_t kRing = WARPS * SPW * sizeof(int) * Shape::TILE_ITEMS;
  scanlab::single_pass::DescriptorStorage<int, scanlab::single_pass::Descriptors::fused, Desc> storage;
  unsigned grid = 0;
  explicit WarpTiled(std::size_t max_n) : storage((max_n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS) {
    auto k = ch11::warp_tile_scan_kernel<Shape, WARPS, SPW, MINB, false, int, Desc, Plus>;
    SCANLAB_CUDA_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)kRing));
    grid = static_cast<unsigned>(scanlab::resident_blocks(k, 32 * (WARPS + 1), kRing));
  }
  void run(const int* in, int* out, std::size_t n) {
    const std::size_t tiles = (n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS;
    const auto launch = storage.next_launch(tiles, 0);  // (a memset each time, as above)
    const std::size_t need = (tiles + WARPS - 1) / WARPS;
    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>(grid, need));
    const auto polls = scanlab::single_pass::polls_for_grid(scanlab::single_pass::kDefaultPolls, tiles, grid * WARPS);
    ch11::warp_tile_scan_kernel<Shape, WARPS, SPW, MINB, false, int, Desc, Plus>
        <<<blocks, 32 * (WARPS + 1), kRing>>>(in, out, n, launch.desc, launch.ticket.counter, true, polls, Plus{});
    SCANLAB_CUDA_CHECK(cudaGetLastError());
  }
};

// The chapter's scan object, one policy per row.
template <int THREADS, int ITEMS, int CHUNKS, int MINB>
struct Chunked {
  ch11::AsyncCopyScan<int, ch11::Policy<THREADS, ITEMS, CHUNKS>> scan;
  explicit Chunked(std::size_t max_n) : scan(max_n) {}
  void run(const int* in, int* out, std::size_t n) { scan.exclusive(in, out, n, Plus{}); }
};

int main(int argc, char** argv) {
  const int max_log = argc > 1 ? std::atoi(argv[1]) : 30;
  const std::size_t max_n = std::size_t{1} << max_log;
  int *in, *out, *ref;
  SCANLAB_CUDA_CHECK(cudaMalloc(&in, max_n * 4));
  SCANLAB_CUDA_CHECK(cudaMalloc(&out, max_n * 4));
  SCANLAB_CUDA_CHECK(cudaMalloc(&ref, max_n * 4));
  {
    std::vector<int> h(max_n);
    unsigned x = 12345;
    for (auto& v : h) {
      x = x * 1664525u + 1013904223u;
      v = static_cast<int>(x >> 20) - 2048;
    }
    SCANLAB_CUDA_CHECK(cudaMemcpy(in, h.data(), max_n * 4, cudaMemcpyHostToDevice));
  }
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  SCANLAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, ref, max_n));
  SCANLAB_CUDA_CHECK(cudaMalloc(&temp, temp_bytes));
  Specialized<128, 32, 2, 1> s_128_32_2(max_n);
  WarpTiled<64, 4, 2, 1> w_64_4_2(max_n);
  Chunked<128, 16, 4, 1> c_128_16_4(max_n);
  Chunked<128, 32, 2, 1> c_128_32_2(max_n);
  Chunked<128, 32, 4, 1> c_128_32_4(max_n);
  Chunked<256, 16, 4, 1> c_256_16_4(max_n);
  Chunked<128, 16, 8, 1> c_128_16_8(max_n);
  std::printf("resident blocks: %u (draft 1) | %u (draft 2); CUB %d.%d.%d\n", s_128_32_2.grid, w_64_4_2.grid,
              CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION);
  std::printf("%-6s %9s %9s %9s | x copy: %6s %6s | %-12s %9s %6s %6s\n", "log2n", "copy ms", "cub ms", "ch07 ms",
              "cub", "ch07", "ch11 config", "ms", "xcopy", "xcub");
  std::vector<int> a, b;
  for (int lg = 16; lg <= max_log; lg += 2) {
    const std::size_t n = std::size_t{1} << lg;
    const float copy = median_ms([&] {
      SCANLAB_CUDA_CHECK(cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice));
    });
    const float cubt = median_ms([&] {
      SCANLAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, ref, n));
    });
    const float c07 = median_ms([&] {
      ch07_exclusive_sum(in, out, n, max_n);
    });
    auto report = [&](const char* name, auto& s) {
      SCANLAB_CUDA_CHECK(cudaMemset(out, 0xAB, n * 4));
      s.run(in, out, n);
      SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
      a.resize(n);
      b.resize(n);
      SCANLAB_CUDA_CHECK(cudaMemcpy(a.data(), out, n * 4, cudaMemcpyDeviceToHost));
      SCANLAB_CUDA_CHECK(cudaMemcpy(b.data(), ref, n * 4, cudaMemcpyDeviceToHost));
      const bool ok = a == b;
      const float t = median_ms([&] {
        s.run(in, out, n);
      });
      std::printf("%-6d %9.4f %9.4f %9.4f | x copy: %6.3f %6.3f | %-12s %9.4f %6.3f %6.3f %s\n", lg, copy, cubt, c07,
                  copy / cubt, copy / c07, name, t, copy / t, cubt / t, ok ? "ok" : "WRONG");
    };
    SCANLAB_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, ref, n));
    report("128x32 s2", s_128_32_2);
    report("w64 4x2", w_64_4_2);
    report("c128x16 x4", c_128_16_4);
    report("c128x32 x2", c_128_32_2);
    report("c128x32 x4", c_128_32_4);
    report("c256x16 x4", c_256_16_4);
    report("c128x16 x8", c_128_16_8);
  }
  return 0;
}
