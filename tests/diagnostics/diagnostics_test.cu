// The emulator's diagnostics catch planted bugs and stay quiet on clean kernels (issue 3's list):
// a missing barrier, a divergent barrier, threads exiting while others wait, a shuffle from an
// inactive lane, a caller outside its own mask, exact 2-way and 32-way bank conflicts, and a
// blockIdx-ordered chain under reverse dispatch reported as deadlock (the same chain with a ticket passes).
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

// Sets emulator options for one test and restores them afterwards.
struct ScopedOptions {
  scanlab_emu::Options saved = scanlab_emu::options();
  ScopedOptions() { scanlab_emu::reset_diagnostics(); }
  ~ScopedOptions() { scanlab_emu::options() = saved; }
};

bool misuse_mentions(const std::string& needle) {
  for (const auto& m : scanlab_emu::diagnostics().misuse)
    if (m.message.find(needle) != std::string::npos) return true;
  return false;
}

__global__ void reduce_missing_barrier(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = int(threadIdx.x);
  // missing __syncthreads(): thread 0 reads what other threads write
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int i = 0; i < 64; ++i) sum += s[i];
    *out = sum;
  }
}

__global__ void reduce_with_barrier(int* out) {
  __shared__ int s[64];
  s[threadIdx.x] = int(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int i = 0; i < 64; ++i) sum += s[i];
    *out = sum;
  }
}

__global__ void warp_exchange_with_syncwarp(int* out) {
  __shared__ int s[32];
  s[threadIdx.x] = int(threadIdx.x);
  __syncwarp();
  out[threadIdx.x] = s[31 - threadIdx.x];
}

__global__ void divergent_barrier(int* out) {
  // Different code around each barrier, so the compiler cannot merge the two calls into one.
  if (threadIdx.x < 16) {
    __syncthreads();
    out[threadIdx.x] = 1;
  } else {
    out[threadIdx.x] = 2;
    __syncthreads();
  }
}

__global__ void early_exit_before_barrier(int* out, int n) {
  if (int(threadIdx.x) >= n) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

__global__ void shuffle_from_inactive_lane(int* out) {
  const int lane = threadIdx.x & 31;
  if (lane < 16) out[lane] = __shfl_sync(0x0000ffffu, lane, lane + 16);  // lanes 16..31 are not in the mask
}

__global__ void caller_outside_mask(int* out) {
  out[threadIdx.x] = __shfl_sync(0x1u, int(threadIdx.x), 0);  // every lane but 0 is outside its mask
}

__global__ void read_with_stride(int* out, int stride) {
  __shared__ int s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += 32) s[i] = i;
  __syncwarp();
  out[threadIdx.x] = s[(threadIdx.x * stride) % (32 * 32)];
}

__global__ void wait_for_previous_block(volatile int* flags, unsigned* ticket, bool ticketed) {
  __shared__ int tile;
  if (threadIdx.x == 0) tile = ticketed ? int(atomicAdd(ticket, 1u)) : int(blockIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) {
    if (tile > 0)
      while (flags[tile - 1] == 0) {
      }
    __threadfence();
    flags[tile] = 1;
  }
}

struct Buffer {
  int* p = nullptr;
  explicit Buffer(int n) {
    REQUIRE(cudaMalloc(&p, n * sizeof(int)) == cudaSuccess);
    REQUIRE(cudaMemset(p, 0, n * sizeof(int)) == cudaSuccess);
  }
  ~Buffer() { cudaFree(p); }
};

}  // namespace

TEST_CASE("racecheck reports a missing barrier and nothing on the fixed kernel") {
  ScopedOptions scope;
  scanlab_emu::options().racecheck = true;
  Buffer out(1);
  reduce_missing_barrier<<<1, 64>>>(out.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto& hazards = scanlab_emu::diagnostics().hazards;
  REQUIRE(!hazards.empty());
  CHECK(std::any_of(hazards.begin(), hazards.end(), [](const scanlab_emu::HazardReport& h) {
    return h.variable == "s" && h.kernel == "reduce_missing_barrier" &&
           h.second_site.find("diagnostics_test.cu") != std::string::npos;
  }));

  scanlab_emu::reset_diagnostics();
  reduce_with_barrier<<<1, 64>>>(out.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(scanlab_emu::diagnostics().hazards.empty());
  int sum = 0;
  REQUIRE(cudaMemcpy(&sum, out.p, sizeof sum, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(sum == 63 * 64 / 2);
}

TEST_CASE("racecheck orders the lanes of a warp across __syncwarp") {
  ScopedOptions scope;
  scanlab_emu::options().racecheck = true;
  Buffer out(32);
  warp_exchange_with_syncwarp<<<1, 32>>>(out.p);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(scanlab_emu::diagnostics().hazards.empty());
}

TEST_CASE("a barrier reached at two different call sites fails the launch") {
  ScopedOptions scope;
  Buffer out(32);
  divergent_barrier<<<1, 32>>>(out.p);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(misuse_mentions("barrier divergence"));
  CHECK(scanlab_emu::last_failure_report().find("barrier divergence") != std::string::npos);
  // The emulator recovers: the next launch runs.
  reduce_with_barrier<<<1, 64>>>(out.p);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
}

TEST_CASE("threads that exit while others wait at a barrier are reported") {
  ScopedOptions scope;
  Buffer out(64);
  early_exit_before_barrier<<<1, 64>>>(out.p, 40);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(misuse_mentions("exited while others"));

  scanlab_emu::reset_diagnostics();
  early_exit_before_barrier<<<1, 64>>>(out.p, 64);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(scanlab_emu::diagnostics().misuse.empty());
}

TEST_CASE("a shuffle from a lane outside the mask is reported; a caller outside its mask fails") {
  ScopedOptions scope;
  Buffer out(32);
  shuffle_from_inactive_lane<<<1, 32>>>(out.p);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(misuse_mentions("inactive or outside the mask"));

  caller_outside_mask<<<1, 32>>>(out.p);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
  CHECK(misuse_mentions("does not include it"));
}

TEST_CASE("bank conflicts: stride 1, 2 and 32 reads are exactly 1-, 2- and 32-way") {
  ScopedOptions scope;
  scanlab_emu::options().banks = true;
  Buffer out(32);
  for (int stride : {1, 2, 32}) {
    scanlab_emu::reset_diagnostics();
    read_with_stride<<<1, 32>>>(out.p, stride);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const auto& banks = scanlab_emu::diagnostics().banks;
    // The read is the only instruction after the __syncwarp phase boundary with one warp access.
    auto read = std::find_if(banks.begin(), banks.end(), [](const scanlab_emu::BankRecord& r) {
      return r.warp_accesses == 1 && r.site.find("diagnostics_test.cu") != std::string::npos;
    });
    REQUIRE(read != banks.end());
    CAPTURE(stride);
    CHECK(read->degree_count[stride] == 1);
    CHECK(read->extra_wavefronts == std::uint64_t(stride - 1));
  }
}

TEST_CASE("tiles ordered by blockIdx deadlock under reverse dispatch; a ticket does not") {
  ScopedOptions scope;
  scanlab_emu::options().schedule = scanlab_emu::Schedule::reverse;
  scanlab_emu::options().resident = 4;
  const int blocks = 32;
  Buffer flags(blocks), ticket(1);
  wait_for_previous_block<<<blocks, 32>>>(flags.p, reinterpret_cast<unsigned*>(ticket.p), false);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchTimeout);
  const std::string report = scanlab_emu::last_failure_report();
  CHECK(report.find("deadlock") != std::string::npos);
  CHECK(report.find("never made resident (28 blocks)") != std::string::npos);

  REQUIRE(cudaMemset(flags.p, 0, blocks * sizeof(int)) == cudaSuccess);
  wait_for_previous_block<<<blocks, 32>>>(flags.p, reinterpret_cast<unsigned*>(ticket.p), true);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<int> h(blocks);
  REQUIRE(cudaMemcpy(h.data(), flags.p, blocks * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(std::count(h.begin(), h.end(), 1) == blocks);
}
