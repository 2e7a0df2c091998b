// The race checker and warp-synchronous code (issue 44): it orders a warp's shared-memory accesses
// across __syncwarp(mask) for the lanes in the mask, as the CUDA programming guide says ("executing
// __syncwarp() guarantees memory ordering among threads participating in the barrier"); shuffles
// and votes order nothing ("these intrinsics do not imply a memory barrier"). It never reports a
// thread against itself, and still reports a race between warps. Every case runs in the three thread
// orders, so a verdict does not hang on which lane the emulator ran first.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <string>

namespace {

// The lines of the accesses each report must name.
constexpr int kMatchRead = __LINE__ + 12;
constexpr int kMatchClear = __LINE__ + 15;

// Chapter 09's warp matching: the lanes of a digit set their bits in one shared word, read it back
// and the lowest of them clears it; `synced` false drops every __syncwarp.
__global__ void match_digits(const unsigned* digits, unsigned* ranks, bool synced) {
  __shared__ unsigned match[4];
  if (threadIdx.x < 4) match[threadIdx.x] = 0;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31, digit = digits[threadIdx.x], me = 1u << lane;
  atomicOr(&match[digit], me);
  if (synced) __syncwarp();
  const unsigned peers = match[digit];
  if (synced) __syncwarp();
  const unsigned leader = unsigned(__ffs(int(peers)) - 1);
  if (lane == leader) {
    match[digit] = 0;
  }
  if (synced) __syncwarp();
  ranks[threadIdx.x] = unsigned(__popc(peers & (me - 1u)));
}

constexpr int kShuffleWrite = __LINE__ + 4;
constexpr int kShuffleRead = __LINE__ + 5;
__global__ void exchange_through(int* out, bool shuffle) {
  __shared__ int s[32];
  s[threadIdx.x] = int(threadIdx.x);
  const int dummy = shuffle ? __shfl_sync(0xffffffffu, 1, 0) : (__syncwarp(), 1);
  out[threadIdx.x] = s[31 - threadIdx.x] * dummy;
}

// Two halves of a warp each synchronise with a mask of their own: a lane's read of its own half is
// ordered; `cross` reads the other half's word, which no __syncwarp it took part in ordered.
constexpr int kHalfWrite = __LINE__ + 4;
constexpr int kHalfRead = __LINE__ + 5;
__global__ void halves(int* out, bool cross) {
  __shared__ int s[32];
  s[threadIdx.x] = int(threadIdx.x);
  __syncwarp(threadIdx.x < 16 ? 0x0000ffffu : 0xffff0000u);
  out[threadIdx.x] = s[cross ? 31 - threadIdx.x : threadIdx.x ^ 1];
}

// Warp 0 writes, warp 1 reads, with only a __syncwarp (each warp's own) between them.
constexpr int kCrossWrite = __LINE__ + 4;
constexpr int kCrossRead = __LINE__ + 5;
__global__ void across_warps(int* out) {
  __shared__ int s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = int(threadIdx.x);
  __syncwarp();
  if (threadIdx.x >= 32) out[threadIdx.x] = s[threadIdx.x - 32];
}

// Every lane reads one word, then lane 0 writes it: ordered with a __syncwarp between, a race
// with another lane's read without one (never a race of lane 0 with its own read).
constexpr int kBroadcastRead = __LINE__ + 6;
constexpr int kBroadcastWrite = __LINE__ + 7;
__global__ void broadcast_then_write(int* out, bool synced) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 7;
  __syncthreads();
  out[threadIdx.x] = total;
  if (synced) __syncwarp();
  if (threadIdx.x == 0) total = 0;
}

struct Scoped {
  scanlab_emu::Options saved = scanlab_emu::options();
  explicit Scoped(scanlab_emu::ThreadOrder order) {
    scanlab_emu::reset_diagnostics();
    scanlab_emu::options().racecheck = true;
    scanlab_emu::options().thread_order = order;
  }
  ~Scoped() { scanlab_emu::options() = saved; }
};

template <class T>
struct Buffer {
  T* p = nullptr;
  explicit Buffer(int n) {
    REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemset(p, 0, n * sizeof(T)) == cudaSuccess);
  }
  ~Buffer() { cudaFree(p); }
};

const scanlab_emu::ThreadOrder kOrders[] = {scanlab_emu::ThreadOrder::forward, scanlab_emu::ThreadOrder::reverse,
                                            scanlab_emu::ThreadOrder::random};

std::string at(int line) { return "warp_race_test.cu:" + std::to_string(line); }

bool same_thread(const scanlab_emu::HazardReport& h) {
  return h.first_thread[0] == h.second_thread[0] && h.first_thread[1] == h.second_thread[1] &&
         h.first_thread[2] == h.second_thread[2];
}

// A hazard between the two lines (either first), and no report of a thread against itself.
bool reported(int line_a, int line_b) {
  bool found = false;
  for (const auto& h : scanlab_emu::diagnostics().hazards) {
    CHECK_MESSAGE(!same_thread(h), "a thread reported against itself at ", h.first_site, " and ", h.second_site);
    const bool ab =
        h.first_site.find(at(line_a)) != std::string::npos && h.second_site.find(at(line_b)) != std::string::npos;
    const bool ba =
        h.first_site.find(at(line_b)) != std::string::npos && h.second_site.find(at(line_a)) != std::string::npos;
    found |= ab || ba;
  }
  return found;
}

std::string hazards_text() {
  std::string s;
  for (const auto& h : scanlab_emu::diagnostics().hazards)
    s += std::string(scanlab_emu::to_string(h.kind)) + " " + h.first_site + " / " + h.second_site + "\n";
  return s;
}

}  // namespace

TEST_CASE("warp matching with __syncwarp is clean; without it, the read races with the write") {
  Buffer<unsigned> digits(32), ranks(32);
  unsigned host[32];
  for (unsigned i = 0; i < 32; ++i) host[i] = (i * 7) % 4;
  REQUIRE(cudaMemcpy(digits.p, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess);
  for (auto order : kOrders) {
    const std::string order_name = scanlab_emu::to_string(order);
    CAPTURE(order_name);
    {
      Scoped s(order);
      match_digits<<<1, 32>>>(digits.p, ranks.p, true);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK_MESSAGE(scanlab_emu::diagnostics().hazards.empty(), hazards_text());
    }
    {
      Scoped s(order);
      match_digits<<<1, 32>>>(digits.p, ranks.p, false);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK_MESSAGE(reported(kMatchRead, kMatchClear), hazards_text());
    }
  }
}

TEST_CASE("a shuffle does not order shared memory; __syncwarp does") {
  Buffer<int> out(32);
  for (auto order : kOrders) {
    const std::string order_name = scanlab_emu::to_string(order);
    CAPTURE(order_name);
    {
      Scoped s(order);
      exchange_through<<<1, 32>>>(out.p, false);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK_MESSAGE(scanlab_emu::diagnostics().hazards.empty(), hazards_text());
    }
    {
      Scoped s(order);
      exchange_through<<<1, 32>>>(out.p, true);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK_MESSAGE(reported(kShuffleWrite, kShuffleRead), hazards_text());
    }
  }
}

TEST_CASE("__syncwarp(mask) orders the lanes in its mask only") {
  Buffer<int> out(32);
  for (auto order : kOrders) {
    const std::string order_name = scanlab_emu::to_string(order);
    CAPTURE(order_name);
    {
      Scoped s(order);
      halves<<<1, 32>>>(out.p, false);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK_MESSAGE(scanlab_emu::diagnostics().hazards.empty(), hazards_text());
    }
    {
      Scoped s(order);
      halves<<<1, 32>>>(out.p, true);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK_MESSAGE(reported(kHalfWrite, kHalfRead), hazards_text());
    }
  }
}

TEST_CASE("a race between two warps is still reported") {
  Buffer<int> out(64);
  for (auto order : kOrders) {
    const std::string order_name = scanlab_emu::to_string(order);
    CAPTURE(order_name);
    Scoped s(order);
    across_warps<<<1, 64>>>(out.p);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK_MESSAGE(reported(kCrossWrite, kCrossRead), hazards_text());
  }
}

TEST_CASE("a word read by every lane, then written by one: ordered by __syncwarp, never a race with itself") {
  Buffer<int> out(32);
  for (auto order : kOrders) {
    const std::string order_name = scanlab_emu::to_string(order);
    CAPTURE(order_name);
    {
      Scoped s(order);
      broadcast_then_write<<<1, 32>>>(out.p, true);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK_MESSAGE(scanlab_emu::diagnostics().hazards.empty(), hazards_text());
    }
    {
      Scoped s(order);
      broadcast_then_write<<<1, 32>>>(out.p, false);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      CHECK_MESSAGE(reported(kBroadcastRead, kBroadcastWrite), hazards_text());
    }
  }
}
