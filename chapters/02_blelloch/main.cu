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
//   ch02_blelloch_solution_traced --input 3,1,7,0,4,1,6,3 --trace t.jsonl
//                                                the shared array after every level (lab viz 02)
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/cli.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/format.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/trace.hpp>
#include <scanlab/trace_writer.hpp>
#include <scanlab/verify.hpp>

#include "blelloch.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
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

// ---- names for what is scanned, as the reports print them ----------------------------------

template <class T>
const char* type_label() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else return "affine<uint32>";
}

template <class Op>
const char* op_label() {
  if constexpr (std::is_same_v<Op, AffineCompose<std::uint32_t>>) return "affine composition";
  else if constexpr (std::is_same_v<Op, Max<typename Op::value_type>>) return "max";
  else return "sum";
}

template <class T, class Op>
std::string describe(std::size_t n, ScanKind kind) {
  return std::to_string(n) + (n == 1 ? " element, " : " elements, ") + scanlab::to_string(kind) +
         " " + op_label<Op>() + ", " + type_label<T>();
}

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

// ---- input and verification ----------------------------------------------------------------

// Random input, never all zeros; affine maps get odd multipliers (see chapter 01's driver).
template <class T>
std::vector<T> make_input(const Config& cfg, std::size_t n) {
  if constexpr (std::is_same_v<T, std::int32_t>) {
    if (!cfg.input.empty()) return cfg.input;
  }
  if constexpr (std::is_same_v<T, Affine<std::uint32_t>>) {
    auto maps = scanlab::random_vector<T>(n, cfg.common.seed, 0u, 0xffffffffu);
    for (auto& f : maps) f.a |= 1u;
    return maps;
  } else {
    return scanlab::random_vector<T>(n, cfg.common.seed);
  }
}

template <class T, class Op>
scanlab::VerifyResult verify_segment(const T* in, const T* got, std::size_t n, ScanKind kind, Op op) {
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    return scanlab::verify_float_scan(in, got, n, kind);
  } else {
    std::vector<T> expected(n);
    if (kind == ScanKind::inclusive) scanlab::inclusive_scan_oracle(in, expected.data(), n, op);
    else scanlab::exclusive_scan_oracle(in, expected.data(), n, op);
    return scanlab::verify_exact(expected.data(), got, n);
  }
}

// The whole output, or tile by tile when every tile restarts its prefixes (tile > 0).
template <class T, class Op>
scanlab::VerifyResult verify_scan(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind,
                                  Op op, int tile) {
  if (tile <= 0) return verify_segment(in.data(), got.data(), in.size(), kind, op);
  scanlab::VerifyResult total;
  total.n = in.size();
  const std::size_t step = static_cast<std::size_t>(tile);
  for (std::size_t begin = 0; begin < in.size(); begin += step) {
    const std::size_t len = in.size() - begin < step ? in.size() - begin : step;
    scanlab::VerifyResult r = verify_segment(in.data() + begin, got.data() + begin, len, kind, op);
    if (!r.ok && total.ok) {
      total = r;
      total.first_index += begin;
      total.note = "in the tile starting at " + std::to_string(begin) + (r.note.empty() ? "" : "; " + r.note);
      total.mismatches = 0;
    }
    if (!r.ok) total.mismatches += r.mismatches;
  }
  total.n = in.size();
  return total;
}

std::string outcome(const scanlab::VerifyResult& r, const std::string& what) {
  return r.ok ? "verified: " + what : "FAILED: " + what + ": " + r.message();
}

void write_json(const Config& cfg, const nlohmann::json& report) {
  if (cfg.common.json.empty()) return;
  std::ofstream file(cfg.common.json);
  file << report.dump(2) << "\n";
  if (!file) throw std::runtime_error("cannot write the JSON report to '" + cfg.common.json + "'");
}

// ---- the run -------------------------------------------------------------------------------

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = cfg.input.empty() ? static_cast<std::size_t>(cfg.common.n) : cfg.input.size();
  const bool verbose = !cfg.common.quiet;
  const std::string what = describe<T, Op>(n, cfg.kind);
  const int block_tile = cfg.tiles ? 0 : ch02::blelloch_tile_for(static_cast<int>(n));
  nlohmann::json report = {{"chapter", "02_blelloch"}, {"backend", scanlab::backend_name()},
                           {"variant", cfg.tiles ? "tiles" : "block"}, {"n", n},
                           {"seed", cfg.common.seed}, {"kind", scanlab::to_string(cfg.kind)},
                           {"op", cfg.op}, {"type", type_label<T>()}};
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

  {
    SCANLAB_NVTX_RANGE("upload");
    d_in.upload(in);
    d_out.fill_poison();
  }
  {
    SCANLAB_NVTX_RANGE("scan");
    launch();
    SCANLAB_CHECK_SYNC();
  }
  std::vector<T> got;
  {
    SCANLAB_NVTX_RANGE("download");
    got = d_out.download();
  }
  scanlab::VerifyResult check;
  {
    SCANLAB_NVTX_RANGE("verify");
    check = verify_scan(in, got, cfg.kind, op, cfg.tiles ? cfg.tile : 0);
  }
  std::cout << (cfg.tiles ? "tiles" : "block") << ": " << outcome(check, what)
            << (cfg.tiles ? " (tiles of " + std::to_string(cfg.tile) + ")"
                          : " (tile of " + std::to_string(block_tile) + ", " +
                                std::to_string(block_tile / 2) + " threads)")
            << "\n";
  if (verbose && n <= 32) {
    std::cout << "input:  " << show_all(in) << "\n"
              << scanlab::to_string(cfg.kind) << ": " << show_all(got) << "\n";
  }
  report["verified"] = check.ok;
  report["message"] = check.message();

  if (trace) {
    scanlab::TraceWriter writer(cfg.trace, {{"chapter", "02_blelloch"},
                                            {"backend", scanlab::backend_name()},
                                            {"kind", scanlab::to_string(cfg.kind)},
                                            {"op", cfg.op},
                                            {"elem", type_label<T>()},
                                            {"n", n},
                                            {"tile", block_tile},
                                            {"verified", check.ok}});
    writer.records(*trace);
    // The result too, so a reader can check the last level against what was stored.
    nlohmann::json result = {{"type", "result"}, {"label", "output"}};
    if constexpr (std::is_same_v<T, std::int32_t>) {
      result["input"] = in;
      result["values"] = got;
    }
    writer.line(result);
    writer.finish();
    if (verbose) std::cout << "trace written to " << cfg.trace << "\n";
  }

  // Timing: only a GPU's times mean anything, and only a correct kernel is worth timing.
  if (!scanlab::on_emulator() && check.ok && n > 0 && !trace) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::TimingStats t = scanlab::time_ms(launch, /*warmup=*/3, cfg.common.repeat);
    const double bytes = 2.0 * static_cast<double>(n) * sizeof(T);
    const double gbps = scanlab::gbps(bytes, t.median_ms);
    std::cout << "median " << t.median_ms << " ms over " << t.reps << " run(s), " << gbps
              << " GB/s (counting 2*n*sizeof(T) bytes)\n";
    if (verbose && !cfg.tiles) {
      std::cout << "(one block on one SM: the time is mostly launch latency; --tiles fills the GPU)\n";
    }
    report["median_ms"] = t.median_ms;
    report["min_ms"] = t.min_ms;
    report["max_ms"] = t.max_ms;
    report["reps"] = t.reps;
    report["gbps"] = gbps;
  } else if (verbose && scanlab::on_emulator()) {
    std::cout << "(not timed: the emulator's times say nothing about a GPU)\n";
  }

  write_json(cfg, report);
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
  CLI::App app{"Chapter 02: work-efficient (Blelloch) scan of one tile in one thread block",
               "ch02_blelloch"};
  Config cfg;
  scanlab::add_common_options(app, cfg.common, kDefaultN);
  bool inclusive_flag = false;
  bool exclusive_flag = false;
  std::string input_text;
  auto* inclusive_opt = app.add_flag("--inclusive", inclusive_flag, "inclusive scan");
  auto* exclusive_opt = app.add_flag("--exclusive", exclusive_flag,
                                     "exclusive scan: out[0] = identity (the default)");
  inclusive_opt->excludes(exclusive_opt);
  app.add_option("--type", cfg.type, "element type")
      ->check(CLI::IsMember({"int", "float"}))
      ->capture_default_str();
  app.add_option("--op", cfg.op, "operator: plus, max, or affine (composition of affine maps over uint32)")
      ->check(CLI::IsMember({"plus", "max", "affine"}))
      ->capture_default_str();
  auto* input_opt = app.add_option("--input", input_text,
                                   "scan these int32 values (comma-separated, e.g. 3,1,7,0,4,1,6,3) "
                                   "instead of random ones; sets n");
  auto* tiles_opt = app.add_flag("--tiles", cfg.tiles,
                                 "scan independent tiles (one block each) of any n: throughput");
  auto* tile_opt = app.add_option("--tile", cfg.tile,
                                  "tile length for --tiles (a power of two, 2..2048; implies --tiles)")
                       ->check(CLI::Range(2, ch02::kMaxBlockScan))
                       ->capture_default_str();
  auto* trace_opt = app.add_option("--trace", cfg.trace,
                                   "write the shared array after every level to this JSON-lines file "
                                   "(traced builds: ch02_blelloch_solution_traced)");
  input_opt->excludes(tiles_opt);
  input_opt->excludes(tile_opt);
  trace_opt->excludes(tiles_opt);
  trace_opt->excludes(tile_opt);
  scanlab::run_cli(app, argc, argv);

  cfg.kind = inclusive_flag ? ScanKind::inclusive : ScanKind::exclusive;
  if (*tile_opt) cfg.tiles = true;
  auto usage_error = [&](const std::string& message) {
    std::cerr << app.get_name() << ": error: " << message << "\n\n" << app.help();
    return 2;
  };
  if (cfg.op == "affine" && cfg.type != "int") {
    return usage_error("--op affine composes affine maps over uint32; it takes no --type float");
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
    return usage_error("--trace needs the traced build, ch02_blelloch_solution_traced (lab viz 02 "
                       "builds and runs it)");
  }

  try {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 02: Blelloch scan. An up-sweep builds partial sums in a tree over the "
                   "tile, a down-sweep\nturns them into exclusive prefixes: O(n) work in 2 log2 n "
                   "levels, two elements per thread.\n"
                << "backend: "
                << (scanlab::on_emulator() ? std::string("emulator (CPU SIMT emulator)")
                                           : scanlab::device_description())
                << (scanlab::trace_enabled() ? " (traced build)" : "") << "\n";
    }
    if (cfg.op == "affine") return run<Affine<std::uint32_t>>(cfg, AffineCompose<std::uint32_t>{});
    if (cfg.type == "float") {
      return cfg.op == "max" ? run<float>(cfg, Max<float>{}) : run<float>(cfg, Plus<float>{});
    }
    return cfg.op == "max" ? run<std::int32_t>(cfg, Max<std::int32_t>{})
                           : run<std::int32_t>(cfg, Plus<std::int32_t>{});
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": error: " << e.what() << "\n";
    return 1;
  }
}
