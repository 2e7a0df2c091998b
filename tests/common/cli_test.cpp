// Tests of scanlab/cli.hpp: size parsing and the shared command line, including what a user sees
// (and the exit code) after a bad argument.
#include "scanlab/cli.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

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
  for (const char* text : {"", "abc", "1.5M", "1 M", " 1", "1 ", "1m", "1Mb", "0x10", "2^", "^3", "2^x", "1Mi2", "+5",
                           "2^-1", "1e6", "M"}) {
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
  for (const char* text :
       {"2^64", "3^41", "18446744073709551616", "99999999999999999999999", "20000000000G", "16777216Ti"}) {
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

TEST_CASE("command line: a bad argument prints a pointer to --help, then the error, last; exit code 2") {
  for (const auto& args : std::vector<std::vector<std::string>>{{"-n", "lots"},
                                                                {"-n", "-5"},
                                                                {"-n", "2^64"},
                                                                {"--bogus"},
                                                                {"-r", "0"},
                                                                {"-r", "x"},
                                                                {"--seed", "abc"},
                                                                {"--seed", "-1"},
                                                                {"--seed", "1.5"},
                                                                {"-r", "-0.5"},
                                                                {"-r", "99999999999"},
                                                                {"-n"},
                                                                {"extra"}}) {
    CAPTURE(args.front());
    CAPTURE(args.back());
    const auto r = run(args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    // Two lines: "usage: prog [options]   (prog --help lists them)", then "prog: error: ...".
    const std::size_t first_end = r.err.find('\n');
    REQUIRE(first_end != std::string::npos);
    CHECK(r.err.substr(0, first_end) == "usage: prog [options]   (prog --help lists them)");
    const std::string last = r.err.substr(first_end + 1);
    CHECK(last.rfind("prog: error: ", 0) == 0);
    CHECK(last.find('\n') == last.size() - 1);  // one line, and the last
    CHECK_FALSE(contains(r.err, "Usage"));      // not the whole usage
    CHECK(r.err.size() < 300);                  // no 309-digit bounds
  }
  CHECK(contains(run({"-n", "lots"}).err, "invalid size 'lots'"));
  CHECK(contains(run({"--seed", "-1"}).err, "--seed: value '-1' is negative"));
  CHECK(contains(run({"-r", "0"}).err, "--repeat: value 0 is not allowed: expected a number above 0"));
  CHECK(contains(run({"-r", "-0.5"}).err, "--repeat: value '-0.5' is not a whole number"));
}

TEST_CASE("command line: number options take plain decimal numbers") {
  CHECK(run({"--seed", "010"}).opt.seed == 10u);  // not octal
  CHECK(run({"--seed", "18446744073709551615"}).opt.seed == 18446744073709551615ull);
  CHECK(run({"--seed", "18446744073709551616"}).code == 2);
  CHECK(run({"--seed", "0x10"}).code == 2);
  CHECK(run({"--seed", "+5"}).code == 2);
  CHECK(run({"--seed", " 5"}).code == 2);
  CHECK(run({"-r", "007"}).opt.repeat == 7);
}

TEST_CASE("command line: a second parse of the same App checks the same way") {
  CLI::App app{"scanlab test program"};
  scanlab::CommonOptions opt;
  scanlab::add_common_options(app, opt, 10);
  const char* bad[] = {"prog", "--seed", "-1"};
  std::ostringstream out, err;
  CHECK(scanlab::parse_cli(app, 3, bad, out, err) == 2);
  const char* good[] = {"prog", "--seed", "012"};
  CHECK(scanlab::parse_cli(app, 3, good, out, err) == scanlab::kCliContinue);
  CHECK(opt.seed == 12u);
}

TEST_CASE("parse_whole_number: the type's range, decimal only, and a message naming the value") {
  CHECK(scanlab::parse_whole_number<int>("-7", "width") == -7);
  CHECK(scanlab::parse_whole_number<int>("2147483647", "width") == 2147483647);
  CHECK(scanlab::parse_whole_number<unsigned>("4294967295", "n") == 4294967295u);
  for (const char* text : {"", "abc", "P5", "1.5", "-", "+3", "0x10", " 1", "1 ", "--1"}) {
    CAPTURE(text);
    try {
      scanlab::parse_whole_number<int>(text, "the PGM width");
      FAIL("accepted");
    } catch (const std::invalid_argument& e) {
      CHECK(std::string(e.what()) == "the PGM width '" + std::string(text) + "' is not a whole number");
    }
  }
  CHECK_THROWS_WITH_AS(scanlab::parse_whole_number<int>("2147483648", "w"),
                       "w '2147483648' is out of range: expected a whole number from -2147483648 to 2147483647",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(scanlab::parse_whole_number<int>("-99999999999999999999", "w"),
                       "w '-99999999999999999999' is out of range: expected a whole number from -2147483648 to "
                       "2147483647",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(scanlab::parse_whole_number<unsigned>("-1", "n"),
                       "n '-1' is negative: expected a whole number from 0 to 4294967295", std::invalid_argument);
}

TEST_CASE("option_value_as: a value the type cannot hold is a usage error") {
  CHECK(scanlab::option_value_as<std::int32_t>("--threshold", -7.0) == -7);
  CHECK(scanlab::option_value_as<std::int32_t>("--threshold", 2147483647.0) == 2147483647);
  CHECK(scanlab::option_value_as<float>("--threshold", 0.25) == 0.25f);
  CHECK_THROWS_WITH_AS(scanlab::option_value_as<std::int32_t>("--threshold", 1e10),
                       "--threshold 1e+10 does not fit the element type: expected a whole number from -2147483648 "
                       "to 2147483647",
                       scanlab::UsageError);
  CHECK_THROWS_AS(scanlab::option_value_as<std::int32_t>("--threshold", -0.5), scanlab::UsageError);
  CHECK_THROWS_AS(scanlab::option_value_as<std::int32_t>("--threshold", 2147483648.0), scanlab::UsageError);
  CHECK_THROWS_AS(scanlab::option_value_as<std::uint32_t>("--threshold", -1.0), scanlab::UsageError);
  CHECK_THROWS_AS(scanlab::option_value_as<float>("--threshold", 1e300), scanlab::UsageError);
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
