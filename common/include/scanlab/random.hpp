// scanlab/random.hpp: seeded, machine-independent random inputs.
//
// The generator is splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014; the finaliser of Java's SplittableRandom). It is used instead of
// <random> because the standard distributions are not specified bit-for-bit: the same seed gives
// different inputs with libstdc++ and libc++, and a failing seed must replay anywhere. The range
// reductions below are written out here for the same reason.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "scanlab/monoid.hpp"

namespace scanlab {

// One splitmix64 step applied to a value: a bijective 64-bit mixer.
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A seed for an independent stream `stream` derived from `seed` (e.g. one per test case or per
// input array), so that adding a stream does not shift the numbers the others see.
constexpr std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) {
  return splitmix64_mix(seed ^ splitmix64_mix(stream + 0x9E3779B97F4A7C15ull));
}

class Rng {
 public:
  // Also a UniformRandomBitGenerator, for code that wants one (though the std distributions
  // are not portable; prefer the members below).
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type(0); }

  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next_u64() {
    state_ += 0x9E3779B97F4A7C15ull;
    return splitmix64_mix(state_);
  }
  result_type operator()() { return next_u64(); }

  std::uint32_t next_u32() { return static_cast<std::uint32_t>(next_u64() >> 32); }

  // Uniform in [0, bound) without modulo bias (rejects the few values of the last partial block);
  // bound == 0 means the full 64-bit range.
  std::uint64_t below(std::uint64_t bound) {
    if (bound == 0) return next_u64();
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const std::uint64_t r = next_u64();
      if (r >= threshold) return r % bound;
    }
  }

  // Uniform double in [0, 1) with 53 random bits.
  double uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Integers: uniform in [lo, hi] (both included). Floats: uniform in [lo, hi).
  template <class T>
  T uniform(T lo, T hi) {
    if constexpr (std::is_same_v<T, bool>) {
      return lo == hi ? lo : (next_u64() >> 63) != 0;
    } else if constexpr (std::is_integral_v<T>) {
      if (hi < lo) throw std::invalid_argument("Rng::uniform: hi < lo");
      using U = std::make_unsigned_t<T>;
      const std::uint64_t span = static_cast<std::uint64_t>(static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)));
      const std::uint64_t offset = below(span + 1);  // span + 1 == 0 means all 64-bit values
      return static_cast<T>(static_cast<U>(static_cast<U>(lo) + static_cast<U>(offset)));
    } else {
      static_assert(std::is_floating_point_v<T>, "Rng::uniform needs an integer or float type");
      if (!(lo < hi)) {
        if (lo == hi) return lo;
        throw std::invalid_argument("Rng::uniform: hi < lo");
      }
      const T x =
          static_cast<T>(static_cast<double>(lo) + (static_cast<double>(hi) - static_cast<double>(lo)) * uniform01());
      // Rounding to T can land exactly on hi; keep the interval half-open.
      return x < hi ? x : std::nextafter(hi, lo);
    }
  }

 private:
  std::uint64_t state_;
};

namespace detail {
template <class T>
struct random_scalar {
  using type = T;
};
template <class T>
struct random_scalar<Affine<T>> {
  using type = T;
};
}  // namespace detail

// The scalar type random_vector<T> draws from: T itself, or U for Affine<U>.
template <class T>
using random_scalar_t = typename detail::random_scalar<T>::type;

// Default input ranges: small integers, so that sums of a few million elements stay far from
// overflow and values are easy to read in a failure message, and floats in [-1, 1), which makes
// float scans cancel (a harder test than positive inputs only).
template <class T>
constexpr random_scalar_t<T> default_random_lo() {
  using S = random_scalar_t<T>;
  if constexpr (std::is_floating_point_v<S>) return S(-1);
  else if constexpr (std::is_signed_v<S>) return S(-100);
  else return S(0);
}
template <class T>
constexpr random_scalar_t<T> default_random_hi() {
  using S = random_scalar_t<T>;
  if constexpr (std::is_floating_point_v<S>) return S(1);
  else return S(100);
}

// n values, uniform in [lo, hi] (integers) or [lo, hi) (floats), the same for a given seed on any
// machine. For Affine<U> both a and b are drawn from [lo, hi].
template <class T>
std::vector<T> random_vector(std::size_t n, std::uint64_t seed, random_scalar_t<T> lo = default_random_lo<T>(),
                             random_scalar_t<T> hi = default_random_hi<T>()) {
  Rng rng(seed);
  std::vector<T> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (detail::is_affine_v<T>) {
      const auto a = rng.uniform(lo, hi);
      const auto b = rng.uniform(lo, hi);
      out.push_back(T{a, b});
    } else {
      out.push_back(rng.uniform(lo, hi));
    }
  }
  return out;
}

// The input of a scan: random_vector's default ranges, except that affine maps get any
// multiplier and offset, the multiplier odd. Odd multipliers keep every composed prefix invertible
// (mod 2^k), so an operand swap or a dropped map anywhere changes every later element.
template <class T>
std::vector<T> random_scan_input(std::size_t n, std::uint64_t seed) {
  if constexpr (detail::is_affine_v<T>) {
    using U = random_scalar_t<T>;
    static_assert(std::is_unsigned_v<U>, "random_scan_input: affine maps over unsigned integers");
    auto maps = random_vector<T>(n, seed, U(0), std::numeric_limits<U>::max());
    for (auto& f : maps) f.a |= 1u;
    return maps;
  } else {
    return random_vector<T>(n, seed);
  }
}

template <class T>
std::vector<T> constant_vector(std::size_t n, const T& value) {
  return std::vector<T>(n, value);
}

}  // namespace scanlab
