// scanlab/command_line.hpp: a chapter program's command line, without CLI11 in the program's own
// file. CLI11 is a header-only library: every file that includes it compiles its parser (in
// chapter 03's driver, 6.7 of the 19.5 s it took to compile on the emulator), again at each edit
// of the exercise. CommandLine hands the same calls to CLI11 (scanlab/cli.hpp, with its
// checks of numbers and sizes) from one file, common/src/command_line.cpp, compiled once into the
// scanlab_driver library.
//
//   scanlab::CommandLine cli{"Chapter 03: ...", "ch03_bank_conflicts"};
//   scanlab::add_common_options(cli, cfg.common, 2048);
//   cli.option("--layout", cfg.layout, "padded or unpadded").one_of({"padded", "unpadded"}).show_default();
//   const scanlab::Option tile = cli.option("--tile", cfg.tile, "tile length").range(2, 2048);
//   cli.parse(argc, argv);   // exits 0 on --help, 2 on a bad argument
//   if (tile.given()) ...
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "scanlab/usage.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace scanlab {

// One option of a CommandLine, refined after it is added; a handle, cheap to copy.
class Option {
 public:
  Option& one_of(const std::vector<std::string>& choices);
  Option& one_of(std::initializer_list<int> choices);
  Option& range(int lo, int hi);
  Option& range(unsigned lo, unsigned hi);
  Option& range(std::uint64_t lo, std::uint64_t hi);
  Option& positive();       // a number above 0
  Option& non_negative();   // a number, 0 or more
  Option& existing_file();  // a file that exists
  Option& show_default();   // --help shows the value the variable holds now
  Option& excludes(const Option& other);
  Option& needs(const Option& other);
  bool given() const;  // whether the parsed command line named this option

 private:
  friend class CommandLine;
  explicit Option(CLI::Option* option) : option_(option) {}
  CLI::Option* option_;
};

class CommandLine {
 public:
  CommandLine(const std::string& description, const std::string& program);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // --name VALUE bound to `value`: a number (std::uint64_t, int, unsigned, double, ...), a
  // std::string, or a std::optional<std::uint64_t> (unset unless given). `names` may hold several,
  // as "-r,--repeat". (The types are instantiated in command_line.cpp: another one links with an
  // undefined reference to this function.)
  template <class T>
  Option option(const std::string& names, T& value, const std::string& help);
  // --name, which sets `value` to true.
  Option flag(const std::string& names, bool& value, const std::string& help);

  // Parses the command line; exits with 0 after printing --help, with 2 after a usage error.
  void parse(int argc, const char* const* argv);
  void parse(int argc, char** argv) { parse(argc, const_cast<const char* const*>(argv)); }
  // The same, without exiting: kCliContinue when the program should go on, else the exit code
  // (0 after the help, printed to `out`; 2 after a usage error, printed to `err`).
  int parse(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

  const std::string& program() const;  // the name it was made with
  // A combination of options the program does not run: prints the usage error, returns 2.
  int usage_error(const std::string& message) const { return print_usage_error(program(), message); }

 private:
  friend void add_common_options(CommandLine& cli, CommonOptions& opt, std::uint64_t default_n);
  std::unique_ptr<CLI::App> app_;
};

// -n/--size, --seed, -r/--repeat, -q/--quiet and --json, bound to `opt`; n starts at default_n
// (scanlab/cli.hpp's, on the program's CLI11 App).
void add_common_options(CommandLine& cli, CommonOptions& opt, std::uint64_t default_n);

// run_reporting_errors (scanlab/usage.hpp) for the program of `cli`.
template <class F>
int run_reporting_errors(const CommandLine& cli, F&& body) {
  return run_reporting_errors(cli.program(), std::forward<F>(body));
}

}  // namespace scanlab
