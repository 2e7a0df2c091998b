// Experiment (not in the tree): Onesweep's passes without a memset before each (the pass clears the
// other side of two descriptor sides, as the single-pass library's scans do), and with programmatic
// dependent launch. Modes: 0 given (memset), 1 in-kernel clear, 2 clear + PDL (trigger 0: at start;
// 1: none, implicit at exit).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "onesweep_dispatch.cuh"
#include "sort_sweep.cuh"

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class Key>
void variant(int mode, int trigger, SortBuffers<Key, std::uint32_t>& b, float ck, float cp) {
#ifdef PDL_EXPERIMENT
  ch09::g_mode = mode;
  SCANLAB_CUDA_CHECK(cudaMemcpyToSymbol(ch09::g_trigger, &trigger, sizeof trigger));
#else
  mode = -1;
#endif
  ch09::OnesweepWorkspace<Key, std::uint32_t> ws(b.n);
  const float k = median_ms_of_15([&](int) {
    ch09::onesweep_sort_keys(b.keys.data(), b.out.data(), b.n, ws);
  });
  const bool keys_ok = same_on_device(b.out, b.want_keys);
  const float p = median_ms_of_15([&](int) {
    ch09::onesweep_sort_pairs(b.keys.data(), b.out.data(), b.values.data(), b.values_out.data(), b.n, ws);
  });
  const bool ok = keys_ok && same_on_device(b.out, b.want_keys) && same_on_device(b.values_out, b.want_values);
  std::printf("  %s mode %2d trigger %d | keys %.4f ms x%.3f | pairs %.4f ms x%.3f %s\n",
              sizeof(Key) == 4 ? "u32" : "u64", mode, trigger, k, ck / k, p, cp / p, ok ? "ok" : "WRONG");
}

template <class Key>
void run(int lg) {
  const std::size_t n = std::size_t(1) << lg;
  std::vector<Key> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<Key>(splitmix64(i + 12345));
  SortBuffers<Key, std::uint32_t> b(h);
  const CubSortTimes cub = time_cub_sorts(b);
  std::printf("%s 2^%d: cub keys %.4f (%s) pairs %.4f (%s)\n", sizeof(Key) == 4 ? "uint32" : "uint64", lg, cub.keys.ms,
              cub.keys.count, cub.pairs.ms, cub.pairs.count);
  const char* modes = getenv("MODES");
  for (const char* m = modes ? modes : "0,1,2,3,0"; *m; ++m) {
    if (*m == ',') continue;
    const int v = *m - '0';
    variant<Key>(v == 3 ? 2 : v, v == 3 ? 1 : 0, b, cub.keys.ms, cub.pairs.ms);
  }
}

int main(int argc, char** argv) {
  const bool u64 = argc > 1 && std::atoi(argv[1]) == 64;
  for (int lg : {24, 26, 28}) {
    if (u64) run<std::uint64_t>(lg);
    else run<std::uint32_t>(lg);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
