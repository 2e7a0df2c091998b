// scanlab/grading/checker.hpp: everything a grading checker (tests/grade/NN_slug.cu) needs.
//
// A checker makes inputs, asks the chapter's runner (tests/grade/NN_slug_runner.cu, built with the
// student's code) to run an entry on them, and checks the outputs against the oracle:
//
//   const std::vector<std::int32_t> in = random_ints(1000, ++stream);
//   const auto got = call_entry("block_scan", Plus<std::int32_t>{}, in, {{"kind", "inclusive"}});
//   check_scan(in, got, ScanKind::inclusive, Plus<std::int32_t>{});
//
// The runner is another process (scanlab/grading/remote.hpp): whatever the student's code does,
// it cannot touch this program's checks or its report.
#pragma once

#include <scanlab/grading/doctest_text.hpp>  // doctest, with C strings printed as text

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scanlab/grading/checks.hpp"
#include "scanlab/grading/far.hpp"
#include "scanlab/grading/remote.hpp"
#include "scanlab/grading/wire.hpp"
#include "scanlab/testing.hpp"

namespace scanlab::grading {

// ---- the emulator's settings -------------------------------------------------------------------

// The emulator settings every call carries (block order, resident slots, memory model, race
// checker, ...; the names of the runner's EmuSettings). A GPU runner ignores them.
//
// Every call runs with the emulator's memory checks (memcheck) unless a checker turns them off: a
// global access out of its allocation's bounds, or misaligned, fails the call with a report naming
// the thread and the source line, instead of reading a neighbour's bytes or writing over them (or
// crashing the runner). It costs about a tenth more grading time (5 to 18% per chapter).
inline json& emu_settings() {
  static json settings = {{"memcheck", true}};
  return settings;
}

// Restores the settings when a test case (or a loop over orders) ends, so that what one test sets
// never leaks into the next.
struct EmuSettingsGuard {
  json saved = emu_settings();
  ~EmuSettingsGuard() { emu_settings() = saved; }
};

// Whether the runner runs on the CPU emulator (where block orders and the race checker exist).
inline bool on_emulator() { return runner_backend() == "emu"; }

// Runs fn once per order in which blocks can run. On the emulator: in order, reversed, and
// shuffled (seeded from the test seed): a block that writes outside its own tile, or reads a carry
// before its producer ran, is caught only in some orders. On a GPU: once, in the hardware's order.
template <class F>
void for_each_block_order(F&& fn) {
  if (!on_emulator()) {
    fn();
    return;
  }
  EmuSettingsGuard restore;
  for (const char* order : {"in-order", "reverse", "random"}) {
    emu_settings()["schedule"] = order;
    emu_settings()["seed"] = test_seed();
    INFO("emulator block order: " << std::string(order));
    fn();
  }
}

// ---- calls -------------------------------------------------------------------------------------

// A request for one entry of the runner.
class Request {
 public:
  explicit Request(std::string entry) { body_["entry"] = std::move(entry); }

  template <class Op>
  Request& monoid(Op) {
    body_["monoid"] = wire::monoid_tag<Op>();
    return *this;
  }

  Request& kind(ScanKind k) {
    body_["params"]["kind"] = to_string(k);
    return *this;
  }

  Request& params(const json& p) {
    for (const auto& [k, v] : p.items()) body_["params"][k] = v;
    return *this;
  }

  template <class T>
  Request& input(const std::vector<T>& v) {
    body_["inputs"].push_back(wire::encode_array(v));
    return *this;
  }

  // Sends it with the current emulator settings. A reply that is not ok fails the test case's
  // current check, with the reason and the runner's last output lines.
  Reply send() {
    Reply r = send_unchecked();
    record(r);
    return r;
  }

  // Sends it and leaves a reply that is not ok to the caller, without failing the check: for a test
  // that first tells two causes of a failure apart, then says which in its own words.
  Reply send_unchecked() {
    if (!emu_settings().empty()) body_["emu"] = emu_settings();
    return call_runner(body_);
  }

  // Sends it and expects the runner to refuse the arguments (std::invalid_argument).
  bool send_expecting_invalid_argument() {
    const Reply r = send_unchecked();
    const bool refused = r.status == Reply::Status::invalid_argument;
    CHECK_MESSAGE(refused, "expected the arguments to be refused (std::invalid_argument), but the runner "
                               << (r.ok() ? std::string("accepted them") : describe(r)));
    return refused;
  }

  // The reason a reply is not ok, with what the runner printed last.
  static std::string describe(const Reply& r) {
    std::string text = std::string(to_string(r.status)) + ": " + r.message;
    const std::string log = runner_log_tail();
    if (!log.empty()) text += "\n  the runner's last output:\n    " + log;
    if (log.find("never made resident") != std::string::npos) {
      // The emulator's deadlock report: every resident block waits, and the rest never got a slot.
      text += "\n  hint: the launch hung: every block that ran was waiting while other blocks never got to run. "
              "Blocks start in any order and only some run at once, so a block must never wait for one that may "
              "start after it (take tiles from an atomic ticket, not from blockIdx.x)";
    }
    return text;
  }

 private:
  static void record(const Reply& r) {
    std::string notes;
    if (r.info.contains("emulator") && r.info["emulator"].is_array()) {
      for (const auto& f : r.info["emulator"]) {
        if (f.is_string()) notes += "\n  the emulator found: " + f.get<std::string>();
      }
    }
    last_call_notes() = notes;
    last_call_tile_items() = r.info.contains("tile_items") && r.info["tile_items"].is_number_unsigned()
                                 ? r.info["tile_items"].get<std::size_t>()
                                 : 0;
    last_call_tile_name() = "tile";
    if (!r.ok()) FAIL_CHECK(describe(r));
  }

  json body_ = json{{"inputs", json::array()}, {"params", json::object()}};
};

// Output i of a reply as an array of T; fails the current check and returns an empty array when
// the reply is not ok or has no such output of that type.
template <class T>
std::vector<T> output(const Reply& r, std::size_t i = 0) {
  if (!r.ok()) return {};
  if (!r.outputs.is_array() || i >= r.outputs.size()) {
    FAIL_CHECK("the runner returned " << r.outputs.size() << " outputs; output " << i << " is missing");
    return {};
  }
  try {
    return wire::decode_array<T>(r.outputs[i], "output " + std::to_string(i));
  } catch (const std::exception& e) {
    FAIL_CHECK("the runner's " << e.what());
    return {};
  }
}

// The common case: entry(op, in, params) -> one output array (Out: the input's type by default).
template <class Out = void, class In, class Op>
auto call_entry(const std::string& entry, Op op, const std::vector<In>& in, const json& params = json::object()) {
  using O = std::conditional_t<std::is_void_v<Out>, In, Out>;
  const Reply r = Request(entry).monoid(op).params(params).input(in).send();
  return output<O>(r, 0);
}

// ---- arrays past 2^31 elements (scanlab/grading/far.hpp) ---------------------------------------

// Elements [first, n) of the large input.
inline std::vector<std::int32_t> far_window(std::size_t first, std::size_t n) {
  std::vector<std::int32_t> v(n > first ? n - first : 0);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = far_input(first + i);
  return v;
}

// A request for `entry` over elements [first, n) of the large input of length n (parameters "n" and
// "first"; the runner's side is run_far): on the emulator it carries those elements, on a GPU the
// runner makes all n on the device and runs the code on all of them.
inline Request far_request(const std::string& entry, std::size_t n, std::size_t first) {
  Request r(entry);
  r.params(json{{"n", n}, {"first", first}});
  if (on_emulator()) r.input(far_window(first, n));
  else r.params(json{{"on_device", true}});
  return r;
}

// Checks the last `units` units (tiles, or blocks' ranges) of `unit` elements, which `unit_name`
// names ("tiles of 1024 elements"): check(n, first) runs the code over elements [first, n) and
// checks them, first a multiple of unit. First on a short
// array (n = 7 * unit + 5: the launch starts at a later unit, which `start` says how the code is
// told), then, if that held, at each length of `far_lengths` (past 2^31 and 2^32), where a failure
// can only come from the length: the hint names 32-bit index arithmetic. Up to the first failure.
template <class Check>
bool check_last_units(std::size_t unit, std::size_t units, const std::string& unit_name, const std::string& start,
                      std::initializer_list<std::size_t> far_lengths, Check check) {
  const auto first_of = [&](std::size_t n) {
    return ((n + unit - 1) / unit - units) * unit;
  };
  {
    const std::size_t n = 7 * unit + 5;
    INFO("a launch over only the last " << units << " " << unit_name << " of an array of " << n
                                        << " elements, from element " << first_of(n) << " on (" << start << ")");
    if (!check(n, first_of(n))) return false;
  }
  for (const std::size_t n : far_lengths) {
    INFO("the last " << units << " " << unit_name << " of an array of " << n << " elements, from element "
                     << first_of(n) << (on_emulator() ? " on (only these exist in memory)" : " on")
                     << "\n  hint: the same code was right at the end of a short array, so the length is the cause: "
                        "an element or tile index computed in 32-bit arithmetic wraps past 2^31 - 1 (int) or 2^32 - 1 "
                        "(unsigned; blockIdx.x * blockDim.x is an unsigned product); compute positions in std::size_t");
    if (!check(n, first_of(n))) return false;
  }
  return true;
}

// The tile scans of a chapter whose kernels scan tile first_tile + b in block b (chapters 02 and
// 03): int32 sums, exclusive and inclusive, tiles of 2048 and 64 elements, through the runner's
// "tile_scan_far" entry, over the last 3 tiles of a short array and of arrays past 2^31 and 2^32
// elements. Up to the first failure.
inline void check_far_tile_scans() {
  for (const int tile : {2048, 64}) {
    for (const ScanKind kind : {ScanKind::exclusive, ScanKind::inclusive}) {
      INFO("tile = " << tile << ", " << scanlab::to_string(kind));
      const bool ok = check_last_units(
          static_cast<std::size_t>(tile), 3, "tiles of " + std::to_string(tile) + " elements",
          "block b scans tile first_tile + b", {kPast2To31, kPast2To32}, [&](std::size_t n, std::size_t first) {
            const Reply r = far_request("tile_scan_far", n, first)
                                .monoid(Plus<std::int32_t>{})
                                .kind(kind)
                                .params({{"tile", tile}})
                                .send();
            return check_tiles(far_window(first, n), output<std::int32_t>(r), static_cast<std::size_t>(tile), kind,
                               Plus<std::int32_t>{});
          });
      if (!ok) return;
    }
  }
}

// ---- how far look-backs reach (chapters 07 and 08) ------------------------------------------------

// The bound on the mean look-back, in predecessors: four windows of a warp look-back. A look-back
// that stops at the nearest P reads a few predecessors (serial) or one window of 32 (warp), even
// while other tiles are in flight (the reference: 31.5 on 1000 tiles under the block orders the
// tests use, 77 with all 1000 tiles in flight at once); one that walks past P's down to tile 0
// reads half the tiles on average.
constexpr double kMaxMeanLookbackPredecessors = 128;

// On the emulator, checks the runner's info "lookback_reads" (scanlab/grading/runner.hpp,
// Call::info_lookback_reads: per block of the launch, the distinct descriptor words read with
// polling loads) of a single-pass launch over `tiles` tiles: the mean must stay within
// kMaxMeanLookbackPredecessors descriptors of `words_per_descriptor` words (a fused descriptor is
// one word, a fenced one two: flag and value). A GPU runner counts nothing: passes.
inline bool check_lookback_depth(const Reply& r, std::size_t tiles, int words_per_descriptor) {
  const json& reads = r.info.contains("lookback_reads") ? r.info["lookback_reads"] : json::object();
  if (!reads.value("records", false)) return true;
  const double bound = kMaxMeanLookbackPredecessors * words_per_descriptor;
  const double mean = reads.value("mean", 0.0);
  CHECK_MESSAGE(mean <= bound,
                "over " << tiles << " tiles, a tile's look-back read " << mean
                        << " descriptor words on average (the most: " << reads.value("max", 0LL) << "), more than "
                        << bound << " (" << kMaxMeanLookbackPredecessors << " predecessors, four warp windows, "
                        << (words_per_descriptor == 2 ? "of two words each: flag and value" : "of one word each")
                        << "): a look-back must stop at the nearest inclusive prefix (P), which already holds "
                           "everything before it. One that walks past P's down to tile 0 gives right results, but "
                           "reads half the tiles on average: the scan becomes quadratic in the number of tiles");
  return mean <= bound;
}

}  // namespace scanlab::grading
