// scanlab/cli.hpp: the command line every chapter program shares, built on CLI11.
//
//   CLI::App app{"ch07: decoupled look-back scan"};
//   scanlab::CommonOptions opt;
//   scanlab::add_common_options(app, opt, 1u << 24);
//   scanlab::run_cli(app, argc, argv);   // exits 0 on --help, 2 on a bad argument
//
// Sizes are written the way people think about them: 1000003, 2^20, 1M (10^6), 16Mi (2^24).
//
// Every option is checked here, once, for every program: a number option (one that CLI11 types as
// INT, UINT or FLOAT) takes a plain decimal number and nothing else ("-1" is not an unsigned
// value, "0.5" is not a whole number, "nan" and "1e999" are not numbers, "010" is ten). A bad
// argument prints one line pointing at --help, then the error, last, and exits with code 2.
#pragma once

#include <CLI/CLI.hpp>

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
#include <vector>

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

// A CLI11 transform that rewrites a size ("16Mi") as its decimal value, or reports why it cannot.
inline CLI::Validator size_transform() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          text = std::to_string(parse_size(text));
          return std::string();
        } catch (const std::exception& e) {
          return e.what();
        }
      },
      "", "size");
}

// Adds -n/--size, --seed, -r/--repeat, -q/--quiet and --json, bound to `opt`. n starts at
// default_n; the other fields keep the defaults they have in `opt`.
inline void add_common_options(CLI::App& app, CommonOptions& opt, std::uint64_t default_n) {
  opt.n = default_n;
  app.add_option("-n,--n,--size", opt.n, "number of elements: 1000003, 2^20, 1M (10^6), 16Mi (2^24)")
      ->type_name("SIZE")
      ->transform(size_transform())
      ->capture_default_str();
  app.add_option("--seed", opt.seed, "seed of the random input (the same seed gives the same input)")
      ->capture_default_str();
  app.add_option("-r,--repeat", opt.repeat, "timed repetitions")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_flag("-q,--quiet", opt.quiet, "print only errors and the summary");
  app.add_option("--json", opt.json, "also write the results as JSON to this file");
}

// ---- whole numbers and number options ------------------------------------------------------

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

namespace detail {

// The check of one number option's text, by the type CLI11 recorded for it ("INT", "UINT",
// "FLOAT"); rewrites the text in plain decimal, so that CLI11 never reads "010" as octal.
// (The option's variable may be narrower than 64 bits: a value it cannot hold is reported by
// parse_cli, from CLI11's conversion error.)
inline std::string check_number_text(const std::string& type, std::string& text) {
  const std::string value = "value '" + text + "'";
  try {
    if (type == "UINT" && text.size() > 1 && text[0] == '-' &&
        text.find_first_not_of("0123456789", 1) == std::string::npos) {
      return value + " is negative: expected a whole number, 0 or more";
    }
    if (type == "UINT") text = std::to_string(parse_whole_number<std::uint64_t>(text, "value"));
    else if (type == "INT") text = std::to_string(parse_whole_number<std::int64_t>(text, "value"));
    else {
      bool plain = !text.empty();  // digits, sign, point, exponent: no "nan", "inf" or "0x1p3"
      for (const char c : text)
        plain = plain && ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E');
      char* end = nullptr;
      const double v = plain ? std::strtod(text.c_str(), &end) : 0.0;
      if (!plain || *end != '\0') return "value '" + text + "' is not a number";
      if (!std::isfinite(v)) return "value '" + text + "' is too large";
    }
    return std::string();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    return what.find("out of range") != std::string::npos ? value + " is out of range for this option" : what;
  }
}

// CLI::PositiveNumber and CLI::NonNegativeNumber, with a message a person can read (CLI11's own
// prints the largest double, 309 digits, as the upper bound).
inline std::string check_sign(const std::string& description, const std::string& text) {
  const double v = std::strtod(text.c_str(), nullptr);
  if (description == "POSITIVE" && !(v > 0)) return "value " + text + " is not allowed: expected a number above 0";
  if (description == "NONNEGATIVE" && !(v >= 0)) return "value " + text + " is negative: expected 0 or more";
  return std::string();
}

// Puts check_number_text first on every number option of `app`, and gives the sign checks their
// message. A second parse of the same App finds the check in place and adds none.
inline void add_number_checks(CLI::App& app) {
  constexpr const char* kName = "scanlab-number";
  for (CLI::Option* option : app.get_options()) {
    const std::string full = option->get_type_name();
    const std::string type = full.substr(0, full.find(':'));
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    std::vector<CLI::Validator*> validators;  // CLI11 throws past the last index
    try {
      for (int i = 0;; ++i) validators.push_back(option->get_validator(i));
    } catch (const CLI::OptionNotFound&) {
    }
    bool added = false;
    for (CLI::Validator* v : validators) {
      const std::string description = v->get_description();
      added = added || v->get_name() == kName;
      if (description == "POSITIVE" || description == "NONNEGATIVE") {
        v->operation([description](std::string& text) {
          return check_sign(description, text);
        });
      }
    }
    if (!added) {
      option->transform(CLI::Validator(
          [type](std::string& text) {
            return check_number_text(type, text);
          },
          "", kName));
    }
  }
}

// CLI11 says "Could not convert: --width = 99999999999" when a checked whole number does not fit
// the option's variable: said plainly.
inline std::string conversion_message(const CLI::ConversionError& e) {
  const std::string text = e.what();
  const std::string prefix = "Could not convert: ";
  const std::size_t equals = text.find(" = ");
  if (text.rfind(prefix, 0) != 0 || equals == std::string::npos) return text;
  return text.substr(prefix.size(), equals - prefix.size()) + ": value '" + text.substr(equals + 3) +
         "' is out of range for this option";
}

}  // namespace detail

// ---- parsing and usage errors ----------------------------------------------------------------

// A usage error as every program prints it, on stderr: a line that points at --help, then the
// error itself, last, where it is seen. Returns main()'s exit code, 2.
inline int print_usage_error(const CLI::App& app, const std::string& message, std::ostream& err = std::cerr) {
  err << "usage: " << app.get_name() << " [options]   (" << app.get_name() << " --help lists them)\n"
      << app.get_name() << ": error: " << message << "\n";
  return 2;
}

// A combination of options the program does not run. Returns main()'s exit code, 2.
inline int usage_error(const CLI::App& app, const std::string& message) { return print_usage_error(app, message); }

// parse_cli's answer when the program should go on.
constexpr int kCliContinue = -1;

// Parses the command line without ever exiting: returns kCliContinue when the program should go
// on, 0 after printing the help (to `out`), 2 after printing the usage error (to `err`).
inline int parse_cli(CLI::App& app, int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  detail::add_number_checks(app);
  try {
    app.parse(argc, argv);
    return kCliContinue;
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::Success& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ConversionError& e) {
    return print_usage_error(app, detail::conversion_message(e), err);
  } catch (const CLI::ParseError& e) {
    return print_usage_error(app, e.what(), err);
  }
}

// parse_cli for main(): exits the process (0 on --help, 2 on a bad argument) instead of returning
// those; returns 0 when the program should go on, so that both `run_cli(app, argc, argv);` and
// `if (int rc = run_cli(app, argc, argv)) return rc;` read right.
inline int run_cli(CLI::App& app, int argc, const char* const* argv) {
  const int code = parse_cli(app, argc, argv, std::cout, std::cerr);
  if (code != kCliContinue) {
    std::cout.flush();
    std::exit(code);
  }
  return 0;
}

// main()'s body after the command line: a UsageError becomes a usage error (exit code 2); any
// other exception (a CUDA error, a file that cannot be written) "<program>: error: <what>" on
// stderr and exit code 1.
template <class F>
int run_reporting_errors(const CLI::App& app, F&& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::cout.flush();
    return print_usage_error(app, e.what());
  } catch (const std::exception& e) {
    std::cout.flush();
    std::cerr << app.get_name() << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace scanlab
