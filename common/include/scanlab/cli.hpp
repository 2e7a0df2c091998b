// scanlab/cli.hpp: the command line every program of the lab shares, built on CLI11. (A chapter
// program reaches it through scanlab/command_line.hpp, compiled once in the scanlab_driver library,
// so that a student's edit does not compile CLI11 again; the bench and scanlab-viz use it directly.)
//
//   CLI::App app{"ch07: decoupled look-back scan"};
//   scanlab::CommonOptions opt;
//   scanlab::add_common_options(app, opt, 1u << 24);
//   scanlab::run_cli(app, argc, argv);   // exits 0 on --help, 2 on a bad argument
//
// Every option is checked here, once, for every program: a number option (one that CLI11 types as
// INT, UINT or FLOAT) takes a plain decimal number and nothing else ("-1" is not an unsigned
// value, "0.5" is not a whole number, "nan" and "1e999" are not numbers, "010" is ten). A bad
// argument prints one line pointing at --help, then the error, last, and exits with code 2.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "scanlab/usage.hpp"

namespace scanlab {

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

// A usage error of `app`'s program (scanlab/usage.hpp). Returns main()'s exit code, 2.
inline int print_usage_error(const CLI::App& app, const std::string& message, std::ostream& err = std::cerr) {
  return print_usage_error(app.get_name(), message, err);
}

// A combination of options the program does not run. Returns main()'s exit code, 2.
inline int usage_error(const CLI::App& app, const std::string& message) { return print_usage_error(app, message); }

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

// run_reporting_errors (scanlab/usage.hpp) for `app`'s program.
template <class F>
int run_reporting_errors(const CLI::App& app, F&& body) {
  return run_reporting_errors(app.get_name(), std::forward<F>(body));
}

}  // namespace scanlab
