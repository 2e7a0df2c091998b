// scanlab/usage.hpp: what every program does with its arguments besides parsing them, without
// CLI11 (a chapter program's own file includes this, not the parser: scanlab/command_line.hpp):
// the options every program has, sizes and whole numbers as people write them, and usage errors.
//
// Sizes are written the way people think about them: 1000003, 2^20, 1M (10^6), 16Mi (2^24). A
// usage error prints one line pointing at --help, then the error, last, and exits with code 2.
#pragma once

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace scanlab {

struct CommonOptions {
  std::uint64_t n = 0;     // elements to scan
  std::uint64_t seed = 1;  // seed of the random input
  int repeat = 1;          // timed repetitions
  bool quiet = false;      // print only errors and the summary
  std::string json;        // also write results as JSON here (empty: do not)
};

namespace detail {
inline bool mul_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return true;
  out = a * b;
  return false;
}

// Reads the decimal digits at text[pos...]; false if there are none. Throws on overflow.
inline bool read_decimal(const std::string& text, std::size_t& pos, std::uint64_t& value, const std::string& whole) {
  const std::size_t start = pos;
  value = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    const std::uint64_t digit = static_cast<std::uint64_t>(text[pos] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
      throw std::out_of_range("size '" + whole + "' is too large (at most 2^64-1)");
    }
    value = value * 10 + digit;
    ++pos;
  }
  return pos > start;
}
}  // namespace detail

// Parses a non-negative element count: "1000003", "2^20" (any base^exponent), or a number with a
// suffix: K/k, M, G, T (powers of 10) or Ki, Mi, Gi, Ti (powers of 2): "1M" = 1000000,
// "16Mi" = 16777216. Throws std::invalid_argument for anything else (negative numbers, fractions,
// spaces, unknown suffixes) and std::out_of_range when the value does not fit in 64 bits.
inline std::uint64_t parse_size(const std::string& text) {
  const std::string forms = "expected a whole number such as 1000003, 2^20, 1M (10^6) or 16Mi (2^24)";
  if (text.empty()) throw std::invalid_argument("invalid size '': " + forms);
  if (text[0] == '-') throw std::invalid_argument("invalid size '" + text + "': sizes cannot be negative");
  std::size_t pos = 0;
  std::uint64_t value = 0;
  if (!detail::read_decimal(text, pos, value, text)) {
    throw std::invalid_argument("invalid size '" + text + "': " + forms);
  }
  if (pos == text.size()) return value;

  const std::string too_large = "size '" + text + "' is too large (at most 2^64-1)";
  if (text[pos] == '^') {
    ++pos;
    std::uint64_t exponent = 0;
    if (!detail::read_decimal(text, pos, exponent, text) || pos != text.size()) {
      throw std::invalid_argument("invalid size '" + text + "': " + forms);
    }
    std::uint64_t result = 1;
    for (std::uint64_t i = 0; i < exponent; ++i) {
      if (detail::mul_overflows(result, value, result)) throw std::out_of_range(too_large);
      if (result == 0 || result == 1) break;  // 0^k and 1^k are done early (k may be huge)
    }
    return result;
  }

  const std::string suffix = text.substr(pos);
  std::uint64_t scale = 0;
  if (suffix == "K" || suffix == "k") scale = 1000ull;
  else if (suffix == "M") scale = 1000000ull;
  else if (suffix == "G") scale = 1000000000ull;
  else if (suffix == "T") scale = 1000000000000ull;
  else if (suffix == "Ki") scale = 1ull << 10;
  else if (suffix == "Mi") scale = 1ull << 20;
  else if (suffix == "Gi") scale = 1ull << 30;
  else if (suffix == "Ti") scale = 1ull << 40;
  else throw std::invalid_argument("invalid size '" + text + "': " + forms);
  std::uint64_t result = 0;
  if (detail::mul_overflows(value, scale, result)) throw std::out_of_range(too_large);
  return result;
}

// Parses a whole number of type Int written in decimal ("42", "-7"; no "+", spaces, "0x" or
// fraction). Throws std::invalid_argument that starts with `what` and says what is wrong.
template <class Int>
Int parse_whole_number(const std::string& text, const std::string& what) {
  static_assert(std::is_integral_v<Int>, "parse_whole_number: Int must be an integer type");
  const bool negative = !text.empty() && text[0] == '-';
  const std::size_t first = negative ? 1 : 0;
  bool digits = text.size() > first;
  for (std::size_t i = first; i < text.size(); ++i) digits = digits && text[i] >= '0' && text[i] <= '9';
  if (!digits) throw std::invalid_argument(what + " '" + text + "' is not a whole number");
  const std::string range = "from " + std::to_string(std::numeric_limits<Int>::min()) + " to " +
                            std::to_string(std::numeric_limits<Int>::max());
  if (negative && std::is_unsigned_v<Int>) {
    throw std::invalid_argument(what + " '" + text + "' is negative: expected a whole number " + range);
  }
  errno = 0;
  char* end = nullptr;
  if (negative) {
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE || v < static_cast<long long>(std::numeric_limits<Int>::min())) {
      throw std::invalid_argument(what + " '" + text + "' is out of range: expected a whole number " + range);
    }
    return static_cast<Int>(v);
  }
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE || v > static_cast<unsigned long long>(std::numeric_limits<Int>::max())) {
    throw std::invalid_argument(what + " '" + text + "' is out of range: expected a whole number " + range);
  }
  return static_cast<Int>(v);
}

// ---- number options --------------------------------------------------------------------------

// A bad combination or value of options, found after parsing: main() ends with exit code 2, as for
// an option the parser rejects (run_reporting_errors catches it).
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

namespace detail {
// 1e+10, -0.5: a double as a person writes it.
inline std::string number_text(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}
}  // namespace detail

// A number option's value as the type it is used with: `value` converted to T when T holds it
// exactly; a value that T cannot hold (--threshold 1e10 or -0.5 compared with int32 keys) is a
// UsageError naming the option, not a silent conversion.
template <class T>
T option_value_as(const std::string& option, double value) {
  if constexpr (std::is_integral_v<T>) {
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (!(value >= lo && value <= hi) || std::trunc(value) != value) {
      throw UsageError(option + " " + detail::number_text(value) +
                       " does not fit the element type: expected a "
                       "whole number from " +
                       std::to_string(std::numeric_limits<T>::min()) + " to " +
                       std::to_string(std::numeric_limits<T>::max()));
    }
  } else if (std::isfinite(value) && std::fabs(value) > static_cast<double>(std::numeric_limits<T>::max())) {
    throw UsageError(option + " " + detail::number_text(value) + " is too large for the element type");
  }
  return static_cast<T>(value);
}

// A parse's answer when the program should go on (parse_cli in scanlab/cli.hpp, CommandLine's
// parse in scanlab/command_line.hpp); otherwise they answer main()'s exit code.
constexpr int kCliContinue = -1;

// ---- usage errors ----------------------------------------------------------------------------

// A usage error as every program prints it, on stderr: a line that points at --help, then the
// error itself, last, where it is seen. Returns main()'s exit code, 2.
inline int print_usage_error(const std::string& program, const std::string& message, std::ostream& err = std::cerr) {
  err << "usage: " << program << " [options]   (" << program << " --help lists them)\n"
      << program << ": error: " << message << "\n";
  return 2;
}

// main()'s body after the command line: a UsageError becomes a usage error (exit code 2); any
// other exception (a CUDA error, a file that cannot be written) "<program>: error: <what>" on
// stderr and exit code 1.
template <class F>
int run_reporting_errors(const std::string& program, F&& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cout.flush();
    return print_usage_error(program, e.what());
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << program << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace scanlab
