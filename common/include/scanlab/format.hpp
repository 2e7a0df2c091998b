// scanlab/format.hpp: readable text for the values that verification messages show.
//
// Integers print as numbers (also 8-bit ones, which iostreams would print as characters), floats
// with the shortest text that reads back to the same value, so two floats that differ in the last
// bit never print alike. Other types print through their operator<< when they have one.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

namespace scanlab {

namespace detail {
template <class T, class = void>
struct is_streamable : std::false_type {};
template <class T>
struct is_streamable<T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>
    : std::true_type {};
}  // namespace detail

template <class T>
std::string to_display_string(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return std::to_string(static_cast<long long>(value));
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(static_cast<unsigned long long>(value));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, value);
    if (res.ec == std::errc()) return std::string(buf, res.ptr);
#endif
    std::ostringstream os;
    os.precision(std::numeric_limits<T>::max_digits10);
    os << value;
    return os.str();
  } else if constexpr (detail::is_streamable<T>::value) {
    std::ostringstream os;
    os << value;
    return os.str();
  } else {
    return "<value without operator<<>";
  }
}

}  // namespace scanlab
