// doctest's main for every scanlab test program: picks the test seed (SCANLAB_SEED or the clock),
// prints it once so any failure can be replayed, then runs doctest with the command line.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <exception>
#include <iostream>

#include "scanlab/testing.hpp"

int main(int argc, char** argv) {
  std::uint64_t seed = 0;
  try {
    seed = scanlab::test_seed();
  } catch (const std::exception& e) {
    std::cerr << "scanlab: " << e.what() << "\n";
    return 2;
  }
  std::cout << "scanlab seed: " << seed << " (replay with SCANLAB_SEED=" << seed << ")" << std::endl;

  doctest::Context context;
  context.applyCommandLine(argc, argv);
  return context.run();
}
