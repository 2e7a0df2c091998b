// Chapter 08's grading runner: the student's compactions (three-phase select-if and partition-if,
// the bit-sliced warp offsets, the single-pass select-if and partition-if) run through the chapter's given launch
// code on the inputs the checker (08_stream_compaction.cu) sends. It decides nothing; see
// scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>
#include "../../common/include/scanlab/grading/runner_far.cuh"  // by path: the emulator build translates it

#include "stream_compaction_dispatch.cuh"
#include "stream_compaction_single_pass_dispatch.cuh"

using namespace scanlab::grading;

namespace {

// One compaction of `in` into a poisoned output (in place for single_pass_in_place). Outputs: the
// output array, then the count (one unsigned, poisoned before the call). Info of the single-pass
// forms: lookback_reads, how far the look-backs reached (Call::info_lookback_reads
// in scanlab/grading/runner.hpp).
template <class T, class Pred>
void compact(Call& call, const std::vector<T>& in, Pred pred) {
  const std::string name = call.param<std::string>("algo");
  std::string algo = name;
  const std::size_t n = call.length(in.size());
  scanlab::DeviceBuffer<unsigned> d_count(1);
  d_count.fill_poison();
  // A single-pass algo with the suffix _two_tile runs the two-tile kernel at every n; with
  // _two_tile_unaligned through pointers one element past 16-byte alignment: no bulk copies, no
  // vector stores (and in place, the one-tile kernel: the dispatch's rule).
  bool two_tile = false;
  bool unaligned = false;
  for (const std::string suffix : {"_two_tile", "_two_tile_unaligned"}) {
    if (algo.size() > suffix.size() && algo.rfind("_single_pass") != std::string::npos &&
        algo.compare(algo.size() - suffix.size(), suffix.size(), suffix) == 0) {
      algo.resize(algo.size() - suffix.size());
      two_tile = true;
      unaligned = suffix == "_two_tile_unaligned";
      break;
    }
  }
  const bool in_place = algo == "select_if_single_pass_in_place";
  // The checker sends float elements to the three-phase select_if alone, so only int32 builds the
  // other compactions: each is kernels compiled with every submission (the single-pass ones two
  // kernels each, one tile and two tiles a block), which an unused one would only cost grading time.
  constexpr bool kAllAlgos = std::is_same_v<T, std::int32_t>;
  if (algo != "select_if" && !kAllAlgos) throw std::runtime_error("unknown algo " + name + " for float elements");
  call.output(run_on_device(
      in,
      [&](T* d_in, T* d_out) {
        if (algo == "select_if") {
          ch08::select_if(d_in, d_out, d_count.data(), n, pred);
        } else if constexpr (kAllAlgos) {
          if (algo == "partition_if") {
            ch08::partition_if(d_in, d_out, d_count.data(), n, pred);
            return;
          }
          ch08::SinglePassWorkspace ws(n);
          if (two_tile) ws.partition_two_tile_from = ws.select_two_tile_from = 0;
          if (algo == "select_if_single_pass") ch08::select_if_single_pass(d_in, d_out, d_count.data(), n, pred, ws);
          else if (algo == "partition_if_single_pass")
            ch08::partition_if_single_pass(d_in, d_out, d_count.data(), n, pred, ws);
          else if (in_place) ch08::select_if_single_pass_in_place(d_in, d_count.data(), n, pred, ws);
          else throw std::runtime_error("unknown algo " + name);
        }
      },
      in_place, unaligned ? 1 : 0));
  call.output(d_count.download());
  if (algo.find("single_pass") != std::string::npos) call.info_lookback_reads();
}

}  // namespace

// Parameters: algo (select_if, partition_if, select_if_single_pass, select_if_single_pass_in_place,
// partition_if_single_pass; each of the last three with _two_tile: the large-input kernel at every
// n, or _two_tile_unaligned: the same through unaligned pointers),
// predicate (is_positive over int32, or greater_than over float with parameter threshold: float for
// select_if only), n (default: the input's length).
SCANLAB_GRADE_ENTRY(compact) {
  const std::string predicate = call.param<std::string>("predicate");
  if (predicate == "is_positive") compact(call, call.input<std::int32_t>(0), ch08::IsPositive<std::int32_t>{});
  else if (predicate == "greater_than")
    compact(call, call.input<float>(0), ch08::GreaterThan<float>{call.param<float>("threshold")});
  else throw std::runtime_error("unknown predicate " + predicate);
}

// The bit-sliced exclusive scan of up to 32 warp totals (each in [0, 32]), into poisoned offsets.
SCANLAB_GRADE_ENTRY(warp_offsets_bit_sliced) {
  const std::vector<unsigned> totals = call.input<unsigned>(0);
  call.output(run_on_device(totals, [&](unsigned* d_totals, unsigned* d_offsets) {
    ch08::warp_offsets_bit_sliced_host(d_totals, static_cast<int>(totals.size()), d_offsets);
  }));
}

// ---- past 2^31 elements (scanlab/grading/far.hpp): int32 elements, is_positive ----------------------

// On the emulator: phases 1 and 3 of the three-phase select_if or partition_if (parameter algo) over
// elements [first, n) of a large int32 array, of which only those exist (input 0; first is a
// multiple of the tile), from their first tile on. Phase 2 is the checker's: input 1 holds the tile
// offsets it chose for those tiles and, last, the total. Outputs: 0 the output elements [first, n)
// (the checker chooses offsets that put every write there), 1 the tile counts of phase 1.
SCANLAB_GRADE_ENTRY(phases_window) {
  using T = std::int32_t;
  const ch08::IsPositive<T> pred;
  const std::string algo = call.param<std::string>("algo");
  if (algo != "select_if" && algo != "partition_if") throw std::runtime_error("unknown algo " + algo);
  const std::size_t n = call.param<std::size_t>("n");
  const std::size_t first = call.param<std::size_t>("first");
  const std::vector<T> in = call.input<T>(0);
  const std::vector<unsigned> offsets = call.input<unsigned>(1);
  if (first + in.size() != n || first % ch08::kCompactTile != 0)
    throw std::runtime_error("the input is not whole tiles [first, n)");
  const std::size_t first_tile = first / ch08::kCompactTile;
  const std::size_t tiles = ch08::compaction_tiles(in.size());
  if (offsets.size() != tiles + 1) throw std::runtime_error("input 1 must hold one offset per tile and the total");
  scanlab::DeviceBuffer<unsigned> d_counts(tiles);
  scanlab::DeviceBuffer<unsigned> d_offsets(tiles + 1);
  d_counts.fill_poison();
  SCANLAB_CUDA_CHECK(
      cudaMemcpy(d_offsets.data(), offsets.data(), offsets.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  call.output(run_on_device_window(in, first, [&](const T* d_in, T* d_out) {
    ch08::compact_count_from(d_in, n, first_tile, shifted_back(d_counts.data(), first_tile), pred);
    const unsigned* offsets_from = shifted_back(d_offsets.data(), first_tile);
    if (algo == "select_if") ch08::compact_scatter_from<false>(d_in, d_out, n, first_tile, offsets_from, pred);
    else ch08::compact_scatter_from<true>(d_in, d_out, n, first_tile, offsets_from, pred);
  }));
  call.output(d_counts.download());
}

// On a GPU (parameter on_device): select_if or partition_if (parameter algo) of the whole large
// int32 array of n elements, made on the device. Outputs: 0 the output elements [first, n), 1 the
// count of kept elements.
SCANLAB_GRADE_ENTRY(compact_far) {
  using T = std::int32_t;
  const std::string algo = call.param<std::string>("algo");
  const std::size_t n = call.param<std::size_t>("n");
  if (!call.param<bool>("on_device", false))
    throw std::runtime_error("compact_far runs on the device's whole array only");
  scanlab::DeviceBuffer<unsigned> d_count(1);
  d_count.fill_poison();
  call.output(run_far(call, [&](const T* d_in, T* d_out, std::size_t) {
    if (algo == "select_if") ch08::select_if(d_in, d_out, d_count.data(), n, ch08::IsPositive<T>{});
    else if (algo == "partition_if") ch08::partition_if(d_in, d_out, d_count.data(), n, ch08::IsPositive<T>{});
    else throw std::runtime_error("unknown algo " + algo);
  }));
  call.output(d_count.download());
}
