// Tests of the runtime helpers in common/ (cuda_check, device_buffer, timing, device_info) against a
// real CUDA runtime: the emulator's, and a GPU's when one is there.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/device_info.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/oracle.hpp"
#include "scanlab/random.hpp"
#include "scanlab/testing.hpp"
#include "scanlab/timing.hpp"
#include "scanlab/verify.hpp"

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr int kBlock = 128;

// Each block stages its elements in shared memory and thread 0 folds them in order: exercises a
// monoid's identity and operator() in device code and Affine in __shared__ memory.
template <class Op>
__global__ void block_reduce_in_order(const typename Op::value_type* in, typename Op::value_type* block_totals, int n,
                                      Op op) {
  __shared__ typename Op::value_type tile[kBlock];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : Op::identity();
  __syncthreads();
  if (threadIdx.x == 0) {
    typename Op::value_type acc = Op::identity();
    for (int j = 0; j < kBlock; ++j) acc = op(acc, tile[j]);
    block_totals[blockIdx.x] = acc;
  }
}

__global__ void write_index(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

template <class Op>
void check_block_reduce(const std::vector<typename Op::value_type>& in, Op op) {
  using T = typename Op::value_type;
  const int n = static_cast<int>(in.size());
  const int blocks = (n + kBlock - 1) / kBlock;
  scanlab::DeviceBuffer<T> d_in(in);
  scanlab::DeviceBuffer<T> d_out(static_cast<std::size_t>(blocks));
  d_out.fill_poison();
  block_reduce_in_order<<<blocks, kBlock>>>(d_in.data(), d_out.data(), n, op);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  std::vector<T> expected(static_cast<std::size_t>(blocks));
  for (int b = 0; b < blocks; ++b) {
    const std::size_t begin = static_cast<std::size_t>(b) * kBlock;
    const std::size_t count = std::min<std::size_t>(kBlock, in.size() - begin);
    expected[static_cast<std::size_t>(b)] = scanlab::reduce_oracle(in.data() + begin, count, op);
  }
  const auto r = scanlab::verify_exact(expected, d_out.download());
  CHECK_MESSAGE(r.ok, r.message());
}

}  // namespace

TEST_CASE("SCANLAB_CUDA_CHECK: a failing call throws CudaError with file, line, error and call") {
  scanlab::DeviceBuffer<int> d(4);
  int host[4] = {1, 2, 3, 4};
  const auto bad_kind = static_cast<cudaMemcpyKind>(12345);
  int line = 0;
  try {
    line = __LINE__ + 1;  // the line of the call below, which the error must name
    SCANLAB_CUDA_CHECK(cudaMemcpy(d.data(), host, sizeof host, bad_kind));
    FAIL("cudaMemcpy with an invalid kind did not fail");
  } catch (const scanlab::CudaError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(e.code() != cudaSuccess);
    CHECK(contains(what, "runtime_test"));
    CHECK(contains(what, ":" + std::to_string(line) + ":"));
    CHECK(contains(what, cudaGetErrorName(e.code())));
    CHECK(contains(what, cudaGetErrorString(e.code())));
    CHECK(contains(what, "cudaMemcpy(d.data(), host, sizeof host, bad_kind)"));
  }
  (void)cudaGetLastError();  // the failed call is also the runtime's "last error": clear it
  SCANLAB_CUDA_CHECK(cudaGetLastError());
  // A successful call passes through.
  SCANLAB_CUDA_CHECK(cudaMemcpy(d.data(), host, sizeof host, cudaMemcpyHostToDevice));
  CHECK(d.download() == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("SCANLAB_CHECK_LAUNCH: an impossible launch configuration is reported") {
  scanlab::DeviceBuffer<int> d(8);
  write_index<<<1, 4096>>>(d.data(), 8);  // more threads per block than any GPU allows
  try {
    SCANLAB_CHECK_LAUNCH();
    FAIL("a launch of 4096 threads per block was not reported");
  } catch (const scanlab::CudaError& e) {
    CHECK(e.code() != cudaSuccess);
    CHECK(contains(e.what(), "kernel launch"));
  }
  SCANLAB_CHECK_LAUNCH();  // reading the error cleared it
  write_index<<<2, 4>>>(d.data(), 8);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  CHECK(d.download() == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("DeviceBuffer: upload/download round trip on random data") {
  for (std::size_t n : {1, 127, 100003}) {
    CAPTURE(n);
    const auto ints = scanlab::random_vector<int>(n, scanlab::test_seed(1 + n), INT32_MIN, INT32_MAX);
    scanlab::DeviceBuffer<int> di(n);
    CHECK(di.size() == n);
    CHECK(di.bytes() == n * sizeof(int));
    di.upload(ints);
    CHECK(di.download() == ints);

    const auto floats = scanlab::random_vector<float>(n, scanlab::test_seed(2 + n), -1e6f, 1e6f);
    scanlab::DeviceBuffer<float> df(floats);
    const auto back = df.download();
    CHECK(scanlab::verify_exact(floats, back).ok);

    const auto maps =
        scanlab::random_vector<scanlab::Affine<std::uint32_t>>(n, scanlab::test_seed(3 + n), 0u, 0xFFFFFFFFu);
    scanlab::DeviceBuffer<scanlab::Affine<std::uint32_t>> dm(maps);
    CHECK(scanlab::verify_exact(maps, dm.download()).ok);
  }
}

TEST_CASE("DeviceBuffer: partial transfers, size checks, empty buffers") {
  const auto data = scanlab::random_vector<int>(100, scanlab::test_seed(10));
  scanlab::DeviceBuffer<int> d(100);
  d.fill_zero();
  d.upload(data.data(), 10);
  std::vector<int> back(10);
  d.download(back.data(), 10);
  CHECK(back == std::vector<int>(data.begin(), data.begin() + 10));
  CHECK(d.download()[10] == 0);
  CHECK_THROWS_AS(d.upload(std::vector<int>(99)), std::length_error);
  CHECK_THROWS_AS(d.upload(data.data(), 101), std::length_error);
  CHECK_THROWS_AS(d.download(back.data(), 101), std::length_error);

  scanlab::DeviceBuffer<int> empty(0);
  CHECK(empty.empty());
  CHECK(empty.data() == nullptr);
  CHECK(empty.download().empty());
  empty.fill_poison();
  empty.upload(std::vector<int>{});
}

TEST_CASE("DeviceBuffer: fill_poison marks every element") {
  scanlab::DeviceBuffer<int> di(1000);
  di.fill_zero();
  di.fill_poison();
  auto vi = di.download();
  CHECK(scanlab::count_poison(vi.data(), vi.size()) == 1000);

  scanlab::DeviceBuffer<float> df(1000);
  df.fill_poison();
  auto vf = df.download();
  CHECK(scanlab::count_poison(vf.data(), vf.size()) == 1000);

  scanlab::DeviceBuffer<scanlab::Affine<double>> da(10);
  da.fill_poison();
  auto va = da.download();
  CHECK(scanlab::count_poison(va.data(), va.size()) == 10);

  // A kernel that writes only part of the buffer leaves the rest visibly unwritten.
  di.fill_poison();
  write_index<<<1, 32>>>(di.data(), 500);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  vi = di.download();
  CHECK(scanlab::count_poison(vi.data(), vi.size()) == 1000 - 32);
}

TEST_CASE("DeviceBuffer: move-only ownership") {
  static_assert(!std::is_copy_constructible_v<scanlab::DeviceBuffer<int>>);
  static_assert(std::is_nothrow_move_constructible_v<scanlab::DeviceBuffer<int>>);
  const auto data = scanlab::random_vector<int>(64, scanlab::test_seed(20));
  scanlab::DeviceBuffer<int> a(data);
  int* p = a.data();
  scanlab::DeviceBuffer<int> b(std::move(a));
  CHECK(b.data() == p);
  CHECK(b.size() == 64);
  CHECK(a.data() == nullptr);
  CHECK(a.size() == 0);
  scanlab::DeviceBuffer<int> c(8);
  c = std::move(b);
  CHECK(c.data() == p);
  CHECK(c.download() == data);
}

TEST_CASE("monoids run inside kernels; Affine lives in shared memory") {
  const std::size_t n = 1000;
  check_block_reduce(scanlab::random_vector<int>(n, scanlab::test_seed(30), INT32_MIN, INT32_MAX),
                     scanlab::Plus<int>{});
  check_block_reduce(scanlab::random_vector<int>(n, scanlab::test_seed(31)), scanlab::Max<int>{});
  check_block_reduce(scanlab::random_vector<float>(n, scanlab::test_seed(32)), scanlab::Min<float>{});
  check_block_reduce(scanlab::random_vector<scanlab::Affine<std::uint32_t>>(n, scanlab::test_seed(33), 0u, 0xFFFFFFFFu),
                     scanlab::AffineCompose<std::uint32_t>{});
  check_block_reduce(scanlab::random_vector<scanlab::Affine<int>>(n, scanlab::test_seed(34), -3, 3),
                     scanlab::AffineCompose<int>{});
}

TEST_CASE("GpuTimer and time_ms") {
  scanlab::DeviceBuffer<int> d(1 << 16);
  scanlab::GpuTimer timer;
  timer.start();
  write_index<<<(1 << 16) / 256, 256>>>(d.data(), 1 << 16);
  SCANLAB_CHECK_LAUNCH();
  timer.stop();
  const float ms = timer.elapsed_ms();
  CHECK(ms >= 0.0f);

  int calls = 0;
  const auto stats = scanlab::time_ms(
      [&] {
        ++calls;
        write_index<<<(1 << 16) / 256, 256>>>(d.data(), 1 << 16);
        SCANLAB_CHECK_LAUNCH();
      },
      2, 5);
  CHECK(calls == 7);
  CHECK(stats.reps == 5);
  CHECK(stats.min_ms >= 0.0);
  CHECK(stats.min_ms <= stats.median_ms);
  CHECK(stats.median_ms <= stats.max_ms);
  const auto v = d.download();
  CHECK(v[12345] == 12345);
}

TEST_CASE("device_info: backend name") {
#if defined(SCANLAB_EMU)
  CHECK(scanlab::on_emulator());
  CHECK(scanlab::backend_name() == "emulator");
#else
  CHECK_FALSE(scanlab::on_emulator());
  CHECK(scanlab::backend_name() != "emulator");
#endif
  CHECK_FALSE(scanlab::backend_name().empty());
  const std::string desc = scanlab::device_description();
  MESSAGE(desc);
  CHECK(contains(desc, "SMs"));
}
