// scanlab/driver/names.hpp: what a chapter driver scans, named as its reports print it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "scanlab/monoid.hpp"
#include "scanlab/verify.hpp"

namespace scanlab {

template <class T>
constexpr const char* type_label() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else {
    // A new element type needs a name here before a report can print it.
    static_assert(std::is_same_v<T, Affine<std::uint32_t>>, "type_label: no name for this type");
    return "affine<uint32>";
  }
}

template <class Op>
constexpr const char* op_label() {
  if constexpr (std::is_same_v<Op, AffineCompose<std::uint32_t>>) return "affine composition";
  else if constexpr (std::is_same_v<Op, Max<typename Op::value_type>>) return "max";
  else return "sum";
}

// "100000 elements, inclusive sum, int32"
template <class T, class Op>
std::string describe_scan(std::size_t n, ScanKind kind) {
  return std::to_string(n) + (n == 1 ? " element, " : " elements, ") + to_string(kind) + " " + op_label<Op>() + ", " +
         type_label<T>();
}

}  // namespace scanlab
