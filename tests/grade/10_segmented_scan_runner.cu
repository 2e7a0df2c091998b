// Chapter 10's grading runner: the student's segmented operator, segmented scans, summed-area table
// and box filter, run through the chapter's given launch code on the inputs the checker
// (10_segmented_scan.cu) sends. It decides nothing; see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>

#include "segmented_scan_dispatch.cuh"

using namespace scanlab::grading;

// The lifted operator on the host, pair by pair: inputs 0/1 the left values and heads, 2/3 the
// right ones. Outputs: the combined values, then the combined heads.
SCANLAB_GRADE_ENTRY(segmented_op) {
  with_monoid<Plus<std::int32_t>, AffineCompose<std::uint32_t>>(call, [&](auto op) {
    using Op = decltype(op);
    using T = typename Op::value_type;
    const std::vector<T> left = call.input<T>(0), right = call.input<T>(2);
    const std::vector<std::uint32_t> left_heads = call.input<std::uint32_t>(1),
                                     right_heads = call.input<std::uint32_t>(3);
    const std::size_t n = left.size();
    if (right.size() != n || left_heads.size() != n || right_heads.size() != n) {
      throw std::runtime_error("the four inputs differ in length");
    }
    const ch10::Segmented<Op> seg;
    std::vector<T> values(n);
    std::vector<std::uint32_t> heads(n);
    for (std::size_t i = 0; i < n; ++i) {
      const ch10::Flagged<T> c =
          seg(ch10::Flagged<T>{left[i], left_heads[i]}, ch10::Flagged<T>{right[i], right_heads[i]});
      values[i] = c.value;
      heads[i] = c.head;
    }
    call.output(values);
    call.output(heads);
  });
}

// The segmented scan of input 0 with head flags input 1 (uint8), into a poisoned output.
// Parameters: kind; staged (inclusive scans of 4-byte values: tiles staged by bulk copies at every
// size, the kernel large inputs run, instead of from the chapter's threshold on).
SCANLAB_GRADE_ENTRY(segmented_scan) {
  with_monoid<Plus<std::int32_t>, Plus<float>, AffineCompose<std::uint32_t>>(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const std::vector<std::uint8_t> heads = call.input<std::uint8_t>(1);
    if (heads.size() != in.size()) throw std::runtime_error("values and heads differ in length");
    const bool exclusive = call.kind() == ScanKind::exclusive;
    scanlab::DeviceBuffer<std::uint8_t> d_heads(heads);
    ch10::SegmentedScanWorkspace<T> ws(in.size());
    if (call.param<bool>("staged", false)) ws.staged_from = 0;
    const ch10::HeadFlagArray flags{d_heads.data()};
    call.output(run_on_device(in, [&](T* d_in, T* d_out) {
      if (exclusive) ch10::segmented_exclusive_scan(d_in, flags, d_out, in.size(), op, ws);
      else ch10::segmented_inclusive_scan(d_in, flags, d_out, in.size(), op, ws);
    }));
  });
}

// The summed-area table of a width x height image (input 0), into a poisoned output.
SCANLAB_GRADE_ENTRY(summed_area_table) {
  const std::vector<std::uint32_t> img = call.input<std::uint32_t>(0);
  const int w = call.param<int>("width"), h = call.param<int>("height");
  if (w <= 0 || h <= 0 || img.size() != static_cast<std::size_t>(w) * h) throw std::runtime_error("bad image shape");
  ch10::SatWorkspace<std::uint32_t> ws(w, h);
  call.output(run_on_device(img, [&](std::uint32_t* d_img, std::uint32_t* d_sat) {
    ch10::summed_area_table(d_img, d_sat, w, h, ws);
  }));
}

// The tilt-shift box filter over a summed-area table (input 0), into a poisoned uint8 output.
// Parameters: width, height, focus_row, max_radius.
SCANLAB_GRADE_ENTRY(box_filter) {
  const std::vector<std::uint32_t> sat = call.input<std::uint32_t>(0);
  const int w = call.param<int>("width"), h = call.param<int>("height");
  if (w <= 0 || h <= 0 || sat.size() != static_cast<std::size_t>(w) * h) throw std::runtime_error("bad image shape");
  const ch10::TiltShiftRadius radius{call.param<int>("focus_row"), call.param<int>("max_radius"), h};
  call.output(run_on_device<std::uint8_t>(sat, [&](std::uint32_t* d_sat, std::uint8_t* d_out) {
    ch10::box_filter(d_sat, d_out, w, h, radius);
  }));
}
