// Chapter 09's Onesweep on uint64 keys, a tuning sweep on a GPU (run by ch09_onesweep_u64_sweep.sh):
// the whole sort of uint64 keys uniform over all 64 bits, and of pairs (uint32 values, as the bench's
// u64 pairs rows), with several tile shapes against cub::DeviceRadixSort in the same process, at
// 2^24, 2^26 and 2^28; median of 15 after 3 warm-ups. Every variant's output, keys and values, is
// compared with CUB's (both sorts are stable, so they must agree exactly). CUB runs with an int and a
// size_t item count (it takes another path for each); the ratios are against the faster.
// The variants are split into sets (-DSWEEP_SET=1..11; 0: the given shapes alone, to time one build
// against another), one program each, so that nvcc builds them at once. Sets 1-7 ran when a tile's
// storage was static shared memory, whose 48 KiB held at most 256 x 15 8-byte keys with the counters
// (about 17 KiB) beside them; sets 8-11 try the larger tiles that dynamic shared memory allows, for
// keys and pairs apart (set 8 first: the given shapes).
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include <scanlab/cuda_check.hpp>

#include "onesweep_dispatch.cuh"
#include "sort_sweep.cuh"

#ifndef SWEEP_SET
#define SWEEP_SET 1
#endif

namespace {

using Key = std::uint64_t;
using Value = std::uint32_t;
using Buffers = SortBuffers<Key, Value>;

// Shape for keys and for pairs (one shape for both unless PairsShape is given; the minimum blocks
// per SM of each are in the shape).
template <class Shape, class PairsShape = Shape>
void variant(const char* name, Buffers& b, float cub_keys, float cub_pairs) {
  ch09::OnesweepWorkspace<Key, Value, Shape, PairsShape> ws(b.n);
  const float k = median_ms_of_15([&](int) {
    ch09::onesweep_sort_keys(b.keys.data(), b.out.data(), b.n, ws);
  });
  const bool keys_ok = same_on_device(b.out, b.want_keys);
  const float p = median_ms_of_15([&](int) {
    ch09::onesweep_sort_pairs(b.keys.data(), b.out.data(), b.values.data(), b.values_out.data(), b.n, ws);
  });
  const bool pairs_ok = same_on_device(b.out, b.want_keys) && same_on_device(b.values_out, b.want_values);
  cudaFuncAttributes keys_attr{}, pairs_attr{};
  SCANLAB_CUDA_CHECK(cudaFuncGetAttributes(&keys_attr, ch09::onesweep_pass_kernel<Shape, Key, Value, false>));
  SCANLAB_CUDA_CHECK(cudaFuncGetAttributes(&pairs_attr, ch09::onesweep_pass_kernel<PairsShape, Key, Value, true>));
  std::printf("  %-16s regs %3d/%3d spill %4zu/%4zu B | keys %.4f ms x%.3f %s | pairs %.4f ms x%.3f %s\n", name,
              keys_attr.numRegs, pairs_attr.numRegs, keys_attr.localSizeBytes, pairs_attr.localSizeBytes, k,
              cub_keys / k, keys_ok ? "ok" : "WRONG", p, cub_pairs / p, pairs_ok ? "ok" : "WRONG");
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

int main() {
  for (int lg : {24, 26, 28}) {
    const std::size_t n = std::size_t(1) << lg;
    std::vector<Key> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = splitmix64(i + 12345);
    Buffers b(h);
    const CubSortTimes cub = time_cub_sorts(b);
    std::printf("uint64 keys 2^%d: cub SortKeys %.4f ms (int) %.4f ms (size_t), SortPairs %.4f ms (int) %.4f ms "
                "(size_t); x CUB against keys with %s, pairs with %s\n",
                lg, cub.keys_int, cub.keys_size_t, cub.pairs_int, cub.pairs_size_t, cub.keys.count, cub.pairs.count);
    using ch09::OnesweepShape;
#if SWEEP_SET == 0  // the given shapes only: one build against another
    variant<ch09::OnesweepKeysShape<Key>, ch09::OnesweepPairsShape<Key>>("given", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 1
    variant<OnesweepShape<256, 8, 3>>("256x8 min3", b, cub.keys.ms, cub.pairs.ms);  // the first shape
    variant<OnesweepShape<256, 10, 3>>("256x10 min3", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 2
    variant<OnesweepShape<256, 12, 3>>("256x12 min3", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<256, 12, 4>>("256x12 min4", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 3
    variant<OnesweepShape<256, 14, 2>>("256x14 min2", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<256, 14, 3>>("256x14 min3", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 4
    variant<OnesweepShape<256, 12, 2>>("256x12 min2", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<256, 8, 4>>("256x8 min4", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 5  // around the best of sets 1-4 (256 x 12 with 4 blocks for keys, x 14 with 3 for pairs)
    variant<OnesweepShape<256, 15, 3>>("256x15 min3", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<256, 14, 4>>("256x14 min4", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 6
    variant<OnesweepShape<256, 13, 4>>("256x13 min4", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<256, 11, 4>>("256x11 min4", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 7  // the largest tile of static shared memory, capped for 4 blocks
    variant<OnesweepShape<256, 15, 4>>("256x15 min4", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 8  // the given shapes, and 384 threads
    variant<ch09::OnesweepKeysShape<Key>, ch09::OnesweepPairsShape<Key>>("given", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<384, 15, 2>>("384x15 min2", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<384, 12, 3>>("384x12 min3", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 9
    variant<OnesweepShape<384, 18, 2>>("384x18 min2", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<384, 20, 2>>("384x20 min2", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<384, 22, 2>>("384x22 min2", b, cub.keys.ms, cub.pairs.ms);
#elif SWEEP_SET == 10
    variant<OnesweepShape<256, 20, 3>>("256x20 min3", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<256, 22, 3>>("256x22 min3", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<256, 24, 2>>("256x24 min2", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<256, 24, 3>>("256x24 min3", b, cub.keys.ms, cub.pairs.ms);
#else
    variant<OnesweepShape<256, 18, 4, 3>>("256x18 min4,3", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<448, 16, 2>>("448x16 min2", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<512, 12, 2>>("512x12 min2", b, cub.keys.ms, cub.pairs.ms);
    variant<OnesweepShape<320, 18, 3>>("320x18 min3", b, cub.keys.ms, cub.pairs.ms);
#endif
  }
  SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
