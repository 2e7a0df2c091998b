// scanlab_bench: command line and exit codes. GPU only; the methodology is in harness.cu.
//   exit 0: all rows verified (or no GPU: nothing to measure), 1: a row failed verification or
//   the device failed, 2: bad arguments.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/cli.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/tuning.hpp>

#include "harness.hpp"
#include "plot_exec.hpp"
#include "registry.hpp"
#include "report.hpp"
#include "tune.hpp"

namespace {

using namespace scanlab::bench;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<size_t> resolve_sizes(const std::vector<std::string>& list, int min_log2, int max_log2, int step) {
  std::vector<size_t> sizes;
  if (!list.empty()) {
    for (const std::string& s : list) {
      uint64_t n = 0;
      try {
        n = scanlab::parse_size(s);
      } catch (const std::exception& e) {
        throw UsageError("--sizes: cannot read '" + s + "': " + e.what());
      }
      if (n == 0) throw UsageError("--sizes: sizes must be at least 1");
      sizes.push_back(static_cast<size_t>(n));
    }
    return sizes;
  }
  if (min_log2 > max_log2) throw UsageError("--min-log2 must not exceed --max-log2");
  for (int k = min_log2; k <= max_log2; k += step) sizes.push_back(size_t(1) << k);
  return sizes;
}

void check_writable(const std::string& path, const char* option) {
  if (path.empty()) return;
  std::ofstream probe(path);
  if (!probe) throw UsageError(std::string(option) + ": cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  Registry reg;
  register_baseline_rows(reg);
  register_chapter_rows(reg);
  std::vector<std::string> all_names;
  for (const Row* r : reg.all()) all_names.push_back(r->name);

  Config cfg;
  cfg.types = {"int32", "float"};
  cfg.algorithms = all_names;
  std::vector<std::string> size_list;
  int min_log2 = 16, max_log2 = 28, step_log2 = 2;
  std::string csv_path, json_path, plot_path;
  bool list_rows = false;
  bool tune = false;
  std::string tune_file = scanlab::tuning_file_path();

  CLI::App app{"scanlab_bench: times prefix scans on the GPU next to a device-to-device copy and "
               "cub::DeviceScan, verifying every row"};
  app.add_option("--sizes", size_list, "element counts, comma-separated (65536, 2^20, 1M, 16Mi)")->delimiter(',');
  auto* opt_min = app.add_option("--min-log2", min_log2, "smallest size 2^k (default 16)")->check(CLI::Range(0, 40));
  auto* opt_max = app.add_option("--max-log2", max_log2, "largest size 2^k (default 28)")->check(CLI::Range(0, 40));
  auto* opt_step = app.add_option("--step-log2", step_log2, "step in k (default 2)")->check(CLI::Range(1, 40));
  app.get_option("--sizes")->excludes(opt_min)->excludes(opt_max)->excludes(opt_step);
  app.add_option("--types", cfg.types, "int32,float (default both)")
      ->delimiter(',')
      ->check(CLI::IsMember({"int32", "float"}));
  app.add_option("--algorithms", cfg.algorithms, "rows to run, comma-separated (default all; see --list)")
      ->delimiter(',')
      ->check(CLI::IsMember(all_names));
  app.add_option("--reps", cfg.reps, "timed repetitions per row (default 20)")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", cfg.warmup, "untimed runs first (default 3)")->check(CLI::Range(0, 1000));
  app.add_option("--seed", cfg.seed, "input data seed");
  app.add_option("--spin-us", cfg.spin_us, "spin kernel before each repetition, microseconds (default 50)")
      ->check(CLI::Range(0.0, 100000.0));
  app.add_flag("--l2-warm", cfg.l2_warm, "reuse one buffer pair: small sizes then measure a hot L2");
  app.add_option("--device", cfg.device, "CUDA device ordinal (default 0)");
  app.add_option("--csv", csv_path, "write the rows as CSV");
  app.add_option("--json", json_path, "write the rows and the run's metadata as JSON");
  app.add_option("--plot", plot_path,
                 "draw the run into this SVG (bench/plot.py, matplotlib): GB/s against n per type, the copy and "
                 "the CUB rows beside the rows asked for (also shown in the table); the run's JSON goes to --json, "
                 "or beside the SVG (FILE.json)");
  app.add_flag("--list", list_rows, "list the rows and exit");
  app.add_flag(
      "--tune", tune,
      "./lab tune: measure chapters 07 and 11 with each tuned tile shape and poll schedule on this GPU "
      "(default: int32; chapter 07 at 2^24 and 2^26, chapter 11 at 2^26 and 2^28, where it stages its tiles) and "
      "keep the best in the tuning file the chapters read");
  app.add_option("--tune-file", tune_file, "with --tune: the tuning file to write")->capture_default_str();

  try {
    app.parse(argc, argv);
    // --tune without sizes: each chapter at its own (bench/tune.hpp, TuneCandidate::sizes).
    const bool tune_own_sizes =
        tune && size_list.empty() && app.count("--min-log2") + app.count("--max-log2") + app.count("--step-log2") == 0;
    if (tune && app.count("--types") == 0) cfg.types = {"int32"};  // float moves the same 4-byte words
    if (tune && app.count("--algorithms") > 0)
      throw UsageError("--tune measures its own rows; it takes no --algorithms");
    if (tune && tune_file.empty()) throw UsageError("--tune: no place for the tuning file (set --tune-file or HOME)");
    // (none: each chapter is tuned at its own sizes)
    if (!tune_own_sizes) cfg.sizes = resolve_sizes(size_list, min_log2, max_log2, step_log2);
    if (cfg.types.empty() || cfg.algorithms.empty()) throw UsageError("--types and --algorithms need a value");
    if (!plot_path.empty()) {
      if (plot_path.size() < 5 || plot_path.compare(plot_path.size() - 4, 4, ".svg") != 0)
        throw UsageError("--plot " + plot_path + ": the plot is an SVG; name it FILE.svg");
      if (tune) throw UsageError("--tune writes a tuning file, not a run to plot; it takes no --plot");
      if (const std::string why = plot_unavailable(); !why.empty())
        throw UsageError("--plot: " + why + "; write the run with --json and draw it with ./lab plot");
      if (json_path.empty()) json_path = json_beside(plot_path);
      add_plot_baselines(reg, cfg.algorithms);
    }
    check_writable(csv_path, "--csv");
    check_writable(json_path, "--json");
    check_writable(plot_path, "--plot");
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "scanlab_bench: %s\n\n%s", e.what(), app.help().c_str());
    return 2;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "scanlab_bench: %s\n\n%s", e.what(), app.help().c_str());
    return 2;
  }

  std::vector<RowLegend> legend;
  for (const Row* r : reg.all()) {
    if (std::find(cfg.algorithms.begin(), cfg.algorithms.end(), r->name) != cfg.algorithms.end()) {
      legend.push_back({r->name, r->what, r->limit_note});
    }
  }
  if (list_rows) {
    for (const Row* r : reg.all()) {
      std::string against;  // the rows x CUB is taken against, where not cub
      for (const std::string& b : r->baselines) against += (against.empty() ? "" : ", ") + b;
      if (r->baselines.size() > 1) against = "the faster of " + against;
      std::printf("%-26s %s%s%s%s%s\n", r->name.c_str(), r->what.c_str(), r->limit_note.empty() ? "" : "; ",
                  r->limit_note.c_str(), against.empty() ? "" : "; x CUB against ", against.c_str());
    }
    return 0;
  }

  try {
    DeviceMeta meta;
    std::string why_not;
    try {
      if (!query_device(cfg.device, meta, why_not)) {
        std::printf("scanlab_bench: no usable CUDA GPU (%s); the benchmark needs one, nothing to measure\n",
                    why_not.c_str());
        return 0;
      }
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "scanlab_bench: %s\n\n%s", e.what(), app.help().c_str());
      return 2;
    }
    if (tune) return run_tuning(cfg, meta, tune_file);
    const std::vector<std::string> method = method_lines(cfg, meta);
    print_header(stdout, meta, method);
    print_table_head(stdout);
    const BenchResult result = run_benchmark(cfg, reg, meta, [](const std::vector<Measurement>& rows) {
      print_size_rows(stdout, rows);
    });
    const size_t failed = print_footer(stdout, result.rows, legend, result.fatal);
    if (!csv_path.empty()) {
      write_csv(csv_path, meta, result.rows);
      std::printf("wrote %s\n", csv_path.c_str());
    }
    if (!json_path.empty()) {
      write_json(json_path, cfg, meta, method, legend, result.rows, result.fatal);
      std::printf("wrote %s\n", json_path.c_str());
    }
    if (!plot_path.empty() && draw_run(json_path, plot_path) != 0) {
      std::fprintf(stderr, "scanlab_bench: the plot failed (above); the run is in %s: ./lab plot %s --out %s\n",
                   json_path.c_str(), json_path.c_str(), plot_path.c_str());
      return 1;
    }
    return (failed > 0 || !result.fatal.empty()) ? 1 : 0;
  } catch (const std::exception& e) {  // CudaError outside any row, or a file that cannot be written
    std::fflush(stdout);
    std::fprintf(stderr, "scanlab_bench: %s\n", e.what());
    return 1;
  }
}
