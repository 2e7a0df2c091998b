// Tests of scanlab/json.hpp: the values the drivers build, written by nlohmann-json as before
// (keys sorted by dump, in the order they were set by dump_in_order), numbers keeping their kind.
#include "scanlab/json.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

TEST_CASE("Json: an object's keys, sorted by dump and in the order they were set by dump_in_order") {
  scanlab::Json j = {{"type", "meta"}, {"n", 5}, {"backend", "emulator"}};
  j["verified"] = true;
  CHECK(j.dump() == R"({"backend":"emulator","n":5,"type":"meta","verified":true})");
  CHECK(j.dump_in_order() == R"({"type":"meta","n":5,"backend":"emulator","verified":true})");
  CHECK(j.dump(2) == "{\n  \"backend\": \"emulator\",\n  \"n\": 5,\n  \"type\": \"meta\",\n  \"verified\": true\n}");
}

TEST_CASE("Json: numbers keep their kind") {
  const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
  const scanlab::Json j = {{"int", -7},     {"long", -8000000000L}, {"unsigned", 7u},        {"big", big},
                           {"double", 0.0}, {"float", 0.1f},        {"size", std::size_t{3}}};
  CHECK(j.dump() ==
        R"({"big":18446744073709551615,"double":0.0,"float":0.10000000149011612,"int":-7,"long":-8000000000,)"
        R"("size":3,"unsigned":7})");
}

TEST_CASE("Json: members are made as they are named; arrays grow; a missing member read is an error") {
  scanlab::Json report;
  CHECK(report.is_null());
  report["segmented"]["median_ms"] = 0.5;
  report["segmented"]["n"] = 10;
  report["results"] = scanlab::Json::array();
  report["results"].push_back({{"variant", "host_loop"}});
  report["results"].push_back(std::vector<int>{3, 1});
  report["pair"] = scanlab::Json::array_of({1u, 2u});
  report["none"] = nullptr;
  CHECK(report.dump() ==
        R"({"none":null,"pair":[1,2],"results":[{"variant":"host_loop"},[3,1]],"segmented":{"median_ms":0.5,"n":10}})");
  const scanlab::Json& read = report;
  CHECK(read["segmented"]["n"].dump() == "10");
  CHECK_THROWS_AS(read["missing"], std::out_of_range);
  scanlab::Json number = 3;
  CHECK_THROWS_AS(number["key"], std::logic_error);
  CHECK_THROWS_AS(number.push_back(1), std::logic_error);
}

TEST_CASE("Json: sorted() orders the keys at every level, and a line written in order keeps them") {
  scanlab::Json inner = {{"worst", 2}, {"accesses", 64}, {"degrees", {{"2", 64}, {"10", 1}}}};
  const scanlab::Json line = {{"type", "banks"}, {"phase", 0}, {"unpadded", inner.sorted()}};
  CHECK(line.dump_in_order() ==
        R"({"type":"banks","phase":0,"unpadded":{"accesses":64,"degrees":{"10":1,"2":64},"worst":2}})");
  CHECK(scanlab::Json::array_of({inner}).sorted().dump_in_order() ==
        R"([{"accesses":64,"degrees":{"10":1,"2":64},"worst":2}])");
}
