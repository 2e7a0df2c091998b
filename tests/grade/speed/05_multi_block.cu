// Chapter 05's speed entry: reduce-then-scan with 4096-element tiles, exclusive: the bench's row
// ch05_reduce_then_scan (see speed_entry.hpp).
#include <memory>

#include <scanlab/monoid.hpp>

#include "multi_block_scan_dispatch.cuh"
#include "speed_entry.hpp"

namespace {
struct Op {
  explicit Op(std::size_t n) {
    scratch.reserve(ch05::reduce_then_scan_blocks<ch05::LargeTiles, int, scanlab::Plus<int>>(n));
  }
  void run(const int* in, int* out, std::size_t n, cudaStream_t s) {
    ch05::reduce_then_scan<ch05::LargeTiles>(in, out, n, /*inclusive=*/false, scanlab::Plus<int>{}, scratch, s);
  }
  ch05::Scratch<int> scratch;
};
}  // namespace

SCANLAB_SPEED_ENTRY("exclusive", Op)
