// How the emulator schedules and checks a launch. Read once from the environment
// (SCANLAB_EMU_* variables, which `lab sim` sets from its options) and changeable by tests through
// scanlab_emu::options() between launches.
#pragma once
#include <cstdint>
#include <string>

namespace scanlab_emu {

enum class Schedule { in_order, reverse, random };    // the order blocks are made resident
enum class ThreadOrder { forward, reverse, random };  // the order threads run between barriers
enum class Memory { sc, weak };                       // global memory model across blocks

struct Options {
  Schedule schedule = Schedule::in_order;
  ThreadOrder thread_order = ThreadOrder::forward;
  std::uint64_t seed = 1;   // for every random policy
  unsigned resident = 0;    // resident block slots; 0 = the modelled GPU's occupancy
  bool interleave = false;  // fill every resident slot at once and switch blocks after every
                            // pass (as concurrent blocks run on a GPU), instead of running a
                            // block until it ends or waits
  bool racecheck = false;   // shared-memory hazards
  bool memcheck = false;    // global accesses out of their allocation's bounds, or misaligned
  bool banks = false;       // shared-memory bank-conflict degrees
  Memory memory = Memory::sc;
  bool compare_orders = false;          // run each launch under forward, reverse and random thread orders and
                                        // report device memory that differs between them (a race)
  double watchdog_seconds = 20;         // a launch with no emulated progress for this long is ended (> 0)
  std::size_t stack_bytes = 64 * 1024;  // per emulated thread, with a guard page below
  std::uint64_t device_memory = 0;      // bytes cudaMalloc may hand out in all; 0 = half the RAM
};

// The options in force. Read before main() from SCANLAB_EMU_SCHEDULE, _THREAD_ORDER, _SEED,
// _RESIDENT, _INTERLEAVE, _RACECHECK, _BANKS, _MEMORY, _COMPARE_ORDERS, _TRACE, _WATCHDOG (seconds,
// fractions allowed), _STACK; a bad value, or a SCANLAB_EMU_* variable that names no option, is
// reported in one line and the program exits with 2 (src/options.cpp is the one parser).
Options& options();

// Puts the options back as they were when it was made, however the scope ends (a failed check,
// an exception): a test that changes them cannot leak its settings into the tests after it.
struct OptionsGuard {
  Options saved = options();
  ~OptionsGuard() { options() = saved; }
};

// One line naming the options that decide the run, printed with every failure so it can be replayed.
std::string describe_options();

const char* to_string(Schedule);
const char* to_string(ThreadOrder);
const char* to_string(Memory);

}  // namespace scanlab_emu
