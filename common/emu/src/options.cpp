// Emulator options from the environment (`lab sim` sets them from its command line).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "internal.hpp"

namespace scanlab_emu {
namespace {

[[noreturn]] void bad_option(const char* var, const char* value, const char* expected) {
  std::fprintf(stderr, "scanlab emulator: %s=%s is not valid; expected %s\n", var, value, expected);
  std::exit(2);
}

std::uint64_t parse_unsigned(const char* var, const char* value) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(value, &end, 10);
  if (errno || end == value || *end != '\0' || value[0] == '-') bad_option(var, value, "a non-negative integer");
  return v;
}

bool parse_flag(const char* var, const char* value) {
  if (!std::strcmp(value, "1") || !std::strcmp(value, "on") || !std::strcmp(value, "true")) return true;
  if (!std::strcmp(value, "0") || !std::strcmp(value, "off") || !std::strcmp(value, "false")) return false;
  bad_option(var, value, "1 or 0");
}

Options from_environment() {
  Options o;
  if (const char* v = std::getenv("SCANLAB_EMU_SCHEDULE")) {
    if (!std::strcmp(v, "in-order")) o.schedule = Schedule::in_order;
    else if (!std::strcmp(v, "reverse")) o.schedule = Schedule::reverse;
    else if (!std::strcmp(v, "random")) o.schedule = Schedule::random;
    else bad_option("SCANLAB_EMU_SCHEDULE", v, "in-order, reverse or random");
  }
  if (const char* v = std::getenv("SCANLAB_EMU_THREAD_ORDER")) {
    if (!std::strcmp(v, "forward")) o.thread_order = ThreadOrder::forward;
    else if (!std::strcmp(v, "reverse")) o.thread_order = ThreadOrder::reverse;
    else if (!std::strcmp(v, "random")) o.thread_order = ThreadOrder::random;
    else bad_option("SCANLAB_EMU_THREAD_ORDER", v, "forward, reverse or random");
  }
  if (const char* v = std::getenv("SCANLAB_EMU_MEMORY")) {
    if (!std::strcmp(v, "sc")) o.memory = Memory::sc;
    else if (!std::strcmp(v, "weak")) o.memory = Memory::weak;
    else bad_option("SCANLAB_EMU_MEMORY", v, "sc or weak");
  }
  if (const char* v = std::getenv("SCANLAB_EMU_SEED")) o.seed = parse_unsigned("SCANLAB_EMU_SEED", v);
  if (const char* v = std::getenv("SCANLAB_EMU_RESIDENT")) {
    o.resident = unsigned(parse_unsigned("SCANLAB_EMU_RESIDENT", v));
    if (o.resident == 0) bad_option("SCANLAB_EMU_RESIDENT", v, "at least 1");
  }
  if (const char* v = std::getenv("SCANLAB_EMU_INTERLEAVE")) o.interleave = parse_flag("SCANLAB_EMU_INTERLEAVE", v);
  if (const char* v = std::getenv("SCANLAB_EMU_RACECHECK")) o.racecheck = parse_flag("SCANLAB_EMU_RACECHECK", v);
  if (const char* v = std::getenv("SCANLAB_EMU_BANKS")) o.banks = parse_flag("SCANLAB_EMU_BANKS", v);
  if (const char* v = std::getenv("SCANLAB_EMU_COMPARE_ORDERS")) o.compare_orders = parse_flag("SCANLAB_EMU_COMPARE_ORDERS", v);
  if (const char* v = std::getenv("SCANLAB_EMU_TRACE")) o.trace = v;
  if (const char* v = std::getenv("SCANLAB_EMU_WATCHDOG")) o.watchdog_seconds = double(parse_unsigned("SCANLAB_EMU_WATCHDOG", v));
  if (const char* v = std::getenv("SCANLAB_EMU_STACK")) {
    o.stack_bytes = parse_unsigned("SCANLAB_EMU_STACK", v);
    if (o.stack_bytes < 16 * 1024) bad_option("SCANLAB_EMU_STACK", v, "at least 16384 bytes");
  }
  return o;
}

}  // namespace

Options& options() {
  static Options o = from_environment();
  return o;
}

const char* to_string(Schedule s) {
  switch (s) {
    case Schedule::reverse: return "reverse";
    case Schedule::random: return "random";
    default: return "in-order";
  }
}
const char* to_string(ThreadOrder t) {
  switch (t) {
    case ThreadOrder::reverse: return "reverse";
    case ThreadOrder::random: return "random";
    default: return "forward";
  }
}
const char* to_string(Memory m) { return m == Memory::weak ? "weak" : "sc"; }

std::string describe_options() {
  const Options& o = options();
  std::string s = "emulator options: schedule=" + std::string(to_string(o.schedule)) +
                  " thread-order=" + to_string(o.thread_order) + " seed=" + std::to_string(o.seed) +
                  " resident=" + (o.resident ? std::to_string(o.resident) : std::string("auto")) +
                  " memory=" + to_string(o.memory) + (o.interleave ? " interleave" : "");
  s += " (replay: SCANLAB_EMU_SCHEDULE=" + std::string(to_string(o.schedule)) +
       " SCANLAB_EMU_THREAD_ORDER=" + to_string(o.thread_order) + " SCANLAB_EMU_SEED=" + std::to_string(o.seed);
  if (o.resident) s += " SCANLAB_EMU_RESIDENT=" + std::to_string(o.resident);
  if (o.interleave) s += " SCANLAB_EMU_INTERLEAVE=1";
  s += ")";
  return s;
}

}  // namespace scanlab_emu
