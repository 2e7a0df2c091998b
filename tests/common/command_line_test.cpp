// Tests of scanlab/command_line.hpp, the chapter programs' command line: each refinement of an
// option reaches CLI11 (a bad value is refused with CLI11's message), given() says what the
// command line named, and the common options parse as scanlab/cli.hpp's do.
#include "scanlab/command_line.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The options of a small chapter program, and what one parse of them gave.
struct Program {
  scanlab::CommonOptions common;
  std::string layout = "padded";
  int tile = 1024;
  int width = 32;
  unsigned polls = 0;
  std::uint64_t max_value = 7;
  double rate = 1.0, offset = 0.0;
  bool tiles = false, single = false, in_place = false;
  std::optional<std::uint64_t> from;
  std::string input;
  int code = 0;
  std::string out, err;
  bool tile_given = false, tiles_given = false;

  explicit Program(const std::vector<std::string>& args) {
    scanlab::CommandLine cli{"a test program", "prog"};
    scanlab::add_common_options(cli, common, 100);
    cli.option("--layout", layout, "padded or unpadded").one_of({"padded", "unpadded"}).show_default();
    scanlab::Option tile_option = cli.option("--tile", tile, "tile length").range(2, 2048).show_default();
    cli.option("--width", width, "32 or 4096").one_of({32, 4096});
    cli.option("--polls", polls, "ns").range(0u, 1000u);
    cli.option("--max-value", max_value, "keys").range(std::uint64_t{0}, std::uint64_t{0xffffffffu});
    cli.option("--rate", rate, "above 0").positive();
    cli.option("--offset", offset, "0 or more").non_negative();
    cli.option("--input", input, "a file").existing_file();
    cli.option("--from", from, "unset unless given");
    scanlab::Option tiles_option = cli.flag("--tiles", tiles, "many tiles");
    const scanlab::Option single_option = cli.flag("--single-pass", single, "one kernel");
    cli.flag("--in-place", in_place, "over the input").needs(single_option);
    tiles_option.excludes(tile_option);
    std::vector<const char*> argv = {"prog"};
    for (const std::string& a : args) argv.push_back(a.c_str());
    std::ostringstream o, e;
    code = cli.parse(static_cast<int>(argv.size()), argv.data(), o, e);
    out = o.str();
    err = e.str();
    tile_given = tile_option.given();
    tiles_given = tiles_option.given();
  }
};

}  // namespace

TEST_CASE("CommandLine: values reach their variables, and given() says which the command line named") {
  const Program p({"-n", "2^10", "--layout", "unpadded", "--width", "4096", "--max-value", "4294967295", "--from", "0",
                   "--single-pass", "--in-place", "--tile", "64"});
  CHECK(p.code == scanlab::kCliContinue);
  CHECK(p.err.empty());
  CHECK(p.common.n == 1024u);
  CHECK(p.layout == "unpadded");
  CHECK(p.width == 4096);
  CHECK(p.max_value == 4294967295u);
  REQUIRE(p.from.has_value());
  CHECK(*p.from == 0u);
  CHECK(p.in_place);
  CHECK(p.tile == 64);
  CHECK(p.tile_given);
  CHECK_FALSE(p.tiles_given);

  const Program defaults({});
  CHECK(defaults.code == scanlab::kCliContinue);
  CHECK(defaults.common.n == 100u);
  CHECK(defaults.tile == 1024);
  CHECK_FALSE(defaults.tile_given);
  CHECK_FALSE(defaults.from.has_value());
}

TEST_CASE("CommandLine: each check refuses what it should, with exit code 2 and the option named") {
  // What the message says, in the words of every CLI11 this lab builds with (Debian 12's 2.1,
  // Ubuntu 24.04's 2.4: they print a range differently).
  struct Bad {
    std::vector<std::string> args;
    std::vector<std::string> says;
  };
  const std::vector<Bad> bad = {
      {{"--layout", "diagonal"}, {"--layout: diagonal not in {padded,unpadded}"}},
      {{"--width", "64"}, {"--width: 64 not in {32,4096}"}},
      {{"--tile", "1"}, {"--tile: Value 1 not in range", "2048"}},
      {{"--polls", "1001"}, {"--polls: Value 1001 not in range", "1000"}},
      {{"--max-value", "4294967296"}, {"--max-value: Value 4294967296 not in range", "4294967295"}},
      {{"--rate", "0"}, {"--rate: value 0 is not allowed: expected a number above 0"}},
      {{"--offset", "-2"}, {"--offset: value -2 is negative: expected 0 or more"}},
      {{"--input", "/no/such/file"}, {"--input: File does not exist: /no/such/file"}},
      {{"--in-place"}, {"--in-place requires --single-pass"}},
      {{"--tiles", "--tile", "64"}, {"excludes"}},
      {{"-n", "lots"}, {"invalid size 'lots'"}},
      {{"--seed", "-1"}, {"--seed: value '-1' is negative"}},
  };
  for (const Bad& b : bad) {
    CAPTURE(b.args[0]);
    const Program p(b.args);
    CHECK(p.code == 2);
    CHECK(contains(p.err, "usage: prog [options]   (prog --help lists them)\nprog: error: "));
    for (const std::string& part : b.says) CHECK(contains(p.err, part));
  }
}

TEST_CASE("CommandLine: --help prints the options with their defaults, exit code 0") {
  const Program p({"--help"});
  CHECK(p.code == 0);
  CHECK(p.err.empty());
  CHECK(contains(p.out, "a test program"));
  CHECK(contains(p.out, "--layout TEXT:{padded,unpadded}"));           // then the default: "=padded" (CLI11
  CHECK((contains(p.out, "=padded") || contains(p.out, "[padded]")));  // 2.1) or " [padded]" (2.4)
  CHECK(contains(p.out, "--tile INT:INT in [2 - 2048]"));
  CHECK((contains(p.out, "=1024") || contains(p.out, "[1024]")));
  CHECK(contains(p.out, "-n,--n,--size SIZE"));
}

TEST_CASE("CommandLine: usage_error and run_reporting_errors name the program") {
  scanlab::CommandLine cli{"a test program", "prog"};
  CHECK(cli.program() == "prog");
  const int code = scanlab::run_reporting_errors(cli, []() -> int {
    throw scanlab::UsageError("no good");
  });
  CHECK(code == 2);
  CHECK(scanlab::run_reporting_errors(cli, [] {
          return 5;
        }) == 5);
}
