// The main of every grading runner (tests/grade/NN_slug_runner.cu + the student's code): reads
// requests on standard input, runs the entry each one names, and writes each reply on the reply
// channel (file descriptor 3, opened by the checker). Standard output and standard error are the
// student's to print on; the checker keeps them as a log and never reads a verdict from them.
// See scanlab/grading/wire.hpp for the messages.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "grading_call_message.hpp"
#include "scanlab/cuda_check.hpp"
#include "scanlab/grading/runner.hpp"
#include "scanlab/grading/wire.hpp"

#if defined(SCANLAB_EMU)
#include <scanlab_emu/diagnostics.hpp>
#include <scanlab_emu/options.hpp>
#endif

namespace scanlab::grading {

using wire::json;

namespace {
std::map<std::string, Entry>& entries() {
  static std::map<std::string, Entry> table;
  return table;
}

#if defined(SCANLAB_EMU)
// Applies the request's "emu" settings for the length of one call (the checker's block orders,
// resident slots, memory model, race checker) and restores the options after it.
class EmuSettings {
 public:
  explicit EmuSettings(const json& request) : saved_(scanlab_emu::options()) {
    const auto it = request.find("emu");
    if (it == request.end() || !it->is_object()) return;
    scanlab_emu::Options& o = scanlab_emu::options();
    for (const auto& [key, value] : it->items()) {
      if (key == "schedule") {
        const std::string s = value.get<std::string>();
        o.schedule = s == "reverse"  ? scanlab_emu::Schedule::reverse
                     : s == "random" ? scanlab_emu::Schedule::random
                                     : scanlab_emu::Schedule::in_order;
      } else if (key == "thread_order") {
        const std::string s = value.get<std::string>();
        o.thread_order = s == "reverse"  ? scanlab_emu::ThreadOrder::reverse
                         : s == "random" ? scanlab_emu::ThreadOrder::random
                                         : scanlab_emu::ThreadOrder::forward;
      } else if (key == "memory") {
        o.memory = value.get<std::string>() == "weak" ? scanlab_emu::Memory::weak : scanlab_emu::Memory::sc;
      } else if (key == "seed") {
        o.seed = value.get<std::uint64_t>();
      } else if (key == "resident") {
        o.resident = value.get<unsigned>();
      } else if (key == "interleave") {
        o.interleave = value.get<bool>();
      } else if (key == "racecheck") {
        o.racecheck = value.get<bool>();
      } else if (key == "banks") {
        o.banks = value.get<bool>();
      } else if (key == "watchdog") {
        o.watchdog_seconds = value.get<double>();
      } else if (key == "memcheck") {
        o.memcheck = value.get<bool>();
      } else {
        throw std::runtime_error("unknown emulator setting '" + key + "'");
      }
    }
  }
  ~EmuSettings() { scanlab_emu::options() = saved_; }
  EmuSettings(const EmuSettings&) = delete;
  EmuSettings& operator=(const EmuSettings&) = delete;

 private:
  scanlab_emu::Options saved_;
};

// What the emulator found during the call: races and misuse, for the checker's messages.
json emulator_findings() {
  json found = json::array();
  for (const auto& h : scanlab_emu::diagnostics().hazards) {
    if (h.kind == scanlab_emu::Hazard::copy_overlap) {
      found.push_back("two asynchronous copies in flight over the same shared bytes in " + h.kernel + ": the copy at " +
                      h.first_site + ", and the copy at " + h.second_site +
                      " (each copy in flight needs bytes of its own: check the destination offset of each stage)");
    } else if (h.kind == scanlab_emu::Hazard::stage_overlap) {
      found.push_back("an asynchronous copy into another stage's shared bytes in " + h.kernel + ": the copy at " +
                      h.second_site + " writes bytes that the copy at " + h.first_site +
                      " filled for another cuda::barrier (check the destination offset of each stage)");
    } else if (h.kind == scanlab_emu::Hazard::async_copy || h.kind == scanlab_emu::Hazard::bulk_copy) {
      // The first site is the copy's, the second the access that did not wait for it.
      found.push_back(std::string(h.second_writes ? "a write to" : "a read of") + " shared memory in " + h.kernel +
                      " before the asynchronous copy into it completed: the copy at " + h.first_site +
                      ", the access at " + h.second_site);
    } else {
      found.push_back(std::string(scanlab_emu::to_string(h.kind)) + " race on shared memory in " + h.kernel + ": " +
                      h.first_site + " and " + h.second_site);
    }
    if (found.size() >= 3) break;
  }
  for (const auto& m : scanlab_emu::diagnostics().misuse) {
    if (found.size() >= 5) break;
    found.push_back(m.kernel + ": " + m.message);
  }
  return found;
}
#endif

json answer(const json& request) {
  const std::string name = request.value("entry", std::string());
  if (name == "hello") {
#if defined(SCANLAB_EMU)
    return {{"status", "ok"}, {"outputs", json::array()}, {"info", {{"backend", "emu"}}}};
#else
    return {{"status", "ok"}, {"outputs", json::array()}, {"info", {{"backend", "gpu"}}}};
#endif
  }
  const auto it = entries().find(name);
  if (it == entries().end()) {
    return {{"status", "error"}, {"message", "this runner has no entry '" + name + "'"}};
  }
  Call::Message message(request);
  Call call(message);
  json reply;
  try {
#if defined(SCANLAB_EMU)
    scanlab_emu::reset_diagnostics();
    EmuSettings settings(request);
#endif
    it->second(call);
    SCANLAB_CHECK_SYNC();
    reply = {{"status", "ok"}, {"outputs", message.outputs}, {"info", message.info}};
  } catch (const std::invalid_argument& e) {
    reply = {{"status", "invalid_argument"}, {"message", e.what()}, {"info", message.info}};
  } catch (const CudaError& e) {
    // A CUDA error may leave the context unusable: answer, then let the checker start afresh.
    reply = {{"status", "error"}, {"message", e.what()}, {"fatal", true}};
  } catch (const std::exception& e) {
    reply = {{"status", "error"}, {"message", e.what()}};
  }
#if defined(SCANLAB_EMU)
  const json findings = emulator_findings();
  if (!findings.empty()) reply["info"]["emulator"] = findings;
#endif
  return reply;
}
}  // namespace

void register_entry(const char* name, Entry entry) { entries()[name] = entry; }

}  // namespace scanlab::grading

int main() {
  using scanlab::wire::json;
  // The reply channel: descriptor 3, moved out of the way so that nothing the student's code
  // opens lands on it by accident.
  const int replies = fcntl(3, F_DUPFD_CLOEXEC, 64);
  if (replies < 0) {
    std::fprintf(stderr, "scanlab runner: no reply channel (run me from a grading checker)\n");
    return 2;
  }
  ::close(3);
  for (;;) {
    std::optional<json> request;
    try {
      request = scanlab::wire::read_message(STDIN_FILENO);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "scanlab runner: %s\n", e.what());
      return 2;
    }
    if (!request) return 0;
    const json reply = scanlab::grading::answer(*request);
    if (!scanlab::wire::write_message(replies, reply)) return 0;
    if (reply.value("fatal", false)) return 3;
  }
}
