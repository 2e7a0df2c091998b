// Probe (not in the tree): where a pass of chapter 09's keys sort spends its time at 2^24 uint32
// keys. Each tile's thread 0 records %globaltimer at its start, after its ticket, after its publish,
// after the block's look-back and at its end (timed/onesweep_dispatch.cuh). Printed per pass: the
// span from the first start to the last end; the mean tile time (start to end), publish-to-look-back
// wait, in the first wave, the middle and the last wave; and how long the SMs are partly idle at
// the end (from the first block that ends for good to the last end).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "onesweep_dispatch.cuh"
#include "sort_sweep.cuh"

int main(int argc, char** argv) {
  const int lg = argc > 1 ? std::atoi(argv[1]) : 24;
  const std::size_t n = std::size_t(1) << lg;
  std::vector<std::uint32_t> h(n);
  std::uint64_t s = 88172645463325252ull;
  for (auto& x : h) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    x = static_cast<std::uint32_t>(s >> 16);
  }
  scanlab::DeviceBuffer<std::uint32_t> keys(h), out(n);
  using Shape = ch09::OnesweepKeysShape<std::uint32_t>;
  const std::size_t tiles = (n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS;
  ch09::OnesweepWorkspace<std::uint32_t, std::uint32_t> ws(n);
  int per_sm = 0, sms = 0;
  SCANLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, ch09::onesweep_pass_kernel<Shape, std::uint32_t, std::uint32_t, false>, Shape::BLOCK_THREADS,
      ch09::kOnesweepTileBytes<Shape, std::uint32_t, std::uint32_t>));
  SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const std::size_t wave = static_cast<std::size_t>(per_sm) * sms;
  scanlab::DeviceBuffer<unsigned long long> times(tiles * 5);
  // Two warm-ups, then one recorded sort. Every pass writes the same words (tile i at i * 5), so the
  // last pass's times are what is left.
  for (int rep = 0; rep < 3; ++rep) {
    unsigned long long* p = rep == 2 ? times.data() : nullptr;
    SCANLAB_CUDA_CHECK(cudaMemcpyToSymbol(ch09::g_tile_times, &p, sizeof p));
    ch09::onesweep_sort_keys(keys.data(), out.data(), n, ws);
    SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<unsigned long long> t = times.download();
  // tile i of the last pass: t[i*5 + 0..4] (each pass overwrote the same words)
  unsigned long long first = ~0ull, last = 0;
  for (std::size_t i = 0; i < tiles; ++i) {
    first = std::min(first, t[i * 5]);
    last = std::max(last, t[i * 5 + 4]);
  }
  auto stats = [&](const char* what, std::size_t a, std::size_t b) {
    double tile_us = 0, wait_us = 0, start_us = 0;
    for (std::size_t i = a; i < b; ++i) {
      tile_us += (t[i * 5 + 4] - t[i * 5]) / 1e3;
      wait_us += (t[i * 5 + 3] - t[i * 5 + 2]) / 1e3;
      start_us += (t[i * 5] - first) / 1e3;
    }
    const double k = static_cast<double>(b - a);
    std::printf("  %-12s tiles %6zu-%6zu: start at %8.2f us, tile %7.2f us, publish to look-back done %7.2f us\n", what,
                a, b, start_us / k, tile_us / k, wait_us / k);
  };
  std::printf("2^%d uint32 keys, last pass: %zu tiles, %zu a wave (%d a SM); span %.2f us\n", lg, tiles, wave, per_sm,
              (last - first) / 1e3);
  stats("first wave", 0, std::min(wave, tiles));
  if (tiles > 2 * wave) stats("middle", tiles / 2 - wave / 2, tiles / 2 + wave / 2);
  stats("last wave", tiles > wave ? tiles - wave : 0, tiles);
  // ends: the moment the k-th last block ends; the tail is from the wave-th last end to the last
  std::vector<unsigned long long> ends(tiles);
  for (std::size_t i = 0; i < tiles; ++i) ends[i] = t[i * 5 + 4];
  std::sort(ends.begin(), ends.end());
  if (tiles > wave)
    std::printf("  tail: the last %zu blocks end over %.2f us\n", wave, (ends.back() - ends[tiles - wave]) / 1e3);
  std::printf("  head: the first wave's blocks start over %.2f us\n", [&] {
    std::vector<unsigned long long> st(tiles);
    for (std::size_t i = 0; i < tiles; ++i) st[i] = t[i * 5];
    std::sort(st.begin(), st.end());
    return (st[std::min(wave, tiles) - 1] - st[0]) / 1e3;
  }());
  return 0;
}
