// A fault reached through the lab's library names the caller's line first (issue 39): the library's
// functions are inlined into the student's, and the emulator reads the inline chain of the faulting
// instruction (addr2line -i), so "exercise.cuh:40 (in .../protocol.cuh:31)" instead of the library's
// line alone. Emulator only.
#include <cuda_runtime.h>
#include <doctest/doctest.h>

#include <string>

#include "scanlab/single_pass/protocol.cuh"

namespace {
constexpr int kCallerLine = __LINE__ + 3;
// Reads one element past the end of `words`, through the library's load_volatile.
__global__ void read_past_the_end(const unsigned* words, unsigned* out, int n) {
  out[threadIdx.x] = scanlab::single_pass::load_volatile(&words[n + int(threadIdx.x)]);
}
}  // namespace

TEST_CASE("an out-of-bounds read inside a library function names its caller's line first") {
  const scanlab_emu::Options saved = scanlab_emu::options();
  scanlab_emu::options().memcheck = true;
  unsigned *words = nullptr, *out = nullptr;
  REQUIRE(cudaMalloc(&words, 64 * sizeof(unsigned)) == cudaSuccess);
  REQUIRE(cudaMalloc(&out, 32 * sizeof(unsigned)) == cudaSuccess);
  read_past_the_end<<<1, 1>>>(words, out, 64);
  CHECK(cudaDeviceSynchronize() != cudaSuccess);
  const std::string report = scanlab_emu::last_failure_report();
  CAPTURE(report);
  const std::string caller = "library_site_test.cu:" + std::to_string(kCallerLine) + " (in ";
  CHECK(report.find(caller) != std::string::npos);
  CHECK(report.find("protocol.cuh:") != std::string::npos);
  cudaFree(words);
  cudaFree(out);
  scanlab_emu::options() = saved;
}
