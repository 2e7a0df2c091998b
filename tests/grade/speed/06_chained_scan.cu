// Chapter 06's speed entry: the chained scan, 256 threads x 16 items per tile, exclusive: the
// bench's row ch06_chained (see speed_entry.hpp).
#include <scanlab/monoid.hpp>

#include "chained_scan_dispatch.cuh"
#include "speed_entry.hpp"

namespace {
struct Op {
  explicit Op(std::size_t n) : scan(n) {}
  void run(const int* in, int* out, std::size_t n, cudaStream_t s) {
    scan.exclusive(in, out, n, scanlab::Plus<int>{}, s);
  }
  ch06::ChainedScan<int> scan;
};
}  // namespace

SCANLAB_SPEED_ENTRY("exclusive", Op)
