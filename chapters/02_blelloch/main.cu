// Chapter 02 driver: the work-efficient (Blelloch) scan of one tile in one thread block, and many
// independent tiles.
//
// Builds an input (random, or the values given with --input), runs one scan of blelloch.cuh (the
// exercise's or the solution's, whichever this program was built against) into a poisoned output,
// checks it with scanlab's oracle and, on a GPU, times it. Exit code 0 only when verified.
//
//   ch02_blelloch_solution                       2048 int32, exclusive sum, one block of 1024 threads
//   ch02_blelloch_solution --input 3,1,7,0,4,1,6,3   the worked example, printed in full
//   ch02_blelloch_solution -n 1000 --inclusive --op affine
//   ch02_blelloch_solution -n 2^24 --tiles       independent 1024-element tiles (throughput)
//   ch02_blelloch_solution --input 3,1,7,0,4,1,6,3 --trace t.jsonl
//                                                the shared array after every level (lab viz 02;
//                                                the emulator's build is a traced build)

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
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

#include "blelloch_dispatch.cuh"

namespace {

using scanlab::Affine;
using scanlab::ScanKind;

constexpr std::uint64_t kDefaultN = ch02::kMaxBlockScan;
constexpr int kDefaultTile = 1024;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::exclusive;
  std::string type = "int";
  std::string op = "plus";
  bool tiles = false;
  int tile = kDefaultTile;
  std::vector<std::int32_t> input;  // --input: the values to scan instead of random ones
  std::string trace;                // --trace FILE (traced builds)
};

// ---- printing and input --------------------------------------------------------------------

template <class T>
std::string show(const T& v) {
  if constexpr (std::is_same_v<T, Affine<std::uint32_t>>) {
    return "(" + std::to_string(v.a) + "," + std::to_string(v.b) + ")";
  } else {
    return scanlab::to_display_string(v);
  }
}

template <class T>
std::string show_all(const std::vector<T>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + show(v[i]);
  return s;
}

// The values of --input, or random ones.
template <class T>
std::vector<T> make_input(const Config& cfg, std::size_t n) {
  if constexpr (std::is_same_v<T, std::int32_t>) {
    if (!cfg.input.empty()) return cfg.input;
  }
  return scanlab::random_scan_input<T>(n, cfg.common.seed);
}

// ---- the run -------------------------------------------------------------------------------

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = cfg.input.empty() ? static_cast<std::size_t>(cfg.common.n) : cfg.input.size();
  const bool verbose = !cfg.common.quiet;
  const std::string what = scanlab::describe_scan<T, Op>(n, cfg.kind);
  const int block_tile = cfg.tiles ? 0 : ch02::blelloch_tile_for(static_cast<int>(n));
  scanlab::Json report = {{"chapter", "02_blelloch"},
                          {"backend", scanlab::backend_name()},
                          {"variant", cfg.tiles ? "tiles" : "block"},
                          {"n", n},
                          {"seed", cfg.common.seed},
                          {"kind", scanlab::to_string(cfg.kind)},
                          {"op", cfg.op},
                          {"type", scanlab::type_label<T>()}};
  if (cfg.tiles) report["tile"] = cfg.tile;
  else report["block_tile"] = block_tile;

  const std::vector<T> in = make_input<T>(cfg, n);
  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out(n);
  std::unique_ptr<scanlab::TraceBuffer> trace;
  if (!cfg.trace.empty()) trace = std::make_unique<scanlab::TraceBuffer>();
  const scanlab::TraceLog log = trace ? trace->log() : scanlab::TraceLog{};
  const bool inclusive = cfg.kind == ScanKind::inclusive;
  const int block_n = static_cast<int>(n);  // checked against kMaxBlockScan in main

  const std::function<void()> launch = [&] {
    if (cfg.tiles) {
      if (inclusive) ch02::blelloch_inclusive_scan_tiles(d_in.data(), d_out.data(), n, cfg.tile, op);
      else ch02::blelloch_exclusive_scan_tiles(d_in.data(), d_out.data(), n, cfg.tile, op);
    } else if (inclusive) {
      ch02::blelloch_inclusive_scan_block(d_in.data(), d_out.data(), block_n, op, 0, log);
    } else {
      ch02::blelloch_exclusive_scan_block(d_in.data(), d_out.data(), block_n, op, 0, log);
    }
  };

  const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out, /*in_place=*/false, launch);
  scanlab::VerifyResult check;
  {
    SCANLAB_NVTX_RANGE("verify");
    check = scanlab::verify_tiles(in, got, cfg.kind, op, cfg.tiles ? static_cast<std::size_t>(cfg.tile) : 0);
  }
  std::cout << (cfg.tiles ? "tiles" : "block") << ": " << scanlab::verdict_line(check, what)
            << (cfg.tiles
                    ? " (tiles of " + std::to_string(cfg.tile) + ")"
                    : " (tile of " + std::to_string(block_tile) + ", " + std::to_string(block_tile / 2) + " threads)")
            << "\n";
  if (verbose && n <= 32) {
    std::cout << "input:  " << show_all(in) << "\n" << scanlab::to_string(cfg.kind) << ": " << show_all(got) << "\n";
  }
  report["verified"] = check.ok;
  report["message"] = check.message();

  if (trace) {
    scanlab::TraceWriter writer(cfg.trace, {{"chapter", "02_blelloch"},
                                            {"backend", scanlab::backend_name()},
                                            {"kind", scanlab::to_string(cfg.kind)},
                                            {"op", cfg.op},
                                            {"elem", scanlab::type_label<T>()},
                                            {"n", n},
                                            {"tile", block_tile},
                                            {"verified", check.ok}});
    writer.records(*trace);
    scanlab::finish_trace_with_result<std::is_same_v<T, std::int32_t>>(writer, in, got);
    if (verbose) std::cout << "trace written to " << cfg.trace << "\n";
  }

  // Timing: only a GPU's times mean anything, and only a correct kernel is worth timing.
  if (!scanlab::on_emulator() && check.ok && n > 0 && !trace) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b =
        scanlab::time_bandwidth(launch, /*warmup=*/3, cfg.common.repeat, 2.0 * static_cast<double>(n) * sizeof(T),
                                "counting 2*n*sizeof(T) bytes");
    if (verbose && !cfg.tiles) {
      std::cout << "(one block on one SM: the time is mostly launch latency; --tiles fills the GPU)\n";
    }
    scanlab::add_timing(report, b);
  } else if (verbose && scanlab::on_emulator()) {
    scanlab::say_not_timed();
  }

  scanlab::write_json_report(cfg.common.json, report);
  return check.ok ? 0 : 1;
}

// "3,1,7,0" -> {3, 1, 7, 0}; throws on anything that is not a comma-separated int32 list.
std::vector<std::int32_t> parse_input_list(const std::string& text) {
  std::vector<std::int32_t> values;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size() || v < INT32_MIN || v > INT32_MAX) {
      throw std::invalid_argument("--input: '" + item + "' is not an int32");
    }
    values.push_back(static_cast<std::int32_t>(v));
  }
  if (values.empty()) throw std::invalid_argument("--input: no values");
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 02: work-efficient (Blelloch) scan of one tile in one thread block",
                           "ch02_blelloch"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, kDefaultN);
  scanlab::ScanKindFlags kind_flags;
  std::string input_text;
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::exclusive);
  scanlab::add_element_options(cli, cfg.type, cfg.op);
  scanlab::Option input_opt = cli.option("--input", input_text,
                                         "scan these int32 values (comma-separated, e.g. 3,1,7,0,4,1,6,3) "
                                         "instead of random ones; sets n");
  const scanlab::TilesOptions tiles = scanlab::add_tiles_options(cli, cfg.tiles, cfg.tile, ch02::kMaxBlockScan);
  scanlab::Option trace_opt = cli.option("--trace", cfg.trace,
                                         "write the shared array after every level to this JSON-lines file "
                                         "(traced builds: the emulator's, and ch02_blelloch_solution_traced on a GPU)");
  input_opt.excludes(tiles.tiles);
  input_opt.excludes(tiles.tile);
  trace_opt.excludes(tiles.tiles);
  trace_opt.excludes(tiles.tile);
  cli.parse(argc, argv);

  cfg.kind = kind_flags.kind();
  if (tiles.tile.given()) cfg.tiles = true;
  auto usage_error = [&](const std::string& message) {
    return cli.usage_error(message);
  };
  if (const std::string error = scanlab::element_options_error(cfg.type, cfg.op); !error.empty()) {
    return usage_error(error);
  }
  if (!input_text.empty()) {
    try {
      cfg.input = parse_input_list(input_text);
    } catch (const std::exception& e) {
      return usage_error(e.what());
    }
    if (cfg.type != "int" || cfg.op == "affine") return usage_error("--input takes int32 values only");
  }
  if (cfg.tiles && !ch02::is_power_of_two(cfg.tile)) {
    return usage_error("--tile " + std::to_string(cfg.tile) + " is not a power of two");
  }
  const std::uint64_t n = cfg.input.empty() ? cfg.common.n : cfg.input.size();
  if (!cfg.tiles && n > static_cast<std::uint64_t>(ch02::kMaxBlockScan)) {
    return usage_error("n = " + std::to_string(n) + " is more than one block scans (at most " +
                       std::to_string(ch02::kMaxBlockScan) +
                       " elements, two per thread). Use --tiles to scan independent tiles of any "
                       "length; chapter 05 scans long arrays as a whole.");
  }
  if (!cfg.trace.empty() && !scanlab::trace_enabled()) {
    return usage_error("--trace needs a traced build: the emulator's (lab viz 02 builds and runs it), or "
                       "ch02_blelloch_solution_traced on a GPU");
  }

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 02: Blelloch scan. An up-sweep builds partial sums in a tree over the "
                   "tile, a down-sweep\nturns them into exclusive prefixes: O(n) work in 2 log2 n "
                   "levels, two elements per thread.\n"
                << "backend: " << scanlab::backend_description() << (scanlab::trace_enabled() ? " (traced build)" : "")
                << "\n";
    }
    return scanlab::with_element_operator(cfg.type, cfg.op, [&](auto op) {
      return run<typename decltype(op)::value_type>(cfg, op);
    });
  });
}
