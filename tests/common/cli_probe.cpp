// A minimal program that uses scanlab::run_cli the way chapter programs do; ctest runs it with good
// and bad arguments and checks its real exit code and output (see CMakeLists.txt).
#include <cstdio>

#include "scanlab/cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cli_probe: exercises scanlab::run_cli"};
  scanlab::CommonOptions opt;
  scanlab::add_common_options(app, opt, 1000);
  scanlab::run_cli(app, argc, argv);
  std::printf("n=%llu seed=%llu repeat=%d\n", static_cast<unsigned long long>(opt.n),
              static_cast<unsigned long long>(opt.seed), opt.repeat);
  return 0;
}
