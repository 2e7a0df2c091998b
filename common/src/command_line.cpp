// The chapter programs' command line (scanlab/command_line.hpp) on CLI11, through scanlab/cli.hpp:
// compiled once, here, so that no chapter program compiles the parser itself.
#include "scanlab/command_line.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "scanlab/cli.hpp"

namespace scanlab {

Option& Option::one_of(const std::vector<std::string>& choices) {
  option_->check(CLI::IsMember(choices));
  return *this;
}

Option& Option::one_of(std::initializer_list<int> choices) {
  option_->check(CLI::IsMember(std::vector<int>(choices)));
  return *this;
}

Option& Option::range(int lo, int hi) {
  option_->check(CLI::Range(lo, hi));
  return *this;
}

Option& Option::range(unsigned lo, unsigned hi) {
  option_->check(CLI::Range(lo, hi));
  return *this;
}

Option& Option::range(std::uint64_t lo, std::uint64_t hi) {
  option_->check(CLI::Range(lo, hi));
  return *this;
}

Option& Option::positive() {
  option_->check(CLI::PositiveNumber);
  return *this;
}

Option& Option::non_negative() {
  option_->check(CLI::NonNegativeNumber);
  return *this;
}

Option& Option::existing_file() {
  option_->check(CLI::ExistingFile);
  return *this;
}

Option& Option::show_default() {
  option_->capture_default_str();
  return *this;
}

Option& Option::excludes(const Option& other) {
  option_->excludes(other.option_);
  return *this;
}

Option& Option::needs(const Option& other) {
  option_->needs(other.option_);
  return *this;
}

bool Option::given() const { return option_->count() > 0; }

CommandLine::CommandLine(const std::string& description, const std::string& program)
    : app_(std::make_unique<CLI::App>(description, program)) {}

CommandLine::~CommandLine() = default;

const std::string& CommandLine::program() const { return app_->get_name(); }

template <class T>
Option CommandLine::option(const std::string& names, T& value, const std::string& help) {
  return Option(app_->add_option(names, value, help));
}

// The types the chapters bind options to.
template Option CommandLine::option(const std::string&, std::string&, const std::string&);
template Option CommandLine::option(const std::string&, int&, const std::string&);
template Option CommandLine::option(const std::string&, unsigned&, const std::string&);
template Option CommandLine::option(const std::string&, long&, const std::string&);
template Option CommandLine::option(const std::string&, unsigned long&, const std::string&);
template Option CommandLine::option(const std::string&, long long&, const std::string&);
template Option CommandLine::option(const std::string&, unsigned long long&, const std::string&);
template Option CommandLine::option(const std::string&, float&, const std::string&);
template Option CommandLine::option(const std::string&, double&, const std::string&);
template Option CommandLine::option(const std::string&, std::optional<std::uint64_t>&, const std::string&);

Option CommandLine::flag(const std::string& names, bool& value, const std::string& help) {
  return Option(app_->add_flag(names, value, help));
}

void CommandLine::parse(int argc, const char* const* argv) { run_cli(*app_, argc, argv); }

int CommandLine::parse(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  return parse_cli(*app_, argc, argv, out, err);
}

void add_common_options(CommandLine& cli, CommonOptions& opt, std::uint64_t default_n) {
  add_common_options(*cli.app_, opt, default_n);
}

}  // namespace scanlab
