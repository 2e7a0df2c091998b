// The erratum of chapter 07, measured: the look-back scan kernel of the scan article (its section
// "Decoupled Lookback: Single-Pass Multi-Block Scan") has two bugs, reproduced here in a kernel of
// the same shape (one element per thread, blocks of 256 threads, one thread looks back):
//
//   1. the block total is computed in ONE lane (the last active lane of warp 0, into a local
//      variable) and published by ANOTHER (thread 0, whose copy of the variable is still 0). With
//      more than one warp per block every tile publishes 0 as its aggregate and as its inclusive
//      prefix, so every element after the first tile misses the sum of the tiles before it;
//   2. tiles are numbered by blockIdx.x, so a block that waits for a lower-numbered block that is
//      not resident can wait forever (the GPU promises no dispatch order);
// and a third, rarer one: one value field holds the aggregate and is then overwritten with the
// inclusive prefix, so a reader that saw status A can read the inclusive prefix as the aggregate.
//
// This program runs the buggy kernel and a corrected one (total broadcast through shared memory,
// tile number from an atomic ticket, the inclusive prefix in its own field) on the same input and prints how many
// outputs are wrong.
//   nvcc -std=c++17 -arch=sm_90 article_erratum.cu -o article_erratum && ./article_erratum [n]
//   ./lab sim chapters/07_decoupled_lookback/article_erratum.cu        (the emulator)
#include <cuda_runtime.h>

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

constexpr int kBlock = 256;
enum : int { kX = 0, kA = 1, kP = 2 };
struct Descriptor {
  int value;  // the article's one field: the aggregate, later overwritten by the inclusive prefix
  int status;
  int inclusive;  // the corrected kernel keeps the inclusive prefix apart (see below)
};

__device__ int warp_inclusive_sum(int x) {
  const int lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d *= 2) {
    const int y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x += y;
  }
  return x;
}

// fixed = false: the article's two bugs. fixed = true: the total comes from shared memory and the
// tile number from a ticket. Everything else is the same.
__global__ void lookback_one_per_thread(const int* in, int* out, int n, volatile Descriptor* desc, unsigned* ticket,
                                        bool fixed) {
  __shared__ int warp_sums[32];
  __shared__ int total_shared;
  __shared__ int prefix_shared;
  __shared__ unsigned tile_shared;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid / 32, warps = blockDim.x / 32;
  if (tid == 0) tile_shared = fixed ? atomicAdd(ticket, 1u) : blockIdx.x;
  __syncthreads();
  const int tile = static_cast<int>(tile_shared);
  const int i = tile * kBlock + tid;
  const int x = i < n ? in[i] : 0;
  const int inclusive = warp_inclusive_sum(x);
  if (lane == 31) warp_sums[warp] = inclusive;
  __syncthreads();
  int block_total = 0;  // BUG 1 (fixed == false): only one lane of warp 0 ever sets it
  if (warp == 0) {
    const int s = warp_inclusive_sum(lane < warps ? warp_sums[lane] : 0);
    warp_sums[lane] = s;
    if (lane == warps - 1) {
      block_total = s;
      total_shared = s;
    }
  }
  __syncthreads();
  if (fixed) block_total = total_shared;
  if (tid == 0) {
    desc[tile].value = block_total;  // published by thread 0: 0 in the buggy kernel when warps > 1
    __threadfence();
    desc[tile].status = tile == 0 ? kP : kA;
    int prefix = 0;
    for (int p = tile - 1; p >= 0; --p) {  // BUG 2 (fixed == false): p's block may never be resident
      int status;
      while ((status = desc[p].status) == kX) {
      }
      __threadfence();
      prefix += (fixed && status == kP && p > 0) ? desc[p].inclusive : desc[p].value;
      if (status == kP) break;
    }
    prefix_shared = prefix;
    if (tile > 0) {
      // The article overwrites the aggregate with the inclusive prefix: a reader that saw A and reads
      // the value just after this store adds the inclusive prefix as if it were an aggregate (a third,
      // rarer race). The corrected kernel writes a separate field.
      if (fixed) desc[tile].inclusive = prefix + block_total;
      else desc[tile].value = prefix + block_total;
      __threadfence();
      desc[tile].status = kP;
    }
  }
  __syncthreads();
  const int warp_prefix = warp > 0 ? warp_sums[warp - 1] : 0;
  if (i < n) out[i] = prefix_shared + warp_prefix + inclusive - x;  // exclusive
}

long long run(const std::vector<int>& in, bool fixed) {
  const int n = static_cast<int>(in.size());
  const int tiles = (n + kBlock - 1) / kBlock;
  int *d_in, *d_out;
  Descriptor* d_desc;
  unsigned* d_ticket;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_desc, tiles * sizeof(Descriptor)));
  CHECK(cudaMalloc(&d_ticket, sizeof(unsigned)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0xCD, n * sizeof(int)));
  CHECK(cudaMemset(d_desc, 0, tiles * sizeof(Descriptor)));
  CHECK(cudaMemset(d_ticket, 0, sizeof(unsigned)));
  lookback_one_per_thread<<<tiles, kBlock>>>(d_in, d_out, n, d_desc, d_ticket, fixed);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long wrong = 0, sum = 0;
  long long first = -1;
  for (int i = 0; i < n; ++i) {
    if (out[i] != static_cast<int>(sum)) {
      ++wrong;
      if (first < 0) first = i;
    }
    sum += in[i];
  }
  std::printf("%-48s %lld of %d outputs wrong",
              fixed ? "corrected (shared total, ticket):" : "as in the article (total in one lane, blockIdx):", wrong,
              n);
  if (first >= 0) std::printf(", first at index %lld", first);
  std::printf("\n");
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_desc));
  CHECK(cudaFree(d_ticket));
  return wrong;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 20);
  if (n < 1) {
    std::fprintf(stderr, "usage: article_erratum [n >= 1]\n");
    return 2;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("article erratum on %s: exclusive sum of %d ints (values 1..9), blocks of %d threads (%d warps)\n",
              prop.name, n, kBlock, kBlock / 32);
  std::vector<int> in(n);
  unsigned s = 12345u;
  for (int& v : in) v = static_cast<int>((s = s * 1664525u + 1013904223u) >> 28) % 9 + 1;
  const long long buggy = run(in, false);
  const long long fixed = run(in, true);
  std::printf("summary: article kernel %lld wrong (%.2f%%), corrected kernel %lld wrong\n", buggy,
              100.0 * static_cast<double>(buggy) / n, fixed);
  return fixed == 0 ? 0 : 1;
}
