// Chapter 00's grading runner: the student's sequential scans, run on the inputs the checker
// (00_sequential.cu) sends. It decides nothing; see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <scanlab/grading/runner.hpp>
#include <scanlab/verify.hpp>

#include "sequential_scan_dispatch.cuh"

using namespace scanlab::grading;

// The monoids: with_scan_monoid's four, the explicit instantiations of the student's templates.

// The host scan, into a poisoned output (or in place). Parameter n (default: the input's length)
// is the length the scan is told, so that the checker can ask for n == 0 on a non-empty buffer.
SCANLAB_GRADE_ENTRY(host_scan) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    std::vector<T> in = call.input<T>(0);
    const std::size_t n = call.length(in.size());
    const bool in_place = call.param<bool>("in_place", false);
    std::vector<T> out(in.size());
    scanlab::fill_poison(out);
    T* dst = in_place ? in.data() : out.data();
    if (call.kind() == ScanKind::inclusive) ch00::sequential_inclusive_scan(in.data(), dst, n, op);
    else ch00::sequential_exclusive_scan(in.data(), dst, n, op);
    call.output(in_place ? in : out);
  });
}

// The one-thread GPU scan, as host_scan.
SCANLAB_GRADE_ENTRY(device_scan) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const std::size_t n = call.length(in.size());
    const ScanKind kind = call.kind();
    call.output(run_on_device(
        in,
        [&](T* d_in, T* d_out) {
          if (kind == ScanKind::inclusive) ch00::one_thread_inclusive_scan(d_in, d_out, n, op);
          else ch00::one_thread_exclusive_scan(d_in, d_out, n, op);
        },
        call.param<bool>("in_place", false)));
  });
}
