// A single-pass chained scan (Merrill & Garland's "chained scan", NVR-2016-002 §3.2): one block per
// tile, each tile waits for its predecessor's inclusive prefix, then publishes its own. Small on
// purpose: it is the program the emulator's schedule and weak-memory modes are shown and tested on.
//   chained_scan [--n N] [--blockidx] [--no-fence | --flag-first]
//                [--volatile-read | --plain-read | --fenced-plain-read] [--warp-poll]
// --blockidx   tiles in blockIdx order (deadlocks when a later block is resident before an earlier one)
// --no-fence   publish the prefix, then the flag, with no __threadfence between them (wrong)
// --flag-first publish the flag before the prefix (wrong)
// By default the reader waits for the flag with volatile loads, fences, then loads the prefix with a
// volatile load.
// --volatile-read  the same volatile load of the prefix with no fence before it (wrong: two volatile
//              loads of different words are not ordered without one)
// --plain-read after seeing the flag, read the prefix with a plain (cacheable) load and no fence
//              (wrong: nothing orders that load after the flag's)
// --fenced-plain-read  the same plain load after a __threadfence() (right)
// --warp-poll  the whole first warp waits for the flag, through __ballot_sync over volatile loads
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

constexpr int kTile = 128;
enum Publish { kValueFenceFlag = 0, kValueFlagNoFence = 1, kFlagFirst = 2 };
enum Read { kFenceVolatile = 0, kVolatileNoFence = 1, kPlainNoFence = 2, kFencePlain = 3 };

// The same memory, read through a plain pointer: a load the compiler and the GPU may serve from a
// cache (an SM's L1) that is not kept coherent with other SMs' stores.
__device__ const int* plain(volatile int* p) { return const_cast<const int*>(p); }

__global__ void chained_scan_inclusive(const int* in, int* out, int n, volatile int* flags, volatile int* prefixes,
                                       unsigned* ticket, bool ticketed, int publish, int read, bool warp_poll) {
  __shared__ int s[kTile];
  __shared__ int tile_id;
  __shared__ int carry;
  // --8<-- [start:ticket]
  if (threadIdx.x == 0) tile_id = ticketed ? int(atomicAdd(ticket, 1u)) : int(blockIdx.x);
  __syncthreads();
  const int tile = tile_id;
  // --8<-- [end:ticket]
  const int i = tile * kTile + int(threadIdx.x);
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < kTile; offset *= 2) {  // Hillis-Steele, read then write
    int v = int(threadIdx.x) >= offset ? s[threadIdx.x - offset] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (warp_poll && threadIdx.x < 32 && tile > 0) {
    // Every lane of warp 0 reads the flag; the vote says when one of them saw it set. (Lane 0's own
    // wait below then ends at once.)
    while (__ballot_sync(0xffffffffu, flags[tile - 1] != 0) == 0) {
    }
  }
  // --8<-- [start:publish]
  if (threadIdx.x == 0) {
    int before = 0;
    if (tile > 0) {
      while (flags[tile - 1] == 0) {
      }
      if (read == kFencePlain || read == kFenceVolatile) __threadfence();  // the flag's load before the prefix's
      before = read == kFenceVolatile || read == kVolatileNoFence ? prefixes[tile - 1] : plain(prefixes)[tile - 1];
    }
    const int inclusive = before + s[kTile - 1];
    if (publish == kFlagFirst) {
      flags[tile] = 1;
      prefixes[tile] = inclusive;
    } else {
      prefixes[tile] = inclusive;
      if (publish == kValueFenceFlag) __threadfence();
      flags[tile] = 1;
    }
    carry = before;
  }
  // --8<-- [end:publish]
  __syncthreads();
  if (i < n) out[i] = carry + s[threadIdx.x];
}

#define CHECK(call)                                                                                                   \
  do {                                                                                                                \
    cudaError_t e_ = (call);                                                                                          \
    if (e_ != cudaSuccess) {                                                                                          \
      std::printf("CUDA error %s (%s) at %s:%d\n", cudaGetErrorName(e_), cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                                                                       \
    }                                                                                                                 \
  } while (0)

int main(int argc, char** argv) {
  int n = 64 * kTile;
  bool ticketed = true;
  int publish = kValueFenceFlag;
  int read = kFenceVolatile;
  bool warp_poll = false;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--n") && a + 1 < argc) n = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--blockidx")) ticketed = false;
    else if (!std::strcmp(argv[a], "--no-fence")) publish = kValueFlagNoFence;
    else if (!std::strcmp(argv[a], "--flag-first")) publish = kFlagFirst;
    else if (!std::strcmp(argv[a], "--volatile-read")) read = kVolatileNoFence;
    else if (!std::strcmp(argv[a], "--plain-read")) read = kPlainNoFence;
    else if (!std::strcmp(argv[a], "--fenced-plain-read")) read = kFencePlain;
    else if (!std::strcmp(argv[a], "--warp-poll")) warp_poll = true;
    else {
      std::fprintf(stderr, "usage: chained_scan [--n N] [--blockidx] [--no-fence | --flag-first] [--volatile-read | "
                           "--plain-read | --fenced-plain-read] [--warp-poll]\n");
      return 2;
    }
  }
  if (n < 1) {
    std::fprintf(stderr, "chained_scan: --n must be at least 1\n");
    return 2;
  }
  const int tiles = (n + kTile - 1) / kTile;
  std::vector<int> in(n), out(n, 0);
  unsigned x = 12345;
  for (int& v : in) v = int((x = x * 1103515245u + 12345u) >> 24) - 100;
  int *d_in, *d_out, *d_flags, *d_prefixes;
  unsigned* d_ticket;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_flags, tiles * sizeof(int)));
  CHECK(cudaMalloc(&d_prefixes, tiles * sizeof(int)));
  CHECK(cudaMalloc(&d_ticket, sizeof(unsigned)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0xFF, n * sizeof(int)));
  CHECK(cudaMemset(d_flags, 0, tiles * sizeof(int)));
  CHECK(cudaMemset(d_prefixes, 0x7F, tiles * sizeof(int)));  // a stale prefix is visible
  CHECK(cudaMemset(d_ticket, 0, sizeof(unsigned)));
  chained_scan_inclusive<<<tiles, kTile>>>(d_in, d_out, n, d_flags, d_prefixes, d_ticket, ticketed, publish, read,
                                           warp_poll);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  const char* how = publish == kValueFenceFlag ? "value, fence, flag"
                    : publish == kFlagFirst    ? "flag first"
                                               : "value, flag, no fence";
  std::string reader = read == kFenceVolatile     ? "fence, volatile read"
                       : read == kVolatileNoFence ? "volatile read, no fence"
                       : read == kPlainNoFence    ? "plain read, no fence"
                                                  : "fence, plain read";
  if (warp_poll) reader += " after a warp poll";
  long long sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += in[i];
    if (out[i] != sum) {
      std::printf("chained scan (%s, %s, tiles by %s): mismatch at %d: expected %lld, got %d\n", how, reader.c_str(),
                  ticketed ? "ticket" : "blockIdx", i, sum, out[i]);
      return 1;
    }
  }
  std::printf("chained scan of %d ints in %d tiles (%s, %s, tiles by %s): verified\n", n, tiles, how, reader.c_str(),
              ticketed ? "ticket" : "blockIdx");
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_flags);
  cudaFree(d_prefixes);
  cudaFree(d_ticket);
  return 0;
}
