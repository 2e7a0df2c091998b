// Chapter 05's grading runner: the student's multi-block scans (scan-then-propagate and
// reduce-then-scan), run through the chapter's given launch code on the inputs the checker
// (05_multi_block.cu) sends. It decides nothing; see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/grading/runner.hpp>

#include "multi_block_scan_dispatch.cuh"

using namespace scanlab::grading;

namespace {

// One whole-array scan of `in` into a poisoned output (or in place) with the tile shape Policy.
template <class Policy, class In, class Op>
std::vector<typename Op::value_type> scan_with(const Call& call, const std::vector<In>& in, Op op) {
  using Acc = typename Op::value_type;
  const std::string algo = call.param<std::string>("algo");
  const bool inclusive = call.kind() == ScanKind::inclusive;
  const auto max_blocks = call.param<unsigned>("max_blocks", 0u);
  const std::size_t n = in.size();
  if (algo != "scan_then_propagate" && algo != "reduce_then_scan") throw std::runtime_error("unknown algo " + algo);
  return run_on_device<Acc>(in, [&](In* d_in, Acc* d_out) {
    if (algo == "scan_then_propagate") ch05::scan_then_propagate<Policy>(d_in, d_out, n, inclusive, op);
    else ch05::reduce_then_scan<Policy>(d_in, d_out, n, inclusive, op, 0, max_blocks);
  }, call.param<bool>("in_place", false));
}

template <class In, class Op>
std::vector<typename Op::value_type> scan(const Call& call, const std::vector<In>& in, Op op) {
  const std::string tiles = call.param<std::string>("tiles");
  if (tiles == "large") return scan_with<ch05::LargeTiles>(call, in, op);
  if (tiles == "warp") return scan_with<ch05::WarpTiles>(call, in, op);
  throw std::runtime_error("unknown tile shape " + tiles);
}

}  // namespace

// One scan of the whole input. Parameters: algo (scan_then_propagate or reduce_then_scan), tiles
// (large or warp), kind, max_blocks (reduce-then-scan's grid cap; default 0: none), in_place,
// int32_input (the input is int32, scanned into the monoid's wider sums).
SCANLAB_GRADE_ENTRY(scan) {
  with_monoid<Plus<std::int32_t>, Plus<std::uint32_t>, Plus<std::int64_t>, Plus<std::uint64_t>, Plus<float>,
              Max<std::int32_t>, AffineCompose<std::uint32_t>>(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    if (call.param<bool>("int32_input", false)) {
      if constexpr (std::is_same_v<T, std::int64_t>) {
        call.output(scan(call, call.input<std::int32_t>(0), op));
        return;
      } else {
        throw std::runtime_error("int32_input needs the int64 sum");
      }
    }
    call.output(scan(call, call.input<T>(0), op));
  });
}
