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
#include "../../common/include/scanlab/grading/runner_far.cuh"  // by path: the emulator build translates it

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
  return run_on_device<Acc>(
      in,
      [&](In* d_in, Acc* d_out) {
        if (algo == "scan_then_propagate") ch05::scan_then_propagate<Policy>(d_in, d_out, n, inclusive, op);
        else ch05::reduce_then_scan<Policy>(d_in, d_out, n, inclusive, op, 0, max_blocks);
      },
      call.param<bool>("in_place", false));
}

// The tile shapes each (input, monoid) pair is built for: exactly what the checker requests. Each
// (pair, tile) is the kernels of both algorithms instantiated, and this runner is compiled with
// every submission, so an unused one would only cost grading time. Add a row when the checker
// asks for a new one.
struct Tiles {
  bool large = false;
  bool warp = false;
};

template <class In, class Op>
constexpr Tiles built_tiles() {
  if constexpr (!std::is_same_v<In, typename Op::value_type>) return {true, false};  // int32 into int64 sums
  else if constexpr (std::is_same_v<Op, Plus<std::int32_t>> || std::is_same_v<Op, AffineCompose<std::uint32_t>>)
    return {true, true};
  else if constexpr (std::is_same_v<Op, Plus<std::uint64_t>> || std::is_same_v<Op, Max<std::int32_t>>)
    return {false, true};
  else return {true, false};  // uint32, int64 and float sums
}

template <class In, class Op>
std::vector<typename Op::value_type> scan(const Call& call, const std::vector<In>& in, Op op) {
  constexpr Tiles built = built_tiles<In, Op>();
  const std::string tiles = call.param<std::string>("tiles");
  if (tiles != "large" && tiles != "warp") throw std::runtime_error("unknown tile shape " + tiles);
  if constexpr (built.large) {
    if (tiles == "large") return scan_with<ch05::LargeTiles>(call, in, op);
  }
  if constexpr (built.warp) {
    if (tiles == "warp") return scan_with<ch05::WarpTiles>(call, in, op);
  }
  throw std::runtime_error("this runner has no " + tiles + " tiles for the monoid '" + call.monoid() + "'" +
                           (std::is_same_v<In, typename Op::value_type> ? "" : " of int32 input"));
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

// ---- past 2^31 elements (scanlab/grading/far.hpp): int32 sums, large tiles ------------------------

// On the emulator: the phases of parameter algo, one at a time, over elements [first, n) of a large
// int32 array, of which only those exist (input 0); first is a multiple of the tile
// (scan_then_propagate) or of parameter tiles_per_block tiles (reduce_then_scan), and the launches
// start at that tile or block. Phase 2 is the checker's: input 1 holds the carries it chose, one
// per tile (the prefixes of the uniform add) or per block (the spine's prefixes). Outputs: 0 the
// elements [first, n) after phase 3; 1 what phase 1 wrote, the tiles' sums or the blocks' partials.
SCANLAB_GRADE_ENTRY(phases_window) {
  using T = std::int32_t;
  using Policy = ch05::LargeTiles;
  const Plus<T> op;
  const std::string algo = call.param<std::string>("algo");
  const bool inclusive = call.kind() == ScanKind::inclusive;
  const std::size_t n = call.param<std::size_t>("n");
  const std::size_t first = call.param<std::size_t>("first");
  const std::vector<T> in = call.input<T>(0);
  const std::vector<T> carries = call.input<T>(1);
  if (first + in.size() != n || first % Policy::kTile != 0)
    throw std::runtime_error("the input is not whole tiles [first, n)");
  const std::size_t first_tile = first / Policy::kTile;
  std::size_t per_block = 1;  // tiles per carry
  if (algo == "reduce_then_scan") per_block = call.param<std::size_t>("tiles_per_block");
  else if (algo != "scan_then_propagate") throw std::runtime_error("unknown algo " + algo);
  if (per_block == 0 || first_tile % per_block != 0) throw std::runtime_error("first is not a block's first tile");
  const std::size_t first_carry = first_tile / per_block;
  const std::size_t count = ((in.size() + Policy::kTile - 1) / Policy::kTile + per_block - 1) / per_block;
  if (carries.size() != count) throw std::runtime_error("input 1 must hold one carry per tile or block");
  scanlab::DeviceBuffer<T> d_carries(count);
  scanlab::DeviceBuffer<T> d_firsts(count);  // what phase 1 writes
  d_firsts.fill_poison();
  SCANLAB_CUDA_CHECK(cudaMemcpy(d_carries.data(), carries.data(), count * sizeof(T), cudaMemcpyHostToDevice));
  T* const firsts = shifted_back(d_firsts.data(), first_carry);
  const T* const given = shifted_back(d_carries.data(), first_carry);
  call.output(run_on_device_window(in, first, [&](const T* d_in, T* d_out) {
    if (per_block == 1) {
      ch05::scan_tiles_from<Policy>(d_in, d_out, n, first_tile, inclusive, firsts, op);
      ch05::uniform_add_from<Policy>(d_out, n, first_tile, given, op);
    } else {
      ch05::reduce_ranges_from<Policy>(d_in, n, per_block, first_carry, firsts, op);
      ch05::scan_ranges_from<Policy>(d_in, d_out, n, inclusive, per_block, first_carry, given, op);
    }
  }));
  std::vector<T> phase1(count);
  SCANLAB_CUDA_CHECK(cudaMemcpy(phase1.data(), d_firsts.data(), count * sizeof(T), cudaMemcpyDeviceToHost));
  call.output(phase1);
}

// On a GPU (parameter on_device): the whole scan of parameter algo over the large int32 array of n
// elements, made on the device; returns elements [first, n).
SCANLAB_GRADE_ENTRY(scan_far) {
  using T = std::int32_t;
  using Policy = ch05::LargeTiles;
  const std::string algo = call.param<std::string>("algo");
  const bool inclusive = call.kind() == ScanKind::inclusive;
  const std::size_t n = call.param<std::size_t>("n");
  if (!call.param<bool>("on_device", false)) throw std::runtime_error("scan_far runs on the device's whole array only");
  call.output(run_far(call, [&](const T* d_in, T* d_out, std::size_t) {
    if (algo == "scan_then_propagate") ch05::scan_then_propagate<Policy>(d_in, d_out, n, inclusive, Plus<T>{});
    else ch05::reduce_then_scan<Policy>(d_in, d_out, n, inclusive, Plus<T>{});
  }));
}
