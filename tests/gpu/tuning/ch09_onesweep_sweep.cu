// Chapter 09's Onesweep tuning sweep on a GPU (run by ch09_onesweep_sweep.sh): the whole sort of
// uint32 keys (and key-value pairs) with several tile shapes and poll schedules against
// cub::DeviceRadixSort in the same process, 2^24..2^28 random keys; median of 15 after 3 warm-ups
// (sweep_timing.cuh); every variant's output, the keys and the pairs' values (the keys' input
// positions), is compared with CUB's. CUB runs with an int and a size_t item count (it takes
// another path for each: on an H200 the 64-bit one is faster for keys, slower for pairs); the
// ratios are against the faster, which the size's line names.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <cub/device/device_radix_sort.cuh>

#include "onesweep_dispatch.cuh"
#include "sort_sweep.cuh"

#ifndef VARIANT
#define VARIANT "onesweep"
#endif

using Buffers = SortBuffers<std::uint32_t>;  // uint32 keys, their input positions as values

// Shape for keys and for pairs (KeysShape, PairsShape: the given ones by default).
template <class Shape, class PairsShape = Shape>
void variant(const char* name, Buffers& b, float cub_keys, float cub_pairs,
             scanlab::single_pass::PollSchedule polls = ch09::kOnesweepPolls) {
  ch09::OnesweepWorkspace<std::uint32_t, std::uint32_t, Shape, PairsShape> ws(b.n);
  ws.polls = polls;
  const float k = median_ms_of_15([&](int) {
    ch09::onesweep_sort_keys(b.keys.data(), b.out.data(), b.n, ws);
  });
  const bool keys_ok = same_on_device(b.out, b.want_keys);
  const float p = median_ms_of_15([&](int) {
    ch09::onesweep_sort_pairs(b.keys.data(), b.out.data(), b.values.data(), b.values_out.data(), b.n, ws);
  });
  const bool ok = keys_ok && same_on_device(b.out, b.want_keys) && same_on_device(b.values_out, b.want_values);
  cudaFuncAttributes attr{};
  SCANLAB_CUDA_CHECK(
      cudaFuncGetAttributes(&attr, ch09::onesweep_pass_kernel<Shape, std::uint32_t, std::uint32_t, false>));
  const int regs = attr.numRegs;  // of the keys' kernel
  int per_sm = 0;
  SCANLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, ch09::onesweep_pass_kernel<Shape, std::uint32_t, std::uint32_t, false>, Shape::BLOCK_THREADS,
      ch09::kOnesweepTileBytes<Shape, std::uint32_t, std::uint32_t>));
  std::printf("  %-8s %-16s polls %4u,%4u  regs %3d blocks/SM %d | keys %.4f ms x%.3f | pairs %.4f ms x%.3f %s\n",
              VARIANT, name, polls.first_ns, polls.every_ns, regs, per_sm, k, cub_keys / k, p, cub_pairs / p,
              ok ? "ok" : "WRONG");
}

int main() {
  // Two key distributions: uniform over all 32 bits, and the benchmark's (int32 in [-100, 100] as
  // uint32 bit patterns: the top three bytes are all 0x00 or all 0xff).
  for (const bool narrow : {false, true})
    if (!(narrow && getenv("UNIFORM_ONLY")))
      for (int lg : {24, 26, 28}) {
        const std::size_t n = std::size_t(1) << lg;
        std::vector<std::uint32_t> h(n);
        std::uint64_t s = 88172645463325252ull;
        for (auto& x : h) {
          s ^= s << 13;
          s ^= s >> 7;
          s ^= s << 17;
          x = narrow ? static_cast<std::uint32_t>(static_cast<int>((s >> 16) % 201) - 100)
                     : static_cast<std::uint32_t>(s >> 16);
        }
        std::printf("%s keys\n", narrow ? "int32 in [-100, 100]" : "uniform 32-bit");
        Buffers b(h);
        const CubSortTimes cub = time_cub_sorts(b);
        const float ck = cub.keys.ms, cp = cub.pairs.ms;
        const float copy = median_ms_of_15([&](int) {
          SCANLAB_CUDA_CHECK(cudaMemcpyAsync(b.out.data(), b.keys.data(), n * 4, cudaMemcpyDeviceToDevice));
        });
        std::printf("2^%d: copy %.4f ms, cub SortKeys %.4f ms (int) %.4f ms (size_t), SortPairs %.4f ms (int) %.4f "
                    "ms (size_t); x CUB against keys with %s, pairs with %s\n",
                    lg, copy, cub.keys_int, cub.keys_size_t, cub.pairs_int, cub.pairs_size_t, cub.keys.count,
                    cub.pairs.count);
        using namespace ch09;
        variant<OnesweepKeysShape<std::uint32_t>, OnesweepPairsShape<std::uint32_t>>("given", b, ck, cp);
#ifndef SHORT_SWEEP
        variant<OnesweepShape<256, 16, 3>>("256x16 min3", b, ck, cp);
        variant<OnesweepShape<256, 16, 5, 3>>("256x16 min5,3", b, ck, cp);
        variant<OnesweepShape<256, 24, 4, 3>>("256x24 min4,3", b, ck, cp);
#endif
        variant<OnesweepShape<256, 20, 4, 3>>("256x20 min4,3", b, ck, cp);
#ifdef POLL_SWEEP  // the given shapes with other poll schedules
        using GivenKeys = OnesweepKeysShape<std::uint32_t>;
        using GivenPairs = OnesweepPairsShape<std::uint32_t>;
        variant<GivenKeys, GivenPairs>("given", b, ck, cp, {0, 0});
        variant<GivenKeys, GivenPairs>("given", b, ck, cp, {0, 40});
        variant<GivenKeys, GivenPairs>("given", b, ck, cp, {0, 300});
        variant<GivenKeys, GivenPairs>("given", b, ck, cp, {300, 100});
#endif
#ifdef PAIRS_SWEEP  // other tiles for the pairs (the keys' shape as given)
        using Keys = OnesweepKeysShape<std::uint32_t>;
        variant<Keys, OnesweepShape<256, 20, 4, 4>>("pairs 256x20 min4", b, ck, cp);
        variant<Keys, OnesweepShape<256, 18, 4, 4>>("pairs 256x18 min4", b, ck, cp);
        variant<Keys, OnesweepShape<256, 16, 4, 4>>("pairs 256x16 min4", b, ck, cp);
        variant<Keys, OnesweepShape<256, 22, 4, 3>>("pairs 256x22 min3", b, ck, cp);
        variant<Keys, OnesweepShape<256, 20, 4, 3>>("pairs 256x20 min3", b, ck, cp);  // given until 2026-11-29
#endif
#ifdef LONG_PAIRS_SWEEP  // longer tiles for the pairs, in dynamic shared memory (the keys' shape as given)
        using GivenKeysShape = OnesweepKeysShape<std::uint32_t>;
        variant<GivenKeysShape, OnesweepShape<384, 23, 2>>("pairs 384x23 min2", b, ck, cp);  // CUB's on an H200
        variant<GivenKeysShape, OnesweepShape<384, 26, 2>>("pairs 384x26 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<384, 28, 2>>("pairs 384x28 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<384, 20, 2>>("pairs 384x20 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<384, 23, 1>>("pairs 384x23 min1", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<448, 20, 2>>("pairs 448x20 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<512, 16, 2>>("pairs 512x16 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<256, 32, 2>>("pairs 256x32 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<384, 25, 2>>("pairs 384x25 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<384, 27, 2>>("pairs 384x27 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<320, 28, 2>>("pairs 320x28 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<352, 28, 2>>("pairs 352x28 min2", b, ck, cp);
        variant<GivenKeysShape, OnesweepShape<416, 24, 2>>("pairs 416x24 min2", b, ck, cp);
#endif
#ifdef MIXED_SHAPES_SWEEP  // tiles of 384 for the keys, one tile for both, keys capped for 3 blocks
        variant<OnesweepShape<384, 24, 2>, OnesweepPairsShape<std::uint32_t>>("keys 384x24 min2", b, ck, cp);
        variant<OnesweepShape<384, 20, 2>, OnesweepShape<384, 20, 2>>("384x20 min2", b, ck, cp);
        variant<OnesweepShape<256, 24, 3>, OnesweepShape<384, 26, 2>>("k256x24m3 p384x26", b, ck, cp);
#endif
#ifdef KEYS_384_SWEEP  // keys in CUB's block of 384 threads, capped for 3 blocks (the pairs' shape as given)
        variant<OnesweepShape<384, 16, 3>, OnesweepPairsShape<std::uint32_t>>("keys 384x16 min3", b, ck, cp);
        variant<OnesweepShape<384, 18, 3>, OnesweepPairsShape<std::uint32_t>>("keys 384x18 min3", b, ck, cp);
        variant<OnesweepShape<384, 19, 3>, OnesweepPairsShape<std::uint32_t>>("keys 384x19 min3", b, ck, cp);
        variant<OnesweepShape<384, 20, 3>, OnesweepPairsShape<std::uint32_t>>("keys 384x20 min3", b, ck, cp);
        variant<OnesweepShape<288, 24, 3>, OnesweepPairsShape<std::uint32_t>>("keys 288x24 min3", b, ck, cp);
        variant<OnesweepShape<320, 20, 3>, OnesweepPairsShape<std::uint32_t>>("keys 320x20 min3", b, ck, cp);
#endif
#ifdef LONGER_TILES_SWEEP  // keys in longer tiles capped for 4 blocks, pairs around 384 x 24 (the tiles
                           // given before 8546494, written out so that the runs stay comparable)
        using Pairs384x24 = OnesweepShape<384, 24, 2>;
        using Keys256x24 = OnesweepShape<256, 24, 4>;
        variant<OnesweepShape<256, 26, 4>, Pairs384x24>("keys 256x26 min4", b, ck, cp);
        variant<OnesweepShape<256, 28, 4>, Pairs384x24>("keys 256x28 min4", b, ck, cp);
        variant<OnesweepShape<256, 30, 4>, Pairs384x24>("keys 256x30 min4", b, ck, cp);
        variant<OnesweepShape<256, 32, 4>, Pairs384x24>("keys 256x32 min4", b, ck, cp);
        variant<Keys256x24, OnesweepShape<384, 22, 2>>("pairs 384x22 min2", b, ck, cp);
        variant<Keys256x24, OnesweepShape<384, 26, 2>>("pairs 384x26 min2", b, ck, cp);
        variant<Keys256x24, OnesweepShape<384, 28, 2>>("pairs 384x28 min2", b, ck, cp);
        variant<Keys256x24, OnesweepShape<448, 22, 2>>("pairs 448x22 min2", b, ck, cp);
#endif
#ifdef WIDE_SWEEP  // longer tiles for the keys (the pairs' shape as given)
        variant<OnesweepShape<256, 28, 3>, OnesweepPairsShape<std::uint32_t>>("keys 256x28 min3", b, ck, cp);
        variant<OnesweepShape<256, 26, 4>, OnesweepPairsShape<std::uint32_t>>("keys 256x26 min4", b, ck, cp);
        variant<OnesweepShape<256, 24, 3>, OnesweepPairsShape<std::uint32_t>>("keys 256x24 min3", b, ck, cp);
        variant<OnesweepShape<256, 22, 4>, OnesweepPairsShape<std::uint32_t>>("keys 256x22 min4", b, ck, cp);
#endif
      }
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
