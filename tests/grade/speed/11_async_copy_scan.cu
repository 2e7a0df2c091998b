// Chapter 11's speed entry: the scan object as a user gets it (chapter 07's kernel below 2^23
// elements, staged tiles from there), exclusive: the bench's row ch11_async_copy (speed_entry.hpp).
#include <scanlab/monoid.hpp>

#include "async_copy_scan_dispatch.cuh"
#include "speed_entry.hpp"

namespace {
struct Op {
  explicit Op(std::size_t n) : scan(n) {}
  void run(const int* in, int* out, std::size_t n, cudaStream_t s) {
    scan.exclusive(in, out, n, scanlab::Plus<int>{}, s);
  }
  ch11::AsyncCopyScan<int> scan;
};
}  // namespace

SCANLAB_SPEED_ENTRY("exclusive", Op)
