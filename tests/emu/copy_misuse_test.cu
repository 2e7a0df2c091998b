// The emulator names the misuse of cuda::barrier and bulk copies that chapter 11's students meet
// (issue 39), each with both source lines and advice that fits it: a thread arriving twice in one
// phase (before, only a deadlock's "63 of 64 arrivals missing" showed it), two bulk copies in flight
// over the same shared bytes, and a copy into bytes that another stage's barrier filled (before, both
// were "a write before the asynchronous copy into it completed: wait on the cuda::barrier", which
// is not the fix). A correct ring of stages reports nothing. Emulator only: these are its reports.
#pragma nv_diag_suppress static_var_with_dynamic_init
#include <cuda/barrier>
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <string>
#include <utility>

namespace {

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
constexpr int kItems = 64, kBytes = kItems * sizeof(int);

constexpr int kFirstArrival = __LINE__ + 7;
constexpr int kSecondArrival = __LINE__ + 8;
__global__ void arrives_twice(int* out) {
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  if (threadIdx.x == 0) {
    (void)bar.arrive();
  }
  bar.arrive_and_wait();
  out[threadIdx.x] = 1;
}

// Two stages, each with its barrier. `mode` 0: each copy into its own stage, over several rounds;
// 1: the second copy lands on stage 0 while the first is in flight; 2: the same after the first
// copy was waited for and read (the bytes of stage 0 filled through another barrier).
constexpr int kCopyLine = __LINE__ + 15;
__global__ void two_stages(const int* in, int* out, int mode) {
  __shared__ alignas(16) int stage[2][kItems];
  __shared__ block_barrier bar[2];
  if (threadIdx.x == 0) {
    init(&bar[0], blockDim.x);
    init(&bar[1], blockDim.x);
  }
  __syncthreads();
  const int rounds = mode == 0 ? 4 : 1;
  for (int r = 0; r < rounds; ++r) {
    for (int s = 0; s < 2; ++s) {
      block_barrier::arrival_token token;
      if (threadIdx.x == 0) {
        const int dst = mode == 0 ? s : 0;
        cuda::device::memcpy_async_tx(&stage[dst][0], in + (2 * r + s) * kItems, cuda::aligned_size_t<16>(kBytes),
                                      bar[s]);
        token = cuda::device::barrier_arrive_tx(bar[s], 1, kBytes);
      } else {
        token = bar[s].arrive();
      }
      if (mode == 1 && s == 0) continue;  // the first stage is waited for after the second copy
      bar[s].wait(std::move(token));
      out[(2 * r + s) * kItems + threadIdx.x] = stage[mode == 0 ? s : 0][threadIdx.x];
      __syncthreads();  // every thread has read the stage before it is filled again
    }
  }
}

struct Scoped {
  scanlab_emu::Options saved = scanlab_emu::options();
  Scoped() {
    scanlab_emu::reset_diagnostics();
    scanlab_emu::options().racecheck = true;
  }
  ~Scoped() { scanlab_emu::options() = saved; }
};

std::string at(int line) { return "copy_misuse_test.cu:" + std::to_string(line); }

bool misuse_has(const std::string& needle) {
  for (const auto& m : scanlab_emu::diagnostics().misuse)
    if (m.message.find(needle) != std::string::npos) return true;
  return false;
}

const scanlab_emu::HazardReport* find(scanlab_emu::Hazard kind) {
  for (const auto& h : scanlab_emu::diagnostics().hazards)
    if (h.kind == kind) return &h;
  return nullptr;
}

std::string hazards_text() {
  std::string s;
  for (const auto& h : scanlab_emu::diagnostics().hazards)
    s += std::string(scanlab_emu::to_string(h.kind)) + " " + h.first_site + " / " + h.second_site + "\n";
  return s;
}

struct Buffers {
  int *in = nullptr, *out = nullptr;
  Buffers() {
    REQUIRE(cudaMalloc(&in, 8 * kBytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&out, 8 * kBytes) == cudaSuccess);
    REQUIRE(cudaMemset(in, 0, 8 * kBytes) == cudaSuccess);
  }
  ~Buffers() {
    cudaFree(in);
    cudaFree(out);
  }
};

}  // namespace

TEST_CASE("a thread arriving twice in one cuda::barrier phase is named, with both arrivals") {
  for (auto order : {scanlab_emu::ThreadOrder::forward, scanlab_emu::ThreadOrder::reverse}) {
    const std::string order_name = scanlab_emu::to_string(order);
    CAPTURE(order_name);
    Scoped s;
    scanlab_emu::options().thread_order = order;
    Buffers b;
    arrives_twice<<<1, 64>>>(b.out);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);  // one thread then waits forever
    // Forward, both arrivals of thread 0 fall in the first phase: reported where it happens.
    // Reverse, the first arrival completes the phase and the second waits alone in the next.
    if (order == scanlab_emu::ThreadOrder::forward) {
      CHECK(misuse_has("twice in one phase"));
      CHECK(misuse_has(at(kFirstArrival)));
      CHECK(misuse_has(at(kSecondArrival)));
    }
    // Either way the deadlock report names the thread that arrived twice and both lines.
    const std::string report = scanlab_emu::last_failure_report();
    CHECK(report.find("deadlock") != std::string::npos);
    CHECK(report.find("thread (0,0,0)") != std::string::npos);
    CHECK(report.find(at(kFirstArrival)) != std::string::npos);
    CHECK(report.find(at(kSecondArrival)) != std::string::npos);
  }
}

TEST_CASE("a correct ring of two stages reports nothing") {
  Scoped s;
  Buffers b;
  two_stages<<<1, kItems>>>(b.in, b.out, 0);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK_MESSAGE(scanlab_emu::diagnostics().hazards.empty(), hazards_text());
  CHECK(scanlab_emu::diagnostics().misuse.empty());
}

TEST_CASE("two bulk copies in flight over the same bytes are named as such, not as a missing wait") {
  Scoped s;
  Buffers b;
  two_stages<<<1, kItems>>>(b.in, b.out, 1);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto* h = find(scanlab_emu::Hazard::copy_overlap);
  REQUIRE_MESSAGE(h != nullptr, hazards_text());
  CHECK(h->variable == "stage");
  CHECK(h->first_site.find(at(kCopyLine)) != std::string::npos);
  CHECK(h->second_site.find(at(kCopyLine)) != std::string::npos);
  CHECK_MESSAGE(find(scanlab_emu::Hazard::bulk_copy) == nullptr, hazards_text());
}

TEST_CASE("a bulk copy into bytes that another stage's barrier filled is named as such") {
  Scoped s;
  Buffers b;
  two_stages<<<1, kItems>>>(b.in, b.out, 2);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto* h = find(scanlab_emu::Hazard::stage_overlap);
  REQUIRE_MESSAGE(h != nullptr, hazards_text());
  CHECK(h->variable == "stage");
  CHECK(h->first_site.find(at(kCopyLine)) != std::string::npos);
  CHECK(h->second_site.find(at(kCopyLine)) != std::string::npos);
  CHECK_MESSAGE(find(scanlab_emu::Hazard::bulk_copy) == nullptr, hazards_text());
}
