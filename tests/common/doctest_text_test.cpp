// Tests of scanlab/grading/doctest_text.hpp: a C string in a grading message is its text. doctest
// 2.4.9 printed it as an address (a student saw "the runner's reply: 0x5646..."), so every message
// built from a function returning const char*, or from `cond ? "a" : "b"`, was unreadable.
#include "scanlab/grading/doctest_text.hpp"

#include <sstream>
#include <string>

namespace {
std::string streamed(const char* text) {
  std::ostringstream os;
  doctest::detail::filloss(&os, text);  // what INFO and CHECK_MESSAGE do with each `<<` operand
  return os.str();
}
}  // namespace

TEST_CASE("a C string in a grading message prints as its text") {
  const bool in_place = true;
  CHECK(streamed(in_place ? ", in place" : "") == ", in place");
  CHECK(streamed(in_place ? "" : ", out of place").empty());
  CHECK(streamed(nullptr) == "(null)");
}
