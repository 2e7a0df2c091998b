// scanlab/grading.hpp: the in-process grading helpers of the tests not yet split into a checker
// and a runner (see scanlab/grading/checker.hpp, which replaces this header): the checks of
// scanlab/grading/checks.hpp plus running the code under test in the test's own process.
#pragma once

#include <doctest/doctest.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/grading/checks.hpp"
#include "scanlab/grading/runner.hpp"

#if defined(SCANLAB_EMU)
// Test-side only: the block-order loops and the guard below set the emulator's options.
#include <scanlab_emu/options.hpp>
#endif

namespace scanlab::grading {

// Running on the device: run_on_device, the same as the runners use (scanlab/grading/runner.hpp).

// ---- the emulator's block orders ---------------------------------------------------------------

#if defined(SCANLAB_EMU)
// Restores the emulator's options when a test case (or a block-order loop) ends, so that the
// schedule, memory model or counters one test sets never leak into the next.
struct EmuOptionsGuard {
  scanlab_emu::Options saved = scanlab_emu::options();
  ~EmuOptionsGuard() { scanlab_emu::options() = saved; }
};
#endif

// Runs fn once per order in which blocks can run. On the emulator: in order, reversed, and shuffled
// (seeded from the test seed): a block that writes outside its own tile, or reads a carry before
// its producer ran, is caught only in some orders. On a GPU: once, in whatever order the hardware
// picks.
template <class F>
void for_each_block_order(F&& fn) {
#if defined(SCANLAB_EMU)
  EmuOptionsGuard restore;
  for (const auto order : {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse,
                           scanlab_emu::Schedule::random}) {
    scanlab_emu::options().schedule = order;
    scanlab_emu::options().seed = test_seed();
    INFO("emulator block order: " << std::string(scanlab_emu::to_string(order)));
    fn();
  }
#else
  fn();
#endif
}

}  // namespace scanlab::grading
