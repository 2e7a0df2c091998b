// Chapter 07's scan for ch11_probe.cu, in its own translation unit (chapter 07's look-back and the
// single-pass library's share their names; a program uses one of them per translation unit).
#include <cstddef>
#include <memory>

#include <scanlab/monoid.hpp>

#include "../../../chapters/07_decoupled_lookback/decoupled_lookback_dispatch.cuh"

void ch07_exclusive_sum(const int* in, int* out, std::size_t n, std::size_t max_n) {
  static std::unique_ptr<ch07::DecoupledLookbackScan<int>> scan;
  if (!scan) scan = std::make_unique<ch07::DecoupledLookbackScan<int>>(max_n);
  scan->exclusive(in, out, n, scanlab::Plus<int>{});
}
