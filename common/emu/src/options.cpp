// Emulator options from the environment: SCANLAB_EMU_<NAME>=VALUE for each option --name of
// `lab sim`, which only turns its command line into these variables. This file is the one place
// that knows the options' values: every bad value, and every SCANLAB_EMU_* variable that names no
// option, is reported in one line and ends the program with exit code 2 before main() runs.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "internal.hpp"

extern char** environ;

namespace scanlab_emu {
namespace {

// The option as `lab sim` spells it: SCANLAB_EMU_THREAD_ORDER -> --thread-order.
std::string lab_option(const char* var) {
  std::string name = "--";
  for (const char* c = var + std::strlen("SCANLAB_EMU_"); *c; ++c) {
    name += *c == '_' ? '-' : char(std::tolower(static_cast<unsigned char>(*c)));
  }
  return name;
}

[[noreturn]] void bad_option(const char* var, const char* value, const char* expected) {
  std::fprintf(stderr, "scanlab emulator: %s '%s' (%s) is not valid: expected %s\n", lab_option(var).c_str(), value,
               var, expected);
  std::exit(2);
}

// A whole number in [lo, hi], decimal digits only (no sign, no spaces, no 0x).
std::uint64_t parse_unsigned(const char* var, const char* value, std::uint64_t lo, std::uint64_t hi,
                             const char* expected) {
  bool digits = value[0] != '\0';
  for (const char* c = value; *c; ++c) digits = digits && *c >= '0' && *c <= '9';
  if (!digits) bad_option(var, value, expected);
  errno = 0;
  const unsigned long long v = std::strtoull(value, nullptr, 10);
  if (errno == ERANGE || v < lo || v > hi) bad_option(var, value, expected);
  return v;
}

// A number of seconds greater than 0: "20", "0.5", ".25".
double parse_seconds(const char* var, const char* value) {
  const char* expected = "a number of seconds greater than 0, such as 20 or 0.5";
  bool number = value[0] != '\0';
  for (const char* c = value; *c; ++c) number = number && ((*c >= '0' && *c <= '9') || *c == '.');
  char* end = nullptr;
  const double v = number ? std::strtod(value, &end) : 0.0;
  if (!number || *end != '\0' || !std::isfinite(v) || v <= 0) bad_option(var, value, expected);
  return v;
}

bool parse_flag(const char* var, const char* value) {
  if (!std::strcmp(value, "1") || !std::strcmp(value, "on") || !std::strcmp(value, "true")) return true;
  if (!std::strcmp(value, "0") || !std::strcmp(value, "off") || !std::strcmp(value, "false")) return false;
  bad_option(var, value, "1 or 0");
}

// One entry per option: its variable and what to do with a value.
using Setter = void (*)(Options&, const char* var, const char* value);
struct Known {
  const char* var;
  Setter set;
};

const Known kOptions[] = {
    {"SCANLAB_EMU_SCHEDULE",
     [](Options& o, const char* var, const char* v) {
       if (!std::strcmp(v, "in-order")) o.schedule = Schedule::in_order;
       else if (!std::strcmp(v, "reverse")) o.schedule = Schedule::reverse;
       else if (!std::strcmp(v, "random")) o.schedule = Schedule::random;
       else bad_option(var, v, "in-order, reverse or random");
     }},
    {"SCANLAB_EMU_THREAD_ORDER",
     [](Options& o, const char* var, const char* v) {
       if (!std::strcmp(v, "forward")) o.thread_order = ThreadOrder::forward;
       else if (!std::strcmp(v, "reverse")) o.thread_order = ThreadOrder::reverse;
       else if (!std::strcmp(v, "random")) o.thread_order = ThreadOrder::random;
       else bad_option(var, v, "forward, reverse or random");
     }},
    {"SCANLAB_EMU_MEMORY",
     [](Options& o, const char* var, const char* v) {
       if (!std::strcmp(v, "sc")) o.memory = Memory::sc;
       else if (!std::strcmp(v, "weak")) o.memory = Memory::weak;
       else bad_option(var, v, "sc or weak");
     }},
    {"SCANLAB_EMU_SEED",
     [](Options& o, const char* var, const char* v) {
       o.seed = parse_unsigned(var, v, 0, std::numeric_limits<std::uint64_t>::max(),
                               "a whole number from 0 to 18446744073709551615");
     }},
    {"SCANLAB_EMU_RESIDENT",
     [](Options& o, const char* var, const char* v) {
       o.resident = unsigned(parse_unsigned(var, v, 1, 1u << 20, "a whole number of block slots from 1 to 1048576"));
     }},
    {"SCANLAB_EMU_INTERLEAVE",
     [](Options& o, const char* var, const char* v) {
       o.interleave = parse_flag(var, v);
     }},
    {"SCANLAB_EMU_RACECHECK",
     [](Options& o, const char* var, const char* v) {
       o.racecheck = parse_flag(var, v);
     }},
    {"SCANLAB_EMU_MEMCHECK",
     [](Options& o, const char* var, const char* v) {
       o.memcheck = parse_flag(var, v);
     }},
    {"SCANLAB_EMU_BANKS",
     [](Options& o, const char* var, const char* v) {
       o.banks = parse_flag(var, v);
     }},
    {"SCANLAB_EMU_COMPARE_ORDERS",
     [](Options& o, const char* var, const char* v) {
       o.compare_orders = parse_flag(var, v);
     }},
    {"SCANLAB_EMU_WATCHDOG",
     [](Options& o, const char* var, const char* v) {
       o.watchdog_seconds = parse_seconds(var, v);
     }},
    {"SCANLAB_EMU_STACK",
     [](Options& o, const char* var, const char* v) {
       o.stack_bytes =
           parse_unsigned(var, v, 16 * 1024, std::uint64_t{1} << 30, "a stack size from 16384 to 2^30 bytes");
     }},
    {"SCANLAB_EMU_DEVICE_MEMORY",
     [](Options& o, const char* var, const char* v) {
       // Bytes, or with a suffix K, M or G (powers of 1024): 16777216, 16M, 2G.
       const char* expected = "a number of bytes from 1048576 (1M) to 2^48, such as 16M or 2G";
       std::string digits = v;
       std::uint64_t unit = 1;
       if (!digits.empty()) {
         const char suffix = char(std::toupper(static_cast<unsigned char>(digits.back())));
         unit = suffix == 'K' ? 1ull << 10 : suffix == 'M' ? 1ull << 20 : suffix == 'G' ? 1ull << 30 : 1;
         if (unit != 1) digits.pop_back();
       }
       const std::uint64_t count =
           parse_unsigned(var, digits.empty() ? v : digits.c_str(), 1, std::uint64_t{1} << 48, expected);
       if (count > (std::uint64_t{1} << 48) / unit || count * unit < (1u << 20)) bad_option(var, v, expected);
       o.device_memory = count * unit;
     }},
};

Options from_environment() {
  Options o;
  for (char** entry = environ; entry && *entry; ++entry) {
    if (std::strncmp(*entry, "SCANLAB_EMU_", std::strlen("SCANLAB_EMU_")) != 0) continue;
    const char* equals = std::strchr(*entry, '=');
    const std::string var(*entry, equals ? std::size_t(equals - *entry) : std::strlen(*entry));
    const char* value = equals ? equals + 1 : "";
    const Known* known = nullptr;
    for (const Known& k : kOptions) known = var == k.var ? &k : known;
    if (!known) {
      std::string names;
      for (const Known& k : kOptions) names += (names.empty() ? "" : ", ") + lab_option(k.var);
      std::fprintf(stderr, "scanlab emulator: %s (%s) is not an emulator option; the options are %s\n",
                   lab_option(var.c_str()).c_str(), var.c_str(), names.c_str());
      std::exit(2);
    }
    known->set(o, known->var, value);
  }
  return o;
}

// Read before main(), so that a bad value stops the program before it prints or runs anything.
[[maybe_unused]] const bool options_read_at_start = (options(), true);

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
  if (o.memory == Memory::weak) s += " SCANLAB_EMU_MEMORY=weak";  // weak runs replay only in weak mode
  s += ")";
  return s;
}

}  // namespace scanlab_emu
