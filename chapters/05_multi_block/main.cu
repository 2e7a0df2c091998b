// Chapter 05 driver: one scan of an array of any length across many thread blocks, by
// scan-then-propagate (recursive over block sums) or reduce-then-scan (reduce, spine, scan).
//
// Generates a random input, runs one scan of multi_block_scan.cuh (the exercise's or the
// solution's, whichever this program was built against; launched by the given
// multi_block_scan_dispatch.cuh) into a poisoned output, checks every element against the
// sequential definition and, on a GPU, times it. Exit code 0 only when verified.
//
//   ch05_multi_block_solution                                   1000003 int32, reduce-then-scan
//   ch05_multi_block_solution --algorithm scan-then-propagate --n 4194305 --exclusive
//   ch05_multi_block_solution --op affine --tile 32             non-commutative, many blocks
//   ch05_multi_block_solution --type int32 --sum-type int64 --n 2147483653    (GPU: n > 2^31)
//   ch05_multi_block_solution --n 200 --trace t.jsonl   (traced on the emulator; the visualizer)

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/json.hpp>
#include <scanlab/chapter_driver.hpp>
#include <scanlab/command_line.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/format.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/trace.hpp>
#include <scanlab/trace_writer.hpp>
#include <scanlab/verify.hpp>

#include "multi_block_scan_dispatch.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

constexpr std::uint64_t kDefaultN = 1000003;
// The emulator keeps "device" memory in host memory and runs ~10^7 threads per second: past this
// a run takes minutes and gigabytes, and teaches nothing a smaller one does not.
constexpr std::uint64_t kEmulatorMaxN = std::uint64_t(1) << 27;
// Traced runs record every tile; the picture is only readable for a few tiles anyway.
constexpr std::uint64_t kTraceMaxN = 4096;
// Largest |value| of a random integer input (random.hpp's default range, see random_scan_input).
constexpr double kMaxInputMagnitude = 100.0;

enum class Algorithm { scan_then_propagate, reduce_then_scan };

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::inclusive;
  Algorithm algorithm = Algorithm::reduce_then_scan;
  std::string type = "int32";
  std::string sum_type;  // empty: the input type
  std::string op = "plus";
  int tile = 4096;
  bool in_place = false;
  bool allow_wrap = false;
  unsigned max_blocks = 0;
  std::string trace;
};

const char* algorithm_label(Algorithm a) {
  return a == Algorithm::scan_then_propagate ? "scan-then-propagate" : "reduce-then-scan";
}

// Every element against the sequential definition, computed on the fly (no second array of n
// values: at n = 2^31 that would be another 17 GB). Integers and affine maps exactly; float sums
// against a float64 reference with the length-dependent tolerance.
template <class In, class Op>
scanlab::VerifyResult verify(const std::vector<In>& in, const std::vector<typename Op::value_type>& got, ScanKind kind,
                             Op op) {
  using Acc = typename Op::value_type;
  if constexpr (std::is_floating_point_v<Acc> && std::is_same_v<Op, Plus<Acc>> && std::is_same_v<In, Acc>) {
    return scanlab::verify_float_scan(in, got, kind);
  } else {
    scanlab::VerifyResult r;
    r.n = in.size();
    Acc running = Op::identity();
    for (std::size_t i = 0; i < in.size(); ++i) {
      const Acc x = static_cast<Acc>(in[i]);
      const Acc expected = kind == ScanKind::inclusive ? op(running, x) : running;
      if (!(expected == got[i])) {
        if (r.mismatches == 0) {
          r.first_index = i;
          r.expected = scanlab::to_display_string(expected);
          r.got = scanlab::to_display_string(got[i]) + (scanlab::is_poison(got[i]) ? " (poison: never written)" : "");
        }
        ++r.mismatches;
      }
      running = op(running, x);
    }
    r.ok = r.mismatches == 0;
    return r;
  }
}

// What the run will do, in numbers: the tiles, the levels or the blocks and the spine.
template <class Policy, class In, class Op>
std::string describe_structure(const Config& cfg, std::size_t n, scanlab::Json& report) {
  const std::size_t tiles = (n + Policy::kTile - 1) / Policy::kTile;
  std::string text = std::to_string(tiles) + (tiles == 1 ? " tile" : " tiles") + " of " +
                     std::to_string(Policy::kTile) + " (" + std::to_string(Policy::kBlockThreads) + " threads x " +
                     std::to_string(Policy::kItems) + ")";
  report["tiles"] = tiles;
  if (n == 0) return text + "; nothing to scan";
  if (cfg.algorithm == Algorithm::scan_then_propagate) {
    std::vector<std::size_t> levels = {n};
    while (levels.back() > static_cast<std::size_t>(Policy::kTile)) {
      levels.push_back((levels.back() + Policy::kTile - 1) / Policy::kTile);
    }
    text += "; levels of block sums:";
    for (std::size_t i = 0; i < levels.size(); ++i) text += (i ? " -> " : " ") + std::to_string(levels[i]);
    report["levels"] = levels;
  } else {
    unsigned blocks = ch05::reduce_then_scan_blocks<Policy, In, Op>(n, cfg.max_blocks);
    const std::size_t per_block = (tiles + blocks - 1) / blocks;
    blocks = static_cast<unsigned>((tiles + per_block - 1) / per_block);
    text += "; " + std::to_string(blocks) + (blocks == 1 ? " block" : " blocks") + " of up to " +
            std::to_string(per_block) + (per_block == 1 ? " tile" : " tiles") + ", a spine of " +
            std::to_string(blocks);
    report["blocks"] = blocks;
    report["tiles_per_block"] = per_block;
  }
  return text;
}

template <class Policy, class In, class Op>
int run(const Config& cfg, Op op) {
  using Acc = typename Op::value_type;
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool inclusive = cfg.kind == ScanKind::inclusive;
  const bool verbose = !cfg.common.quiet;
  scanlab::Json report = {{"chapter", "05_multi_block"},
                          {"backend", scanlab::backend_name()},
                          {"algorithm", algorithm_label(cfg.algorithm)},
                          {"n", n},
                          {"tile", Policy::kTile},
                          {"seed", cfg.common.seed},
                          {"kind", scanlab::to_string(cfg.kind)},
                          {"op", cfg.op},
                          {"type", scanlab::type_label<In>()},
                          {"sum_type", scanlab::type_label<Acc>()},
                          {"in_place", cfg.in_place}};
  const std::string what =
      scanlab::describe_scan<In, Op>(n, cfg.kind) +
      (std::is_same_v<In, Acc> ? std::string() : std::string(" -> ") + scanlab::type_label<Acc>()) +
      (cfg.in_place ? ", in place" : "");
  const std::string structure = describe_structure<Policy, In, Op>(cfg, n, report);
  if (verbose) std::cout << algorithm_label(cfg.algorithm) << ": " << structure << "\n";

  // Device memory first: on a GPU, say clearly when it does not fit.
  const std::size_t bytes_needed = n * sizeof(In) + (cfg.in_place ? 0 : n * sizeof(Acc));
  if (!scanlab::on_emulator()) {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    SCANLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes_needed + (std::size_t(64) << 20) > free_bytes) {
      std::cerr << "ch05_multi_block: error: input and output need " << bytes_needed / (1 << 20)
                << " MiB of device memory; " << free_bytes / (1 << 20) << " MiB are free\n";
      return 1;
    }
  }

  std::vector<In> in;
  {
    SCANLAB_NVTX_RANGE("generate");
    in = scanlab::random_scan_input<In>(n, cfg.common.seed);
  }
  scanlab::DeviceBuffer<In> d_in(n);
  scanlab::DeviceBuffer<Acc> d_out(cfg.in_place ? 0 : n);
  Acc* out_ptr = nullptr;
  if constexpr (std::is_same_v<In, Acc>) out_ptr = cfg.in_place ? d_in.data() : d_out.data();
  else out_ptr = d_out.data();
  ch05::Scratch<Acc> scratch;
  std::unique_ptr<scanlab::TraceBuffer> trace;
  if (!cfg.trace.empty()) trace = std::make_unique<scanlab::TraceBuffer>(1 << 16, std::size_t(16) << 20);
  const scanlab::TraceLog log = trace ? trace->log() : scanlab::TraceLog{};

  const std::function<void()> launch = [&] {
    if (cfg.algorithm == Algorithm::scan_then_propagate) {
      ch05::scan_then_propagate<Policy>(d_in.data(), out_ptr, n, inclusive, op, scratch, 0, log);
    } else {
      ch05::reduce_then_scan<Policy>(d_in.data(), out_ptr, n, inclusive, op, scratch, 0, cfg.max_blocks, log);
    }
  };

  const std::vector<Acc> got = scanlab::upload_run_download(in, d_in, d_out, cfg.in_place, launch);
  scanlab::VerifyResult check;
  {
    SCANLAB_NVTX_RANGE("verify");
    check = verify(in, got, cfg.kind, op);
  }
  std::cout << algorithm_label(cfg.algorithm) << ": " << scanlab::verdict_line(check, what) << "\n";
  report["verified"] = check.ok;
  report["message"] = check.message();

  if (trace) {
    scanlab::TraceWriter writer(cfg.trace, {{"chapter", "05_multi_block"},
                                            {"backend", scanlab::backend_name()},
                                            {"algorithm", algorithm_label(cfg.algorithm)},
                                            {"kind", scanlab::to_string(cfg.kind)},
                                            {"op", cfg.op},
                                            {"elem", scanlab::type_label<Acc>()},
                                            {"n", n},
                                            {"tile", Policy::kTile},
                                            {"verified", check.ok}});
    writer.records(*trace);
    scanlab::finish_trace_with_result<std::is_arithmetic_v<Acc> && std::is_same_v<In, Acc>>(writer, in, got);
    if (verbose) std::cout << "trace written to " << cfg.trace << "\n";
  }

  // Timing: only a GPU's times mean anything, and only a correct scan is worth timing.
  if (!scanlab::on_emulator() && check.ok && n > 0 && !trace) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b = scanlab::time_bandwidth(
        launch, /*warmup=*/3, cfg.common.repeat, static_cast<double>(n) * static_cast<double>(sizeof(In) + sizeof(Acc)),
        "counting n reads and n writes");
    scanlab::add_timing(report, b);
  } else if (verbose && scanlab::on_emulator()) {
    scanlab::say_not_timed();
  }
  scanlab::write_json_report(cfg.common.json, report);
  return check.ok ? 0 : 1;
}

template <class Policy>
int dispatch(const Config& cfg) {
  const std::string& sum = cfg.sum_type;
  if (cfg.op == "affine") return run<Policy, Affine<std::uint32_t>>(cfg, AffineCompose<std::uint32_t>{});
  if (cfg.op == "max") {
    if (cfg.type == "float") return run<Policy, float>(cfg, Max<float>{});
    return run<Policy, std::int32_t>(cfg, Max<std::int32_t>{});
  }
  if (cfg.type == "int32") {
    return sum == "int64" ? run<Policy, std::int32_t>(cfg, Plus<std::int64_t>{})
                          : run<Policy, std::int32_t>(cfg, Plus<std::int32_t>{});
  }
  if (cfg.type == "uint32") {
    return sum == "uint64" ? run<Policy, std::uint32_t>(cfg, Plus<std::uint64_t>{})
                           : run<Policy, std::uint32_t>(cfg, Plus<std::uint32_t>{});
  }
  if (cfg.type == "int64") return run<Policy, std::int64_t>(cfg, Plus<std::int64_t>{});
  if (cfg.type == "uint64") return run<Policy, std::uint64_t>(cfg, Plus<std::uint64_t>{});
  return run<Policy, float>(cfg, Plus<float>{});
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 05: multi-block scan of any length (scan-then-propagate, reduce-then-scan)",
                           "ch05_multi_block"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, kDefaultN);
  scanlab::ScanKindFlags kind_flags;
  std::string algorithm = "reduce-then-scan";
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::inclusive);
  cli.option("--algorithm", algorithm,
             "scan-then-propagate: scan tiles, scan the block sums (recursively), add them (~4n "
             "global traffic); reduce-then-scan: reduce ranges, scan the spine, scan ranges (~3n)")
      .one_of({"scan-then-propagate", "reduce-then-scan"})
      .show_default();
  scanlab::Option tile_opt = cli.option("--tile", cfg.tile,
                                        "items per tile: 4096 (256 threads x 16) or 32 (one warp x 1: many "
                                        "blocks, deep recursion, small pictures)")
                                 .one_of({32, 4096})
                                 .show_default();
  cli.option("--type", cfg.type, "input element type")
      .one_of({"int32", "uint32", "int64", "uint64", "float"})
      .show_default();
  cli.option("--sum-type", cfg.sum_type,
             "type of the sums (default: the input type): int64 for int32 input, uint64 for uint32")
      .one_of({"int32", "uint32", "int64", "uint64", "float"});
  cli.option("--op", cfg.op, "operator: plus, max (int32, float), or affine (composition of affine maps over uint32)")
      .one_of({"plus", "max", "affine"})
      .show_default();
  cli.flag("--in-place", cfg.in_place, "write the result over the input (needs sum type == input type)");
  cli.flag("--allow-wrap", cfg.allow_wrap,
           "allow 32-bit integer sums that can exceed their range (they wrap around, and the check "
           "expects the same wrapped values)");
  cli.option("--max-blocks", cfg.max_blocks,
             "reduce-then-scan: use at most this many blocks (0: as many as fill the device)")
      .show_default();
  cli.option("--trace", cfg.trace,
             "write a trace of block sums, spine and uniform adds to this file "
             "(traced builds: the emulator's, and ch05_multi_block_solution_traced on a GPU)");
  cli.parse(argc, argv);

  cfg.kind = kind_flags.kind();
  cfg.algorithm = algorithm == "scan-then-propagate" ? Algorithm::scan_then_propagate : Algorithm::reduce_then_scan;
  if (cfg.sum_type.empty()) cfg.sum_type = cfg.op == "affine" ? "uint32" : cfg.type;
  auto usage_error = [&](const std::string& message) {
    return cli.usage_error(message);
  };

  // Combinations this driver offers.
  if (cfg.op == "affine" && (cfg.type != "int32" || cfg.sum_type != "uint32")) {
    return usage_error("--op affine composes affine maps over uint32; it takes no --type or --sum-type");
  }
  if (cfg.op == "max" && ((cfg.type != "int32" && cfg.type != "float") || cfg.sum_type != cfg.type)) {
    return usage_error("--op max runs on int32 or float, with no --sum-type");
  }
  if (cfg.op == "plus" && cfg.sum_type != cfg.type && !(cfg.type == "int32" && cfg.sum_type == "int64") &&
      !(cfg.type == "uint32" && cfg.sum_type == "uint64")) {
    return usage_error("--sum-type " + cfg.sum_type + " with --type " + cfg.type +
                       ": the sums are either the input type, or int64 for int32 and uint64 for uint32 input");
  }
  if (cfg.in_place && cfg.sum_type != cfg.type && cfg.op == "plus") {
    return usage_error("--in-place needs the sums in the input type (no --sum-type)");
  }
  if (!cfg.trace.empty()) {
    if (!scanlab::trace_enabled()) {
      return usage_error("--trace needs a traced build: the emulator's, or ch05_multi_block_solution_traced on a GPU");
    }
    if (!tile_opt.given()) cfg.tile = 32;
    if (cfg.common.n > kTraceMaxN) {
      return usage_error("a traced run records every tile; keep n <= " + std::to_string(kTraceMaxN) +
                         " (with --tile 32, n = 100..1100 gives two or three levels)");
    }
  }

  // Sizes it cannot handle, said before anything is allocated.
  const std::uint64_t n = cfg.common.n;
  if (scanlab::on_emulator() && n > kEmulatorMaxN) {
    return usage_error("n = " + std::to_string(n) +
                       " is more than the emulator runs in reasonable time and "
                       "memory (at most 2^27 = " +
                       std::to_string(kEmulatorMaxN) +
                       "); sizes past 2^31 are for a GPU build (ch05_multi_block_solution on the gpu preset)");
  }
  if (cfg.op == "plus" && (cfg.sum_type == "int32" || cfg.sum_type == "uint32") && !cfg.allow_wrap) {
    const double limit = cfg.sum_type == "int32" ? 2147483647.0 : 4294967295.0;
    if (static_cast<double>(n) * kMaxInputMagnitude > limit) {
      return usage_error("n = " + std::to_string(n) + " " + cfg.type + " values in [" +
                         (cfg.type == "int32" ? "-100" : "0") + ", 100] can sum past the " + cfg.sum_type +
                         " range, where the sums wrap around. Accumulate in 64 bits (--sum-type " +
                         (cfg.type == "int32" ? "int64" : "uint64") + ") or pass --allow-wrap");
    }
  }
  if (n > 0 && (n - 1) / static_cast<std::uint64_t>(cfg.tile) >= 0x7fffffffu &&
      cfg.algorithm == Algorithm::scan_then_propagate) {
    return usage_error("n = " + std::to_string(n) + " needs more than 2^31 - 1 tiles of " + std::to_string(cfg.tile) +
                       "; use --tile 4096");
  }

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 05: a scan of any length across many blocks. Each block scans a tile; the\n"
                   "tiles' totals are scanned in turn and each tile gets everything to its left.\n"
                << "backend: " << scanlab::backend_description() << (scanlab::trace_enabled() ? " (traced build)" : "")
                << "\n";
    }
    if (cfg.tile == 32) return dispatch<ch05::WarpTiles>(cfg);
    return dispatch<ch05::LargeTiles>(cfg);
  });
}
