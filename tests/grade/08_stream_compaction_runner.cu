// Chapter 08's grading runner: the student's compactions (three-phase select-if and partition-if,
// the bit-sliced warp offsets, the single-pass select-if and partition-if) run through the chapter's given launch
// code on the inputs the checker (08_stream_compaction.cu) sends. It decides nothing; see
// scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>

#include "stream_compaction_dispatch.cuh"
#include "stream_compaction_single_pass_dispatch.cuh"

using namespace scanlab::grading;

namespace {

// One compaction of `in` into a poisoned output (in place for single_pass_in_place). Outputs: the
// output array, then the count (one unsigned, poisoned before the call).
template <class T, class Pred>
void compact(Call& call, const std::vector<T>& in, Pred pred) {
  const std::string algo = call.param<std::string>("algo");
  const std::size_t n = call.length(in.size());
  scanlab::DeviceBuffer<unsigned> d_count(1);
  d_count.fill_poison();
  const bool in_place = algo == "select_if_single_pass_in_place";
  call.output(run_on_device(in, [&](T* d_in, T* d_out) {
    if (algo == "select_if") {
      ch08::select_if(d_in, d_out, d_count.data(), n, pred);
    } else if (algo == "partition_if") {
      ch08::partition_if(d_in, d_out, d_count.data(), n, pred);
    } else if (algo == "select_if_single_pass") {
      ch08::SinglePassWorkspace ws(n);
      ch08::select_if_single_pass(d_in, d_out, d_count.data(), n, pred, ws);
    } else if (algo == "partition_if_single_pass") {
      ch08::SinglePassWorkspace ws(n);
      ch08::partition_if_single_pass(d_in, d_out, d_count.data(), n, pred, ws);
    } else if (in_place) {
      ch08::SinglePassWorkspace ws(n);
      ch08::select_if_single_pass_in_place(d_in, d_count.data(), n, pred, ws);
    } else {
      throw std::runtime_error("unknown algo " + algo);
    }
  }, in_place));
  call.output(d_count.download());
}

}  // namespace

// Parameters: algo (select_if, partition_if, select_if_single_pass, select_if_single_pass_in_place,
// partition_if_single_pass),
// predicate (is_positive over int32, or greater_than over float with parameter threshold), n
// (default: the input's length).
SCANLAB_GRADE_ENTRY(compact) {
  const std::string predicate = call.param<std::string>("predicate");
  if (predicate == "is_positive") compact(call, call.input<std::int32_t>(0), ch08::IsPositive<std::int32_t>{});
  else if (predicate == "greater_than") compact(call, call.input<float>(0), ch08::GreaterThan<float>{call.param<float>("threshold")});
  else throw std::runtime_error("unknown predicate " + predicate);
}

// The bit-sliced exclusive scan of up to 32 warp totals (each in [0, 32]), into poisoned offsets.
SCANLAB_GRADE_ENTRY(warp_offsets_bit_sliced) {
  const std::vector<unsigned> totals = call.input<unsigned>(0);
  call.output(run_on_device(totals, [&](unsigned* d_totals, unsigned* d_offsets) {
    ch08::warp_offsets_bit_sliced_host(d_totals, static_cast<int>(totals.size()), d_offsets);
  }));
}
