// Compiled, never run (tests/chapters/CMakeLists.txt, target pre_hopper_ch08_compaction): chapter 08's single-pass
// kernels, the one-tile and the two-tile, for GPUs before Hopper. See README.md here.
#include "stream_compaction_dispatch.cuh"  // GreaterThan
#include "stream_compaction_single_pass_dispatch.cuh"

void pre_hopper_ch08(const int* in, int* out, unsigned* count, std::size_t n, ch08::SinglePassWorkspace& ws) {
  ch08::select_if_single_pass(in, out, count, n, ch08::GreaterThan<int>{0}, ws);
  ch08::select_if_single_pass_in_place(out, count, n, ch08::GreaterThan<int>{0}, ws);
  ch08::partition_if_single_pass(in, out, count, n, ch08::GreaterThan<int>{0}, ws);
}
