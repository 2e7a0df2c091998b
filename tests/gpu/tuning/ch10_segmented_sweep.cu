// Chapter 10's tuning sweep (built and run by ch10_segmented_sweep.sh, once per variant): the
// single-pass segmented inclusive sum, both of its kernels at every size (the register kernel and
// the staged one, whichever the size would pick), against cub::DeviceScan::InclusiveSumByKey
// (segments as runs of equal int32 keys), int32 and float, mean segment lengths 1, 32, 500, 10^4
// and 10^6, 2^20..2^28 (-DQUICK: 2^24 and 2^28, two lengths; -DSMALL: 2^20..2^25, where the host
// picks its kernel); median of 15 after 3 warm-ups, inputs rotating over buffers larger than the
// L2 from 2^24 on; every output of both kernels is checked (int32 exactly, float within a relative
// 1e-3 of a double sum per segment). CONFIG names the variant in the output.
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "segmented_scan_dispatch.cuh"
#include "sweep_timing.cuh"

template <class T>
void run(int lg, unsigned mean) {
  const size_t n = size_t(1) << lg;
  const int slots = lg <= 22 ? 8 : 2;
  std::vector<T> h(n);
  std::vector<uint8_t> heads(n);
  std::vector<int> keys(n);
  unsigned s = 12345u + mean;
  int id = 0;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    h[i] = static_cast<T>(int(s >> 24) % 201 - 100);
    s = s * 1664525u + 1013904223u;
    heads[i] = (i == 0 || (s >> 8) % mean == 0) ? 1 : 0;
    keys[i] = id += (i > 0 && heads[i]) ? 1 : 0;
  }
  T *in, *out;
  uint8_t* d_heads;
  int* d_keys;
  cudaMalloc(&in, n * sizeof(T) * slots);
  cudaMalloc(&out, n * sizeof(T) * slots);
  cudaMalloc(&d_heads, n);
  cudaMalloc(&d_keys, n * 4);
  for (int k = 0; k < slots; ++k) cudaMemcpy(in + k * n, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(d_heads, heads.data(), n, cudaMemcpyHostToDevice);
  cudaMemcpy(d_keys, keys.data(), n * 4, cudaMemcpyHostToDevice);
  size_t tb = 0;
  cub::DeviceScan::InclusiveSumByKey(nullptr, tb, d_keys, in, out, n);
  void* tmp;
  cudaMalloc(&tmp, tb);
  ch10::SegmentedScanWorkspace<T> ws(n);
  const float copy = median_ms_of_15([&](int r) {
    cudaMemcpyAsync(out + (r % slots) * n, in + (r % slots) * n, n * sizeof(T), cudaMemcpyDeviceToDevice);
  });
  const float cub_ms = median_ms_of_15([&](int r) {
    size_t b = tb;
    cub::DeviceScan::InclusiveSumByKey(tmp, b, d_keys, in + (r % slots) * n, out + (r % slots) * n, n);
  });
  float t[2];
  bool ok = true;
  for (int staged = 0; staged < 2; ++staged) {
    ws.staged_from = staged ? 0 : ~size_t(0);
    t[staged] = median_ms_of_15([&](int r) {
      ch10::segmented_inclusive_scan(in + (r % slots) * n, ch10::HeadFlagArray{d_heads}, out + (r % slots) * n, n,
                                     scanlab::Plus<T>{}, ws);
    });
    std::vector<T> got(n);
    cudaMemset(out, 0xff, n * sizeof(T));
    ch10::segmented_inclusive_scan(in, ch10::HeadFlagArray{d_heads}, out, n, scanlab::Plus<T>{}, ws);
    cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost);
    ok = ok && cudaDeviceSynchronize() == cudaSuccess;
    double sum = 0;
    for (size_t i = 0; i < n && ok; ++i) {
      sum = heads[i] ? double(h[i]) : sum + double(h[i]);
      ok = std::is_integral_v<T> ? double(got[i]) == sum
                                 : std::fabs(double(got[i]) - sum) <= 1e-3 * (1.0 + std::fabs(sum)) + 1e-3;
      if (!ok) std::printf("  mismatch at %zu: %g, want %g\n", i, double(got[i]), sum);
    }
  }
  std::printf("%s %s 2^%d mean %u copy %.4f cub %.4f | registers %.4f x%.3f | staged %.4f x%.3f (x copy %.3f) %s\n",
              CONFIG, std::is_integral_v<T> ? "int32" : "float", lg, mean, copy, cub_ms, t[0], cub_ms / t[0], t[1],
              cub_ms / t[1], copy / t[1], ok ? "ok" : "WRONG");
  cudaFree(in);
  cudaFree(out);
  cudaFree(d_heads);
  cudaFree(d_keys);
  cudaFree(tmp);
}

int main() {
#if defined(QUICK)
  for (int lg : {24, 28})
    for (unsigned mean : {32u, 1000000u}) {
#elif defined(SMALL)
  for (int lg : {20, 21, 22, 23, 24, 25})
    for (unsigned mean : {32u}) {
#else
  for (int lg : {20, 24, 26, 28})
    for (unsigned mean : {1u, 32u, 500u, 10000u, 1000000u}) {
#endif
      run<int>(lg, mean);
#ifdef SMALL
      run<float>(lg, mean);
#else
      if (lg >= 24) run<float>(lg, mean);
#endif
    }
}
