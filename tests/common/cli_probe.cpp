// A minimal program that uses scanlab::run_cli and run_reporting_errors the way chapter programs
// do; ctest runs it with good and bad arguments and checks its real exit code and output (see
// CMakeLists.txt). Its own options stand for the kinds of option chapters add: a whole number
// (--count), a positive number (--rate, as chapter 10's --mean-segment), a number 0 or more
// (--offset), and a number used with int32 keys (--threshold, as chapter 08's).
#include <cstdint>
#include <cstdio>

#include "scanlab/cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cli_probe: exercises scanlab::run_cli", "cli_probe"};
  scanlab::CommonOptions opt;
  scanlab::add_common_options(app, opt, 1000);
  int count = 0;
  double rate = 1.0, offset = 0.0, threshold = 0.0;
  app.add_option("--count", count, "a whole number");
  app.add_option("--rate", rate, "a positive number")->check(CLI::PositiveNumber);
  app.add_option("--offset", offset, "a number, 0 or more")->check(CLI::NonNegativeNumber);
  app.add_option("--threshold", threshold, "compared with int32 keys");
  scanlab::run_cli(app, argc, argv);
  return scanlab::run_reporting_errors(app, [&] {
    std::printf("n=%llu seed=%llu repeat=%d count=%d rate=%g offset=%g", static_cast<unsigned long long>(opt.n),
                static_cast<unsigned long long>(opt.seed), opt.repeat, count, rate, offset);
    std::fflush(stdout);
    const std::int32_t key = scanlab::option_value_as<std::int32_t>("--threshold", threshold);
    std::printf(" threshold=%d\n", key);
    return 0;
  });
}
