// Pins the emulator's memory behaviour to CUDA's: volatile and atomic polling between blocks (with
// __threadfence publishing the data before the flag, as the Programming Guide's "Memory Fence
// Functions" example does), __nanosleep back-off, a spin nobody ends reported as a failed launch
// (emulator only: a GPU would hang), and shared memory: dynamic (extern __shared__) sized at the
// launch, static __shared__ in templates (one array per instantiation), and per block (two blocks
// resident at once do not see each other's). The same file runs on a GPU except where marked.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/testing.hpp"

namespace {

// ---- Producer/consumer between blocks ------------------------------------------------------------

// Block `producer` writes a payload, fences, raises the flag; the other block polls the flag through
// a volatile pointer, fences, then reads the payload. Every thread of the consumer block waits (not
// only thread 0), and the payload is wide so a half-published one would be seen.
constexpr int kPayload = 64;
__global__ void handoff_volatile(volatile int* flag, volatile int* payload, int* out, int producer, int seed) {
  const int b = int(blockIdx.x), t = int(threadIdx.x);
  if (b == producer) {
    payload[t] = seed * 31 + t;
    __threadfence();
    __syncthreads();
    if (t == 0) *flag = 1;
  } else {
    while (*flag == 0) {
    }
    __threadfence();
    out[t] = payload[t];
  }
}

// The same with an atomic read and __nanosleep back-off in the polling loop.
__global__ void handoff_nanosleep(int* flag, volatile int* payload, int* out, int producer, int seed) {
  const int b = int(blockIdx.x), t = int(threadIdx.x);
  if (b == producer) {
    payload[t] = seed * 17 - t;
    __threadfence();
    __syncthreads();
    if (t == 0) atomicExch(flag, 1);
  } else {
    if (t == 0) {
      unsigned ns = 32;
      while (atomicAdd(flag, 0) == 0) {
        __nanosleep(ns);
        if (ns < 4096) ns *= 2;
      }
    }
    __syncthreads();
    __threadfence();
    out[t] = payload[t];
  }
}

}  // namespace

TEST_CASE("volatile and atomic polling: a consumer block waits for a producer block") {
  const int seed = int(scanlab::test_seed(1000) % 100000);
  // Producer block 0 (it runs first on the emulator's in-order schedule), then producer block 1, so
  // that the consumer starts first and must yield while it polls.
  for (int producer : {0, 1}) {
    scanlab::DeviceBuffer<int> flag(1), payload(kPayload), out(kPayload);
    SCANLAB_CUDA_CHECK(cudaMemset(flag.data(), 0, sizeof(int)));
    out.fill_poison();
    handoff_volatile<<<2, kPayload>>>(flag.data(), payload.data(), out.data(), producer, seed);
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    std::vector<int> got = out.download();
    for (int t = 0; t < kPayload; ++t) {
      INFO("volatile, producer block ", producer, " thread ", t);
      CHECK(got[std::size_t(t)] == seed * 31 + t);
    }

    SCANLAB_CUDA_CHECK(cudaMemset(flag.data(), 0, sizeof(int)));
    out.fill_poison();
    handoff_nanosleep<<<2, kPayload>>>(flag.data(), payload.data(), out.data(), producer, seed);
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    got = out.download();
    for (int t = 0; t < kPayload; ++t) {
      INFO("__nanosleep, producer block ", producer, " thread ", t);
      CHECK(got[std::size_t(t)] == seed * 17 - t);
    }
  }
}

// A chain of blocks, each waiting for its predecessor's flag: block k waits for k-1, so on the
// emulator's in-order schedule every wait is already satisfied, and on the reverse one (see
// schedule_test) every block but one must yield.
namespace {
__global__ void chain_of_blocks(volatile int* flags, int* out) {
  const int b = int(blockIdx.x);
  if (threadIdx.x == 0) {
    int before = 0;
    if (b > 0) {
      while ((before = flags[b - 1]) == 0) {
      }
      __threadfence();
    }
    out[b] = before + 1;
    __threadfence();
    flags[b] = before + 1;
  }
}
}  // namespace

TEST_CASE("a chain of blocks each waiting for its predecessor completes") {
  const int blocks = 16;  // few enough to be resident together on any GPU
  scanlab::DeviceBuffer<int> flags(blocks), out(blocks);
  SCANLAB_CUDA_CHECK(cudaMemset(flags.data(), 0, flags.bytes()));
  out.fill_poison();
  chain_of_blocks<<<blocks, 32>>>(flags.data(), out.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const std::vector<int> got = out.download();
  for (int b = 0; b < blocks; ++b) CHECK(got[std::size_t(b)] == b + 1);
}

#ifdef SCANLAB_EMU
// ---- Emulator only: a spin nobody ends --------------------------------------------------------

namespace {
__global__ void spin_forever(volatile int* flag, int* out) {
  while (*flag == 0) {
  }
  out[threadIdx.x] = 1;
}
__global__ void nap_forever(int* flag) {
  while (atomicAdd(flag, 0) == 0) __nanosleep(1000);
}
__global__ void add_one(int* x) { x[threadIdx.x] += 1; }

// Block 0 raises a flag with no fence, so under weak memory its store may still be pending when it
// ends. In block 1, thread 0 polls the flag while warp 1 stays busy, storing to shared memory on
// every poll of its own, until thread 0 has seen the flag: block 1 never stalls, and the emulator
// must still let block 0's store land (and thread 0's spin must not starve warp 1, nor warp 1's
// stores thread 0).
__global__ void poll_beside_a_busy_warp(volatile int* flag, int* out) {
  __shared__ int done;
  __shared__ int work[32];
  const int t = int(threadIdx.x);
  if (blockIdx.x == 0) {
    if (t == 0) *flag = 1;
    return;
  }
  if (t == 0) done = 0;
  if (t >= 32) work[t - 32] = 0;
  __syncthreads();
  if (t == 0) {
    while (*flag == 0) {
    }
    *static_cast<volatile int*>(&done) = 1;
  } else if (t >= 32) {
    while (*static_cast<volatile int*>(&done) == 0) ++work[t - 32];
  }
  __syncthreads();
  if (t == 0) out[0] = 1;
}
}  // namespace

TEST_CASE("emulator weak memory: a store lands while another block polls beside a busy warp") {
  scanlab::DeviceBuffer<int> flag(1), out(1);
  const scanlab_emu::Options saved = scanlab_emu::options();
  scanlab_emu::options().memory = scanlab_emu::Memory::weak;
  scanlab_emu::options().resident = 1;
  for (std::uint64_t k = 0; k < 8; ++k) {
    scanlab_emu::options().seed = scanlab::test_seed(900 + k);
    INFO(scanlab_emu::describe_options());
    SCANLAB_CUDA_CHECK(cudaMemset(flag.data(), 0, sizeof(int)));
    SCANLAB_CUDA_CHECK(cudaMemset(out.data(), 0, sizeof(int)));
    poll_beside_a_busy_warp<<<2, 64>>>(flag.data(), out.data());
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(out.download()[0] == 1);
  }
  scanlab_emu::options() = saved;
}

TEST_CASE("emulator: a spin on a flag nobody sets fails the launch with cudaErrorLaunchTimeout, then recovers") {
  scanlab::DeviceBuffer<int> flag(1), out(32);
  SCANLAB_CUDA_CHECK(cudaMemset(flag.data(), 0, sizeof(int)));
  for (int variant = 0; variant < 2; ++variant) {
    const auto start = std::chrono::steady_clock::now();
    if (variant == 0) spin_forever<<<4, 32>>>(flag.data(), out.data());
    else nap_forever<<<2, 64>>>(flag.data());
    const cudaError_t sync = cudaDeviceSynchronize();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO("variant ", variant, ": cudaDeviceSynchronize returned ", cudaGetErrorName(sync), " after ", seconds, " s");
    CHECK(sync == cudaErrorLaunchTimeout);
    CHECK(seconds < 5.0);
    // The error was reported; clear it and check that the next launch runs normally.
    (void)cudaGetLastError();
    CHECK(cudaGetLastError() == cudaSuccess);
    std::vector<int> x(32);
    for (int i = 0; i < 32; ++i) x[std::size_t(i)] = i * 5;
    scanlab::DeviceBuffer<int> d_x(x);
    add_one<<<1, 32>>>(d_x.data());
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> y = d_x.download();
    for (int i = 0; i < 32; ++i) CHECK(y[std::size_t(i)] == i * 5 + 1);
  }
}
#endif

// ---- Shared memory ----------------------------------------------------------------------------

namespace {

// Dynamic shared memory sized at the launch: `per_thread` ints per thread, written in one order and
// read back rotated after the barrier, so the whole extent is used.
__global__ void dynamic_rotate(const int* in, int* out, int per_thread) {
  extern __shared__ int dyn[];
  const int n = int(blockDim.x) * per_thread;
  const int base = int(blockIdx.x) * n;
  for (int k = int(threadIdx.x); k < n; k += int(blockDim.x)) dyn[k] = in[base + k];
  __syncthreads();
  for (int k = int(threadIdx.x); k < n; k += int(blockDim.x)) out[base + k] = dyn[(k + 7) % n] - dyn[n - 1 - k];
}

// Two template instantiations of one device function, each with its own static __shared__ array.
template <int Tag>
__device__ int* tile_of() {
  __shared__ int tile[128];
  return tile;
}

template <int Tag>
__global__ void template_tiles_kernel(const int* in, int* out) {
  __shared__ int own[128];  // the kernel's own static array, per instantiation as well
  const int t = int(threadIdx.x);
  int* a = tile_of<1>();
  int* b = tile_of<2>();
  a[t] = in[t];
  b[t] = in[t] * 3 + Tag;
  own[t] = Tag * 1000 + t;
  __syncthreads();
  const int u = 127 - t;
  out[t] = a[u] + b[u] * 5 + own[u];
  out[128 + t] = (a == b) || (a == own) || (b == own);  // distinct arrays must not alias
}

}  // namespace

namespace {
// CUDA: every `extern __shared__` array, whatever its type and wherever declared, starts at the same
// address (the start of the launch's dynamic shared memory).
__device__ float* float_view() {
  extern __shared__ float as_float[];
  return as_float;
}
__global__ void extern_arrays_alias(int* out) {
  extern __shared__ int as_int[];
  float* f = float_view();
  if (threadIdx.x == 0) {
    out[0] = static_cast<void*>(as_int) == static_cast<void*>(f);
    as_int[1] = 0x3f800000;  // the bits of 1.0f
  }
  __syncthreads();
  if (threadIdx.x == 1) out[1] = f[1] == 1.0f;
}

// A 2-D static array with a padding column: transpose a 32 x 32 tile with a 32 x 8 block.
__global__ void transpose_tile(const int* in, int* out) {
  __shared__ int tile[32][33];
  const int x = int(threadIdx.x);
  for (int y = int(threadIdx.y); y < 32; y += 8) tile[y][x] = in[y * 32 + x];
  __syncthreads();
  for (int y = int(threadIdx.y); y < 32; y += 8) out[y * 32 + x] = tile[x][y];
}
}  // namespace

TEST_CASE("all extern __shared__ arrays start at the same address") {
  scanlab::DeviceBuffer<int> out(2);
  out.fill_poison();
  extern_arrays_alias<<<1, 32, 64>>>(out.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const std::vector<int> got = out.download();
  CHECK(got[0] == 1);
  CHECK(got[1] == 1);
}

TEST_CASE("a 2-D static __shared__ array (transpose through a padded tile)") {
  scanlab::Rng rng = scanlab::test_rng(1150);
  std::vector<int> in(32 * 32);
  for (int& x : in) x = int(rng.below(1u << 30));
  scanlab::DeviceBuffer<int> d_in(in), d_out(in.size());
  d_out.fill_poison();
  transpose_tile<<<1, dim3(32, 8)>>>(d_in.data(), d_out.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const std::vector<int> got = d_out.download();
  std::size_t wrong = 0;
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x) wrong += got[std::size_t(y * 32 + x)] != in[std::size_t(x * 32 + y)];
  CHECK(wrong == 0);
}

TEST_CASE("dynamic shared memory (extern __shared__) sized at the launch") {
  scanlab::Rng rng = scanlab::test_rng(1100);
  struct Case {
    int threads, per_thread, blocks;
  };
  // Up to 48 KiB, the default per-block limit.
  for (Case c : {Case{32, 1, 3}, Case{128, 5, 4}, Case{256, 48, 2}, Case{1024, 12, 2}, Case{96, 1, 1}}) {
    const int n = c.threads * c.per_thread;
    std::vector<int> in(std::size_t(n) * std::size_t(c.blocks));
    for (int& x : in) x = int(rng.below(1u << 20));
    scanlab::DeviceBuffer<int> d_in(in), d_out(in.size());
    d_out.fill_poison();
    dynamic_rotate<<<c.blocks, c.threads, std::size_t(n) * sizeof(int)>>>(d_in.data(), d_out.data(), c.per_thread);
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    const std::vector<int> got = d_out.download();
    std::size_t wrong = 0;
    for (int b = 0; b < c.blocks; ++b)
      for (int k = 0; k < n; ++k) {
        const int* blk = &in[std::size_t(b) * std::size_t(n)];
        if (got[std::size_t(b) * std::size_t(n) + std::size_t(k)] != blk[(k + 7) % n] - blk[n - 1 - k]) ++wrong;
      }
    INFO(c.threads, " threads x ", c.per_thread, " ints of dynamic shared memory, ", c.blocks, " blocks");
    CHECK(wrong == 0);
  }
}

TEST_CASE("static __shared__ in templates: each instantiation has its own array") {
  scanlab::Rng rng = scanlab::test_rng(1200);
  std::vector<int> in(128);
  for (int& x : in) x = int(rng.below(1u << 16));
  scanlab::DeviceBuffer<int> d_in(in), d_out(256);
  for (int which = 0; which < 2; ++which) {
    d_out.fill_poison();
    if (which == 0) template_tiles_kernel<10><<<1, 128>>>(d_in.data(), d_out.data());
    else template_tiles_kernel<20><<<1, 128>>>(d_in.data(), d_out.data());
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    const int tag = which == 0 ? 10 : 20;
    const std::vector<int> got = d_out.download();
    for (int t = 0; t < 128; ++t) {
      const int u = 127 - t;
      INFO("instantiation ", tag, " thread ", t);
      CHECK(got[std::size_t(t)] == in[std::size_t(u)] + (in[std::size_t(u)] * 3 + tag) * 5 + tag * 1000 + u);
      CHECK(got[std::size_t(128 + t)] == 0);
    }
  }
}

namespace {
// Blocks 0 and 1 are resident at the same time: block 0 fills its shared array and waits until
// block 1 has filled its own (at the same static variable), then both read theirs back. With one
// array shared between blocks, block 0 would read block 1's values. Every thread polls, so that no
// thread-0-only branch precedes a barrier (that pattern has its own test below).
__global__ void shared_is_per_block(volatile int* flags, int* out, int seed) {
  __shared__ int mine[64];
  const int b = int(blockIdx.x), t = int(threadIdx.x);
  if (b == 0) {
    mine[t] = seed + t;
    flags[0] = 1;
    while (flags[1] < 64) {
    }
  } else {
    while (flags[0] == 0) {
    }
    mine[t] = -seed - 1000 * t;
    atomicAdd(const_cast<int*>(&flags[1]), 1);
  }
  out[b * 64 + t] = mine[t];
}

// Dynamic shared memory is per block as well.
__global__ void dynamic_is_per_block(volatile int* flags, int* out, int seed) {
  extern __shared__ int dyn[];
  const int b = int(blockIdx.x), t = int(threadIdx.x);
  if (b == 0) {
    dyn[t] = seed * 3 + t;
    flags[0] = 1;
    while (flags[1] < 64) {
    }
  } else {
    while (flags[0] == 0) {
    }
    dyn[t] = seed * 7 - t;
    atomicAdd(const_cast<int*>(&flags[1]), 1);
  }
  out[b * 64 + t] = dyn[t];
}
}  // namespace

TEST_CASE("shared memory is per block: two resident blocks do not see each other's") {
  const int seed = int(scanlab::test_seed(1300) % 1000000) + 1;
  scanlab::DeviceBuffer<int> flags(2), out(128);
  for (int dynamic = 0; dynamic < 2; ++dynamic) {
    SCANLAB_CUDA_CHECK(cudaMemset(flags.data(), 0, flags.bytes()));
    out.fill_poison();
    if (dynamic) dynamic_is_per_block<<<2, 64, 64 * sizeof(int)>>>(flags.data(), out.data(), seed);
    else shared_is_per_block<<<2, 64>>>(flags.data(), out.data(), seed);
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    const std::vector<int> got = out.download();
    for (int t = 0; t < 64; ++t) {
      INFO((dynamic ? "dynamic" : "static"), " shared, thread ", t);
      CHECK(got[std::size_t(t)] == (dynamic ? seed * 3 + t : seed + t));
      CHECK(got[std::size_t(64 + t)] == (dynamic ? seed * 7 - t : -seed - 1000 * t));
    }
  }
}

// The decoupled look-back idiom: one thread waits for another block, then a barrier releases the
// rest of the block. Every thread reaches the same (source) __syncthreads, so this is valid CUDA,
// whatever the compiler does with the branch around it.
namespace {
__global__ void one_thread_waits_then_barrier(volatile int* flags, int* out) {
  __shared__ int seen;
  const int b = int(blockIdx.x), t = int(threadIdx.x);
  if (t == 0) {
    int v = 0;
    if (b > 0) {
      while ((v = flags[b - 1]) == 0) {
      }
    }
    seen = v;
  }
  __syncthreads();
  out[b * blockDim.x + t] = seen + t;
  __syncthreads();
  if (t == 0) flags[b] = seen + 1;
}
}  // namespace

TEST_CASE("a barrier after a branch in which one thread polls another block") {
  const int blocks = 8, threads = 64;
  scanlab::DeviceBuffer<int> flags(blocks), out(blocks * threads);
  SCANLAB_CUDA_CHECK(cudaMemset(flags.data(), 0, flags.bytes()));
  out.fill_poison();
  one_thread_waits_then_barrier<<<blocks, threads>>>(flags.data(), out.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const std::vector<int> got = out.download();
  std::size_t wrong = 0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) wrong += got[std::size_t(b * threads + t)] != b + t;
  CHECK(wrong == 0);
}
