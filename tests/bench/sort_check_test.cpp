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
