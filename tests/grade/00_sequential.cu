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
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/grading.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/verify.hpp>

#include "sequential_scan.cuh"

namespace {

using namespace scanlab::grading;

// Single elements, around a warp (31, 32, 33), a medium and a large size that is not a power of two.
const std::size_t kSizes[] = {1, 2, 3, 31, 32, 33, 1000, 100003};

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

// The one-thread GPU scan under test. With in_place the input buffer is also the output.
template <class T, class Op>
std::vector<T> device_scan(const std::vector<T>& in, ScanKind kind, Op op, bool in_place = false) {
  return run_on_device(in, [&](T* d_in, T* d_out) {
    if (kind == ScanKind::inclusive) {
      ch00::one_thread_inclusive_scan(d_in, d_out, in.size(), op);
    } else {
      ch00::one_thread_exclusive_scan(d_in, d_out, in.size(), op);
    }
  }, in_place);
}

// Runs `scan` on random and constant inputs of every size in kSizes and checks each result, up to
// the first failure.
template <class T, class Op, class MakeRandom, class Scan>
void check_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant, Scan scan) {
  std::uint64_t stream = 0;
  check_random_and_constant(kSizes, make_random, constant, stream, std::string(scanlab::to_string(kind)) + " scan",
                            [&](const std::vector<T>& in) { return check_scan(in, scan(in, kind, op), kind, op); });
}

const auto kHost = [](const auto& in, ScanKind kind, auto op) { return host_scan(in, kind, op); };
const auto kHostInPlace = [](const auto& in, ScanKind kind, auto op) {
  return host_scan_in_place(in, kind, op);
};
const auto kDevice = [](const auto& in, ScanKind kind, auto op) { return device_scan(in, kind, op); };
const auto kDeviceInPlace = [](const auto& in, ScanKind kind, auto op) {
  return device_scan(in, kind, op, true);
};

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
