// Chapter 03's grading runner: the student's padding (CONFLICT_FREE_OFFSET, through the given
// Padded layout) and layout scans, run on the inputs the checker (03_bank_conflicts.cu) sends, and
// on the emulator the bank-conflict records of a scan. It decides nothing; see
// scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/grading/runner.hpp>
#include "../../common/include/scanlab/grading/runner_far.cuh"  // by path: the emulator build translates it

#include "bank_conflicts_dispatch.cuh"

using namespace scanlab::grading;

namespace {

// The layout named by parameter "layout": "padded" (this chapter's, the default) or "unpadded"
// (chapter 02's).
template <class F>
void with_layout(const Call& call, F&& fn) {
  const std::string layout = call.param<std::string>("layout", "padded");
  if (layout == "padded") fn(ch03::Padded{});
  else if (layout == "unpadded") fn(ch03::Unpadded{});
  else throw std::runtime_error("layout '" + layout + "' is not a layout of this chapter");
}

// One block scan of in[0, n) under a layout, into a poisoned output.
template <class Layout, class T, class Op>
std::vector<T> layout_block_scan(const std::vector<T>& in, std::size_t n, ScanKind kind, Op op) {
  if (n > in.size()) throw std::runtime_error("n is larger than the input");
  return run_on_device(in, [&](T* d_in, T* d_out) {
    if (kind == ScanKind::inclusive)
      ch03::blelloch_layout_inclusive_scan_block<Layout>(d_in, d_out, static_cast<int>(n), op);
    else ch03::blelloch_layout_exclusive_scan_block<Layout>(d_in, d_out, static_cast<int>(n), op);
  });
}

}  // namespace

// Where the padded layout puts elements 0 .. m-1 (parameter m) in shared memory: output 0 is
// Padded::slot(i) for each i. Info: halves (Padded::kHalves: thread t loads elements t and t + m/2)
// and shared_words (the words the launch reserves for a tile of m elements).
SCANLAB_GRADE_ENTRY(padded_slots) {
  const int m = call.param<int>("m");
  if (m < 1) throw std::runtime_error("m must be positive");
  std::vector<std::int32_t> slots(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) slots[static_cast<std::size_t>(i)] = ch03::Padded::slot(i);
  call.output(slots);
  call.info("halves", ch03::Padded::kHalves);
  call.info("shared_words", ch03::shared_words<ch03::Padded>(m));
}

// The one-block scan of the input under parameter layout, inclusive or exclusive, into a poisoned
// output. Parameter n (default: the input's length) is the length the scan is told.
SCANLAB_GRADE_ENTRY(block_scan) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const std::size_t n = call.length(in.size());
    with_layout(call, [&](auto layout) {
      call.output(layout_block_scan<decltype(layout)>(in, n, call.kind(), op));
    });
  });
}

// The padded scan of independent tiles of parameter `tile` elements (a power of two), inclusive or
// exclusive, into a poisoned output.
SCANLAB_GRADE_ENTRY(tile_scan) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const int tile = call.param<int>("tile");
    const ScanKind kind = call.kind();
    call.output(run_on_device(in, [&](T* d_in, T* d_out) {
      if (kind == ScanKind::inclusive) ch03::blelloch_layout_inclusive_scan_tiles(d_in, d_out, in.size(), tile, op);
      else ch03::blelloch_layout_exclusive_scan_tiles(d_in, d_out, in.size(), tile, op);
    }));
  });
}

// block_scan, and what the emulator's bank-conflict counter recorded during it, per phase: info
// bank_records and bank_phases (Call::info_bank_phases in scanlab/grading/runner.hpp).
SCANLAB_GRADE_ENTRY(block_scan_banks) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    with_layout(call, [&](auto layout) {
      call.output(layout_block_scan<decltype(layout)>(in, in.size(), call.kind(), op));
    });
  });
  call.info_bank_phases();
}

// The padded scan of independent tiles of parameter `tile` elements, inclusive or exclusive, over
// elements [first, n) of a large int32 array (scanlab/grading/far.hpp): on the emulator only those
// elements exist and the launch starts at their first tile; on a GPU (on_device) the whole array.
SCANLAB_GRADE_ENTRY(tile_scan_far) {
  const int tile = call.param<int>("tile");
  const bool inclusive = call.kind() == ScanKind::inclusive;
  const std::size_t n = call.param<std::size_t>("n");
  call.output(run_far(call, [&](const std::int32_t* d_in, std::int32_t* d_out, std::size_t from) {
    ch03::blelloch_layout_scan_tiles_from(d_in, d_out, n, tile, from / static_cast<std::size_t>(tile), inclusive,
                                          Plus<std::int32_t>{});
  }));
}
