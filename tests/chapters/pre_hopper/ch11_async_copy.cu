// Compiled, never run (tests/chapters/CMakeLists.txt, target pre_hopper_ch11_async_copy): chapter 11's scan, its
// one-tile and two-tile kernels, for GPUs before Hopper. See README.md here.
#include "async_copy_scan_dispatch.cuh"

void pre_hopper_ch11(const int* in, int* out, std::size_t n, ch11::AsyncCopyScan<int>& scan) {
  scan.exclusive(in, out, n, scanlab::Plus<int>{});
}
