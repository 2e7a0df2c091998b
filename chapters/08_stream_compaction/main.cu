// Chapter 08 driver: stream compaction (select-if) and stable partition (partition-if).
//
// First the two worked examples of the book page (the compaction article's twelve integers, and
// its bit-sliced warp-offset scan of the totals 16, 18, 17, 13), then n random elements compacted
// with x > threshold into a poisoned output and checked against a sequential copy_if (or a stable
// partition). On a GPU the n-element run is also timed. Exit code 0 only when everything verified.
//
//   ch08_stream_compaction_solution                     the examples, then 2^20 (emulator) / 2^24 int32
//   ch08_stream_compaction_solution --partition         stable partition instead of select
//   ch08_stream_compaction_solution --single-pass       chapter 07's look-back, fused (one kernel)
//   ch08_stream_compaction_solution --single-pass --in-place   output over the input
//   ch08_stream_compaction_solution --single-pass --partition  rejected ones reversed, like CUB's
//   ch08_stream_compaction_solution --single-pass --two-tile-from 0   the large-input kernel at any n
//   ch08_stream_compaction_solution --type float --threshold 0.5 -n 1M
//   ch08_stream_compaction_solution -n 30000 --trace t.jsonl   (traced on the emulator; the player)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/json.hpp>
#include <scanlab/chapter_driver.hpp>
#include <scanlab/command_line.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/trace.hpp>
#include <scanlab/trace_writer.hpp>
#include <scanlab/verify.hpp>

#include "stream_compaction_dispatch.cuh"
#include "stream_compaction_single_pass_dispatch.cuh"

namespace {

struct Config {
  scanlab::CommonOptions common;
  std::string type = "int";
  double threshold = 0.0;
  bool partition = false;
  bool single_pass = false;
  bool in_place = false;
  bool skip_examples = false;
  std::optional<std::size_t> two_tile_from;  // the single pass's two-tile kernel from this n on (unset: its defaults)
  std::string trace;                         // traced builds: record each tile's scatter here (--trace)
};

// A traced run records one event a tile; the player draws a row of tiles, so a few of them.
constexpr std::uint64_t kTraceMaxN = 8 * ch08::kCompactTile;

template <class T>
std::string join(const std::vector<T>& v) {
  std::ostringstream os;
  os << "{";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "}";
  return os.str();
}

// The sequential meaning: kept elements in order, then (partition) the rejected ones, in order
// after three phases, reversed after the single pass (as cub::DevicePartition::If).
template <class T, class Pred>
std::vector<T> oracle(const std::vector<T>& in, Pred pred, const Config& cfg, std::size_t& kept) {
  std::vector<T> out;
  for (const T& x : in)
    if (pred(x)) out.push_back(x);
  kept = out.size();
  std::vector<T> rejected;
  if (cfg.partition)
    for (const T& x : in)
      if (!pred(x)) rejected.push_back(x);
  if (cfg.single_pass) std::reverse(rejected.begin(), rejected.end());
  out.insert(out.end(), rejected.begin(), rejected.end());
  return out;
}

// Runs the chosen compaction on d_in into d_out (the same buffer with --in-place).
template <class T, class Pred>
void compact(const Config& cfg, const T* d_in, T* d_out, unsigned* d_count, std::size_t n, Pred pred,
             ch08::CompactionWorkspace& ws, ch08::SinglePassWorkspace& sp, scanlab::TraceLog log = {}) {
  if (cfg.single_pass) {
    if (cfg.in_place) ch08::select_if_single_pass_in_place(d_out, d_count, n, pred, sp);
    else if (cfg.partition) ch08::partition_if_single_pass(d_in, d_out, d_count, n, pred, sp);
    else ch08::select_if_single_pass(d_in, d_out, d_count, n, pred, sp);
  } else if (cfg.partition) {
    ch08::partition_if(d_in, d_out, d_count, n, pred, ws, 0, log);
  } else {
    ch08::select_if(d_in, d_out, d_count, n, pred, ws, 0, log);
  }
}

// The trace of a traced run (book/docs/traces.md): the scatter's events, and what each tile should
// keep (counted here, sequentially), for the player to compare them with.
template <class T, class Pred>
void write_trace(const Config& cfg, const std::vector<T>& in, Pred pred, const scanlab::TraceBuffer& buffer,
                 const scanlab::Json& report) {
  const std::size_t tiles = ch08::compaction_tiles(in.size());
  std::vector<unsigned> counts(tiles, 0);
  for (std::size_t i = 0; i < in.size(); ++i) counts[i / ch08::kCompactTile] += pred(in[i]) ? 1u : 0u;
  scanlab::TraceWriter writer(cfg.trace, {{"chapter", "08_stream_compaction"},
                                          {"backend", scanlab::backend_name()},
                                          {"variant", cfg.partition ? "partition" : "select"},
                                          {"elem", cfg.type},
                                          {"threshold", cfg.threshold},
                                          {"n", in.size()},
                                          {"tile", ch08::kCompactTile},
                                          {"tiles", tiles},
                                          {"verified", report["verified"]},
                                          {"message", report["message"]}});
  writer.name_fields("scatter", {"offset", "count", "kept"});
  writer.records(buffer);
  writer.line(scanlab::Json{{"type", "tile_counts"}, {"counts", counts}}.sorted());  // as it always was
  writer.finish();
}

// One compaction of `in`, checked. Returns the verdict line's success.
template <class T, class Pred>
bool run_one(const Config& cfg, const std::vector<T>& in, Pred pred, bool print, scanlab::Json& report, bool timed,
             scanlab::TraceBuffer* trace = nullptr) {
  const std::size_t n = in.size();
  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out(n);
  scanlab::DeviceBuffer<unsigned> d_count(1);
  ch08::CompactionWorkspace ws(n);
  ch08::SinglePassWorkspace sp(n);
  if (cfg.two_tile_from) sp.partition_two_tile_from = sp.select_two_tile_from = *cfg.two_tile_from;
  {
    SCANLAB_NVTX_RANGE("upload");
    d_in.upload(in);
    if (cfg.in_place) d_out.upload(in);
    else d_out.fill_poison();
    d_count.fill_poison();
  }
  {
    SCANLAB_NVTX_RANGE("compact");
    compact(cfg, d_in.data(), d_out.data(), d_count.data(), n, pred, ws, sp,
            trace ? trace->log() : scanlab::TraceLog{});
    SCANLAB_CHECK_SYNC();
  }
  std::vector<T> got;
  std::vector<unsigned> count;
  {
    SCANLAB_NVTX_RANGE("download");
    got = d_out.download();
    count = d_count.download();
  }
  SCANLAB_NVTX_RANGE("verify");
  std::size_t kept = 0;
  const std::vector<T> want = oracle(in, pred, cfg, kept);
  const bool count_ok = count[0] == kept;
  const std::size_t check_n = cfg.partition ? n : kept;
  const scanlab::VerifyResult r = scanlab::verify_exact(want.data(), got.data(), check_n);
  const bool ok = count_ok && r.ok;
  if (print) {
    std::vector<T> shown(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(count[0], n)));
    std::cout << "  input  " << join(in) << "\n  output " << join(shown) << "  (" << count[0] << " kept)\n";
  }
  const std::string what = std::to_string(n) + " elements, " + std::to_string(kept) + " kept";
  std::cout << (ok ? "verified: " : "FAILED: ") << what;
  if (!count_ok) std::cout << ": the count is " << count[0] << ", expected " << kept;
  if (!r.ok) std::cout << ": " << r.message();
  std::cout << "\n";
  report["verified"] = ok;
  report["kept"] = kept;
  report["message"] =
      count_ok ? r.message() : "the count is " + std::to_string(count[0]) + ", expected " + std::to_string(kept);
  if (trace) {
    write_trace(cfg, in, pred, *trace, report);
    if (!cfg.common.quiet) std::cout << "trace written to " << cfg.trace << "\n";
  }

  if (timed && ok && !scanlab::on_emulator() && !cfg.in_place && n > 0 && !trace) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::TimingStats t = scanlab::time_ms(
        [&] {
          compact(cfg, d_in.data(), d_out.data(), d_count.data(), n, pred, ws, sp);
        },
        3, cfg.common.repeat);
    const double bytes = static_cast<double>(n + (cfg.partition ? n : kept)) * sizeof(T);
    std::cout << "median " << t.median_ms << " ms over " << t.reps
              << " run(s): " << static_cast<double>(n) / (t.median_ms * 1e6) << " G elements/s, "
              << scanlab::gbps(bytes, t.median_ms) << " GB/s (counting n reads and one write per written element)\n";
    report["median_ms"] = t.median_ms;
    report["gbps"] = scanlab::gbps(bytes, t.median_ms);
  }
  return ok;
}

bool run_bit_sliced_example() {
  const std::vector<unsigned> totals = {16, 18, 17, 13};
  scanlab::DeviceBuffer<unsigned> d_totals(totals);
  scanlab::DeviceBuffer<unsigned> d_offsets(totals.size());
  d_offsets.fill_poison();
  ch08::warp_offsets_bit_sliced_host(d_totals.data(), static_cast<int>(totals.size()), d_offsets.data());
  SCANLAB_CHECK_SYNC();
  const std::vector<unsigned> got = d_offsets.download();
  const std::vector<unsigned> want = {0, 16, 34, 51};
  const bool ok = got == want;
  std::cout << "bit-sliced warp offsets of the totals " << join(totals) << ": " << join(got)
            << (ok ? "  (verified)" : "  FAILED: expected {0,16,34,51}") << "\n";
  return ok;
}

template <class T>
int run(const Config& cfg) {
  scanlab::Json report = {
      {"chapter", "08_stream_compaction"},
      {"backend", scanlab::backend_name()},
      {"n", cfg.common.n},
      {"seed", cfg.common.seed},
      {"type", cfg.type},
      {"threshold", cfg.threshold},
      {"variant", std::string(cfg.partition ? "partition" : "select") +
                      (cfg.single_pass ? (cfg.in_place ? " single-pass in-place" : " single-pass") : "")}};
  bool ok = true;
  const ch08::GreaterThan<T> pred{scanlab::option_value_as<T>("--threshold", cfg.threshold)};
  if (!cfg.skip_examples) {
    std::cout << "The compaction article's example, keeping x > 0:\n";
    const std::vector<T> example = {1, 0, 0, 0, 4, 3, 2, 0, 6, 8, 9, 0};
    scanlab::Json ignored;
    ok = run_one(cfg, example, ch08::IsPositive<T>{}, true, ignored, false) && ok;
    ok = run_bit_sliced_example() && ok;
    std::cout << "\n";
  }
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const T lo = std::is_integral_v<T> ? T(-100) : T(-1);
  const T hi = std::is_integral_v<T> ? T(100) : T(1);
  const std::vector<T> in = scanlab::random_vector<T>(n, cfg.common.seed, lo, hi);
  std::cout << (cfg.partition ? "partition-if" : "select-if") << " x > " << cfg.threshold << ", "
            << (cfg.single_pass ? "single pass (decoupled look-back)" : "three phases")
            << (cfg.in_place ? ", in place" : "") << ": ";
  std::unique_ptr<scanlab::TraceBuffer> trace;
  if (!cfg.trace.empty()) trace = std::make_unique<scanlab::TraceBuffer>(1 << 10, std::size_t(1) << 16);
  ok = run_one(cfg, in, pred, false, report, true, trace.get()) && ok;
  if (scanlab::on_emulator() && !cfg.common.quiet) scanlab::say_not_timed();
  scanlab::write_json_report(cfg.common.json, report);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 08: stream compaction (select-if, partition-if)", "ch08_stream_compaction"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, scanlab::on_emulator() ? (1u << 20) : (1u << 24));
  cli.option("--type", cfg.type, "element type").one_of({"int", "float"}).show_default();
  cli.option("--threshold", cfg.threshold,
             "keep the elements x > threshold (inputs are in [-100, 100] "
             "for int, [-1, 1) for float)")
      .show_default();
  scanlab::Option part = cli.flag("--partition", cfg.partition,
                                  "partition: kept elements, then the rejected ones (reversed with --single-pass)");
  scanlab::Option single = cli.flag("--single-pass", cfg.single_pass,
                                    "one kernel: the count fused into the decoupled look-back scan (chapter 07)");
  scanlab::Option inplace = cli.flag("--in-place", cfg.in_place, "compact over the input (needs --single-pass)");
  inplace.needs(single);
  inplace.excludes(part);
  scanlab::Option two_tile =
      cli.option("--two-tile-from", cfg.two_tile_from,
                 "run the two-tile kernel from this many elements on (default: partition-if from " +
                     std::to_string(ch08::kPartitionTwoTileFrom) + ", select-if from " +
                     std::to_string(ch08::kSelectTwoTileFrom) + "; 0: at every size; needs --single-pass)");
  two_tile.needs(single);
  cli.flag("--no-examples", cfg.skip_examples, "skip the two worked examples");
  cli.option("--trace", cfg.trace,
             "write a trace of each tile's scatter (where it writes, its count) to this file "
             "(traced builds: the emulator's, and ch08_stream_compaction_solution_traced on a GPU)");
  cli.parse(argc, argv);
  if (!cfg.trace.empty()) {
    if (!scanlab::trace_enabled()) {
      return cli.usage_error(
          "--trace needs a traced build: the emulator's, or ch08_stream_compaction_solution_traced on a GPU");
    }
    if (cfg.single_pass) return cli.usage_error("--trace records the three phases; leave out --single-pass");
    if (cfg.common.n > kTraceMaxN) {
      return cli.usage_error("a traced run records every tile; keep n <= " + std::to_string(kTraceMaxN));
    }
  }
  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 08: stream compaction. Count the kept elements per tile "
                   "(__syncthreads_count), scan the counts,\nscatter with ranks from "
                   "__ballot_sync/__popc; or all of it in one pass with the decoupled look-back.\n"
                << "backend: " << scanlab::backend_description() << "\n\n";
    }
    return cfg.type == "float" ? run<float>(cfg) : run<std::int32_t>(cfg);
  });
}
