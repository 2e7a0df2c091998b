// Chapter 08's given rank step (tile_exchange.cuh): every run's place among the kept elements of a
// warp's segment, found two ways, the bit-sliced ballots (warp_run_places) and one warp scan of the
// runs' counts packed into bytes (warp_run_places_packed, the two-tile kernel's), checked against
// the definition computed on the host. For runs of 4 elements (int), 2 (double, two packed words)
// and 8 (int16, where the packed form falls back to the ballots), on random keep bits, every bit
// kept (a row's total at its largest, 32 x VEC) and none. The grading tests check the whole kernels
// on int and float only; this checks the step alone, for every run length the kernels use.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/single_pass/tile.cuh"
#include "scanlab/testing.hpp"
#include "tile_exchange.cuh"

namespace {

constexpr int kLanes = 32;

// One warp: lane l's keep bits are kept[l]; out[l * (ROWS + 1) + r] gets run_place[r] and the last
// slot the warp's count, from the ballots (packed = false) or the packed scan.
template <class Shape, bool kPacked>
__global__ void run_places_kernel(const unsigned* kept, unsigned* out) {
  const int lane = scanlab::lane_id();
  unsigned run_place[Shape::ROWS];
  const unsigned count = kPacked ? ch08::warp_run_places_packed<Shape>(kept[lane], run_place)
                                 : ch08::warp_run_places<Shape>(kept[lane], run_place);
  for (int r = 0; r < Shape::ROWS; ++r) out[lane * (Shape::ROWS + 1) + r] = run_place[r];
  out[lane * (Shape::ROWS + 1) + Shape::ROWS] = count;
}

// The definition: the kept elements of all rows above, then those of this row's lanes to the left.
template <class Shape>
std::vector<unsigned> run_places_on_host(const std::vector<unsigned>& kept) {
  const auto run_count = [&](int lane, int r) {
    const unsigned run = (kept[lane] >> (r * Shape::VEC)) & ((1u << Shape::VEC) - 1u);
    return static_cast<unsigned>(__builtin_popcount(run));
  };
  std::vector<unsigned> want(kLanes * (Shape::ROWS + 1));
  unsigned above = 0;
  for (int r = 0; r < Shape::ROWS; ++r) {
    unsigned left = 0;
    for (int lane = 0; lane < kLanes; ++lane) {
      want[lane * (Shape::ROWS + 1) + r] = above + left;
      left += run_count(lane, r);
    }
    above += left;
  }
  for (int lane = 0; lane < kLanes; ++lane) want[lane * (Shape::ROWS + 1) + Shape::ROWS] = above;
  return want;
}

template <class Shape, bool kPacked>
std::vector<unsigned> run_places_on_device(const std::vector<unsigned>& kept) {
  scanlab::DeviceBuffer<unsigned> d_kept(kept);
  scanlab::DeviceBuffer<unsigned> d_out(kLanes * (Shape::ROWS + 1));
  d_out.fill_poison();
  run_places_kernel<Shape, kPacked><<<1, kLanes>>>(d_kept.data(), d_out.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
  return d_out.download();
}

template <class T>
void check_both_forms(const char* type) {
  // 16 elements a thread, as in the two-tile kernel's chunks (the step is one warp's: the chunk's
  // width does not change it)
  using Shape = scanlab::single_pass::TileShape<T, 128, 16>;
  const unsigned all = Shape::ITEMS == 32 ? ~0u : (1u << Shape::ITEMS) - 1u;
  scanlab::Rng rng = scanlab::test_rng(sizeof(T));
  std::vector<std::vector<unsigned>> inputs = {std::vector<unsigned>(kLanes, all), std::vector<unsigned>(kLanes, 0u)};
  for (int k = 0; k < 4; ++k) {
    std::vector<unsigned> kept(kLanes);
    for (unsigned& bits : kept) bits = rng.next_u32() & all;
    inputs.push_back(kept);
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::vector<unsigned> want = run_places_on_host<Shape>(inputs[i]);
    const std::string element = type;  // (a const char* would be shown as an address)
    CAPTURE(element);
    CAPTURE(i);  // 0: every element kept, 1: none, then random keep bits
    CHECK(run_places_on_device<Shape, false>(inputs[i]) == want);
    CHECK(run_places_on_device<Shape, true>(inputs[i]) == want);
  }
}

}  // namespace

TEST_CASE("ch08 run places: the ballots and the packed scan both give the definition") {
  check_both_forms<int>("int (runs of 4, four rows in one word)");
  check_both_forms<double>("double (runs of 2, eight rows in two words)");
  check_both_forms<std::int16_t>("int16 (runs of 8: the packed form uses the ballots)");
}
