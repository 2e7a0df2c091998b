// Chapter 01's grading runner: the student's Hillis-Steele scans, run on the inputs the checker
// (01_hillis_steele.cu) sends. It decides nothing; see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <scanlab/grading/runner.hpp>
#include "../../common/include/scanlab/grading/runner_far.cuh"  // by path: the emulator build translates it

#include "hillis_steele_dispatch.cuh"

using namespace scanlab::grading;

// The monoids: with_scan_monoid's four, the explicit instantiations of the student's templates.

// The one-block scan of the input, inclusive or exclusive, into a poisoned output. Parameter n
// (default: the input's length) is the length the scan is told, so that the checker can ask for
// n == 0 on a non-empty buffer.
SCANLAB_GRADE_ENTRY(block_scan) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const std::size_t n = call.length(in.size());
    const ScanKind kind = call.kind();
    call.output(run_on_device(in, [&](T* d_in, T* d_out) {
      if (kind == ScanKind::inclusive) ch01::hillis_steele_inclusive_scan_block(d_in, d_out, static_cast<int>(n), op);
      else ch01::hillis_steele_exclusive_scan_block(d_in, d_out, static_cast<int>(n), op);
    }));
  });
}

// The inclusive scan of independent tiles of parameter `tile` elements, into a poisoned output.
SCANLAB_GRADE_ENTRY(tile_scan) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const int tile = call.param<int>("tile");
    call.output(run_on_device(in, [&](T* d_in, T* d_out) {
      ch01::hillis_steele_inclusive_scan_tiles(d_in, d_out, in.size(), tile, op);
    }));
  });
}

// The inclusive scan of independent tiles of parameter `tile` elements over elements [first, n) of
// a large int32 array (scanlab/grading/far.hpp): on the emulator only those elements exist and the
// launch starts at their first tile; on a GPU (parameter on_device) the whole array is scanned.
SCANLAB_GRADE_ENTRY(tile_scan_far) {
  const int tile = call.param<int>("tile");
  call.output(run_far(call, [&](const std::int32_t* d_in, std::int32_t* d_out, std::size_t from) {
    const std::size_t n = call.param<std::size_t>("n");
    ch01::hillis_steele_inclusive_scan_tiles_from(d_in, d_out, n, tile, from / static_cast<std::size_t>(tile),
                                                  Plus<std::int32_t>{});
  }));
}
