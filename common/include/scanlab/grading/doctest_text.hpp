// scanlab/grading/doctest_text.hpp: C strings in doctest messages print as text.
//
// doctest 2.4.9 (Debian 12's) streams a `const char*` inside INFO and CHECK_MESSAGE as its address:
// its filldata<T*> treats every pointer alike, and only string LITERALS (arrays) print as text. So
// `INFO("n = " << n << (in_place ? ", in place" : ""))` showed a student "0x5646...", and so did any
// function returning const char*. This specialisation prints the text. doctest 2.4.11 (Ubuntu
// 24.04's) still prints the address too, so it applies to every version; should a later doctest
// specialise filldata<const char*> itself, the two clash at compile time, not silently.
#pragma once

#include <doctest/doctest.h>

#include <ostream>

namespace doctest::detail {
template <>
struct filldata<const char*> {
  static void fill(std::ostream* stream, const char* in) { *stream << (in != nullptr ? in : "(null)"); }
};
template <>
struct filldata<char*> {
  static void fill(std::ostream* stream, const char* in) { *stream << (in != nullptr ? in : "(null)"); }
};
}  // namespace doctest::detail
