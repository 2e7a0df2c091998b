// scanlab/grading/runner.hpp: the runner's side of grading (see scanlab/grading/wire.hpp).
//
// A chapter's runner source, tests/grade/NN_slug_runner.cu, includes the chapter's given header
// (which includes the student's file) and this one, and defines one ENTRY per operation the
// checker calls. An entry decodes its inputs, runs the student's code on the device and returns
// the outputs; it decides nothing. For example:
//
//   SCANLAB_GRADE_ENTRY(block_scan) {
//     with_monoid<Plus<std::int32_t>, Max<std::int32_t>>(call, [&](auto op) {
//       using T = typename decltype(op)::value_type;
//       const std::vector<T> in = call.input<T>(0);
//       call.output(run_on_device(in, [&](const T* d_in, T* d_out) { ch01::scan(d_in, d_out, op); }));
//     });
//   }
//
// The monoid lists are the explicit instantiations the tests use: the checker names one of them
// in each request, and an entry instantiated for no such monoid answers with an error.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/grading/wire.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/verify.hpp"

#if defined(SCANLAB_EMU)
#include <scanlab_emu/diagnostics.hpp>
#endif

namespace scanlab::grading {

using wire::json;
using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Min;
using scanlab::Plus;
using scanlab::ScanKind;

// One request as an entry sees it.
//
// Its members are compiled once, in the runner library (common/src/grading_runner_call.cpp), not in
// each runner: the JSON decoding behind them was most of what the compiler did for a runner, and a
// runner is compiled afresh for every student the grader grades (with the emulator's
// instrumentation, at -O1). Only declarations are here: the template members are defined below
// and instantiated in the library for the types the runners use (SCANLAB_GRADING_CALL_TYPES), so
// a runner's translation unit instantiates them only for another type.
class Call {
 public:
  explicit Call(const json& request) : request_(request) {}

  std::string monoid() const;

  const json& params() const;

  // A parameter of the request; throws when it is missing or of another type.
  template <class T>
  T param(const char* name) const;

  template <class T>
  T param(const char* name, T fallback) const;

  // The "kind" parameter: inclusive or exclusive.
  ScanKind kind() const;

  // The "n" parameter: the length the code under test is told, at most `available` (the input's
  // length, the default). It lets a checker ask for n == 0 on a buffer that is not empty.
  std::size_t length(std::size_t available) const;

  std::size_t input_count() const;

  // Input array i, decoded as T.
  template <class T>
  std::vector<T> input(std::size_t i) const;

  // Appends an output array to the reply.
  template <class T>
  void output(const std::vector<T>& v);

  // Anything else the checker asked for (counts, diagnostics), by name.
  json& info() { return info_; }

  json& outputs() { return outputs_; }

 private:
  const json& request_;
  json outputs_ = json::array();
  json info_ = json::object();
};

// Not inline on purpose: for the types below a runner uses the library's copies (extern template).
template <class T>
T Call::param(const char* name) const {
  const json& p = params();
  if (!p.contains(name)) throw std::runtime_error(std::string("missing parameter '") + name + "'");
  return p[name].get<T>();
}

template <class T>
T Call::param(const char* name, T fallback) const {
  const json& p = params();
  return p.contains(name) ? p[name].get<T>() : fallback;
}

template <class T>
std::vector<T> Call::input(std::size_t i) const {
  if (i >= input_count()) throw std::runtime_error("missing input " + std::to_string(i));
  return wire::decode_array<T>(request_["inputs"][i], "input " + std::to_string(i));
}

template <class T>
void Call::output(const std::vector<T>& v) {
  outputs_.push_back(wire::encode_array(v));
}

// The parameter types and array element types the library instantiates Call's members for: every
// type tests/grade/*_runner.cu uses. Another type still works (the runner then instantiates it).
#define SCANLAB_GRADING_PARAM_TYPES(X) X(int) X(unsigned) X(bool) X(float) X(std::size_t) X(std::string)
// A table of types, one line: clang-format 14 reflows it differently on every run.
// clang-format off
#define SCANLAB_GRADING_ARRAY_TYPES(X)                                                             \
  X(std::int8_t) X(std::uint8_t) X(std::int16_t) X(std::uint16_t) X(std::int32_t) X(std::uint32_t) \
  X(std::int64_t) X(std::uint64_t) X(float) X(double) X(::scanlab::Affine<std::uint32_t>)
// clang-format on
#define SCANLAB_GRADING_EXTERN_PARAM(T)                \
  extern template T Call::param<T>(const char*) const; \
  extern template T Call::param<T>(const char*, T) const;
#define SCANLAB_GRADING_EXTERN_ARRAY(T)                             \
  extern template std::vector<T> Call::input<T>(std::size_t) const; \
  extern template void Call::output<T>(const std::vector<T>&);
SCANLAB_GRADING_PARAM_TYPES(SCANLAB_GRADING_EXTERN_PARAM)
SCANLAB_GRADING_ARRAY_TYPES(SCANLAB_GRADING_EXTERN_ARRAY)
#undef SCANLAB_GRADING_EXTERN_PARAM
#undef SCANLAB_GRADING_EXTERN_ARRAY

using Entry = void (*)(Call&);

// The entries of this runner, by name (defined in common/src/grading_runner_main.cpp).
void register_entry(const char* name, Entry entry);

#define SCANLAB_GRADE_ENTRY(name)                                                     \
  static void scanlab_grade_entry_##name(::scanlab::grading::Call& call);             \
  static const bool scanlab_grade_entry_registered_##name =                           \
      (::scanlab::grading::register_entry(#name, &scanlab_grade_entry_##name), true); \
  static void scanlab_grade_entry_##name([[maybe_unused]] ::scanlab::grading::Call& call)

// Calls fn(Op{}) for the monoid among Ops that the request names; throws when none matches.
template <class... Ops, class F>
void with_monoid(const Call& call, F&& fn) {
  const std::string name = call.monoid();
  bool found = false;
  ((!found && name == wire::monoid_tag<Ops>() ? (found = true, fn(Ops{}), 0) : 0), ...);
  if (!found) throw std::runtime_error("this runner has no instance for the monoid '" + name + "'");
}

// The four monoids most checkers scan with: an int32 sum, a float sum (against a float64
// reference), composition of affine maps over uint32 (not commutative) and a running int32 max
// (a non-zero identity).
template <class F>
void with_scan_monoid(const Call& call, F&& fn) {
  with_monoid<Plus<std::int32_t>, Plus<float>, AffineCompose<std::uint32_t>, Max<std::int32_t>>(call, fn);
}

// Runs one operation on the device and returns its output: uploads `in`, poisons the output (so
// an element the code never writes fails the check), calls launch(d_in, d_out), synchronises
// (so a failed launch is reported here), and downloads n elements. With in_place the input buffer
// is the output too. With an offset both pointers start that many elements into their buffers,
// so the code is handed pointers that are not 16-byte aligned. Out defaults to the input's type.
template <class Out = void, class In, class Launch>
auto run_on_device(const std::vector<In>& in, Launch&& launch, bool in_place = false, std::size_t offset = 0) {
  using O = std::conditional_t<std::is_void_v<Out>, In, Out>;
  const std::size_t n = in.size();
  DeviceBuffer<In> d_in(n + offset);
  DeviceBuffer<O> d_out(in_place ? 0 : n + offset);
  d_in.fill_poison();
  if (n > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(d_in.data() + offset, in.data(), n * sizeof(In), cudaMemcpyHostToDevice));
  d_out.fill_poison();
  O* out = d_out.data() + offset;
  if (in_place) {
    if constexpr (std::is_same_v<O, In>) {
      out = d_in.data() + offset;
    } else {
      throw std::invalid_argument("run_on_device: in place needs the same input and output type");
    }
  }
  launch(d_in.data() + offset, out);
  SCANLAB_CHECK_SYNC();
  std::vector<O> got(n);
  if (n > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(got.data(), out, n * sizeof(O), cudaMemcpyDeviceToHost));
  return got;
}

// On the emulator, how far the call's single-pass launch looked back: of the call's launches that
// polled global memory, the one with the most blocks (the scan), its blocks' distinct global words
// read with polling (volatile or atomic) loads, as {records: true, blocks, mean, max} (zeros when
// nothing polled). A GPU has no such count: {records: false}. The checker bounds the mean
// (scanlab/grading/checker.hpp, check_lookback_depth).
// Compiled in the runner library (common/src/grading_runner_call.cpp), once per backend.
json lookback_reads_info();

}  // namespace scanlab::grading
