// Grading tests for chapter 00: the sequential scan on the host and on one GPU thread. This is the
// checker: the student's code runs in the runner (00_sequential_runner.cu), another process.
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

#include <scanlab/grading/checker.hpp>
#include <scanlab/verify.hpp>

namespace {

using namespace scanlab::grading;

// Single elements, around a warp (31, 32, 33), a medium and a large size that is not a power of two.
const std::size_t kSizes[] = {1, 2, 3, 31, 32, 33, 1000, 100003};

// The scan under test (the runner's entry host_scan or device_scan), into a fresh poisoned output
// or in place.
template <class T, class Op>
std::vector<T> scan(const char* entry, const std::vector<T>& in, ScanKind kind, Op op, bool in_place = false) {
  return call_entry(entry, op, in, {{"kind", scanlab::to_string(kind)}, {"in_place", in_place}});
}

// Tells the scan under test n == 0 on a one-element buffer: nothing may be written.
template <class Op>
void check_n_zero_writes_nothing(const char* entry, ScanKind kind, Op op) {
  const std::vector<std::int32_t> got =
      call_entry(entry, op, std::vector<std::int32_t>{5}, {{"kind", scanlab::to_string(kind)}, {"n", 0}});
  REQUIRE(got.size() == 1);
  CHECK_MESSAGE(scanlab::is_poison(got[0]), "n == 0 must not write the output");
}

// Runs `scan` on random and constant inputs of every size in kSizes and checks each result, up to
// the first failure.
template <class T, class Op, class MakeRandom, class Scan>
void check_all_sizes(ScanKind kind, Op op, MakeRandom make_random, const T& constant, Scan scan) {
  std::uint64_t stream = 0;
  check_random_and_constant(kSizes, make_random, constant, stream, std::string(scanlab::to_string(kind)) + " scan",
                            [&](const std::vector<T>& in) {
                              return check_scan(in, scan(in, kind, op), kind, op);
                            });
}

const auto kHost = [](const auto& in, ScanKind kind, auto op) {
  return scan("host_scan", in, kind, op);
};
const auto kHostInPlace = [](const auto& in, ScanKind kind, auto op) {
  return scan("host_scan", in, kind, op, true);
};
const auto kDevice = [](const auto& in, ScanKind kind, auto op) {
  return scan("device_scan", in, kind, op);
};
const auto kDeviceInPlace = [](const auto& in, ScanKind kind, auto op) {
  return scan("device_scan", in, kind, op, true);
};

}  // namespace

// ---- host ----------------------------------------------------------------------------------

TEST_CASE("host inclusive scan of int32 equals the oracle; n == 0 writes nothing" *
          doctest::description("points: 10")) {
  check_all_sizes(ScanKind::inclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kHost);

  check_n_zero_writes_nothing("host_scan", ScanKind::inclusive, Plus<std::int32_t>{});
}

TEST_CASE("host exclusive scan of int32 starts with the identity and equals the oracle" *
          doctest::description("points: 10")) {
  check_all_sizes(ScanKind::exclusive, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kHost);

  check_n_zero_writes_nothing("host_scan", ScanKind::exclusive, Plus<std::int32_t>{});
}

TEST_CASE("host scans work in place (in == out), inclusive and exclusive" * doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kHostInPlace);
    check_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine, kHostInPlace);
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

  check_n_zero_writes_nothing("device_scan", ScanKind::inclusive, Plus<std::int32_t>{});
  check_n_zero_writes_nothing("device_scan", ScanKind::exclusive, Plus<std::int32_t>{});
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

TEST_CASE("one-thread GPU scans keep operand order: affine maps over uint32" * doctest::description("points: 10")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, AffineCompose<std::uint32_t>{}, random_affines, kConstantAffine, kDevice);
  }
}

TEST_CASE("one-thread GPU scans work in place (d_in == d_out)" * doctest::description("points: 5")) {
  for (const ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    check_all_sizes(kind, Plus<std::int32_t>{}, random_ints, std::int32_t{7}, kDeviceInPlace);
  }
}
