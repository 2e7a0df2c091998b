// The runner's side of a request (scanlab::grading::Call in scanlab/grading/runner.hpp), compiled
// once into the runner library instead of into every runner. The grader compiles a runner for each
// student it grades, and the JSON decoding and encoding here was about two thirds of that compile
// (with the emulator's instrumentation); compiled here it is plain host code, built once with the
// rest of the grader, from the lab's own sources only: nothing of a student's reaches it.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "scanlab/grading/runner.hpp"

#if defined(SCANLAB_EMU)
#include <scanlab_emu/diagnostics.hpp>
#endif

namespace scanlab::grading {

std::string Call::monoid() const { return request_.value("monoid", std::string()); }

const json& Call::params() const {
  static const json empty = json::object();
  const auto it = request_.find("params");
  return it != request_.end() && it->is_object() ? *it : empty;
}

ScanKind Call::kind() const {
  const std::string k = param<std::string>("kind");
  if (k != "inclusive" && k != "exclusive") throw std::runtime_error("kind '" + k + "' is not a scan kind");
  return k == "inclusive" ? ScanKind::inclusive : ScanKind::exclusive;
}

std::size_t Call::length(std::size_t available) const {
  const std::size_t n = param<std::size_t>("n", available);
  if (n > available) throw std::runtime_error("n is larger than the input");
  return n;
}

std::size_t Call::input_count() const {
  const auto it = request_.find("inputs");
  return it != request_.end() && it->is_array() ? it->size() : 0;
}

// The instances runner.hpp declares extern.
#define SCANLAB_GRADING_PARAM(T)                \
  template T Call::param<T>(const char*) const; \
  template T Call::param<T>(const char*, T) const;
#define SCANLAB_GRADING_ARRAY(T)                             \
  template std::vector<T> Call::input<T>(std::size_t) const; \
  template void Call::output<T>(const std::vector<T>&);
SCANLAB_GRADING_PARAM_TYPES(SCANLAB_GRADING_PARAM)
SCANLAB_GRADING_ARRAY_TYPES(SCANLAB_GRADING_ARRAY)

json lookback_reads_info() {
#if defined(SCANLAB_EMU)
  const scanlab_emu::PollRecord* scan = nullptr;
  for (const scanlab_emu::PollRecord& r : scanlab_emu::diagnostics().polls) {
    if (!scan || r.blocks >= scan->blocks) scan = &r;
  }
  if (!scan || scan->blocks == 0) return {{"records", true}, {"blocks", 0}, {"mean", 0.0}, {"max", 0}};
  return {{"records", true},
          {"blocks", scan->blocks},
          {"mean", static_cast<double>(scan->addresses) / static_cast<double>(scan->blocks)},
          {"max", scan->max_addresses}};
#else
  return {{"records", false}};
#endif
}

}  // namespace scanlab::grading
