// scanlab/cli.hpp: the command line every chapter program shares, built on CLI11.
//
//   CLI::App app{"ch07: decoupled look-back scan"};
//   scanlab::CommonOptions opt;
//   scanlab::add_common_options(app, opt, 1u << 24);
//   scanlab::run_cli(app, argc, argv);   // exits 0 on --help, 2 (with usage) on a bad argument
//
// Sizes are written the way people think about them: 1000003, 2^20, 1M (10^6), 16Mi (2^24).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>

namespace scanlab {

struct CommonOptions {
  std::uint64_t n = 0;       // elements to scan
  std::uint64_t seed = 1;    // seed of the random input
  int repeat = 1;            // timed repetitions
  bool quiet = false;        // print only errors and the summary
  std::string json;          // also write results as JSON here (empty: do not)
};

namespace detail {
inline bool mul_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return true;
  out = a * b;
  return false;
}

// Reads the decimal digits at text[pos...]; false if there are none. Throws on overflow.
inline bool read_decimal(const std::string& text, std::size_t& pos, std::uint64_t& value,
                         const std::string& whole) {
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
  app.add_option("-r,--repeat", opt.repeat, "timed repetitions")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("-q,--quiet", opt.quiet, "print only errors and the summary");
  app.add_option("--json", opt.json, "also write the results as JSON to this file");
}

// A combination of options the program does not run: "<program>: error: <message>", a blank line
// and the usage on stderr, as for an option CLI11 itself rejects. Returns main()'s exit code, 2.
inline int usage_error(const CLI::App& app, const std::string& message) {
  std::cerr << app.get_name() << ": error: " << message << "\n\n" << app.help();
  return 2;
}

// parse_cli's answer when the program should go on.
constexpr int kCliContinue = -1;

// Parses the command line without ever exiting: returns kCliContinue when the program should go
// on, 0 after printing the help (to `out`), 2 after printing the error and the usage (to `err`).
inline int parse_cli(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                     std::ostream& err) {
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
  } catch (const CLI::ParseError& e) {
    err << app.get_name() << ": error: " << e.what() << "\n\n" << app.help();
    return 2;
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

}  // namespace scanlab
