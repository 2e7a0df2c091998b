// Tests of scanlab/cli.hpp: size parsing and the shared command line, including what a user sees
// (and the exit code) after a bad argument.
#include "scanlab/cli.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct CliRun {
  int code;
  std::string out, err;
  scanlab::CommonOptions opt;
};

CliRun run(const std::vector<std::string>& args, std::uint64_t default_n = 1u << 20) {
  CLI::App app{"scanlab test program"};
  CliRun r{};
  scanlab::add_common_options(app, r.opt, default_n);
  std::vector<const char*> argv = {"prog"};
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  r.code = scanlab::parse_cli(app, static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("parse_size: accepted forms") {
  CHECK(scanlab::parse_size("0") == 0u);
  CHECK(scanlab::parse_size("1000003") == 1000003u);
  CHECK(scanlab::parse_size("2^20") == 1048576u);
  CHECK(scanlab::parse_size("2^0") == 1u);
  CHECK(scanlab::parse_size("10^9") == 1000000000u);
  CHECK(scanlab::parse_size("2^63") == 9223372036854775808ull);
  CHECK(scanlab::parse_size("0^0") == 1u);
  CHECK(scanlab::parse_size("1^99999999999") == 1u);
  CHECK(scanlab::parse_size("1K") == 1000u);
  CHECK(scanlab::parse_size("1k") == 1000u);
  CHECK(scanlab::parse_size("1M") == 1000000u);
  CHECK(scanlab::parse_size("3G") == 3000000000u);
  CHECK(scanlab::parse_size("2T") == 2000000000000u);
  CHECK(scanlab::parse_size("4Ki") == 4096u);
  CHECK(scanlab::parse_size("16Mi") == 16777216u);
  CHECK(scanlab::parse_size("1Gi") == 1073741824u);
  CHECK(scanlab::parse_size("1Ti") == 1099511627776u);
  CHECK(scanlab::parse_size("18446744073709551615") == 18446744073709551615ull);
}

TEST_CASE("parse_size: rejected forms say why") {
  for (const char* text : {"", "abc", "1.5M", "1 M", " 1", "1 ", "1m", "1Mb", "0x10", "2^", "^3", "2^x",
                           "1Mi2", "+5", "2^-1", "1e6", "M"}) {
    CAPTURE(text);
    try {
      scanlab::parse_size(text);
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK(contains(e.what(), "invalid size '" + std::string(text) + "'"));
      CHECK(contains(e.what(), "2^20"));  // the message shows the accepted forms
    }
  }
  try {
    scanlab::parse_size("-5");
    FAIL("accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(contains(e.what(), "negative"));
  }
  for (const char* text : {"2^64", "3^41", "18446744073709551616", "99999999999999999999999",
                           "20000000000G", "16777216Ti"}) {
    CAPTURE(text);
    try {
      scanlab::parse_size(text);
      FAIL("accepted");
    } catch (const std::out_of_range& e) {
      CHECK(contains(e.what(), "too large"));
    }
  }
}

TEST_CASE("command line: defaults and every common option") {
  auto r = run({});
  CHECK(r.code == scanlab::kCliContinue);
  CHECK(r.opt.n == (1u << 20));
  CHECK(r.opt.seed == 1u);
  CHECK(r.opt.repeat == 1);
  CHECK_FALSE(r.opt.quiet);
  CHECK(r.opt.json.empty());

  r = run({"-n", "16Mi", "--seed", "7", "-r", "3", "-q", "--json", "out.json"});
  CHECK(r.code == scanlab::kCliContinue);
  CHECK(r.opt.n == 16777216u);
  CHECK(r.opt.seed == 7u);
  CHECK(r.opt.repeat == 3);
  CHECK(r.opt.quiet);
  CHECK(r.opt.json == "out.json");
  CHECK(r.out.empty());
  CHECK(r.err.empty());

  CHECK(run({"--size=2^10"}).opt.n == 1024u);
  CHECK(run({"-n", "1000003"}).opt.n == 1000003u);
  CHECK(run({"-n", "1M"}).opt.n == 1000000u);
}

TEST_CASE("command line: a bad argument prints the error and the usage, exit code 2") {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-n", "lots"}, {"-n", "-5"}, {"-n", "2^64"}, {"--bogus"}, {"-r", "0"}, {"-r", "x"},
           {"--seed", "abc"}, {"-n"}, {"extra"}}) {
    CAPTURE(args.front());
    const auto r = run(args);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "error"));
    CHECK(contains(r.err, "Usage"));
    CHECK(contains(r.err, "--size"));
    CHECK(r.out.empty());
  }
  const auto r = run({"-n", "lots"});
  CHECK(contains(r.err, "invalid size 'lots'"));
}

TEST_CASE("command line: --help prints the usage, exit code 0") {
  const auto r = run({"--help"});
  CHECK(r.code == 0);
  CHECK(contains(r.out, "Usage"));
  CHECK(contains(r.out, "--size"));
  CHECK(contains(r.out, "16Mi"));
  CHECK(contains(r.out, "1048576"));  // the default is shown
  CHECK(r.err.empty());
}
