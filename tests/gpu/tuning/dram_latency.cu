// The latency of one dependent load from DRAM, for the Little's-law arithmetic of chapter 11: one
// thread follows a random cycle through an array far larger than the L2 cache, so every load misses
// and waits for the one before it. Unloaded latency (nothing else runs); under load it is higher.
//   nvcc -O3 -arch=sm_90 tests/gpu/tuning/dram_latency.cu -o /tmp/dram_latency && /tmp/dram_latency
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

__global__ void chase(const unsigned* next, unsigned start, int steps, unsigned* sink, long long* cycles) {
  unsigned i = start;
  const long long t0 = clock64();
  for (int s = 0; s < steps; ++s) i = next[i];
  *cycles = clock64() - t0;
  *sink = i;
}

int main() {
  const std::size_t n = std::size_t{1} << 28;  // 1 GiB of 4-byte indices
  const std::size_t stride = 64;               // one index per 256-byte line: no two steps share a line
  const std::size_t slots = n / stride;
  std::vector<unsigned> order(slots);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(12345));
  std::vector<unsigned> next(n, 0);
  for (std::size_t k = 0; k < slots; ++k) next[order[k] * stride] = order[(k + 1) % slots] * stride;
  unsigned *d_next, *d_sink;
  long long* d_cycles;
  if (cudaMalloc(&d_next, n * 4) != cudaSuccess || cudaMalloc(&d_sink, 4) != cudaSuccess ||
      cudaMalloc(&d_cycles, 8) != cudaSuccess) {
    std::printf("cudaMalloc failed\n");
    return 1;
  }
  cudaMemcpy(d_next, next.data(), n * 4, cudaMemcpyHostToDevice);
  const int steps = 200000;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  chase<<<1, 1>>>(d_next, order[0] * stride, 1000, d_sink, d_cycles);  // warm-up (TLB, clocks)
  cudaEventRecord(a);
  chase<<<1, 1>>>(d_next, order[1] * stride, steps, d_sink, d_cycles);
  cudaEventRecord(b);
  if (cudaEventSynchronize(b) != cudaSuccess) {
    std::printf("kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  long long cycles = 0;
  cudaMemcpy(&cycles, d_cycles, 8, cudaMemcpyDeviceToHost);
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  std::printf("%s: %d dependent loads over 1 GiB: %.1f ns each (events), %.0f SM cycles each\n", p.name, steps,
              ms * 1e6 / steps, double(cycles) / steps);
  return 0;
}
