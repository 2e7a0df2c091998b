// scanlab_emu_speed: measures the CPU SIMT emulator's throughput on the two figures issue 2 sets
// targets for, on one core:
//   threads/s                 emulated CUDA threads per second for a kernel with one barrier
//                             (each thread loads, __syncthreads, stores; blocks of 256)
//   thread-barrier passes/s   threads x __syncthreads passed per second (k barriers in a loop)
// Each figure is the best of several timed runs around launch + synchronize, after a warm-up launch
// that fills the emulator's fiber pool. Launches run on the calling OS thread, so that thread's CPU
// time is the one-core cost even on a busy machine; the wall-clock figure is printed beside it.
// Usage: scanlab_emu_speed [--quick]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"

namespace {

constexpr int kBlock = 256;

// One barrier: the value a thread stores comes from its mirror thread, so the barrier is needed.
__global__ void load_barrier_store(const int* in, int* out) {
  __shared__ int tile[kBlock];
  const int i = int(blockIdx.x) * kBlock + int(threadIdx.x);
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[kBlock - 1 - int(threadIdx.x)] + 1;
}

// k barriers in a loop, with a little shared-memory traffic between them so the loop is not empty.
__global__ void barrier_loop(int* out, int k) {
  __shared__ int slot[kBlock];
  int acc = int(threadIdx.x);
  for (int r = 0; r < k; ++r) {
    slot[threadIdx.x] = acc;
    __syncthreads();
    acc += slot[(threadIdx.x + 1) % kBlock] & 1;
  }
  out[blockIdx.x * kBlock + threadIdx.x] = acc;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Best {
  double cpu = 1e30, wall = 1e30;
};

template <class F>
Best best_seconds(int runs, F&& launch) {
  launch();  // warm-up
  SCANLAB_CHECK_SYNC();
  Best best;
  for (int r = 0; r < runs; ++r) {
    const double c0 = thread_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = thread_cpu_seconds();
    best.cpu = std::min(best.cpu, c1 - c0);
    best.wall = std::min(best.wall, std::chrono::duration<double>(t1 - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  const int blocks = quick ? 256 : 2048;  // 2048 x 256 = 524288 threads per launch
  const int loop_blocks = quick ? 16 : 64, k = quick ? 16 : 64;
  const int runs = quick ? 2 : 5;
  const std::size_t n = std::size_t(blocks) * kBlock;

  try {
    int *in = nullptr, *out = nullptr;
    SCANLAB_CUDA_CHECK(cudaMalloc(&in, n * sizeof(int)));
    SCANLAB_CUDA_CHECK(cudaMalloc(&out, n * sizeof(int)));
    std::vector<int> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = int(i * 2654435761u);
    SCANLAB_CUDA_CHECK(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    const Best t_one = best_seconds(runs, [&] {
      load_barrier_store<<<blocks, kBlock>>>(in, out);
    });
    // A wrong result would make the figure meaningless: check it.
    std::vector<int> got(n);
    SCANLAB_CUDA_CHECK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t b = i / kBlock, t = i % kBlock;
      if (got[i] != host[b * kBlock + (kBlock - 1 - t)] + 1) {
        std::fprintf(stderr, "scanlab_emu_speed: wrong result at %zu\n", i);
        return 1;
      }
    }
    const Best t_loop = best_seconds(runs, [&] {
      barrier_loop<<<loop_blocks, kBlock>>>(out, k);
    });

    const double threads = double(n), passes = double(loop_blocks) * kBlock * k;
    std::printf("kernel with one barrier: %d blocks x %d threads, best of %d: %.1f ms CPU, %.1f ms wall\n", blocks,
                kBlock, runs, t_one.cpu * 1e3, t_one.wall * 1e3);
    std::printf("threads/s: %.2e  (target >= 1e7 on one core: %s; wall clock: %.2e)\n", threads / t_one.cpu,
                threads / t_one.cpu >= 1e7 ? "met" : "NOT met", threads / t_one.wall);
    std::printf("barrier loop: %d blocks x %d threads x %d __syncthreads, best of %d: %.1f ms CPU, %.1f ms wall\n",
                loop_blocks, kBlock, k, runs, t_loop.cpu * 1e3, t_loop.wall * 1e3);
    std::printf("thread-barrier passes/s: %.2e  (target >= 5e7 on one core: %s; wall clock: %.2e)\n",
                passes / t_loop.cpu, passes / t_loop.cpu >= 5e7 ? "met" : "NOT met", passes / t_loop.wall);
    SCANLAB_CUDA_CHECK(cudaFree(in));
    SCANLAB_CUDA_CHECK(cudaFree(out));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "scanlab_emu_speed: %s\n", e.what());
    return 1;
  }
  return 0;
}
