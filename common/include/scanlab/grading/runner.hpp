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
#include "scanlab/grading/tags.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/verify.hpp"

namespace scanlab::grading {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Min;
using scanlab::Plus;
using scanlab::ScanKind;

// One request as an entry sees it: its monoid, parameters and inputs, and the reply it builds.
//
// The grader compiles a runner for every student it grades (with the emulator's instrumentation),
// so what every runner would otherwise compile again is compiled once, in the runner library
// (common/src/grading_runner_call.cpp): all of the messages' JSON. A runner's translation unit
// does not include the JSON library at all; merely including it costs every such compile more
// than a second, for parsers it never calls. The template members are defined there too, for
// the types tests/grade/*_runner.cu use (the lists in that file); a runner that uses another
// type fails to link, naming it, until it is added to a list.
class Call {
 public:
  struct Message;  // the request and the reply under construction (the library's)
  explicit Call(Message& message) : message_(message) {}
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  std::string monoid() const;

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

  // Something else the checker asked for (a count, a size, a flag), under `name` in the reply's
  // info.
  template <class T>
  void info(const char* name, T value);

  // On the emulator, how far the call's single-pass launch looked back, as info lookback_reads: of
  // the call's launches that polled global memory, the one with the most blocks (the scan), its
  // blocks' distinct global words read with polling (volatile or atomic) loads, as
  // {records: true, blocks, mean, max} (zeros when nothing polled). A GPU has no such count:
  // {records: false}. The checker bounds the mean (scanlab/grading/checker.hpp,
  // check_lookback_depth).
  void info_lookback_reads();

  // On the emulator, what its bank-conflict counter (on when the checker's emulator settings say
  // "banks") recorded during the call, per phase (barrier interval), as info bank_phases[p] =
  // {worst: the highest number of words one bank served to one warp access, accesses: the warp
  // accesses}, and bank_records: true. A GPU has no such records: bank_records is false there.
  void info_bank_phases();

 private:
  Message& message_;
};

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

}  // namespace scanlab::grading
