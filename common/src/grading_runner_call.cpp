// The runner's side of a request (scanlab::grading::Call in scanlab/grading/runner.hpp), compiled
// once into the runner library instead of into every runner. The grader compiles a runner for each
// student it grades, and the JSON decoding and encoding here, with the JSON library's own
// templates, was most of that compile (with the emulator's instrumentation); compiled here it is
// plain host code, built once with the rest of the grader, from the lab's own sources only:
// nothing of a student's reaches it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "grading_call_message.hpp"
#include "scanlab/grading/runner.hpp"
#include "scanlab/grading/wire.hpp"

#if defined(SCANLAB_EMU)
#include <scanlab_emu/diagnostics.hpp>
#endif

namespace scanlab::grading {

using wire::json;

namespace {
const json& params_of(const json& request) {
  static const json empty = json::object();
  const auto it = request.find("params");
  return it != request.end() && it->is_object() ? *it : empty;
}
}  // namespace

std::string Call::monoid() const { return message_.request.value("monoid", std::string()); }

template <class T>
T Call::param(const char* name) const {
  const json& p = params_of(message_.request);
  if (!p.contains(name)) throw std::runtime_error(std::string("missing parameter '") + name + "'");
  return p[name].get<T>();
}

template <class T>
T Call::param(const char* name, T fallback) const {
  const json& p = params_of(message_.request);
  return p.contains(name) ? p[name].get<T>() : fallback;
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
  const auto it = message_.request.find("inputs");
  return it != message_.request.end() && it->is_array() ? it->size() : 0;
}

template <class T>
std::vector<T> Call::input(std::size_t i) const {
  if (i >= input_count()) throw std::runtime_error("missing input " + std::to_string(i));
  return wire::decode_array<T>(message_.request["inputs"][i], "input " + std::to_string(i));
}

template <class T>
void Call::output(const std::vector<T>& v) {
  message_.outputs.push_back(wire::encode_array(v));
}

template <class T>
void Call::info(const char* name, T value) {
  message_.info[name] = value;
}

void Call::info_lookback_reads() {
  json& reads = message_.info["lookback_reads"];
#if defined(SCANLAB_EMU)
  const scanlab_emu::PollRecord* scan = nullptr;
  for (const scanlab_emu::PollRecord& r : scanlab_emu::diagnostics().polls) {
    if (!scan || r.blocks >= scan->blocks) scan = &r;
  }
  if (!scan || scan->blocks == 0) {
    reads = {{"records", true}, {"blocks", 0}, {"mean", 0.0}, {"max", 0}};
    return;
  }
  reads = {{"records", true},
           {"blocks", scan->blocks},
           {"mean", static_cast<double>(scan->addresses) / static_cast<double>(scan->blocks)},
           {"max", scan->max_addresses}};
#else
  reads = {{"records", false}};
#endif
}

void Call::info_bank_phases() {
#if defined(SCANLAB_EMU)
  std::vector<unsigned> worst;
  std::vector<std::uint64_t> accesses;
  for (const scanlab_emu::BankRecord& r : scanlab_emu::diagnostics().banks) {
    if (worst.size() <= r.phase) {
      worst.resize(r.phase + 1, 0);
      accesses.resize(r.phase + 1, 0);
    }
    accesses[r.phase] += r.warp_accesses;
    for (unsigned d = 0; d < r.degree_count.size(); ++d) {
      if (r.degree_count[d] > 0) worst[r.phase] = std::max(worst[r.phase], d);
    }
  }
  json phases = json::array();
  for (std::size_t p = 0; p < worst.size(); ++p) phases.push_back({{"worst", worst[p]}, {"accesses", accesses[p]}});
  message_.info["bank_records"] = true;
  message_.info["bank_phases"] = phases;
#else
  message_.info["bank_records"] = false;
#endif
}

// The types Call's template members are instantiated for: every type tests/grade/*_runner.cu
// uses. A runner that uses another type fails to link, naming the member and the type: add the
// type here.
#define SCANLAB_GRADING_PARAM_TYPES(X) X(int) X(unsigned) X(bool) X(float) X(std::size_t) X(std::string)
// A table of types, one line: clang-format 14 reflows it differently on every run.
// clang-format off
#define SCANLAB_GRADING_ARRAY_TYPES(X)                                                             \
  X(std::int8_t) X(std::uint8_t) X(std::int16_t) X(std::uint16_t) X(std::int32_t) X(std::uint32_t) \
  X(std::int64_t) X(std::uint64_t) X(float) X(double) X(::scanlab::Affine<std::uint32_t>)
#define SCANLAB_GRADING_INFO_TYPES(X) \
  X(bool) X(int) X(unsigned) X(long) X(unsigned long) X(long long) X(unsigned long long) X(double) X(std::string)
// clang-format on
#define SCANLAB_GRADING_PARAM(T)                \
  template T Call::param<T>(const char*) const; \
  template T Call::param<T>(const char*, T) const;
#define SCANLAB_GRADING_ARRAY(T)                             \
  template std::vector<T> Call::input<T>(std::size_t) const; \
  template void Call::output<T>(const std::vector<T>&);
#define SCANLAB_GRADING_INFO(T) template void Call::info<T>(const char*, T);
SCANLAB_GRADING_PARAM_TYPES(SCANLAB_GRADING_PARAM)
SCANLAB_GRADING_ARRAY_TYPES(SCANLAB_GRADING_ARRAY)
SCANLAB_GRADING_INFO_TYPES(SCANLAB_GRADING_INFO)

}  // namespace scanlab::grading
