// scanlab/monoid.hpp: the operators a scan combines with, each an explicit monoid (an associative
// combine plus its identity), the interface Vello and CUB's scan operators are built around.
//
// Every functor is usable on the host (oracle, tests) and inside kernels (SCANLAB_HD), and is an
// empty class, so passing one to a kernel by value costs nothing.
//
// AffineCompose is the lab's non-commutative operator: a scan that swaps operands anywhere (a wrong
// down-sweep, a carry added on the wrong side) gives a different answer with it, where Plus would
// hide the bug.
#pragma once

#include <limits>
#include <ostream>
#include <type_traits>

#include "scanlab/format.hpp"
#include "scanlab/hd.hpp"

namespace scanlab {

namespace detail {
// Integer arithmetic in unsigned types, so that a sum or product that overflows wraps the same way
// on the host and on the device instead of being undefined behaviour. Computing in at least
// `unsigned int` also avoids the promotion trap where two uint16_t multiply as (signed) int.
template <class T>
constexpr bool wraps_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T, bool = wraps_v<T>>
struct wide_unsigned {
  using type = T;
};
template <class T>
struct wide_unsigned<T, true> {
  using type = std::common_type_t<std::make_unsigned_t<T>, unsigned int>;
};

template <class T>
SCANLAB_HD_INLINE T wrapping_add(T x, T y) {
  if constexpr (wraps_v<T>) {
    using W = typename wide_unsigned<T>::type;
    return static_cast<T>(static_cast<W>(static_cast<W>(x) + static_cast<W>(y)));
  } else {
    return x + y;
  }
}

template <class T>
SCANLAB_HD_INLINE T wrapping_mul(T x, T y) {
  if constexpr (wraps_v<T>) {
    using W = typename wide_unsigned<T>::type;
    return static_cast<T>(static_cast<W>(static_cast<W>(x) * static_cast<W>(y)));
  } else {
    return x * y;
  }
}

template <class T, bool = std::numeric_limits<T>::has_infinity>
struct extremes {
  static constexpr T lowest = std::numeric_limits<T>::lowest();
  static constexpr T highest = std::numeric_limits<T>::max();
};
// For floats the identities of max and min are the infinities, so that inputs holding -inf/+inf
// still scan correctly.
template <class T>
struct extremes<T, true> {
  static constexpr T lowest = -std::numeric_limits<T>::infinity();
  static constexpr T highest = std::numeric_limits<T>::infinity();
};
}  // namespace detail

// Sum. Integer sums wrap (two's complement) instead of overflowing.
template <class T>
struct Plus {
  using value_type = T;
  SCANLAB_HD static T identity() { return T(0); }
  SCANLAB_HD T operator()(T x, T y) const { return detail::wrapping_add(x, y); }
};

// Running maximum; identity is the smallest value of T (-inf for floats).
template <class T>
struct Max {
  using value_type = T;
  SCANLAB_HD static T identity() { return detail::extremes<T>::lowest; }
  SCANLAB_HD T operator()(T x, T y) const { return x < y ? y : x; }
};

// Running minimum; identity is the largest value of T (+inf for floats).
template <class T>
struct Min {
  using value_type = T;
  SCANLAB_HD static T identity() { return detail::extremes<T>::highest; }
  SCANLAB_HD T operator()(T x, T y) const { return y < x ? y : x; }
};

// The affine map x -> a*x + b. A plain aggregate with no constructors or default member
// initializers, so it stays trivially copyable and trivially default-constructible: it can be a
// kernel argument, an element of a __shared__ array, and copied with cudaMemcpy.
template <class T>
struct Affine {
  T a;
  T b;
};

namespace detail {
template <class T>
struct is_affine : std::false_type {};
template <class T>
struct is_affine<Affine<T>> : std::true_type {};
template <class T>
constexpr bool is_affine_v = is_affine<T>::value;
}  // namespace detail

template <class T>
SCANLAB_HD_INLINE bool operator==(const Affine<T>& f, const Affine<T>& g) {
  return f.a == g.a && f.b == g.b;
}
template <class T>
SCANLAB_HD_INLINE bool operator!=(const Affine<T>& f, const Affine<T>& g) {
  return !(f == g);
}

// Applies f to x: a*x + b (wrapping for integers).
template <class T>
SCANLAB_HD_INLINE T apply(const Affine<T>& f, T x) {
  return detail::wrapping_add(detail::wrapping_mul(f.a, x), f.b);
}

template <class T>
std::ostream& operator<<(std::ostream& os, const Affine<T>& f) {
  return os << "{a: " << to_display_string(f.a) << ", b: " << to_display_string(f.b) << "}";
}

// Composition of affine maps, "f then g": x -> g(f(x)) = (g.a*f.a)*x + (g.a*f.b + g.b).
// Associative, not commutative; the identity is x -> x.
template <class T>
struct AffineCompose {
  using value_type = Affine<T>;
  SCANLAB_HD static Affine<T> identity() { return Affine<T>{T(1), T(0)}; }
  SCANLAB_HD Affine<T> operator()(Affine<T> f, Affine<T> g) const {
    return Affine<T>{detail::wrapping_mul(g.a, f.a), detail::wrapping_add(detail::wrapping_mul(g.a, f.b), g.b)};
  }
};

static_assert(std::is_trivially_copyable_v<Affine<int>>, "Affine must be trivially copyable");
static_assert(std::is_trivial_v<Affine<float>>, "Affine must be trivial (usable in __shared__)");

}  // namespace scanlab
