// Asynchronous copies into shared memory: __pipeline_memcpy_async (cp.async) double-buffering a
// tile, and a ring of stages filled by memcpy_async_tx (Hopper's bulk copy) whose cuda::barrier
// phases complete on arrivals and transaction bytes. Correct kernels give the right result under
// several seeds and thread orders; on the emulator, the mistakes are caught: a stage read before
// its wait (wrong bytes, and a race report), a missing arrival (a deadlock report, not a hang),
// and misaligned or mis-sized copies (a failed launch that says why).
//
// nvcc warns that a __shared__ cuda::barrier has a dynamic initializer it will not run (it never
// should: init() sets the barrier up); the pragma silences that warning, and g++ ignores it.
#pragma nv_diag_suppress static_var_with_dynamic_init
#include <cuda/barrier>
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace {

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

template <class T>
struct Buffer {
  T* p = nullptr;
  std::size_t n;
  explicit Buffer(std::size_t count) : n(count) {
    REQUIRE(cudaMalloc(&p, n * sizeof(T)) == cudaSuccess);
    REQUIRE(cudaMemset(p, 0, n * sizeof(T)) == cudaSuccess);
  }
  ~Buffer() { cudaFree(p); }
  void upload(const std::vector<T>& v) {
    REQUIRE(cudaMemcpy(p, v.data(), n * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  std::vector<T> download() const {
    std::vector<T> v(n);
    REQUIRE(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return v;
  }
};

std::vector<int> iota_input(std::size_t n) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = int(i * 7 + 3);
  return v;
}

// ---- (a) cp.async, double-buffered ----------------------------------------------------------------
// 64 threads; a tile is 256 ints, each thread copies one int4 of it. Tile k+1 is copied while tile k
// is read; each thread reads an int4 that another thread copied, so the copy must be waited for and
// a barrier passed. Mode 0 is right; mode 1 forgets __pipeline_wait_prior; mode 2 waits but
// passes no barrier before reading what other threads copied.
constexpr int kPipeThreads = 64, kPipeTile = 4 * kPipeThreads;

__global__ void pipeline_double_buffered(const int* in, int* out, int tiles, int mode) {
  __shared__ alignas(16) int tile[2][kPipeTile];
  const int t = int(threadIdx.x);
  const int per_block = (tiles + int(gridDim.x) - 1) / int(gridDim.x);
  const int first = int(blockIdx.x) * per_block;
  const int last = first + per_block < tiles ? first + per_block : tiles;
  if (first < last) __pipeline_memcpy_async(&tile[0][4 * t], &in[first * kPipeTile + 4 * t], 16);
  __pipeline_commit();
  for (int k = first; k < last; ++k) {
    const int buf = (k - first) & 1;
    if (k + 1 < last) __pipeline_memcpy_async(&tile[buf ^ 1][4 * t], &in[(k + 1) * kPipeTile + 4 * t], 16);
    __pipeline_commit();
    if (mode != 1) __pipeline_wait_prior(1);  // tile k's group is done; tile k+1's may still fly
    if (mode != 2) __syncthreads();           // the other threads' waits are done too
    const int src = 4 * ((t + 1) % kPipeThreads);
    for (int j = 0; j < 4; ++j) out[k * kPipeTile + src + j] = 2 * tile[buf][src + j];
    __syncthreads();  // everyone has read tile[buf] before it is refilled
  }
  __pipeline_wait_prior(0);
}

std::size_t run_pipeline(int mode, std::vector<int>& got, int tiles = 12, int blocks = 2) {
  const std::size_t n = std::size_t(tiles) * kPipeTile;
  Buffer<int> in(n), out(n);
  in.upload(iota_input(n));
  pipeline_double_buffered<<<blocks, kPipeThreads>>>(in.p, out.p, tiles, mode);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  got = out.download();
  const std::vector<int> input = iota_input(n);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += got[i] != 2 * input[i];
  return wrong;
}

// ---- (b) a ring of 3 stages: one producer warp, two consumer warps ----------------------------------
// full[s] completes when the producer's memcpy_async_tx of tile k into stage s has landed (its lane 0
// arrives announcing the bytes) and the 64 consumers have arrived; empty[s] completes when the 64
// consumers are done with stage s and the producer arrives to refill it. Consumer warp 1 uses
// arrive_and_wait, warp 2 arrive() and wait(token). Mode 1: consumers read the stage before waiting;
// mode 2: consumers free the stage (arrive on empty) before they read it.
constexpr int kStages = 3, kRingTile = 64, kConsumers = 64;

__global__ void ring_of_stages(const int* in, int* out, int tiles, int mode) {
  __shared__ alignas(16) int stage[kStages][kRingTile];
  __shared__ block_barrier full[kStages];
  __shared__ block_barrier empty[kStages];
  const int warp = int(threadIdx.x) / 32;
  in += std::size_t(blockIdx.x) * tiles * kRingTile;  // each block its own tiles
  out += std::size_t(blockIdx.x) * tiles * kRingTile;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      init(&full[s], kConsumers + 1);
      init(&empty[s], kConsumers + 1);
    }
  }
  __syncthreads();
  if (warp == 0) {
    if (threadIdx.x != 0) return;  // one lane drives the copies
    for (int k = 0; k < tiles; ++k) {
      const int s = k % kStages;
      if (k >= kStages) empty[s].arrive_and_wait();  // the consumers are done with tile k-3
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
      __trap();  // no bulk copies before Hopper (sm_90): the test case is skipped on such a GPU
#else
      cuda::device::memcpy_async_tx(&stage[s][0], &in[k * kRingTile], cuda::aligned_size_t<16>(sizeof(int) * kRingTile),
                                    full[s]);
      (void)cuda::device::barrier_arrive_tx(full[s], 1, sizeof(int) * kRingTile);
#endif
    }
    return;
  }
  const int c = int(threadIdx.x) - 32;
  for (int k = 0; k < tiles; ++k) {
    const int s = k % kStages;
    const int v_early = mode == 1 ? stage[s][(c + k) % kRingTile] : 0;
    if (warp == 1) {
      full[s].arrive_and_wait();
    } else {
      auto token = full[s].arrive();
      full[s].wait(std::move(token));
    }
    if (mode == 2) (void)empty[s].arrive();
    const int v = mode == 1 ? v_early : stage[s][(c + k) % kRingTile];
    out[k * kRingTile + (c + k) % kRingTile] = v + 1;
    if (mode != 2) (void)empty[s].arrive();
  }
}

std::size_t run_ring(int mode, int tiles = 40, int blocks = 1) {
  const std::size_t n = std::size_t(tiles) * kRingTile * blocks;
  Buffer<int> in(n), out(n);
  const std::vector<int> input = iota_input(n);
  in.upload(input);
  ring_of_stages<<<blocks, 32 + kConsumers>>>(in.p, out.p, tiles, mode);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<int> got = out.download();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += got[i] != input[i] + 1;
  return wrong;
}

// zfill: the first size - zfill bytes come from the source, the rest are zero.
__global__ void pipeline_zfill(const int* in, int* out) {
  __shared__ alignas(16) int buf[4];
  buf[threadIdx.x] = -1;
  __syncthreads();
  if (threadIdx.x == 0) {
    __pipeline_memcpy_async(buf, in, 16, 12);
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }
  __syncthreads();
  out[threadIdx.x] = buf[threadIdx.x];
}

// ---- arrival counts: arrive(n) and arrive_and_drop ------------------------------------------------
// 64 threads, expected 64. Round 1: all arrive_and_wait. Round 2: threads 32..63 arrive_and_drop,
// which counts as their arrival now and lowers the count to 32 for later phases. Round 3: thread 0
// arrives for 17 and threads 17..31 once each. In each round every arriving thread first adds to a
// shared counter, and after the wait reads the whole round's sum there: a wait that returned early
// would see less.
__global__ void arrival_counts(int* ok) {
  __shared__ block_barrier bar;
  __shared__ int count;
  const int t = int(threadIdx.x);
  if (t == 0) {
    init(&bar, 64);
    count = 0;
  }
  __syncthreads();
  atomicAdd(&count, 1);
  bar.arrive_and_wait();
  int good = atomicAdd(&count, 0) >= 64;
  __syncthreads();
  if (t >= 32) {
    atomicAdd(&count, 1);
    bar.arrive_and_drop();
    ok[t] = good;
    return;
  }
  atomicAdd(&count, 1);
  bar.arrive_and_wait();
  good &= atomicAdd(&count, 0) >= 128;
  if (t == 0 || t >= 17) {
    atomicAdd(&count, t == 0 ? 17 : 1);
    auto token = bar.arrive(t == 0 ? 17 : 1);
    bar.wait(std::move(token));
    good &= atomicAdd(&count, 0) >= 160;
  }
  ok[t] = good;
}

// ---- plain shared memory handed over through cuda::barrier phases ------------------------------------
// Two warps, no __syncthreads after the init: in each round lane 0 of each warp writes its warp's
// value, every thread reads the other warp's, and two barriers order it: `full` (the writes before
// the reads) and `freed` (the reads before the next round's writes). Mode 1 only arrives on freed
// (the next write races with the reads), mode 2 only arrives on full (the reads race with the write).
__global__ void barrier_handover(int* out, int rounds, int mode) {
  __shared__ int value[2];
  __shared__ block_barrier full;
  __shared__ block_barrier freed;
  const int t = int(threadIdx.x), warp = t / 32;
  if (t == 0) {
    init(&full, 64);
    init(&freed, 64);
  }
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    if (t % 32 == 0) value[warp] = 10 * r + warp;
    if (mode == 2) {
      (void)full.arrive();
    } else {
      full.arrive_and_wait();
    }
    out[r * 64 + t] = value[warp ^ 1];
    if (mode == 1) {
      (void)freed.arrive();
    } else {
      freed.arrive_and_wait();
    }
  }
}

#ifdef SCANLAB_EMU
// ---- emulator-only: the mistakes -----------------------------------------------------------------

struct ScopedOptions : scanlab_emu::OptionsGuard {
  ScopedOptions() { scanlab_emu::reset_diagnostics(); }
};

bool report_has(const std::string& needle) {
  return scanlab_emu::last_failure_report().find(needle) != std::string::npos;
}

const scanlab_emu::HazardReport* find_hazard(scanlab_emu::Hazard kind, const char* kernel) {
  for (const auto& h : scanlab_emu::diagnostics().hazards)
    if (h.kind == kind && h.kernel == kernel) return &h;
  return nullptr;
}

// One copy each, with what the test passes: size, offsets in bytes from aligned addresses.
__global__ void one_pipeline_copy(const int* in, int* out, int size, int dst_offset, int src_offset) {
  __shared__ alignas(16) char buf[64];
  __pipeline_memcpy_async(buf + dst_offset, reinterpret_cast<const char*>(in) + src_offset, std::size_t(size));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  out[0] = buf[dst_offset];
}

__global__ void one_bulk_copy(const int* in, int* out, int bytes, int dst_offset, int src_offset) {
  __shared__ alignas(16) char buf[256];
  __shared__ block_barrier bar;
  init(&bar, 1);
  cuda::device::memcpy_async_tx(buf + dst_offset, reinterpret_cast<const char*>(in) + src_offset,
                                cuda::aligned_size_t<16>(std::size_t(bytes)), bar);
  bar.wait(cuda::device::barrier_arrive_tx(bar, 1, bytes));
  out[0] = buf[dst_offset];
}

// The barrier expects one arrival more than the block has threads (missing: true), or the
// producer announces more bytes than it copies (missing: false).
__global__ void missing_arrival(const int* in, int* out, bool arrivals) {
  __shared__ alignas(16) int buf[64];
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, int(blockDim.x) + (arrivals ? 1 : 0));
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::device::memcpy_async_tx(buf, in, cuda::aligned_size_t<16>(sizeof buf), bar);
    bar.wait(cuda::device::barrier_arrive_tx(bar, 1, arrivals ? sizeof buf : 2 * sizeof buf));
  } else {
    bar.arrive_and_wait();
  }
  out[threadIdx.x] = buf[threadIdx.x % 64];
}

__global__ void barrier_without_init(int* out) {
  __shared__ block_barrier bar;
  bar.arrive_and_wait();
  out[0] = 1;
}
#endif

}  // namespace

TEST_CASE("cp.async double-buffered: every tile arrives, under several seeds and thread orders") {
  std::vector<int> got;
  CHECK(run_pipeline(0, got) == 0);
#ifdef SCANLAB_EMU
  ScopedOptions scope;
  for (auto order : {scanlab_emu::ThreadOrder::reverse, scanlab_emu::ThreadOrder::random}) {
    for (std::uint64_t seed : {2u, 3u, 11u}) {
      scanlab_emu::options().thread_order = order;
      scanlab_emu::options().seed = seed;
      CAPTURE(seed);
      CHECK(run_pipeline(0, got) == 0);
    }
  }
  // The race checker finds nothing in the right kernel.
  scanlab_emu::options().racecheck = true;
  scanlab_emu::reset_diagnostics();
  CHECK(run_pipeline(0, got) == 0);
  CHECK(scanlab_emu::diagnostics().hazards.empty());
#endif
}

// Hopper's bulk copies: the emulator has them, a GPU from compute capability 9.0 on.
bool bulk_copies_here() {
#ifdef SCANLAB_EMU
  return true;
#else
  int device = 0, major = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess);
  return major >= 9;
#endif
}

TEST_CASE("a ring of 3 stages filled by memcpy_async_tx: every tile arrives, under several seeds and orders") {
  if (!bulk_copies_here()) {
    MESSAGE("skipped: this GPU has no bulk copies (memcpy_async_tx needs compute capability 9.0)");
    return;
  }
  CHECK(run_ring(0) == 0);
  CHECK(run_ring(0, 30, 4) == 0);
#ifdef SCANLAB_EMU
  ScopedOptions scope;
  for (auto order :
       {scanlab_emu::ThreadOrder::forward, scanlab_emu::ThreadOrder::reverse, scanlab_emu::ThreadOrder::random}) {
    for (std::uint64_t seed : {1u, 5u, 9u}) {
      scanlab_emu::options().thread_order = order;
      scanlab_emu::options().seed = seed;
      CAPTURE(seed);
      CHECK(run_ring(0) == 0);
    }
  }
  // Blocks dispatched in reverse and random order, and side by side: the scheduler switches
  // blocks while threads of each wait for phases.
  scanlab_emu::options().schedule = scanlab_emu::Schedule::reverse;
  CHECK(run_ring(0, 20, 5) == 0);
  scanlab_emu::options().schedule = scanlab_emu::Schedule::random;
  scanlab_emu::options().interleave = true;
  scanlab_emu::options().resident = 3;
  scanlab_emu::options().thread_order = scanlab_emu::ThreadOrder::random;
  CHECK(run_ring(0, 20, 5) == 0);
  scanlab_emu::options().schedule = scanlab_emu::Schedule::in_order;
  scanlab_emu::options().interleave = false;
  scanlab_emu::options().resident = 0;
  scanlab_emu::options().racecheck = true;
  scanlab_emu::reset_diagnostics();
  CHECK(run_ring(0) == 0);
  CHECK(scanlab_emu::diagnostics().hazards.empty());
#endif
}

TEST_CASE("cuda::barrier: arrive(n) counts n arrivals; arrive_and_drop lowers later phases' count") {
  Buffer<int> ok(64);
  arrival_counts<<<1, 64>>>(ok.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  for (int v : ok.download()) CHECK(v == 1);
}

TEST_CASE("cp.async with zfill: the source's first bytes, then zeros") {
  Buffer<int> in(4), out(4);
  in.upload({7, 8, 9, 10});
  pipeline_zfill<<<1, 4>>>(in.p, out.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(out.download() == std::vector<int>{7, 0, 0, 0});
}

TEST_CASE("shared memory handed over through cuda::barrier phases") {
  const int rounds = 4;
  Buffer<int> out(64 * rounds);
  barrier_handover<<<1, 64>>>(out.p, rounds, 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<int> got = out.download();
  for (int r = 0; r < rounds; ++r)
    for (int t = 0; t < 64; ++t) CHECK(got[r * 64 + t] == 10 * r + ((t / 32) ^ 1));
#ifdef SCANLAB_EMU
  // The race checker orders accesses through the phases a thread waited for: nothing to report.
  // Without the wait on `freed` the next round's write races with the reads (of 32 threads each;
  // where the write runs first, it is the read that is reported), without the wait on `full` the
  // reads race with the write.
  ScopedOptions scope;
  scanlab_emu::options().racecheck = true;
  for (auto order :
       {scanlab_emu::ThreadOrder::forward, scanlab_emu::ThreadOrder::reverse, scanlab_emu::ThreadOrder::random}) {
    scanlab_emu::options().thread_order = order;
    scanlab_emu::reset_diagnostics();
    barrier_handover<<<1, 64>>>(out.p, rounds, 0);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(scanlab_emu::diagnostics().hazards.empty());
    scanlab_emu::reset_diagnostics();
    barrier_handover<<<1, 64>>>(out.p, rounds, 1);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto* war = find_hazard(scanlab_emu::Hazard::war, "barrier_handover");
    REQUIRE(war != nullptr);
    CHECK(war->variable == "value");
    scanlab_emu::reset_diagnostics();
    barrier_handover<<<1, 64>>>(out.p, rounds, 2);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(find_hazard(scanlab_emu::Hazard::raw, "barrier_handover") != nullptr);
  }
#endif
}

#ifdef SCANLAB_EMU
TEST_CASE("cp.async: a tile read before __pipeline_wait_prior is wrong, and racecheck names the read") {
  ScopedOptions scope;
  std::vector<int> got;
  CHECK(run_pipeline(1, got) > 0);  // some copies land only at the final wait: old bytes were read
  scanlab_emu::options().seed = 7;
  CHECK(run_pipeline(1, got) > 0);
  scanlab_emu::options().racecheck = true;
  run_pipeline(1, got);
  const auto* h = find_hazard(scanlab_emu::Hazard::async_copy, "pipeline_double_buffered");
  REQUIRE(h != nullptr);
  CHECK(h->variable == "tile");
  CHECK(!h->second_writes);
  CHECK(h->first_site.find("async_copy_test.cu") != std::string::npos);
  CHECK(h->second_site.find("async_copy_test.cu") != std::string::npos);
  CHECK(h->first_site != h->second_site);
}

TEST_CASE("cp.async: another thread's waited copy read with no barrier after its wait is a race") {
  ScopedOptions scope;
  scanlab_emu::options().racecheck = true;
  std::vector<int> got;
  // Forward order: the neighbour has not waited yet (its copy is pending). Reverse order: it has,
  // and its wait made it the bytes' writer, with no barrier between its wait and this read.
  run_pipeline(2, got);
  CHECK(find_hazard(scanlab_emu::Hazard::async_copy, "pipeline_double_buffered") != nullptr);
  scanlab_emu::reset_diagnostics();
  scanlab_emu::options().thread_order = scanlab_emu::ThreadOrder::reverse;
  run_pipeline(2, got);
  const auto* h = find_hazard(scanlab_emu::Hazard::raw, "pipeline_double_buffered");
  REQUIRE(h != nullptr);
  CHECK(h->variable == "tile");
  CHECK(h->first_thread[0] == (h->second_thread[0] + 1) % kPipeThreads);  // the copy's thread, then the reader
}

TEST_CASE("memcpy_async_tx: a stage read before its barrier phase completed is wrong, and racecheck names it") {
  ScopedOptions scope;
  CHECK(run_ring(1) > 0);
  scanlab_emu::options().seed = 4;
  CHECK(run_ring(1) > 0);
  scanlab_emu::options().racecheck = true;
  run_ring(1);
  const auto* h = find_hazard(scanlab_emu::Hazard::bulk_copy, "ring_of_stages");
  REQUIRE(h != nullptr);
  CHECK(h->variable == "stage");
  CHECK(!h->second_writes);
  CHECK(h->first_thread[0] == 0);  // the producer issued the copy
  CHECK(h->second_thread[0] >= 32);
}

TEST_CASE("memcpy_async_tx: a stage freed before it is read may be refilled under the readers: racecheck names it") {
  // Here the results come out right (a consumer reads straight after its arrival, before the
  // producer runs again); the race checker still sees the refill ordered after no read.
  ScopedOptions scope;
  scanlab_emu::options().racecheck = true;
  for (auto order : {scanlab_emu::ThreadOrder::forward, scanlab_emu::ThreadOrder::reverse}) {
    scanlab_emu::options().thread_order = order;
    scanlab_emu::reset_diagnostics();
    run_ring(2);
    // The copy's issue comes after reads it is not ordered after (write-after-read), or a read
    // comes while the copy is pending.
    const auto* war = find_hazard(scanlab_emu::Hazard::war, "ring_of_stages");
    const auto* pending = find_hazard(scanlab_emu::Hazard::bulk_copy, "ring_of_stages");
    CHECK((war != nullptr || pending != nullptr));
    if (war) CHECK(war->second_thread[0] == 0);  // the producer's copy
  }
}

TEST_CASE("a missing arrival or missing transaction bytes is a deadlock report naming the barrier, at once") {
  ScopedOptions scope;
  Buffer<int> in(64), out(96);
  for (bool arrivals : {true, false}) {
    CAPTURE(arrivals);
    const auto start = std::chrono::steady_clock::now();
    missing_arrival<<<1, 96>>>(in.p, out.p, arrivals);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
    CHECK(report_has("deadlock inside a block: its threads wait for each other forever"));
    CHECK(report_has("96 threads wait on cuda::barrier `bar`"));
    CHECK(report_has(arrivals ? "1 of 97 arrivals missing\n" : "0 of 96 arrivals missing, 256 announced bytes"));
  }
  // Different barriers at different sites: the right kernel still runs afterwards.
  CHECK(run_ring(0, 6) == 0);
}

TEST_CASE("misaligned or mis-sized copies fail the launch and say why") {
  ScopedOptions scope;
  Buffer<int> in(256), out(1);
  struct Case {
    bool bulk;
    int size, dst_offset, src_offset;
    cudaError_t error;
    const char* says;
  };
  const Case cases[] = {
      {false, 12, 0, 0, cudaErrorLaunchFailure, "with size_and_align 12: it must be 4, 8 or 16"},
      {false, 16, 8, 0, cudaErrorMisalignedAddress, "misaligned destination (shared byte 8)"},
      {false, 8, 0, 4, cudaErrorMisalignedAddress, "misaligned source"},
      {false, 4, 4, 4, cudaSuccess, ""},
      {true, 100, 0, 0, cudaErrorMisalignedAddress, "size of 100 bytes: it must be a multiple of 16"},
      {true, 64, 8, 0, cudaErrorMisalignedAddress, "memcpy_async_tx at"},
      {true, 64, 0, 4, cudaErrorMisalignedAddress, "misaligned source"},
      {true, 64, 16, 16, cudaSuccess, ""},
  };
  for (const Case& c : cases) {
    CAPTURE(c.bulk);
    CAPTURE(c.size);
    CAPTURE(c.dst_offset);
    CAPTURE(c.src_offset);
    if (c.bulk) one_bulk_copy<<<1, 1>>>(in.p, out.p, c.size, c.dst_offset, c.src_offset);
    else one_pipeline_copy<<<1, 1>>>(in.p, out.p, c.size, c.dst_offset, c.src_offset);
    CHECK(cudaDeviceSynchronize() == c.error);
    if (c.error != cudaSuccess) CHECK(report_has(c.says));
  }
  // --memcheck checks the source range like a load: the 16 bytes just past the allocation's end,
  // 32 bytes from its last 16.
  scanlab_emu::options().memcheck = true;
  one_pipeline_copy<<<1, 1>>>(in.p + 256, out.p, 16, 0, 0);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(report_has("invalid global read of 16 bytes"));
  one_bulk_copy<<<1, 1>>>(in.p + 252, out.p, 32, 0, 0);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(report_has("invalid global read of 32 bytes"));
  // A barrier used before init() is reported, not read as garbage.
  barrier_without_init<<<1, 32>>>(out.p);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(report_has("before init()"));
}
#endif
