// Compiled, never run (tests/chapters/CMakeLists.txt, target pre_hopper_ch10_segmented): chapter 10's segmented
// scan, the register kernel and the staged one, for GPUs before Hopper. See README.md here.
#include "segmented_scan_dispatch.cuh"

void pre_hopper_ch10(const int* in, const std::uint8_t* heads, int* out, std::size_t n,
                     ch10::SegmentedScanWorkspace<int>& ws) {
  ch10::segmented_inclusive_scan(in, ch10::HeadFlagArray{heads}, out, n, scanlab::Plus<int>{}, ws);
}
