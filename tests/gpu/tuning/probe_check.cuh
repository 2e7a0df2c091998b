// Chapter 11's probes' input and output check (ch11_copy_ceiling.cu, ch11_two_tiles.cu): int32 only.
//   probe_input(n)                            n values in [-2048, 2047] from a fixed LCG: the same
//                                             input in every probe and run
//   check_copy_or_sum(h_in, d_out, n, what)   "ok" when d_out holds the input (what 0: a copy) or
//                                             its exclusive sum (what 1), modulo 2^32 as int32
//                                             wraps; "WRONG" otherwise; what < 0: not checked
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include <scanlab/cuda_check.hpp>

inline std::vector<int> probe_input(std::size_t n) {
  std::vector<int> h(n);
  unsigned x = 12345;
  for (auto& v : h) {
    x = x * 1664525u + 1013904223u;
    v = static_cast<int>(x >> 20) - 2048;
  }
  return h;
}

inline const char* check_copy_or_sum(const std::vector<int>& h_in, const int* d_out, std::size_t n, int what) {
  if (what < 0) return "(not checked)";
  std::vector<int> h(n);
  SCANLAB_CUDA_CHECK(cudaMemcpy(h.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  unsigned sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int want = what ? static_cast<int>(sum) : h_in[i];
    if (h[i] != want) return "WRONG";
    sum += static_cast<unsigned>(h_in[i]);
  }
  return "ok";
}
