// Chapter 07's speed entry: the decoupled look-back scan with the chapter's default policy and
// polls, exclusive: the bench's row ch07_lookback (see speed_entry.hpp).
#include <scanlab/monoid.hpp>

#include "decoupled_lookback_dispatch.cuh"
#include "speed_entry.hpp"

namespace {
struct Op {
  explicit Op(std::size_t n) : scan(n) {}
  void run(const int* in, int* out, std::size_t n, cudaStream_t s) {
    scan.exclusive(in, out, n, scanlab::Plus<int>{}, s, ch07::Options{});
  }
  ch07::DecoupledLookbackScan<int, ch07::DefaultPolicy> scan;
};
}  // namespace

SCANLAB_SPEED_ENTRY("exclusive", Op)
