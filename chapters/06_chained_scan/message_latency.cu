// How long one message takes from one SM to another through the memory system: the number that
// caps the chained scan of chapter 06 (Merrill and Garland, NVR-2016-002, section 3.2, assume 600
// cycles on a Tesla C2050).
//
// Two blocks play ping-pong through global memory: block 0 writes k into a word when it reads k - 1
// there, block 1 writes k + 1 when it reads k, `hops` times in all. Each block asks for more than
// half of an SM's shared memory, so the two cannot share an SM. The kernel's time divided by the
// number of hops is the latency of one hop: a store on one SM becoming visible to a polling load on
// another. Two ways of publishing are measured, as the chapters use them:
//   fused   the value itself is the flag: one volatile store, one volatile polling load
//   fenced  value, __threadfence(), flag (the reader polls the flag, then reads the value)
// It then prints the chained scan's throughput cap for a few tile sizes: tile / hop latency.
//   nvcc -std=c++17 -arch=sm_90 message_latency.cu -o message_latency && ./message_latency [hops]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                                   \
  do {                                                                                                                \
    cudaError_t e_ = (call);                                                                                          \
    if (e_ != cudaSuccess) {                                                                                          \
      std::printf("CUDA error %s (%s) at %s:%d\n", cudaGetErrorName(e_), cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                                                   \
    }                                                                                                                 \
  } while (0)

struct Mailbox {
  unsigned flag;
  unsigned value;
};

// Block b answers odd (b = 1) or even (b = 0) message numbers. Thread 0 of each block plays.
__global__ void ping_pong(Mailbox* box, unsigned hops, bool fenced, unsigned* checksum) {
  extern __shared__ unsigned char hog[];  // only to keep the two blocks on different SMs
  if (threadIdx.x != 0) return;
  hog[0] = 0;
  const unsigned me = blockIdx.x;
  volatile Mailbox* b = box;
  unsigned sum = 0;
  for (unsigned k = me + 1; k <= hops; k += 2) {
    if (fenced) {
      while (b->flag != k - 1) {
      }
      __threadfence();
      sum += b->value;
      b->value = k;
      __threadfence();
      b->flag = k;
    } else {
      while (b->value != k - 1) {
      }
      b->value = k;
    }
  }
  atomicAdd(checksum, sum + hog[0]);
}

int main(int argc, char** argv) {
  const unsigned hops = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 200000u;
  if (hops < 2) {
    std::fprintf(stderr, "usage: message_latency [hops >= 2]\n");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  int smem_optin = 0;
  CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  int smem_per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  // More than half an SM's shared memory per block: two blocks cannot be resident on one SM.
  const int hog = std::min(smem_optin, smem_per_sm / 2 + 1024);
  CHECK(cudaFuncSetAttribute(ping_pong, cudaFuncAttributeMaxDynamicSharedMemorySize, hog));

  Mailbox* box;
  unsigned* checksum;
  CHECK(cudaMalloc(&box, sizeof(Mailbox)));
  CHECK(cudaMalloc(&checksum, sizeof(unsigned)));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("message latency on %s (%d SMs, SM clock %.0f MHz), %u hops per run, %d B shared memory per block\n",
              prop.name, prop.multiProcessorCount, clock_khz / 1000.0, hops, hog);
  double best_ns[2] = {0, 0};
  for (int fenced = 0; fenced < 2; ++fenced) {
    std::vector<double> per_hop;
    for (int rep = 0; rep < 7; ++rep) {
      CHECK(cudaMemset(box, 0, sizeof(Mailbox)));
      CHECK(cudaMemset(checksum, 0, sizeof(unsigned)));
      CHECK(cudaEventRecord(start));
      ping_pong<<<2, 32, hog>>>(box, hops, fenced != 0, checksum);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      per_hop.push_back(ms * 1e6 / hops);
    }
    std::sort(per_hop.begin(), per_hop.end());
    const double median = per_hop[per_hop.size() / 2];
    best_ns[fenced] = median;
    std::printf("  %-7s one hop: median %.1f ns (min %.1f, max %.1f over %zu runs) = %.0f SM cycles\n",
                fenced ? "fenced" : "fused", median, per_hop.front(), per_hop.back(), per_hop.size(),
                median * clock_khz / 1e6);
  }
  // The chained scan passes one prefix per tile, one hop each (the fenced protocol of chapter 06).
  std::printf("chained-scan cap = tile / hop latency (fenced hop %.1f ns):\n", best_ns[1]);
  for (const int tile : {256, 1024, 4096, 16384}) {
    const double elems_per_s = tile / (best_ns[1] * 1e-9);
    std::printf("  tile %5d elements: %.2f G elements/s = %.0f GB/s of int32 traffic (read + write)\n", tile,
                elems_per_s / 1e9, elems_per_s * 8 / 1e9);
  }
  std::printf("summary: fused hop %.1f ns, fenced hop %.1f ns\n", best_ns[0], best_ns[1]);
  CHECK(cudaFree(box));
  CHECK(cudaFree(checksum));
  return 0;
}
