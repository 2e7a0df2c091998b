// Tests of scanlab/device_scan.cuh, the device-wide scan that chapters 08-10 build on, on the
// emulator and, with SCANLAB_GPU_TESTS, on a GPU: inclusive and exclusive scans against the oracle
// for sizes around a round (256), a tile (4096) and several tiles with a ragged end; a
// non-commutative operator (an operand swapped anywhere fails); in place; reads and writes through
// functors; a spine longer than one round of its block (more than 1024 tiles).
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/device_scan.cuh"
#include "scanlab/monoid.hpp"
#include "scanlab/oracle.hpp"
#include "scanlab/random.hpp"
#include "scanlab/testing.hpp"
#include "scanlab/verify.hpp"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Plus;
using U32Map = Affine<std::uint32_t>;

const std::vector<std::size_t> kSizes = {1, 31, 255, 256, 257, 4095, 4096, 4097, 3 * 4096 + 77};

// The scan of `in` through ArrayLoad/ArrayStore into a poisoned output (in place: into `in`).
template <class Op>
std::vector<typename Op::value_type> scan_on_device(const std::vector<typename Op::value_type>& in, bool inclusive,
                                                    bool in_place) {
  using T = typename Op::value_type;
  const std::size_t n = in.size();
  scanlab::DeviceBuffer<T> d_in(in);
  scanlab::DeviceBuffer<T> d_out(n);
  d_out.fill_poison();
  scanlab::DeviceBuffer<T> partials(scanlab::device_scan_tiles<T>(n) + 1);
  T* out = in_place ? d_in.data() : d_out.data();
  scanlab::device_scan<T>(scanlab::ArrayLoad<T>{d_in.data()}, scanlab::ArrayStore<T>{out}, n, partials.data(), Op{},
                          inclusive);
  SCANLAB_CHECK_SYNC();
  return in_place ? d_in.download() : d_out.download();
}

template <class Op>
void check_against_oracle(std::uint64_t stream) {
  using T = typename Op::value_type;
  for (const std::size_t n : kSizes) {
    const std::vector<T> in = scanlab::random_scan_input<T>(n, scanlab::test_seed(stream + n));
    for (const bool inclusive : {true, false}) {
      for (const bool in_place : {false, true}) {
        CAPTURE(n);
        CAPTURE(inclusive);
        CAPTURE(in_place);
        const std::vector<T> want =
            inclusive ? scanlab::inclusive_scan_oracle(in, Op{}) : scanlab::exclusive_scan_oracle(in, Op{});
        const scanlab::VerifyResult r = scanlab::verify_exact(want, scan_on_device<Op>(in, inclusive, in_place));
        CHECK_MESSAGE(r.ok, r.message());
      }
    }
  }
}

// Reads i % 7 for every i (no input array) and writes 2 * prefix: the functor interface.
struct ModSevenLoad {
  __device__ std::uint32_t operator()(std::size_t i) const { return static_cast<std::uint32_t>(i % 7); }
};
struct DoubledStore {
  std::uint32_t* out;
  __device__ void operator()(std::size_t i, std::uint32_t v) const { out[i] = 2 * v; }
};

}  // namespace

TEST_CASE("device_scan: inclusive and exclusive sums equal the oracle, in place too") {
  check_against_oracle<Plus<std::int32_t>>(100);
}

TEST_CASE("device_scan: affine maps (not commutative) keep every operand in order") {
  check_against_oracle<AffineCompose<std::uint32_t>>(200);
}

TEST_CASE("device_scan: n = 0 launches nothing and writes nothing") {
  scanlab::DeviceBuffer<std::int32_t> d_out(4);
  d_out.fill_poison();
  CHECK(scanlab::device_scan_tiles<std::int32_t>(0) == 0);
  scanlab::device_exclusive_scan<std::int32_t>(d_out.data(), d_out.data(), 0, nullptr, Plus<std::int32_t>{});
  SCANLAB_CHECK_SYNC();
  CHECK(scanlab::count_poison(d_out.download().data(), 4) == 4);
}

TEST_CASE("device_scan: loads and stores through functors") {
  const std::size_t n = 2 * 4096 + 5;
  scanlab::DeviceBuffer<std::uint32_t> d_out(n);
  d_out.fill_poison();
  scanlab::DeviceBuffer<std::uint32_t> partials(scanlab::device_scan_tiles<std::uint32_t>(n));
  scanlab::device_scan<std::uint32_t>(ModSevenLoad{}, DoubledStore{d_out.data()}, n, partials.data(),
                                      Plus<std::uint32_t>{}, /*inclusive=*/false);
  SCANLAB_CHECK_SYNC();
  std::vector<std::uint32_t> want(n);
  std::uint32_t running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    want[i] = 2 * running;
    running += static_cast<std::uint32_t>(i % 7);
  }
  const scanlab::VerifyResult r = scanlab::verify_exact(want, d_out.download());
  CHECK_MESSAGE(r.ok, r.message());
}

TEST_CASE("device_scan: the spine scans more tiles than its block has threads") {
  // 2500 tile totals: three rounds of the spine's 1024 threads, the last one ragged.
  const std::size_t tiles = 2500;
  const std::vector<U32Map> in = scanlab::random_scan_input<U32Map>(tiles, scanlab::test_seed(300));
  scanlab::DeviceBuffer<U32Map> partials(in);
  scanlab::device_scan_detail::spine_exclusive_scan_kernel<U32Map, AffineCompose<std::uint32_t>>
      <<<1, scanlab::device_scan_detail::kSpineThreads>>>(partials.data(), tiles, AffineCompose<std::uint32_t>{});
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const scanlab::VerifyResult r =
      scanlab::verify_exact(scanlab::exclusive_scan_oracle(in, AffineCompose<std::uint32_t>{}), partials.download());
  CHECK_MESSAGE(r.ok, r.message());
}
