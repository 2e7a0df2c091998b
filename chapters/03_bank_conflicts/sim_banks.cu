// One block scans 2048 int32 with chapter 02's kernel, then with chapter 03's kernel in chapter 02's
// layout and in the padded layout, so that the emulator's bank report shows all three (the first two
// must agree; the per-level table is in the chapter's driver):
//   cmake --build --preset cpu --target sim_banks_emu && SCANLAB_EMU_BANKS=1 build/cpu/bin/emu/sim_banks
// It is built against the reference solution (visualizer/CMakeLists.txt: the include path picks
// solutions/ for blelloch.cuh and bank_conflicts.cuh); put exercises/ there to look at your own.
#include <cuda_runtime.h>

#include <cstdio>
#include <type_traits>
#include <vector>

#include <scanlab/monoid.hpp>

#include "bank_conflicts_dispatch.cuh"
#include "blelloch_dispatch.cuh"

// Chapter 02's kernel, or chapter 03's under a layout.
struct Chapter02 {
  static const char* name() { return "chapter 02's kernel"; }
};

template <class Layout>
void launch(const int* d_in, int* d_out, int n) {
  if constexpr (std::is_same_v<Layout, Chapter02>) {
    ch02::blelloch_exclusive_scan_block(d_in, d_out, n, scanlab::Plus<int>{});
  } else {
    ch03::blelloch_layout_exclusive_scan_block<Layout>(d_in, d_out, n, scanlab::Plus<int>{});
  }
}

template <class Layout>
bool scan_once(const std::vector<int>& in, int* d_in, int* d_out) {
  const int n = static_cast<int>(in.size());
  launch<Layout>(d_in, d_out, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return false;
  std::vector<int> out(in.size());
  if (cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) return false;
  int running = 0;
  for (int i = 0; i < n; ++i) {
    if (out[i] != running) return false;
    running += in[i];
  }
  return true;
}

int main() {
  const int n = ch03::kMaxBlockScan;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 11 - 5;
  int* d_in = nullptr;
  int* d_out = nullptr;
  if (cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess || cudaMalloc(&d_out, n * sizeof(int)) != cudaSuccess) {
    return 1;
  }
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  std::printf("%s: %s\n", Chapter02::name(), scan_once<Chapter02>(in, d_in, d_out) ? "verified" : "WRONG");
  std::printf("%s: %s\n", ch03::Unpadded::name(), scan_once<ch03::Unpadded>(in, d_in, d_out) ? "verified" : "WRONG");
  std::printf("%s: %s\n", ch03::Padded::name(), scan_once<ch03::Padded>(in, d_in, d_out) ? "verified" : "WRONG");
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
