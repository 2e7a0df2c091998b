// scanlab/verify.hpp: comparing a scan's output with the oracle, with messages that say where it
// went wrong.
//
// Integers (and structs such as Affine) compare exactly. Float scans compare against a float64 (or
// wider) reference with a tolerance that grows with the length: a parallel scan adds in a
// different order than the sequential loop, so bit-equality would reject correct code, while a
// fixed tolerance would either reject long correct scans or accept short wrong ones. The bound,
// error <= 4*sqrt(n+1)*eps * sum|x|, is the rule of thumb that rounding errors in a sum of n terms
// grow like sqrt(n)*eps (Wilkinson; Higham, "Accuracy and Stability of Numerical Algorithms", on
// summation) with a safety factor; one dropped or doubled element, a wrong shift or a NaN is far
// outside it.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "scanlab/format.hpp"
#include "scanlab/monoid.hpp"
#if defined(SCANLAB_EMU) && __has_include(<scanlab_emu/diagnostics.hpp>)
#include <scanlab_emu/diagnostics.hpp>  // kSharedFillByte
#define SCANLAB_VERIFY_KNOWS_SHARED_FILL 1
#endif

namespace scanlab {

enum class ScanKind { inclusive, exclusive };

inline const char* to_string(ScanKind kind) { return kind == ScanKind::inclusive ? "inclusive" : "exclusive"; }

struct VerifyResult {
  bool ok = true;
  std::size_t n = 0;            // elements compared
  std::size_t mismatches = 0;   // how many of them were wrong
  std::size_t first_index = 0;  // first wrong element (meaningful when !ok)
  std::string expected;         // the first wrong element: what it should be ...
  std::string got;              // ... and what it was
  std::string note;             // extra context (tolerance, size mismatch); may be empty

  explicit operator bool() const { return ok; }

  // "first mismatch at index i: expected X, got Y (k of n wrong)", or "ok (n elements)".
  std::string message() const {
    if (ok) return "ok (" + std::to_string(n) + " elements)";
    std::string text = "first mismatch at index " + std::to_string(first_index) + ": expected " + expected + ", got " +
                       got + " (" + std::to_string(mismatches) + " of " + std::to_string(n) + " wrong)";
    if (!note.empty()) text += "; " + note;
    return text;
  }
};

inline std::ostream& operator<<(std::ostream& os, const VerifyResult& r) { return os << r.message(); }

// --- poison --------------------------------------------------------------------------------
// Output buffers are filled with poison before a run, so an element the kernel never wrote shows up
// as a mismatch instead of passing by luck (a zero-filled buffer "passes" wherever the answer is 0).
// Every poison value is one repeated byte, so a device buffer can be poisoned with cudaMemset:
// 0xCD for integers (the MSVC debug heap's "uninitialised" pattern: a large, odd, unlikely value)
// and 0xFF for floats, whose every-bit-set pattern is a quiet NaN that no arithmetic produces
// (GPUs make 0x7fffffff, x86 0xffc00000), so it can be told apart from a computed NaN.

namespace detail {
template <class T>
T filled_with_byte(unsigned char byte) {
  static_assert(std::is_trivially_copyable_v<T>, "poison needs a trivially copyable type");
  T value;
  std::memset(static_cast<void*>(&value), byte, sizeof(T));
  return value;
}
}  // namespace detail

// The byte every element of a poisoned buffer of T is filled with.
template <class T>
constexpr unsigned char poison_byte() {
  if constexpr (std::is_floating_point_v<T>) {
    return 0xFF;
  } else if constexpr (detail::is_affine_v<T>) {
    return poison_byte<decltype(T::a)>();
  } else {
    return 0xCD;
  }
}

template <class T>
T poison() {
  T value = detail::filled_with_byte<T>(poison_byte<T>());
  if constexpr (std::is_floating_point_v<T>) {
    static_assert(std::numeric_limits<T>::is_iec559, "poison assumes IEEE floats");
  }
  return value;
}

// Bitwise comparison with poison<T>() (a NaN never equals itself, so == cannot be used).
template <class T>
bool is_poison(const T& value) {
  const T p = poison<T>();
  return std::memcmp(&value, &p, sizeof(T)) == 0;
}

template <class T>
void fill_poison(T* data, std::size_t n) {
  std::memset(static_cast<void*>(data), poison_byte<T>(), n * sizeof(T));
}

template <class T>
void fill_poison(std::vector<T>& data) {
  fill_poison(data.data(), data.size());
}

template <class T>
std::size_t count_poison(const T* data, std::size_t n) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += is_poison(data[i]) ? 1 : 0;
  return count;
}

// --- exact comparison ----------------------------------------------------------------------

namespace detail {
// Whether every byte of value is the emulator's fill of shared memory that nothing wrote.
template <class T>
bool is_shared_fill(const T& value) {
#if defined(SCANLAB_VERIFY_KNOWS_SHARED_FILL)
  const T fill = filled_with_byte<T>(scanlab_emu::kSharedFillByte);
  return std::memcmp(&value, &fill, sizeof(T)) == 0;
#else
  (void)value;
  return false;
#endif
}

// A wrong value with what its bytes say: the output's poison (the kernel never wrote the element),
// or on the emulator its fill of shared memory (the kernel wrote a value it read from shared memory
// that nothing had written).
template <class T>
std::string display_with_poison(const T& value) {
  std::string text = to_display_string(value);
  if (is_poison(value)) text += " (poison: never written)";
  else if (is_shared_fill(value))
    text += " (the emulator's fill of unwritten shared memory: a value read from shared memory that nothing wrote)";
  return text;
}
}  // namespace detail

// Element-wise ==. For integers and for structs with operator== (Affine).
template <class T>
VerifyResult verify_exact(const T* expected, const T* got, std::size_t n) {
  VerifyResult r;
  r.n = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(expected[i] == got[i])) {
      if (r.mismatches == 0) {
        r.first_index = i;
        r.expected = to_display_string(expected[i]);
        r.got = detail::display_with_poison(got[i]);
      }
      ++r.mismatches;
    }
  }
  r.ok = r.mismatches == 0;
  return r;
}

// As above; a length difference is a failure too (the missing elements count as wrong).
template <class T>
VerifyResult verify_exact(const std::vector<T>& expected, const std::vector<T>& got) {
  const std::size_t common = expected.size() < got.size() ? expected.size() : got.size();
  VerifyResult r = verify_exact(expected.data(), got.data(), common);
  if (expected.size() == got.size()) return r;
  const std::size_t longer = expected.size() < got.size() ? got.size() : expected.size();
  if (r.mismatches == 0) {
    r.first_index = common;
    r.expected = common < expected.size() ? to_display_string(expected[common]) : "<end>";
    r.got = common < got.size() ? to_display_string(got[common]) : "<end>";
  }
  r.mismatches += longer - common;
  r.n = longer;
  r.ok = false;
  r.note =
      "size mismatch: expected " + std::to_string(expected.size()) + " elements, got " + std::to_string(got.size());
  return r;
}

// --- float scans ---------------------------------------------------------------------------

// Relative tolerance (a multiple of sum|x|) for a float scan of n elements.
template <class T>
double float_scan_tolerance(std::size_t n) {
  static_assert(std::is_floating_point_v<T>, "float_scan_tolerance is for float or double");
  return 4.0 * std::sqrt(static_cast<double>(n) + 1.0) * static_cast<double>(std::numeric_limits<T>::epsilon());
}

// Checks got[] against the float64 sum scan (inclusive or exclusive) of in[]: element i passes when
// |got[i] - ref[i]| <= float_scan_tolerance<T>(n) * S[i], S[i] being the sum of |x| over the same
// elements as ref[i]. So a leading 0 of an exclusive scan, or a prefix of zeros, must be exact.
// NaN or inf in got never passes.
template <class T>
VerifyResult verify_float_scan(const T* in, const T* got, std::size_t n, ScanKind kind) {
  static_assert(std::is_floating_point_v<T>, "verify_float_scan is for float or double");
  // The reference accumulates in long double (64-bit mantissa on x86, else double), so that for
  // double scans the reference's own rounding stays well inside the tolerance.
  using Acc = long double;
  const Acc rel = static_cast<Acc>(float_scan_tolerance<T>(n));
  VerifyResult r;
  r.n = n;
  Acc ref = 0;      // prefix sum of the elements that element i covers
  Acc abs_sum = 0;  // ... and of their magnitudes
  Acc first_tol = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == ScanKind::inclusive) {
      ref += static_cast<Acc>(in[i]);
      abs_sum += std::fabs(static_cast<Acc>(in[i]));
    }
    const Acc tol = rel * abs_sum;
    const Acc g = static_cast<Acc>(got[i]);
    const bool pass = std::isfinite(g) && std::fabs(g - ref) <= tol;
    if (!pass) {
      if (r.mismatches == 0) {
        r.first_index = i;
        r.expected = to_display_string(static_cast<double>(ref));
        r.got = detail::display_with_poison(got[i]);
        first_tol = tol;
      }
      ++r.mismatches;
    }
    if (kind == ScanKind::exclusive) {
      ref += static_cast<Acc>(in[i]);
      abs_sum += std::fabs(static_cast<Acc>(in[i]));
    }
  }
  r.ok = r.mismatches == 0;
  if (!r.ok) {
    r.note = std::string(to_string(kind)) + " float scan; allowed error there " +
             to_display_string(static_cast<double>(first_tol));
  }
  return r;
}

// As above; a length difference is a failure too (the missing elements count as wrong).
template <class T>
VerifyResult verify_float_scan(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind) {
  const std::size_t common = in.size() < got.size() ? in.size() : got.size();
  VerifyResult r = verify_float_scan(in.data(), got.data(), common, kind);
  if (in.size() == got.size()) return r;
  const std::size_t longer = in.size() < got.size() ? got.size() : in.size();
  if (r.mismatches == 0) {
    r.first_index = common;
    r.expected = common < in.size() ? "<an element>" : "<end>";
    r.got = common < got.size() ? to_display_string(got[common]) : "<end>";
  }
  r.mismatches += longer - common;
  r.n = longer;
  r.ok = false;
  r.note = "size mismatch: input has " + std::to_string(in.size()) + " elements, output " + std::to_string(got.size());
  return r;
}

}  // namespace scanlab
