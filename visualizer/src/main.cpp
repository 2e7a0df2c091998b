// scanlab-viz: draws a chapter's diagrams from a traced run, as Graphviz DOT, SVG and PNG.
//
//   scanlab-viz 01 [--input 3,1,7,0,4,1,6,3 | --n 8]   Hillis-Steele step diagram
//   scanlab-viz 02 [--input ... | --n 8]               Blelloch up-sweep and down-sweep trees
//   scanlab-viz 03 [--n 2048] [--level "up 5"]...      bank conflicts per level, index-to-bank maps
//   scanlab-viz 05 [--n 70] [--algorithm ...] [--exclusive]   tiles, block sums, their scan, uniform add
//   scanlab-viz 02 --trace FILE                        draw an existing trace instead of running
// Chapters 02, 05, 07 and 08 run the chapter program on the emulator, where it is a traced build:
// the student's (chNN_slug, built from exercises/) or, with --solution, the reference's
// (chNN_slug_solution); chapter 03 runs it with --bank-report (the emulator's bank counter). All
// write JSON lines (book/docs/traces.md) that the diagrams are drawn from. Chapter 01's steps are
// computed from the input. Output: --out DIR, by default build/viz/NN under the source tree.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scanlab/cli.hpp"

#include "build_facts.hpp"
#include "diagrams.hpp"
#include "dot.hpp"
#include "lookback_snapshots.hpp"
#include "multi_block.hpp"
#include "solution_hint.hpp"
#include "trace_io.hpp"

namespace fs = std::filesystem;
using scanlab::viz::DotGraph;

namespace {

struct Options {
  std::string chapter;
  std::string input;
  int n = 8;
  bool n_given = false;  // chapter 03 defaults to a full 2048-element tile instead
  std::uint64_t seed = 1;
  std::string out;
  std::string trace;
  std::vector<std::string> levels;
  scanlab::viz::LookbackVizOptions lookback;      // chapter 07
  long long at = -1;                              // chapter 07: the snapshot's step (an event's seq)
  std::string algorithm = "scan-then-propagate";  // chapter 05
  bool algorithm_given = false;
  bool exclusive = false;       // chapter 05
  unsigned max_blocks = 2;      // chapter 05, reduce-then-scan
  bool solution = false;        // run the reference solution, not the exercise
  std::string program;          // run this build of the chapter program instead (--program)
  bool schedule_given = false;  // chapter 07: --schedule on the command line
};

// The program a chapter's diagrams come from: the student's build of chapters/NN_slug/main.cu (from
// exercises/) or the reference solution's. On the emulator the traced chapters' programs are traced
// builds (visualizer/CMakeLists.txt).
std::string program_of(const Options& o, const std::string& id) { return "ch" + id + (o.solution ? "_solution" : ""); }

// A trace without arrays: the build ran, but no SCANLAB_TRACE line recorded anything.
void require_arrays(const scanlab::viz::Trace& trace, const std::string& path, const Options& o) {
  if (!trace.arrays.empty()) return;
  throw std::runtime_error(path + " holds no arrays: " +
                           (o.solution ? std::string("the traced solution recorded nothing")
                                       : "your code records nothing yet. Add the SCANLAB_TRACE_BLOCK_ARRAY lines "
                                         "that your exercise's comments describe" +
                                             scanlab::viz::if_solutions(", or pass --solution to draw the reference "
                                                                        "solution's run")));
}

std::vector<long long> parse_list(const std::string& text) {
  std::vector<long long> v;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t used = 0;
    long long x = 0;
    try {
      x = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != item.size()) throw std::invalid_argument("--input: '" + item + "' is not an integer");
    v.push_back(x);
  }
  if (v.empty()) throw std::invalid_argument("--input: no values");
  return v;
}

// The values to draw: --input, else n small random integers (0..9, easy to add in one's head).
std::vector<long long> input_values(const Options& o) {
  if (!o.input.empty()) return parse_list(o.input);
  std::mt19937_64 rng(o.seed);
  std::vector<long long> v(static_cast<std::size_t>(o.n));
  for (auto& x : v) x = static_cast<long long>(rng() % 10);
  return v;
}

std::string join(const std::vector<long long>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

// Runs a program of the emulator build (or --program); prints the command first, like lab does.
void run_program(const std::string& program, const std::vector<std::string>& args, const Options& o) {
  const std::string path = o.program.empty() ? std::string(scanlab::viz::emu_bin_dir()) + "/" + program : o.program;
  if (!fs::exists(path)) {
    throw std::runtime_error("'" + path + "' is not built (cmake --build --preset cpu --target " + program + "_emu)");
  }
  std::string command = shell_quote(path);
  for (const std::string& a : args) command += " " + shell_quote(a);
  std::cerr << "+ " << command << "\n";
  const int status = std::system(command.c_str());
  const int rc = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  // Exit status 1: the chapter program ran and found its result wrong. That is when a picture of
  // what the code did helps most, so the diagrams are drawn anyway, from what the run recorded.
  if (rc == 1) {
    std::cerr << "scanlab-viz: " << program << " computed a wrong result (above); drawing what it did\n";
    return;
  }
  if (rc != 0) throw std::runtime_error(program + " failed (exit status " + std::to_string(rc) + ")");
}

void report(const std::vector<std::string>& files) {
  for (const std::string& f : files) std::cout << "wrote " << f << "\n";
}

// ---- chapters --------------------------------------------------------------------------------

void chapter01(const Options& o, const std::string& out) {
  if (!o.trace.empty()) throw std::invalid_argument("chapter 01 draws from --input; it reads no trace");
  const std::vector<long long> in = input_values(o);
  if (in.size() > 64) throw std::invalid_argument("at most 64 values fit a readable diagram");
  // Chapter 01's kernel records no trace; its steps are computed here, exactly as the kernel's
  // double buffer holds them: row k = row k-1 plus the element 2^(k-1) to the left.
  std::cout << "chapter 01: the steps below are computed from the definition, not from a run of your kernel "
               "(chapters 02, 03, 05 and 07 draw your code's own run)\n";
  std::vector<std::vector<nlohmann::json>> rows;
  std::vector<long long> cur = in;
  auto as_json = [](const std::vector<long long>& v) {
    std::vector<nlohmann::json> j(v.begin(), v.end());
    return j;
  };
  rows.push_back(as_json(cur));
  for (std::size_t offset = 1; offset < in.size(); offset *= 2) {
    std::vector<long long> next = cur;
    for (std::size_t i = offset; i < in.size(); ++i) next[i] = cur[i - offset] + cur[i];
    cur = next;
    rows.push_back(as_json(cur));
  }
  std::cout << "chapter 01: " << in.size() << " values, " << rows.size() - 1 << " steps; inclusive scan: ";
  for (long long x : cur) std::cout << x << " ";
  std::cout << "\n";
  // The same rows as a trace (book/docs/traces.md), for the step-through player (lab viz 01 --html).
  const std::string trace_path = out + "/steps.jsonl";
  std::ofstream trace(trace_path);
  trace << nlohmann::json{{"type", "meta"},   {"format", "scanlab-trace"},
                          {"version", 1},     {"chapter", "01_hillis_steele"},
                          {"computed", true}, {"kind", "inclusive"},
                          {"n", in.size()}}
               .dump()
        << "\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    trace << nlohmann::json{{"type", "array"},  {"seq", k},    {"label", "step"}, {"step", k},
                            {"block", 0},       {"thread", 0}, {"elem", "int64"}, {"count", rows[k].size()},
                            {"values", rows[k]}}
                 .dump()
          << "\n";
  }
  trace << nlohmann::json{{"type", "end"}, {"records", rows.size()}, {"dropped", 0}, {"truncated", 0}}.dump() << "\n";
  if (!trace) throw std::runtime_error("cannot write " + trace_path);
  report({trace_path});
  report(scanlab::viz::write_and_render(scanlab::viz::hillis_steele_steps(rows, in.size()), out, "steps"));
}

void chapter02(const Options& o, const std::string& out) {
  std::string trace_path = o.trace;
  if (trace_path.empty()) {
    const std::vector<long long> in = input_values(o);
    if (in.size() > 64) throw std::invalid_argument("at most 64 values fit a readable diagram");
    trace_path = out + "/trace.jsonl";
    fs::remove(trace_path);  // a trace of an earlier run must not pass for this one's
    run_program(program_of(o, "02_blelloch"), {"--input", join(in), "--trace", trace_path, "-q"}, o);
  }
  const scanlab::viz::Trace trace = scanlab::viz::read_trace(trace_path);
  if (trace.meta.value("chapter", "") != "02_blelloch") {
    throw std::runtime_error(trace_path + " is not a chapter 02 trace");
  }
  require_arrays(trace, trace_path, o);
  std::cout << "chapter 02: trace " << trace_path << " (" << trace.arrays.size() << " arrays)\n";
  for (const scanlab::viz::TraceArray& a : trace.arrays) {
    std::cout << "  " << a.label << " " << a.step << ":";
    for (const auto& v : a.values) std::cout << " " << scanlab::viz::value_text(v);
    std::cout << "\n";
  }
  report(scanlab::viz::write_and_render(scanlab::viz::blelloch_upsweep(trace), out, "upsweep"));
  report(scanlab::viz::write_and_render(scanlab::viz::blelloch_downsweep(trace), out, "downsweep"));
}

std::string slug(const std::string& level) {
  std::string s;
  for (const char c : level) {
    if (c != ' ') s += c;
  }
  return s;
}

void chapter03(const Options& o, const std::string& out) {
  std::string trace_path = o.trace;
  if (trace_path.empty()) {
    const int n = o.n_given ? o.n : 2048;  // the tree's middle levels need a full tile to conflict
    trace_path = out + "/banks.jsonl";
    fs::remove(trace_path);
    run_program(program_of(o, "03_bank_conflicts"), {"-n", std::to_string(n), "--bank-report", trace_path, "-q"}, o);
  }
  const scanlab::viz::Trace report_trace = scanlab::viz::read_trace(trace_path);
  report(scanlab::viz::write_and_render(scanlab::viz::bank_levels_table(report_trace), out, "bank_levels"));
  const std::vector<std::string> wanted = o.levels.empty() ? std::vector<std::string>{"load", "up 5"} : o.levels;
  const auto maps = report_trace.lines_of("bank_map");
  const auto banks = report_trace.lines_of("banks");
  for (const std::string& level : wanted) {
    bool found = false;
    for (std::size_t i = 0; i < maps.size() && i < banks.size(); ++i) {
      if (maps[i].value("level", "") != level) continue;
      report(scanlab::viz::write_and_render(scanlab::viz::bank_map(maps[i], banks[i]), out, "bank_map_" + slug(level)));
      found = true;
    }
    if (!found) throw std::invalid_argument("no level named '" + level + "' in " + trace_path);
  }
}

// Chapter 05: the multi-block picture (GPU Gems 3, Fig. 39-6) from the traced solution, with
// one-warp tiles of 32 so that a few tiles are a few dozen elements.
void chapter05(const Options& o, const std::string& out) {
  std::string trace_path = o.trace;
  if (trace_path.empty()) {
    const int n = o.n_given ? o.n : 70;  // three tiles, the last one short
    if (n <= 32) throw std::invalid_argument("one tile has no block sums to draw: use --n 33 or more");
    if (n > 32 * scanlab::viz::kMultiBlockMaxTiles) {
      throw std::invalid_argument("at most " + std::to_string(scanlab::viz::kMultiBlockMaxTiles) +
                                  " tiles of 32 fit a readable picture (--n " +
                                  std::to_string(32 * scanlab::viz::kMultiBlockMaxTiles) + " or less)");
    }
    trace_path = out + "/trace.jsonl";
    std::vector<std::string> args = {"--algorithm", o.algorithm,       "--tile", "32",
                                     "-n",          std::to_string(n), "--seed", std::to_string(o.seed),
                                     "--trace",     trace_path,        "-q"};
    if (o.exclusive) args.push_back("--exclusive");
    // Few blocks, so that a block owns several tiles and carries its prefix from one to the next.
    if (o.algorithm == "reduce-then-scan") args.insert(args.end(), {"--max-blocks", std::to_string(o.max_blocks)});
    fs::remove(trace_path);
    run_program(program_of(o, "05_multi_block"), args, o);
  }
  const scanlab::viz::Trace trace = scanlab::viz::read_trace(trace_path);
  if (trace.meta.value("chapter", "") != "05_multi_block") {
    throw std::runtime_error(trace_path + " is not a chapter 05 trace");
  }
  require_arrays(trace, trace_path, o);
  const std::string algorithm = trace.meta.value("algorithm", "");
  if (o.algorithm_given && algorithm != o.algorithm) {
    throw std::invalid_argument(trace_path + " is a " + algorithm + " trace, not " + o.algorithm);
  }
  std::cout << "chapter 05: trace " << trace_path << " (" << algorithm << ", " << trace.meta.value("kind", "")
            << ", n = " << trace.meta.value("n", 0) << ", tiles of " << trace.meta.value("tile", 0) << ")\n";
  for (const scanlab::viz::TraceArray& a : trace.arrays) {
    // The sums and prefixes; the tiles themselves are in the picture.
    const bool tile = a.label == "range_scan" ||
                      (a.step == 0 && (a.label == "tile_in" || a.label == "tile_scan" || a.label == "uniform_add"));
    if (tile) continue;
    std::cout << "  " << a.label << " " << a.step << " (block " << a.block << "):";
    for (const auto& v : a.values) std::cout << " " << scanlab::viz::value_text(v);
    std::cout << "\n";
  }
  const std::string name = algorithm == "reduce-then-scan" ? "reduce_then_scan" : "scan_then_propagate";
  report(scanlab::viz::write_and_render(scanlab::viz::multi_block_scan(trace), out, name));
}

// Chapter 07: look-back snapshots (Fig. 6 of Merrill and Garland) from the traced solution.
void chapter07(Options o, const std::string& out) {
  std::string trace_path = o.trace;
  if (trace_path.empty()) {
    trace_path = out + "/trace.jsonl";
    o.lookback.n = o.n_given ? o.n : 1024;
    o.lookback.seed = o.seed;
    fs::remove(trace_path);
    const std::string program = program_of(o, "07_decoupled_lookback");
    try {
      run_program(program, scanlab::viz::lookback_program_args(o.lookback, trace_path), o);
    } catch (const std::runtime_error&) {
      if (o.schedule_given) throw;
    }
    // The Fig. 6 script orders every protocol step; code that never takes one of them (a tile that
    // never publishes P) leaves the later steps waiting, and the run ends without a trace. What
    // that code does is still worth seeing: record it again without a script.
    if (!fs::exists(trace_path) && !o.schedule_given && o.lookback.schedule == "fig6") {
      std::cerr << "scanlab-viz: the scripted order of Fig. 6 could not finish with this code (a step it waits "
                   "for never came: see above); recording the run again under the emulator's in-order "
                   "schedule, 8 tiles of 64\n";
      o.lookback.schedule = "in-order";
      o.lookback.n = o.n_given ? o.n : 512;
      run_program(program, scanlab::viz::lookback_program_args(o.lookback, trace_path), o);
    }
  }
  report(scanlab::viz::draw_lookback(trace_path, o.at, out));
}

// Chapter 08: the three-phase compaction's tiles from the traced solution, for the step-through
// player (lab viz 08 --html): each tile's count, its offset (the exclusive prefix of the counts)
// and what its scatter wrote. The player draws them (no Graphviz picture); this prints them.
// Six tiles of 4096, the last one short.
constexpr int kCompactionN = 5 * 4096 + 1500;

void chapter08(const Options& o, const std::string& out) {
  if (o.n_given)
    throw std::invalid_argument("chapter 08 records six tiles of 4096 (" + std::to_string(kCompactionN) +
                                " elements); it takes no --n");
  std::string trace_path = o.trace;
  if (trace_path.empty()) {
    trace_path = out + "/trace.jsonl";
    fs::remove(trace_path);
    run_program(program_of(o, "08_stream_compaction"),
                {"-n", std::to_string(kCompactionN), "--seed", std::to_string(o.seed), "--no-examples", "--trace",
                 trace_path, "-q"},
                o);
  }
  const scanlab::viz::Trace trace = scanlab::viz::read_trace(trace_path);
  if (trace.meta.value("chapter", "") != "08_stream_compaction") {
    throw std::runtime_error(trace_path + " is not a chapter 08 trace");
  }
  if (trace.events.empty()) throw std::runtime_error(trace_path + " holds no tile: the traced run recorded nothing");
  std::cout << "chapter 08: trace " << trace_path << " (n = " << trace.meta.value("n", 0) << ", tiles of "
            << trace.meta.value("tile", 0) << ")\n";
  for (const nlohmann::json& e : trace.events) {
    std::cout << "  tile " << e.value("step", 0) << ": count " << e.value("count", 0LL) << ", offset "
              << e.value("offset", 0LL) << ", wrote " << e.value("kept", 0LL) << "\n";
  }
  const auto counts = trace.lines_of("tile_counts");
  if (!counts.empty())
    std::cout << "  the input's counts: " << counts[0].value("counts", nlohmann::json::array()).dump() << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"scanlab-viz: draw a chapter's diagrams (Graphviz DOT, SVG, PNG) from a traced run", "scanlab-viz"};
  Options o;
  app.add_option("chapter", o.chapter,
                 "chapter number: 01 (Hillis-Steele), 02 (Blelloch), 03 (bank conflicts), 05 (multi-block), "
                 "07 (look-back), 08 (compaction: the trace only, for lab viz 08 --html)")
      ->required();
  app.add_option("--input", o.input, "values to scan, comma-separated (chapters 01 and 02)");
  app.add_option("--n", o.n,
                 "number of random values when there is no --input (chapter 03: elements of the "
                 "block scan, default 2048; chapter 05: default 70, three tiles of 32)")
      ->check(CLI::Range(1, 2048))
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the random values")->capture_default_str();
  app.add_option("--out", o.out, "output folder (default: build/viz/NN in the source tree)");
  app.add_option("--trace", o.trace, "draw this trace file instead of running the chapter");
  app.add_option("--level", o.levels,
                 "chapter 03: a level to map (load, up 1, ..., down 1, ..., store); "
                 "repeatable; default: load and up 5");
  app.add_option("--schedule", o.lookback.schedule,
                 "chapter 07: fig6 (the paper's example, scripted), in-order, reverse or random (emulator dispatch)")
      ->check(CLI::IsMember({"fig6", "in-order", "reverse", "random"}))
      ->capture_default_str();
  app.add_option("--at", o.at, "chapter 07: draw the descriptors as they were after this step (an event's seq)");
  app.add_option("--variant", o.lookback.variant, "chapter 07: serial-fenced, serial-fused, warp-fenced, warp-fused")
      ->check(CLI::IsMember({"serial-fenced", "serial-fused", "warp-fenced", "warp-fused"}))
      ->capture_default_str();
  app.add_option("--algorithm", o.algorithm, "chapter 05: scan-then-propagate or reduce-then-scan")
      ->check(CLI::IsMember({"scan-then-propagate", "reduce-then-scan"}))
      ->capture_default_str();
  app.add_flag("--exclusive", o.exclusive, "chapter 05: an exclusive scan (default: inclusive)");
  app.add_option("--max-blocks", o.max_blocks, "chapter 05, reduce-then-scan: blocks that share the tiles")
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
  app.add_option("--resident", o.lookback.resident, "chapter 07: resident block slots on the emulator (0: default)");
  app.add_option("--program", o.program,
                 "run this build of the chapter's program (e.g. one you compiled with lab sim's scanlab-emucc) "
                 "instead of the one the lab built");
  auto* solution = app.add_flag("--solution", o.solution,
                                "draw the reference solution's run (default: your exercise's, built from exercises/)");
  // Not offered where there is no reference solution (a student's repository): there it only refuses.
  if (!scanlab::viz::have_solutions()) solution->group("");
  scanlab::run_cli(app, argc, argv);  // exit code 2 on a bad argument, as the chapter programs
  o.n_given = app.count("--n") > 0;
  o.algorithm_given = app.count("--algorithm") > 0;
  o.schedule_given = app.count("--schedule") > 0;
  try {
    int nn = -1;
    try {
      nn = std::stoi(o.chapter);
    } catch (const std::exception&) {
    }
    char nn_text[8];
    std::snprintf(nn_text, sizeof nn_text, "%02d", nn);
    const std::string out = o.out.empty() ? std::string(scanlab::viz::source_dir()) + "/build/viz/" + nn_text : o.out;
    fs::create_directories(out);
    switch (nn) {
      case 1: chapter01(o, out); break;
      case 2: chapter02(o, out); break;
      case 3: chapter03(o, out); break;
      case 5: chapter05(o, out); break;
      case 7: chapter07(o, out); break;
      case 8:
        chapter08(o, out);
        std::cout << "the trace is in " << out << " (lab viz 08 --html plays it)\n";
        return 0;
      default:
        std::cerr << "scanlab-viz: no diagrams for chapter '" << o.chapter << "' (there are: 01, 02, 03, 05, 07, 08)\n";
        return 2;
    }
    std::cout << "rendered with " << scanlab::viz::renderer_name() << " into " << out << "\n";
    return 0;
  } catch (const std::invalid_argument& e) {
    std::cerr << "scanlab-viz: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "scanlab-viz: error: " << e.what() << "\n";
    return 1;
  }
}
