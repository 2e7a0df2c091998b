// scanlab/grading/tags.hpp: the names by which types and monoids travel between a grading
// checker and its runner (scanlab/grading/wire.hpp): "i32", "f32", "affine_u32", "plus_i32", ...
//
// Apart from wire.hpp so that a runner (scanlab/grading/runner.hpp), which matches the monoid a
// request names, can do it without the JSON library: a runner is compiled afresh for every student
// the grader grades, and merely including nlohmann/json.hpp costs each of those compiles more
// than a second (its inline parsers are instantiated in every translation unit that includes it).
#pragma once

#include <string>
#include <type_traits>

#include "scanlab/monoid.hpp"

namespace scanlab::wire {

// The name of an element type: "i32", "u64", "f32", "affine_u32", ...
template <class T>
std::string type_tag() {
  if constexpr (detail::is_affine_v<T>) {
    return "affine_" + type_tag<decltype(T{}.a)>();
  } else if constexpr (std::is_same_v<T, float>) {
    return "f32";
  } else if constexpr (std::is_same_v<T, double>) {
    return "f64";
  } else if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (std::is_integral_v<T>) {
    return (std::is_signed_v<T> ? "i" : "u") + std::to_string(8 * sizeof(T));
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "only trivially copyable types travel");
    return "bytes" + std::to_string(sizeof(T));
  }
}

// The name of a monoid on the wire: "plus_i32", "max_f32", "affine_u32", ...
template <class Op>
std::string monoid_tag() {
  using T = typename Op::value_type;
  if constexpr (std::is_same_v<Op, Plus<T>>) return "plus_" + type_tag<T>();
  else if constexpr (std::is_same_v<Op, Max<T>>) return "max_" + type_tag<T>();
  else if constexpr (std::is_same_v<Op, Min<T>>) return "min_" + type_tag<T>();
  else return type_tag<T>();  // AffineCompose<U>: "affine_u32"
}

}  // namespace scanlab::wire
