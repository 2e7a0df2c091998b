// scanlab/grading.hpp: what the chapters' grading tests (tests/grade/NN_slug.cu) have in common.
//
// Every grading test runs the code under test on random and constant inputs, writes into poisoned
// outputs (an element the kernel never writes then fails), compares with the oracle and checks
// element 0 on its own, and, on the emulator, reruns multi-block work under each block order. Those
// habits live here once, so that all chapters grade alike; what a chapter tests, its sizes, streams
// and test cases stay in its own file. The helpers use doctest's CHECK and INFO, so this header is
// for doctest programs only (seeds and random inputs without doctest: scanlab/testing.hpp).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/oracle.hpp"
#include "scanlab/random.hpp"
#include "scanlab/testing.hpp"
#include "scanlab/verify.hpp"

#if defined(SCANLAB_EMU)
// Test-side only: the block-order loops and the guard below set the emulator's options.
#include <scanlab_emu/options.hpp>
#endif

namespace scanlab::grading {

// The vocabulary of every grading test, so that `using namespace scanlab::grading;` is all a test
// file needs to name its operators and scan kinds.
using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

// ---- inputs ------------------------------------------------------------------------------------

// The three input kinds most tests scan (see random_test_input for the ranges). Plain functions, so
// that a test can pass one as the generator of its inputs.
inline std::vector<std::int32_t> random_ints(std::size_t n, std::uint64_t stream) {
  return random_test_input<std::int32_t>(n, stream);
}

inline std::vector<float> random_floats(std::size_t n, std::uint64_t stream) {
  return random_test_input<float>(n, stream);
}

inline std::vector<Affine<std::uint32_t>> random_affines(std::size_t n, std::uint64_t stream) {
  return random_test_input<Affine<std::uint32_t>>(n, stream);
}

// Constant inputs, never zeros only. x -> 3x + 1: composing it n times is not trivial.
inline const Affine<std::uint32_t> kConstantAffine{3u, 1u};
// A power of two, so every prefix of a constant float input is exact in any order of additions.
// (A constant like 0.1f makes the sequential loop round the same way at every step; its error then
// grows like n, past the length-dependent tolerance, which assumes rounding errors of mixed sign.)
inline constexpr float kConstantFloat = 0.25f;

// Lengths for a scan of independent tiles of `tile` elements: a single partial tile, exact
// multiples, and a ragged last tile.
inline std::vector<std::size_t> tile_test_sizes(int tile) {
  const std::size_t t = static_cast<std::size_t>(tile);
  std::vector<std::size_t> sizes = {1, t, 3 * t, 3 * t + t / 2 + 1};
  if (t > 2) sizes.push_back(t - 1);
  return sizes;
}

// Lengths for a single-pass scan over tiles of `tile` elements: within one tile, around the tile,
// and across a 32-tile window (a warp's look-back), up to an odd large size.
inline std::vector<std::size_t> single_pass_test_sizes(std::size_t tile) {
  return {1, tile - 1, tile, tile + 1, 2 * tile + 7, 33 * tile + 1, 70 * tile + 5, 100003};
}

// ---- checking ----------------------------------------------------------------------------------

// Checks got[0, n), one scan of in[0, n), against the oracle (exactly for integers and affine maps,
// against a float64 reference within the length-dependent tolerance for float sums), and element 0
// on its own: the first input (inclusive) or the identity (exclusive), the two places where a scan
// most often goes wrong first. Returns whether both held, so that callers can stop at the first
// failure (the smallest failing case is the one worth reading).
template <class T, class Op>
bool check_scan(const T* in, const T* got, std::size_t n, ScanKind kind, Op op) {
  VerifyResult r;
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    r = verify_float_scan(in, got, n, kind);
  } else {
    std::vector<T> expected(n);
    if (kind == ScanKind::inclusive) {
      inclusive_scan_oracle(in, expected.data(), n, op);
    } else {
      exclusive_scan_oracle(in, expected.data(), n, op);
    }
    r = verify_exact(expected.data(), got, n);
  }
  CHECK_MESSAGE(r.ok, r.message());
  bool first_ok = true;
  if (n > 0) {
    if (kind == ScanKind::inclusive) {
      first_ok = got[0] == in[0];
      CHECK_MESSAGE(first_ok, "inclusive: element 0 must be the first input");
    } else {
      first_ok = got[0] == Op::identity();
      CHECK_MESSAGE(first_ok, "exclusive: element 0 must be the identity");
    }
  }
  return r.ok && first_ok;
}

// As above, for a whole output.
template <class T, class Op>
bool check_scan(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op) {
  REQUIRE(got.size() == in.size());
  return check_scan(in.data(), got.data(), in.size(), kind, op);
}

// Checks an output of independent tiles of `tile` elements tile by tile (each tile's prefixes
// restart, and the last one may be ragged), up to the first failing tile.
template <class T, class Op>
bool check_tiles(const std::vector<T>& in, const std::vector<T>& got, std::size_t tile, ScanKind kind, Op op) {
  REQUIRE(got.size() == in.size());
  for (std::size_t begin = 0; begin < in.size(); begin += tile) {
    const std::size_t len = std::min(tile, in.size() - begin);
    INFO("tile starting at element " << begin << " (" << len << " elements)");
    if (!check_scan(in.data() + begin, got.data() + begin, len, kind, op)) return false;
  }
  return true;
}

// Runs check(input) on a random input, make_random(n, ++stream), and on a constant one of every size
// n in `sizes`, up to the first failure; `what` names the operation in the failure's context. The
// stream counter is the caller's: every random input gets its own stream, also across calls, and
// the same one in every run with the same seed. Returns whether every check held.
template <class T, class Sizes, class MakeRandom, class Check>
bool check_random_and_constant(const Sizes& sizes, MakeRandom make_random, const T& constant, std::uint64_t& stream,
                               const std::string& what, Check check) {
  for (const auto size : sizes) {
    const std::size_t n = static_cast<std::size_t>(size);
    INFO(what << ", n = " << n);
    {
      INFO("random input");
      if (!check(make_random(n, ++stream))) return false;
    }
    {
      INFO("constant input");
      if (!check(constant_vector<T>(n, constant))) return false;
    }
  }
  return true;
}

// ---- running on the device ---------------------------------------------------------------------

// Runs one operation under test on the device and returns its output: uploads `in`, poisons the
// output (so an element it never writes fails the check), calls launch(d_in, d_out), synchronises
// (so that a failed launch is reported here), and downloads n elements. With in_place the input
// buffer is the output too. With an offset both pointers start that many elements into their
// buffers, so that a test can hand the code pointers that are not 16-byte aligned. Out defaults to
// the input's type; another one (a scan of int32 into int64 sums) cannot run in place.
template <class Out = void, class In, class Launch>
auto run_on_device(const std::vector<In>& in, Launch&& launch, bool in_place = false, std::size_t offset = 0) {
  using O = std::conditional_t<std::is_void_v<Out>, In, Out>;
  const std::size_t n = in.size();
  DeviceBuffer<In> d_in(n + offset);
  DeviceBuffer<O> d_out(in_place ? 0 : n + offset);
  d_in.fill_poison();
  if (n > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(d_in.data() + offset, in.data(), n * sizeof(In), cudaMemcpyHostToDevice));
  d_out.fill_poison();
  O* out = d_out.data() + offset;
  if (in_place) {
    if constexpr (std::is_same_v<O, In>) {
      out = d_in.data() + offset;
    } else {
      throw std::invalid_argument("run_on_device: in place needs the same input and output type");
    }
  }
  launch(d_in.data() + offset, out);
  SCANLAB_CHECK_SYNC();
  std::vector<O> got(n);
  if (n > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(got.data(), out, n * sizeof(O), cudaMemcpyDeviceToHost));
  return got;
}

// ---- the emulator's block orders ---------------------------------------------------------------

#if defined(SCANLAB_EMU)
// Restores the emulator's options when a test case (or a block-order loop) ends, so that the
// schedule, memory model or counters one test sets never leak into the next.
struct EmuOptionsGuard {
  scanlab_emu::Options saved = scanlab_emu::options();
  ~EmuOptionsGuard() { scanlab_emu::options() = saved; }
};
#endif

// Runs fn once per order in which blocks can run. On the emulator: in order, reversed, and shuffled
// (seeded from the test seed): a block that writes outside its own tile, or reads a carry before
// its producer ran, is caught only in some orders. On a GPU: once, in whatever order the hardware
// picks.
template <class F>
void for_each_block_order(F&& fn) {
#if defined(SCANLAB_EMU)
  EmuOptionsGuard restore;
  for (const auto order : {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse,
                           scanlab_emu::Schedule::random}) {
    scanlab_emu::options().schedule = order;
    scanlab_emu::options().seed = test_seed();
    INFO("emulator block order: " << std::string(scanlab_emu::to_string(order)));
    fn();
  }
#else
  fn();
#endif
}

}  // namespace scanlab::grading
