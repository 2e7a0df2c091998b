// Chapter 08's tuning sweep (built and run by ch08_single_pass_sweep.sh, once per variant): the
// single-pass select-if and partition-if against cub::DeviceSelect::If and DevicePartition::If, int32,
// about half kept, 2^20..2^28; median of 15 after 3 warm-ups, inputs rotating over buffers larger
// than the L2 from 2^24 on; the select output is checked. CONFIG names the variant in the output.
// Two settings from the environment, printed on each line:
//   SWEEP_KEEP_ABOVE=K      keep x > K of inputs in [-100, 100] (default 0: about half; 80: a tenth;
//                           before commit e158aba the inputs were not uniform, and these kept
//                           about 39% and 8%: book, chapter 08, "Errata")
//   SWEEP_TWO_TILE_FROM=N   both kernels run the two-tile kernel from N elements on (default: the
//                           chapter's thresholds; 0: at every size; a large N: never)
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <algorithm>
#include <cub/device/device_select.cuh>
#include <cub/device/device_partition.cuh>
#include "stream_compaction_dispatch.cuh"
#include "stream_compaction_single_pass_dispatch.cuh"
#include "sweep_timing.cuh"
struct Above {
  int threshold;
  __host__ __device__ bool operator()(int x) const { return x > threshold; }
};
int main() {
  const char* keep_env = std::getenv("SWEEP_KEEP_ABOVE");
  const char* from_env = std::getenv("SWEEP_TWO_TILE_FROM");
  const int keep_above = keep_env ? std::atoi(keep_env) : 0;
  const std::string two_tile_from = from_env ? from_env : "given";
  const Above pos{keep_above};
  const ch08::GreaterThan<int> ours{keep_above};
  for (int lg : {20, 22, 24, 26, 28}) {
    size_t n = size_t(1) << lg;
    const int slots = lg <= 22 ? 8 : 2;
    std::vector<int> h(n);
    unsigned s = 12345;
    for (auto& x : h) {
      s = s * 1664525u + 1013904223u;
      x = int((s >> 8) % 201) - 100;  // 24 random bits: uniform in [-100, 100] to within 2^-16
    }
    int *in, *out;
    unsigned* cnt;
    cudaMalloc(&in, n * 4 * slots);
    cudaMalloc(&out, n * 4 * slots);
    cudaMalloc(&cnt, 4);
    for (int k = 0; k < slots; ++k) cudaMemcpy(in + k * n, h.data(), n * 4, cudaMemcpyHostToDevice);
    size_t tb = 0, tb2 = 0;
    cub::DeviceSelect::If(nullptr, tb, in, out, cnt, (long long)n, pos);
    cub::DevicePartition::If(nullptr, tb2, in, out, cnt, (long long)n, pos);
    tb = std::max(tb, tb2);
    void* tmp;
    cudaMalloc(&tmp, tb);
    ch08::SinglePassWorkspace ws(n);
    if (from_env) ws.partition_two_tile_from = ws.select_two_tile_from = std::strtoull(from_env, nullptr, 10);
    float copy = median_ms_of_15([&](int r) {
      cudaMemcpyAsync(out + (r % slots) * n, in + (r % slots) * n, n * 4, cudaMemcpyDeviceToDevice);
    });
    float cs = median_ms_of_15([&](int r) {
      size_t b = tb;
      cub::DeviceSelect::If(tmp, b, in + (r % slots) * n, out + (r % slots) * n, cnt, (long long)n, pos);
    });
    float ms = median_ms_of_15([&](int r) {
      ch08::select_if_single_pass(in + (r % slots) * n, out + (r % slots) * n, cnt, n, ours, ws);
    });
    float cp = median_ms_of_15([&](int r) {
      size_t b = tb;
      cub::DevicePartition::If(tmp, b, in + (r % slots) * n, out + (r % slots) * n, cnt, (long long)n, pos);
    });
    float mp = median_ms_of_15([&](int r) {
      ch08::partition_if_single_pass(in + (r % slots) * n, out + (r % slots) * n, cnt, n, ours, ws);
    });
    // check select
    std::vector<int> got(n);
    unsigned k = 0;
    ch08::select_if_single_pass(in, out, cnt, n, ours, ws);
    cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(&k, cnt, 4, cudaMemcpyDeviceToHost);
    size_t j = 0;
    bool ok = true;
    for (size_t i = 0; i < n; ++i)
      if (h[i] > keep_above) ok = ok && got[j++] == h[i];
    ok = ok && j == k;
    printf("%s keep>%d two_tile_from=%s 2^%d copy %.4f | select cub %.4f ours %.4f x%.3f | partition cub %.4f ours "
           "%.4f x%.3f %s\n",
           CONFIG, keep_above, two_tile_from.c_str(), lg, copy, cs, ms, cs / ms, cp, mp, cp / mp, ok ? "ok" : "WRONG");
    cudaFree(in);
    cudaFree(out);
    cudaFree(cnt);
    cudaFree(tmp);
  }
}
