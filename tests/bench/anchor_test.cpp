// Tests of bench/baseline.hpp: which measured row a row's "x CUB" ratio is taken against. A sort's
// CUB counterpart runs with an int and a size_t item count and the row is compared with the faster;
// a counterpart that failed or was skipped must never be the one chosen.
#include "baseline.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace {

using scanlab::bench::Anchor;
using scanlab::bench::fastest_anchor;
using scanlab::bench::Measurement;
using scanlab::bench::Status;

Measurement timed(const std::string& name, double ms, Status status = Status::ok) {
  Measurement m;
  m.algorithm = name;
  m.status = status;
  m.median_ms = ms;
  return m;
}

const std::vector<std::string> kKeys = {"cub_radix_sort_keys_int", "cub_radix_sort_keys_size_t"};

}  // namespace

TEST_CASE("fastest_anchor: the faster of the two item-count types, whichever is named first") {
  const std::vector<Measurement> size_t_faster = {timed("copy", 1.0), timed("cub_radix_sort_keys_int", 6.35),
                                                  timed("cub_radix_sort_keys_size_t", 5.45)};
  const Anchor a = fastest_anchor(size_t_faster, kKeys);
  CHECK(a.name == "cub_radix_sort_keys_size_t");
  CHECK(a.ms == doctest::Approx(5.45));

  const std::vector<Measurement> int_faster = {timed("cub_radix_sort_keys_size_t", 8.53),
                                               timed("cub_radix_sort_keys_int", 7.44)};
  CHECK(fastest_anchor(int_faster, kKeys).name == "cub_radix_sort_keys_int");
}

TEST_CASE("fastest_anchor: a counterpart that failed, was skipped or is not named is not an anchor") {
  const std::vector<Measurement> rows = {timed("cub_radix_sort_keys_int", 1.0, Status::failed),
                                         timed("cub_radix_sort_keys_size_t", 0.0, Status::skipped), timed("cub", 0.5),
                                         timed("cub_radix_sort_keys_size_t_narrow", 0.1)};
  const Anchor none = fastest_anchor(rows, kKeys);
  CHECK(none.name.empty());
  CHECK(none.ms < 0);

  const std::vector<Measurement> one_left = {timed("cub_radix_sort_keys_int", 1.0, Status::failed),
                                             timed("cub_radix_sort_keys_size_t", 2.0)};
  CHECK(fastest_anchor(one_left, kKeys).name == "cub_radix_sort_keys_size_t");
}

TEST_CASE("fastest_anchor: a single name (copy, cub, an application's counterpart) is that row") {
  const std::vector<Measurement> rows = {timed("copy", 1.5), timed("cub", 2.5)};
  CHECK(fastest_anchor(rows, {"cub"}).ms == doctest::Approx(2.5));
  CHECK(fastest_anchor(rows, {"copy"}).name == "copy");
}
