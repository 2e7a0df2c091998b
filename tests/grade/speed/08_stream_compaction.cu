// Chapter 08's speed entry: select-if in one pass (the count fused into the look-back), keeping
// the elements above zero (about half of the lab's random inputs): the bench's row
// ch08_select_if_single_pass (see speed_entry.hpp).
#include <scanlab/device_buffer.hpp>

#include "speed_entry.hpp"
#include "stream_compaction_single_pass_dispatch.cuh"

namespace {
struct Positive {
  __host__ __device__ bool operator()(int x) const { return x > 0; }
};
struct Op {
  explicit Op(std::size_t n) : count(1), workspace(n) {}
  void run(const int* in, int* out, std::size_t n, cudaStream_t s) {
    ch08::select_if_single_pass(in, out, count.data(), n, Positive{}, workspace, s);
  }
  scanlab::DeviceBuffer<unsigned> count;
  ch08::SinglePassWorkspace workspace;
};
}  // namespace

SCANLAB_SPEED_ENTRY("select_positive", Op)
