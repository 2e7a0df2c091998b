// What a driver says of a wrong output value (scanlab/verify.hpp) must be true: "(poison: never
// written)" only for an output element the kernel never wrote. A value the kernel copied from shared
// memory that nothing wrote carries the emulator's shared-memory fill instead, and is named as that
// (issue 39: before, both were the same byte and both were called "never written"). Emulator only.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "scanlab/device_buffer.hpp"
#include "scanlab/verify.hpp"

namespace {
// Threads 0..15 copy shared memory that nothing wrote; threads 16..31 write nothing.
__global__ void copy_unwritten_shared(int* out) {
  __shared__ int s[32];
  if (threadIdx.x < 16) out[threadIdx.x] = s[threadIdx.x];
}
}  // namespace

TEST_CASE("a value from unwritten shared memory is not called an output never written") {
  scanlab::DeviceBuffer<int> out(32);
  out.fill_poison();
  copy_unwritten_shared<<<1, 32>>>(out.data());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<int> got(32);
  REQUIRE(cudaMemcpy(got.data(), out.data(), 32 * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
  const std::vector<int> zeros(16, 0);
  const std::string copied = scanlab::verify_exact(zeros.data(), got.data(), 16).message();
  const std::string unwritten = scanlab::verify_exact(zeros.data(), got.data() + 16, 16).message();
  CAPTURE(copied);
  CAPTURE(unwritten);
  CHECK(copied.find("shared memory that nothing wrote") != std::string::npos);
  CHECK(copied.find("never written") == std::string::npos);
  CHECK(unwritten.find("(poison: never written)") != std::string::npos);
}
