// Tests of bench/sort_check.hpp: the check of a key-value sort's values (each key's input index),
// which must catch values that did not move with their keys, equal keys out of input order (an
// unstable sort) and values left unwritten (the bench poisons them first).
#include "sort_check.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace {

using scanlab::bench::sorted_values_problem;

const std::vector<int32_t> kIn = {7, -1, 7, 3, 7};   // -1 is 0xffffffff as uint32: sorted last
const std::vector<int32_t> kGot = {3, 7, 7, 7, -1};  // the keys sorted as uint32

}  // namespace

TEST_CASE("sorted_values_problem: a stable sort's values pass") {
  CHECK(sorted_values_problem(kIn, kGot, {3, 0, 2, 4, 1}).empty());
  CHECK(sorted_values_problem({}, {}, {}).empty());
}

TEST_CASE("sorted_values_problem: equal keys out of input order are an unstable sort") {
  const std::string why = sorted_values_problem(kIn, kGot, {3, 2, 0, 4, 1});
  CHECK(why.find("not stable") != std::string::npos);
  CHECK(!sorted_values_problem(kIn, kGot, {3, 0, 0, 4, 1}).empty());  // an index twice
}

TEST_CASE("sorted_values_problem: a value that is not its key's index, or unwritten, fails") {
  CHECK(sorted_values_problem(kIn, kGot, {3, 0, 2, 1, 4}).find("value 3") != std::string::npos);
  CHECK(!sorted_values_problem(kIn, kGot, {0, 0, 0, 0, 0}).empty());  // all zeros: the values never moved
  const uint32_t poison = 0xa5a5a5a5u;
  CHECK(!sorted_values_problem(kIn, kGot, {poison, poison, poison, poison, poison}).empty());
  CHECK(!sorted_values_problem(kIn, kGot, {3, 0, 2, 4}).empty());  // fewer values than keys
}

// The uint64 rows (bench/rows_sort_u64.cuh): keys over all 64 bits, checked against a std::sort.
namespace {
using scanlab::bench::sorted_u64_problem;
const uint64_t kBig = 0xfedcba9876543210ull;  // above 2^63: a signed compare would sort it first
const std::vector<uint64_t> kIn64 = {kBig, 5, 1ull << 40, 5, 0};
const std::vector<uint64_t> kGot64 = {0, 5, 5, 1ull << 40, kBig};
}  // namespace

TEST_CASE("sorted_u64_problem: the sorted keys and a stable sort's values pass") {
  CHECK(sorted_u64_problem(kIn64, kGot64, nullptr).empty());
  const std::vector<uint32_t> values = {4, 1, 3, 2, 0};
  CHECK(sorted_u64_problem(kIn64, kGot64, &values).empty());
  CHECK(sorted_u64_problem({}, {}, nullptr).empty());
}

TEST_CASE("sorted_u64_problem: unsorted, changed or missing keys fail") {
  CHECK(sorted_u64_problem(kIn64, {0, 5, 5, kBig, 1ull << 40}, nullptr).find("key 3") != std::string::npos);
  CHECK(!sorted_u64_problem(kIn64, {0, 5, 5, 1ull << 40, kBig - 1}, nullptr).empty());              // a low bit lost
  CHECK(!sorted_u64_problem(kIn64, {0, 5, 5, 1ull << 40, kBig & 0xffffffffull}, nullptr).empty());  // high half
  CHECK(!sorted_u64_problem(kIn64, {0, 5, 5, 1ull << 40}, nullptr).empty());                        // a key short
}

TEST_CASE("sorted_u64_problem: a value that did not move with its key, or out of input order, fails") {
  const std::vector<uint32_t> moved = {4, 1, 3, 0, 2};
  CHECK(sorted_u64_problem(kIn64, kGot64, &moved).find("value 3") != std::string::npos);
  const std::vector<uint32_t> unstable = {4, 3, 1, 2, 0};
  CHECK(sorted_u64_problem(kIn64, kGot64, &unstable).find("not stable") != std::string::npos);
}

TEST_CASE("sorted_u64_problem: one reference serves the rows of one input, and sorts a new input anew") {
  scanlab::bench::SortedU64Reference reference;
  CHECK(sorted_u64_problem(kIn64, kGot64, nullptr, reference).empty());
  CHECK(sorted_u64_problem(kIn64, kGot64, nullptr, reference).empty());  // the second row, same input
  CHECK(!sorted_u64_problem(kIn64, {0, 5, 5, kBig, 1ull << 40}, nullptr, reference).empty());
  // Another input of the same length: checked against its own sort, not the first one's.
  const std::vector<uint64_t> other = {3, kBig, 1, 2, 0};
  CHECK(sorted_u64_problem(other, {0, 1, 2, 3, kBig}, nullptr, reference).empty());
  CHECK(sorted_u64_problem(other, kGot64, nullptr, reference).find("key 1") != std::string::npos);
  CHECK(sorted_u64_problem(kIn64, kGot64, nullptr, reference).empty());  // and back
}
