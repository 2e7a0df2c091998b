// Tests of the emulator's own scheduling options (scanlab_emu::options(); design.md §4), which have no
// GPU counterpart, so this program is built for the emulator only: the block dispatch order
// (in-order, reverse, random with a seed) seen through an atomic ticket, resident-slot limits that
// turn a wait on a not-yet-resident block into a reported deadlock (cudaErrorLaunchTimeout) while
// ticket-ordered waiting passes, and thread orders (forward, reverse, random) that change the order
// threads run between barriers but never a correctly synchronized result; and the count of distinct
// addresses each block polls (how far a look-back reaches).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/testing.hpp"

#include <scanlab_emu/diagnostics.hpp>

#ifndef SCANLAB_EMU
#error "schedule_test pokes the emulator's options: build it for the emulator only"
#endif

namespace {

// ---- Block dispatch order -----------------------------------------------------------------------

__global__ void record_block_start(unsigned* ticket, unsigned* order) {
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    const unsigned linear = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
    order[atomicAdd(ticket, 1u)] = linear;
  }
}

std::vector<unsigned> block_start_order(dim3 grid, dim3 block) {
  const unsigned n = grid.x * grid.y * grid.z;
  scanlab::DeviceBuffer<unsigned> ticket(1), order(n);
  SCANLAB_CUDA_CHECK(cudaMemset(ticket.data(), 0, 4));
  order.fill_poison();
  record_block_start<<<grid, block>>>(ticket.data(), order.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  return order.download();
}

// "" when equal, else where they first differ and the first few elements of both.
template <class T>
std::string diff(const std::vector<T>& got, const std::vector<T>& want) {
  if (got == want) return "";
  std::size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  auto head = [](const std::vector<T>& v) {
    std::string s;
    for (std::size_t k = 0; k < v.size() && k < 12; ++k) s += std::to_string(v[k]) + " ";
    return s + (v.size() > 12 ? "..." : "");
  };
  return "first difference at index " + std::to_string(i) + "; got [" + head(got) + "], expected [" + head(want) + "]";
}
#define CHECK_SAME(got, want)               \
  do {                                      \
    const std::string d_ = diff(got, want); \
    CHECK_MESSAGE(d_.empty(), d_);          \
  } while (0)

bool is_permutation_of_iota(std::vector<unsigned> v) {
  std::sort(v.begin(), v.end());
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != i) return false;
  return true;
}

}  // namespace

TEST_CASE("schedule in-order / reverse / random: the order blocks start in") {
  scanlab_emu::OptionsGuard guard;
  auto& opt = scanlab_emu::options();
  opt.resident = 0;
  const dim3 grid(7, 3, 2), block(16, 4);
  const unsigned n = grid.x * grid.y * grid.z;
  std::vector<unsigned> iota(n);
  std::iota(iota.begin(), iota.end(), 0u);

  opt.schedule = scanlab_emu::Schedule::in_order;
  CHECK_SAME(block_start_order(grid, block), iota);  // x fastest, then y, then z

  opt.schedule = scanlab_emu::Schedule::reverse;
  std::vector<unsigned> reversed(iota.rbegin(), iota.rend());
  CHECK_SAME(block_start_order(grid, block), reversed);

  opt.schedule = scanlab_emu::Schedule::random;
  const std::uint64_t seed = scanlab::test_seed(3000);
  opt.seed = seed;
  const std::vector<unsigned> a = block_start_order(grid, block);
  const std::vector<unsigned> b = block_start_order(grid, block);
  opt.seed = seed + 1;
  const std::vector<unsigned> c = block_start_order(grid, block);
  CHECK(is_permutation_of_iota(a));
  CHECK(is_permutation_of_iota(c));
  CHECK_SAME(a, b);  // the same seed replays the same order
  CHECK(a != iota);  // 42! orders: equal to in-order or to the other seed's only by a bug
  CHECK(a != reversed);
  CHECK(a != c);
}

// ---- Resident slots -------------------------------------------------------------------------------

namespace {

// Blocks listed in `waiters` (a bit mask over blockIdx.x) wait for block `target` to raise its flag.
__global__ void wait_for_block(volatile int* flag, unsigned waiters, unsigned target, int* out) {
  const unsigned b = blockIdx.x;
  if (b == target && threadIdx.x == 0) {
    __threadfence();
    *flag = 1;
  }
  if ((waiters >> b) & 1u) {
    while (*flag == 0) {
    }
  }
  out[b * blockDim.x + threadIdx.x] = int(b);
}

// The portable way to wait for "the block before you": take a ticket when the block starts and
// wait only for lower tickets, which were handed to blocks already running.
__global__ void ticket_chain(unsigned* ticket, volatile int* done, int* out) {
  __shared__ unsigned my;
  if (threadIdx.x == 0) my = atomicAdd(ticket, 1u);
  __syncthreads();
  const unsigned k = my;
  if (k > 0) {
    while (done[k - 1] == 0) {
    }
  }
  out[k * blockDim.x + threadIdx.x] = int(k);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    done[k] = 1;
  }
}

struct LaunchResult {
  cudaError_t sync;
  double seconds;
  std::vector<int> out;
};

LaunchResult run_wait_for_block(unsigned blocks, unsigned waiters, unsigned target) {
  scanlab::DeviceBuffer<int> flag(1), out(std::size_t(blocks) * 32);
  SCANLAB_CUDA_CHECK(cudaMemset(flag.data(), 0, 4));
  out.fill_poison();
  const auto start = std::chrono::steady_clock::now();
  wait_for_block<<<blocks, 32>>>(flag.data(), waiters, target, out.data());
  LaunchResult r;
  r.sync = cudaDeviceSynchronize();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  (void)cudaGetLastError();
  r.out = out.download();
  return r;
}

}  // namespace

TEST_CASE("resident slots: waiting for a block that cannot become resident is a reported deadlock") {
  scanlab_emu::OptionsGuard guard;
  auto& opt = scanlab_emu::options();
  opt.schedule = scanlab_emu::Schedule::in_order;

  // Block 0 waits for block 1. With one slot, block 1 never starts: deadlock, reported quickly.
  opt.resident = 1;
  LaunchResult r = run_wait_for_block(2, 0b1, 1);
  INFO("resident=1, block 0 waits for block 1: ", cudaGetErrorName(r.sync), " after ", r.seconds, " s");
  CHECK(r.sync == cudaErrorLaunchTimeout);
  CHECK(r.seconds < 5.0);
  // ... and with two slots it completes.
  opt.resident = 2;
  r = run_wait_for_block(2, 0b1, 1);
  CHECK(r.sync == cudaSuccess);
  CHECK(r.out[0] == 0);
  CHECK(r.out[32] == 1);

  // Blocks 0 and 1 wait for block 2: two slots are not enough, three are.
  opt.resident = 2;
  r = run_wait_for_block(4, 0b11, 2);
  CHECK(r.sync == cudaErrorLaunchTimeout);
  opt.resident = 3;
  r = run_wait_for_block(4, 0b11, 2);
  CHECK(r.sync == cudaSuccess);
  for (unsigned b = 0; b < 4; ++b) CHECK(r.out[b * 32] == int(b));

  // In reverse order with one slot, block 1 runs first and a wait on a later block is satisfied.
  opt.resident = 1;
  opt.schedule = scanlab_emu::Schedule::reverse;
  r = run_wait_for_block(2, 0b1, 1);
  CHECK(r.sync == cudaSuccess);

  // After the failures, an ordinary launch runs.
  opt.schedule = scanlab_emu::Schedule::in_order;
  opt.resident = 0;
  r = run_wait_for_block(3, 0, 0);
  CHECK(r.sync == cudaSuccess);
  for (unsigned b = 0; b < 3; ++b) CHECK(r.out[b * 32 + 31] == int(b));
}

TEST_CASE("resident=1: blocks ordered by an atomic ticket complete under every schedule") {
  scanlab_emu::OptionsGuard guard;
  auto& opt = scanlab_emu::options();
  opt.resident = 1;
  opt.seed = scanlab::test_seed(3100);
  const unsigned blocks = 40, threads = 64;
  for (auto schedule :
       {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse, scanlab_emu::Schedule::random}) {
    opt.schedule = schedule;
    scanlab::DeviceBuffer<unsigned> ticket(1);
    scanlab::DeviceBuffer<int> done(blocks), out(std::size_t(blocks) * threads);
    SCANLAB_CUDA_CHECK(cudaMemset(ticket.data(), 0, 4));
    SCANLAB_CUDA_CHECK(cudaMemset(done.data(), 0, done.bytes()));
    out.fill_poison();
    ticket_chain<<<blocks, threads>>>(ticket.data(), done.data(), out.data());
    INFO("schedule ", scanlab_emu::to_string(schedule));
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    const std::vector<int> got = out.download();
    std::size_t wrong = 0;
    for (unsigned k = 0; k < blocks; ++k)
      for (unsigned t = 0; t < threads; ++t) wrong += got[k * threads + t] != int(k);
    CHECK(wrong == 0);
  }
}

// ---- Thread order -------------------------------------------------------------------------------

namespace {

// Records the order threads run their first and second barrier intervals (a shared ticket each),
// and computes an inclusive scan by Hillis-Steele with double buffering, which is correct in any
// order because every read is separated from the writes it depends on by a barrier.
__global__ void ordered_scan(const int* in, int* out, unsigned* first_turn, unsigned* second_turn) {
  extern __shared__ int buf[];  // 2 * blockDim.x
  __shared__ unsigned turns[2];
  const unsigned t = threadIdx.x, n = blockDim.x;
  if (t == 0) turns[0] = turns[1] = 0;
  __syncthreads();
  first_turn[t] = atomicAdd(&turns[0], 1u);
  int* src = buf;
  int* dst = buf + n;
  src[t] = in[t];
  __syncthreads();
  second_turn[t] = atomicAdd(&turns[1], 1u);
  for (unsigned d = 1; d < n; d *= 2) {
    dst[t] = t >= d ? src[t - d] + src[t] : src[t];
    __syncthreads();
    int* tmp = src;
    src = dst;
    dst = tmp;
  }
  out[t] = src[t];
}

struct OrderRun {
  std::vector<int> out;
  std::vector<unsigned> first, second;
};

OrderRun run_ordered_scan(const std::vector<int>& in) {
  const unsigned n = unsigned(in.size());
  scanlab::DeviceBuffer<int> d_in(in), d_out(n);
  scanlab::DeviceBuffer<unsigned> first(n), second(n);
  d_out.fill_poison();
  first.fill_poison();
  second.fill_poison();
  ordered_scan<<<1, n, 2 * n * sizeof(int)>>>(d_in.data(), d_out.data(), first.data(), second.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  return OrderRun{d_out.download(), first.download(), second.download()};
}

}  // namespace

TEST_CASE("thread orders: forward, reverse and random change who runs first, not the barrier-separated result") {
  scanlab_emu::OptionsGuard guard;
  auto& opt = scanlab_emu::options();
  opt.schedule = scanlab_emu::Schedule::in_order;
  opt.resident = 0;
  opt.seed = scanlab::test_seed(3200);
  for (unsigned n : {64u, 200u, 1024u}) {
    scanlab::Rng rng = scanlab::test_rng(3300 + n);
    std::vector<int> in(n);
    for (int& x : in) x = int(rng.below(2001)) - 1000;
    std::vector<int> expected(n);
    std::partial_sum(in.begin(), in.end(), expected.begin());
    std::vector<unsigned> iota(n), reversed(n);
    std::iota(iota.begin(), iota.end(), 0u);
    for (unsigned t = 0; t < n; ++t) reversed[t] = n - 1 - t;

    INFO("block of ", n);
    opt.thread_order = scanlab_emu::ThreadOrder::forward;
    OrderRun f = run_ordered_scan(in);
    CHECK_SAME(f.out, expected);
    CHECK_SAME(f.first, iota);
    CHECK_SAME(f.second, iota);

    opt.thread_order = scanlab_emu::ThreadOrder::reverse;
    OrderRun r = run_ordered_scan(in);
    CHECK_SAME(r.out, expected);
    CHECK_SAME(r.first, reversed);
    CHECK_SAME(r.second, reversed);

    opt.thread_order = scanlab_emu::ThreadOrder::random;
    OrderRun x = run_ordered_scan(in);
    OrderRun y = run_ordered_scan(in);
    CHECK_SAME(x.out, expected);
    CHECK(is_permutation_of_iota(x.first));
    CHECK(is_permutation_of_iota(x.second));
    CHECK(x.first != iota);
    CHECK(x.first != reversed);
    CHECK(x.first != x.second);    // a fresh order for every barrier interval
    CHECK_SAME(x.first, y.first);  // the seed replays it
    CHECK_SAME(x.second, y.second);
  }
}

// ---- Polled addresses ---------------------------------------------------------------------------

namespace {

// Block b reads flags[0..b-1] with volatile loads, each twice; its plain loads and its volatile
// reads of shared memory are no polls of global memory.
__global__ void read_flags_below(const volatile int* flags, const int* data, int* out) {
  __shared__ volatile int local[1];
  const unsigned b = blockIdx.x;
  if (threadIdx.x == 0) {
    local[0] = 1;
    int sum = local[0] + data[b];
    for (unsigned i = 0; i < b; ++i) sum += flags[i] + flags[i];
    out[b] = sum;
  }
}

// The record of the last launch that polled global memory (fails the test when there is none).
scanlab_emu::PollRecord last_poll_record() {
  const auto& polls = scanlab_emu::diagnostics().polls;
  REQUIRE(!polls.empty());
  return polls.back();
}

}  // namespace

TEST_CASE("polled addresses: per block, the distinct global addresses read with volatile or atomic loads") {
  scanlab_emu::OptionsGuard guard;
  const unsigned blocks = 20;
  scanlab::DeviceBuffer<int> flags(blocks), data(blocks), out(blocks);
  SCANLAB_CUDA_CHECK(cudaMemset(flags.data(), 0, flags.bytes()));
  SCANLAB_CUDA_CHECK(cudaMemset(data.data(), 0, data.bytes()));
  scanlab_emu::reset_diagnostics();
  read_flags_below<<<blocks, 32>>>(flags.data(), data.data(), out.data());
  SCANLAB_CHECK_SYNC();
  scanlab_emu::PollRecord r = last_poll_record();
  CHECK(r.kernel.find("read_flags_below") != std::string::npos);
  CHECK(r.blocks == blocks);
  CHECK(r.addresses == blocks * (blocks - 1) / 2);  // block b: b flags, whatever it read twice
  CHECK(r.max_addresses == blocks - 1);

  // A wait that spins on one address counts it once: blocks that take turns make each wait for
  // the block before it (ticket_chain), polling done[k - 1] again and again.
  auto& opt = scanlab_emu::options();
  opt.resident = 5;
  opt.interleave = true;
  const unsigned chained = 40, threads = 64;
  scanlab::DeviceBuffer<unsigned> ticket(1);
  scanlab::DeviceBuffer<int> done(chained), chain_out(std::size_t(chained) * threads);
  SCANLAB_CUDA_CHECK(cudaMemset(ticket.data(), 0, 4));
  SCANLAB_CUDA_CHECK(cudaMemset(done.data(), 0, done.bytes()));
  scanlab_emu::reset_diagnostics();
  ticket_chain<<<chained, threads>>>(ticket.data(), done.data(), chain_out.data());
  SCANLAB_CHECK_SYNC();
  r = last_poll_record();
  CHECK(r.blocks == chained);
  CHECK(r.addresses == chained - 1);  // every block but the first polls done[k - 1], and only that
  CHECK(r.max_addresses == 1);
}
