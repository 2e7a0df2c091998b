// Grading tests for chapter 00: the sequential scan on the host and on one GPU thread.
//
// Every case compares with scanlab's oracle (exactly for integers and affine maps, against a
// float64 reference for floats), writes into poisoned outputs so that unwritten elements fail, and
// checks element 0 (the first input for inclusive, the identity for exclusive) on its own. Inputs
// are random (seed from scanlab::test_seed(), printed by the test main) and constant, never zeros
// only. The untouched exercise stubs write nothing, so they fail every case below.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include <scanlab/testing.hpp>
#include <scanlab/verify.hpp>

#include "sequential_scan.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

// Single elements, around a warp (31, 32, 33), a medium and a large size that is not a power of two.
const std::size_t kSizes[] = {1, 2, 3, 31, 32, 33, 1000, 100003};

// ---- inputs (never all zeros) --------------------------------------------------------------

std::uint64_t seed_for(std::uint64_t stream) { return scanlab::derive_seed(scanlab::test_seed(), stream); }

std::vector<std::int32_t> random_ints(std::size_t n, std::uint64_t stream) {
  return scanlab::random_vector<std::int32_t>(n, seed_for(stream), -1000, 1000);
}

std::vector<float> random_floats(std::size_t n, std::uint64_t stream) {
  return scanlab::random_vector<float>(n, seed_for(stream), -1.0f, 1.0f);
}

// Odd multipliers keep every composed prefix invertible mod 2^32, so a prefix never collapses to a
// constant map that would hide a swapped operand further on.
std::vector<Affine<std::uint32_t>> random_affines(std::size_t n, std::uint64_t stream) {
  auto maps = scanlab::random_vector<Affine<std::uint32_t>>(n, seed_for(stream), 0u, 0xffffffffu);
  for (auto& f : maps) f.a |= 1u;
  return maps;
}

// ---- checking ------------------------------------------------------------------------------

// Checks `got` (the output of one scan of `in`) against the oracle, and element 0 on its own.
// Returns whether both held.
template <class T, class Op>
bool check_against_oracle(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op) {
  REQUIRE(got.size() == in.size());
  const std::size_t n = in.size();
  scanlab::VerifyResult r;
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    r = scanlab::verify_float_scan(in.data(), got.data(), n, kind);
  } else {
    const std::vector<T> expected = kind == ScanKind::inclusive ? scanlab::inclusive_scan_oracle(in, op)
                                                                : scanlab::exclusive_scan_oracle(in, op);
    r = scanlab::verify_exact(expected.data(), got.data(), n);
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

// The host scan under test, into a fresh poisoned output.
template <class T, class Op>
std::vector<T> host_scan(const std::vector<T>& in, ScanKind kind, Op op) {
  std::vector<T> out(in.size());
  scanlab::fill_poison(out);
  if (kind == ScanKind::inclusive) {
    ch00::sequential_inclusive_scan(in.data(), out.data(), in.size(), op);
  } else {
    ch00::sequential_exclusive_scan(in.data(), out.data(), in.size(), op);
  }
  return out;
}

// The host scan under test with in == out.
template <class T, class Op>
std::vector<T> host_scan_in_place(const std::vector<T>& in, ScanKind kind, Op op) {
  std::vector<T> data = in;
  if (kind == ScanKind::inclusive) {
    ch00::sequential_inclusive_scan(data.data(), data.data(), data.size(), op);
  } else {
    ch00::sequential_exclusive_scan(data.data(), data.data(), data.size(), op);
  }
  return data;
}

// The one-thread GPU scan under test: upload, poison the output, launch, synchronise, download.
// With in_place the input buffer is also the output.
template <class T, class Op>
std::vector<T> device_scan(const std::vector<T>& in, ScanKind kind, Op op, bool in_place = false) {
  scanlab::DeviceBuffer<T> d_in(in.size());
  scanlab::DeviceBuffer<T> d_out(in.size());
  d_in.upload(in);
  d_out.fill_poison();
  T* out = in_place ? d_in.data() : d_out.data();
  if (kind == ScanKind::inclusive) {
    ch00::one_thread_inclusive_scan(d_in.data(), out, in.size(), op);
  } else {
    ch00::one_thread_exclusive_scan(d_in.data(), out, in.size(), op);
  }
  SCANLAB_CHECK_SYNC();
  return in_place ? d_in.download() : d_out.download();
}

// Runs `scan` on random and constant inputs of every size in kSizes and checks each result, up to
// the first failure (the smallest failing size is the one worth reading).
template <class T, class Op, class MakeRandom, class Scan>
void check_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant, Scan scan) {
  std::uint64_t stream = 0;
  for (const std::size_t n : kSizes) {
    INFO(std::string(scanlab::to_string(kind)) << " scan, n = " << n);
    {
      INFO("random input");
      const std::vector<T> in = make_random(n, ++stream);
      if (!check_against_oracle(in, scan(in, kind, op), kind, op)) return;
    }
    {
      INFO("constant input");
      const std::vector<T> in = scanlab::constant_vector<T>(n, constant);
      if (!check_against_oracle(in, scan(in, kind, op), kind, op)) return;
    }
  }
}

const auto kHost = [](const auto& in, ScanKind kind, auto op) { return host_scan(in, kind, op); };
const auto kHostInPlace = [](const auto& in, ScanKind kind, auto op) {
  return host_scan_in_place(in, kind, op);
};
const auto kDevice = [](const auto& in, ScanKind kind, auto op) { return device_scan(in, kind, op); };
const auto kDeviceInPlace = [](const auto& in, ScanKind kind, auto op) {
  return device_scan(in, kind, op, true);
};

const Affine<std::uint32_t> kConstantAffine{3u, 1u};  // x -> 3x + 1: composing it n times is not trivial
// A power of two, so every prefix of a constant float input is exact in any order of additions.
// (A constant like 0.1f makes the sequential loop round the same way at every step; its error then
// grows like n, past the length-dependent tolerance, which assumes rounding errors of mixed sign.)
const float kConstantFloat = 0.25f;

}  // namespace

// ---- host ----------------------------------------------------------------------------------

TEST_CASE("host inclusive scan of int32 equals the oracle; n == 0 writes nothing" *
          doctest::description("points: 10")) {
  check_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kHost);

  std::int32_t in = 5;
  std::int32_t out = scanlab::poison<std::int32_t>();
  ch00::sequential_inclusive_scan(&in, &out, 0, Plus<std::int32_t>{});
  CHECK_MESSAGE(scanlab::is_poison(out), "n == 0 must not write the output");
}

TEST_CASE("host exclusive scan of int32 starts with the identity and equals the oracle" *
          doctest::description("points: 10")) {
  check_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kHost);

  std::int32_t in = 5;
  std::int32_t out = scanlab::poison<std::int32_t>();
  ch00::sequential_exclusive_scan(&in, &out, 0, Plus<std::int32_t>{});
  CHECK_MESSAGE(scanlab::is_poison(out), "n == 0 must not write the output");
}

TEST_CASE("host scans work in place (in == out), inclusive and exclusive" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kHostInPlace);
    check_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine,
                    kHostInPlace);
  }
}

TEST_CASE("host scans of float32 match a float64 reference within the length-dependent tolerance" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, Plus<float>{}, random_floats, kConstantFloat, kHost);
  }
}

TEST_CASE("host scans keep operand order: non-commutative affine maps over uint32" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine, kHost);
  }
}

TEST_CASE("host scans use the monoid's identity: running max of int32 (identity INT32_MIN)" *
          doctest::description("points: 5")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, Max<std::int32_t>{}, random_ints, std::int32_t{-3}, kHost);
  }
}

// ---- one GPU thread ------------------------------------------------------------------------

TEST_CASE("one-thread GPU inclusive scan of int32 equals the oracle; n == 0 launches nothing" *
          doctest::description("points: 10")) {
  check_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kDevice);

  scanlab::DeviceBuffer<std::int32_t> d_in(1), d_out(1);
  d_in.upload(std::vector<std::int32_t>{5});
  d_out.fill_poison();
  ch00::one_thread_inclusive_scan(d_in.data(), d_out.data(), 0, Plus<std::int32_t>{});
  ch00::one_thread_exclusive_scan(d_in.data(), d_out.data(), 0, Plus<std::int32_t>{});
  SCANLAB_CHECK_SYNC();
  CHECK_MESSAGE(scanlab::is_poison(d_out.download()[0]), "n == 0 must not write the output");
}

TEST_CASE("one-thread GPU exclusive scan of int32 starts with the identity and equals the oracle" *
          doctest::description("points: 10")) {
  check_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kDevice);
  check_all_sizes(ScanKind::exclusive, Max<std::int32_t>{}, random_ints, std::int32_t{-3}, kDevice);
}

TEST_CASE("one-thread GPU scans of float32 match a float64 reference within tolerance" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, Plus<float>{}, random_floats, kConstantFloat, kDevice);
  }
}

TEST_CASE("one-thread GPU scans keep operand order: affine maps over uint32" *
          doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine, kDevice);
  }
}

TEST_CASE("one-thread GPU scans work in place (d_in == d_out)" * doctest::description("points: 5")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kDeviceInPlace);
  }
}
