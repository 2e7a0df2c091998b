// Chapter 04's speed entry: the warp-shuffle block scan, 256 threads x 16 items, one block per
// independent 4096-element tile, inclusive: the bench's row ch04_items_tiles (speed_entry.hpp).
#include <scanlab/monoid.hpp>

#include "speed_entry.hpp"
#include "warp_and_registers_dispatch.cuh"

namespace {
struct Op {
  explicit Op(std::size_t) {}
  void run(const int* in, int* out, std::size_t n, cudaStream_t s) {
    ch04::items_scan_tiles(in, out, n, 4096, /*inclusive=*/true, scanlab::Plus<int>{}, s);
  }
};
}  // namespace

SCANLAB_SPEED_ENTRY("inclusive_tiles:4096", Op)
