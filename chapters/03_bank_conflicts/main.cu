// Chapter 03 driver: chapter 02's Blelloch scan with conflict-free shared-memory indexing, and the
// bank-conflict degree of every tree level before and after (on the emulator).
//
// Runs one scan of bank_conflicts.cuh (the exercise's or the solution's) into a poisoned output,
// checks it with scanlab's oracle and, on a GPU, times it. On the emulator it then runs the same
// block scan under both layouts with the emulator's bank-conflict counter on, and prints, per tree
// level, the worst conflict degree of any warp-wide shared access. Exit code 0 only when verified.
//
//   ch03_bank_conflicts_solution                  2048 int32, exclusive sum, padded, + the table
//   ch03_bank_conflicts_solution --layout unpadded   chapter 02's layout
//   ch03_bank_conflicts_solution -n 2^24 --tiles  independent 1024-element tiles (throughput)
//   ch03_bank_conflicts_solution --bank-report b.jsonl   the table and index-to-bank maps as
//                                                 JSON lines (lab viz 03 draws them)

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <scanlab/json.hpp>
#include <scanlab/chapter_driver.hpp>
#include <scanlab/command_line.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
// Host-side only: the bank table switches the emulator's bank-conflict counter on and reads its
// per-phase records. Kernels never depend on the backend.
#include <fcntl.h>
#include <unistd.h>

#include <scanlab_emu/diagnostics.hpp>
#include <scanlab_emu/options.hpp>
#endif

#include "bank_conflicts_dispatch.cuh"

namespace {

using scanlab::Plus;
using scanlab::ScanKind;

constexpr std::uint64_t kDefaultN = ch03::kMaxBlockScan;
constexpr int kDefaultTile = 1024;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::exclusive;
  std::string type = "int";
  std::string op = "plus";
  std::string layout = "padded";
  bool tiles = false;
  int tile = kDefaultTile;
  std::string bank_report;
};

#if defined(SCANLAB_EMU)

// ---- the tree's levels, named as the table prints them (emulator only) ----------------------

// Barrier interval (phase) p of a tile of m = 2^L elements: 0 load, 1..L up-sweep, L+1..2L
// down-sweep, 2L+1 store (see blelloch_exclusive_scan_shared_layout).
struct Level {
  int phase;
  std::string name;
  int stride;  // distance between the two elements a thread combines (0: load and store)
  int active;  // threads that touch shared memory in this phase
};

std::vector<Level> tree_levels(int m) {
  int levels = 0;
  while ((1 << levels) < m) ++levels;
  std::vector<Level> out;
  out.push_back({0, "load", 0, m / 2});
  for (int k = 1; k <= levels; ++k) out.push_back({k, "up " + std::to_string(k), 1 << (k - 1), m >> k});
  for (int k = 1; k <= levels; ++k) {
    out.push_back({levels + k, "down " + std::to_string(k), m >> k, 1 << (k - 1)});
  }
  out.push_back({2 * levels + 1, "store", 0, m / 2});
  return out;
}

// The two shared indices (element numbers) thread t touches in a level: left/right of its node,
// or its two elements for the load and the store.
template <class Layout>
std::pair<int, int> level_elements(const Level& level, int m, int t) {
  if (level.stride == 0) {
    return Layout::kHalves ? std::make_pair(t, t + m / 2) : std::make_pair(2 * t, 2 * t + 1);
  }
  return {level.stride * (2 * t + 1) - 1, level.stride * (2 * t + 2) - 1};
}

// The emulator prints a bank report for every launch while its counter is on; the table below says
// the same per level, so the per-launch text is sent to /dev/null meanwhile.
class QuietStderr {
 public:
  QuietStderr() {
    std::fflush(stderr);
    saved_ = dup(2);
    const int null_fd = open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null_fd >= 0) dup2(null_fd, 2);
    if (null_fd >= 0) close(null_fd);
  }
  ~QuietStderr() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      dup2(saved_, 2);
      close(saved_);
    }
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;
};

struct PhaseBanks {
  unsigned worst = 0;          // highest conflict degree of any warp access in the phase
  std::uint64_t accesses = 0;  // warp-wide shared accesses
  std::uint64_t extra = 0;     // wavefronts beyond the conflict-free count
  std::array<std::uint64_t, 33> degree_count{};
};

// One block scan of n random int32 under Layout with the emulator's bank counter on, grouped by
// phase. Also verifies the result (a table of a wrong kernel would mean nothing).
template <class Layout>
std::map<unsigned, PhaseBanks> measure_banks(int n, std::uint64_t seed, bool& verified) {
  using T = std::int32_t;
  const std::vector<T> in = scanlab::random_vector<T>(static_cast<std::size_t>(n), seed);
  scanlab::DeviceBuffer<T> d_in(in);
  scanlab::DeviceBuffer<T> d_out(in.size());
  d_out.fill_poison();
  auto& emu = scanlab_emu::options();
  const bool saved = emu.banks;
  std::map<unsigned, PhaseBanks> phases;
  {
    QuietStderr quiet;
    emu.banks = true;
    scanlab_emu::reset_diagnostics();
    try {
      ch03::blelloch_layout_exclusive_scan_block<Layout>(d_in.data(), d_out.data(), n, Plus<T>{});
      SCANLAB_CHECK_SYNC();
    } catch (...) {
      emu.banks = saved;
      throw;
    }
    emu.banks = saved;
  }
  for (const scanlab_emu::BankRecord& r : scanlab_emu::diagnostics().banks) {
    PhaseBanks& p = phases[r.phase];
    p.accesses += r.warp_accesses;
    p.extra += r.extra_wavefronts;
    for (unsigned d = 0; d <= 32; ++d) {
      p.degree_count[d] += r.degree_count[d];
      if (r.degree_count[d] > 0) p.worst = std::max(p.worst, d);
    }
  }
  scanlab_emu::reset_diagnostics();
  verified = scanlab::verify_scan(in, d_out.download(), ScanKind::exclusive, Plus<T>{}).ok;
  return phases;
}

std::string degree_text(const std::map<unsigned, PhaseBanks>& phases, int phase) {
  auto it = phases.find(static_cast<unsigned>(phase));
  if (it == phases.end() || it->second.accesses == 0) return "-";
  return std::to_string(it->second.worst) + "-way";
}

std::uint64_t extra_of(const std::map<unsigned, PhaseBanks>& phases, int phase) {
  auto it = phases.find(static_cast<unsigned>(phase));
  return it == phases.end() ? 0 : it->second.extra;
}

scanlab::Json phase_json(const std::map<unsigned, PhaseBanks>& phases, int phase) {
  auto it = phases.find(static_cast<unsigned>(phase));
  if (it == phases.end()) return scanlab::Json{{"accesses", 0}, {"worst", 0}, {"extra_wavefronts", 0}}.sorted();
  scanlab::Json histogram = scanlab::Json::object();
  for (unsigned d = 1; d <= 32; ++d) {
    if (it->second.degree_count[d]) histogram[std::to_string(d)] = it->second.degree_count[d];
  }
  return scanlab::Json{{"accesses", it->second.accesses},
                       {"worst", it->second.worst},
                       {"extra_wavefronts", it->second.extra},
                       {"degrees", histogram}}
      .sorted();  // the bank report's nested objects have their keys sorted
}

// Warp 0's accesses in one level under a layout: element index, shared slot and bank per lane.
template <class Layout>
scanlab::Json lane_map(const Level& level, int m) {
  scanlab::Json lanes = scanlab::Json::array();
  const int lanes_active = std::min(32, level.active);
  for (int t = 0; t < lanes_active; ++t) {
    const auto [a, b] = level_elements<Layout>(level, m, t);
    const int sa = Layout::slot(a);
    const int sb = Layout::slot(b);
    lanes.push_back({{"lane", t},
                     {"left", a},
                     {"left_slot", sa},
                     {"left_bank", sa % ch03::kNumBanks},
                     {"right", b},
                     {"right_slot", sb},
                     {"right_bank", sb % ch03::kNumBanks}});
  }
  return lanes.sorted();
}

// Prints the per-level table (and writes it, with warp 0's index-to-bank maps, as JSON lines).
bool bank_table(int n, std::uint64_t seed, const std::string& report_path, bool print) {
  bool ok_unpadded = false;
  bool ok_padded = false;
  const auto before = measure_banks<ch03::Unpadded>(n, seed, ok_unpadded);
  const auto after = measure_banks<ch03::Padded>(n, seed, ok_padded);
  const int m = ch03::blelloch_tile_for(n);
  const std::vector<Level> levels = tree_levels(m);
  if (print) {
    std::cout << "\nBank conflicts per tree level, one block scanning " << n << " int32 (tile " << m << ", " << m / 2
              << " threads), measured by the emulator\n"
              << "(worst degree of any warp-wide shared access in the level; extra = wavefronts "
                 "beyond one per access):\n\n"
              << std::left << std::setw(9) << "level" << std::right << std::setw(8) << "stride" << std::setw(8)
              << "active" << std::setw(12) << "unpadded" << std::setw(8) << "extra" << std::setw(10) << "padded"
              << std::setw(8) << "extra"
              << "\n";
    std::uint64_t total_before = 0;
    std::uint64_t total_after = 0;
    for (const Level& l : levels) {
      total_before += extra_of(before, l.phase);
      total_after += extra_of(after, l.phase);
      std::cout << std::left << std::setw(9) << l.name << std::right << std::setw(8)
                << (l.stride ? std::to_string(l.stride) : std::string("-")) << std::setw(8) << l.active << std::setw(12)
                << degree_text(before, l.phase) << std::setw(8) << extra_of(before, l.phase) << std::setw(10)
                << degree_text(after, l.phase) << std::setw(8) << extra_of(after, l.phase) << "\n";
    }
    std::cout << std::left << std::setw(25) << "all levels" << std::right << std::setw(20) << total_before
              << std::setw(18) << total_after << "\n";
    std::cout << "unpadded run " << (ok_unpadded ? "verified" : "FAILED") << ", padded run "
              << (ok_padded ? "verified" : "FAILED") << "\n";
  }
  if (!report_path.empty()) {
    std::ofstream file(report_path);
    if (!file) throw std::runtime_error("cannot write the bank report to '" + report_path + "'");
    scanlab::Json meta = {{"type", "meta"},
                          {"format", "scanlab-trace"},
                          {"version", 1},
                          {"chapter", "03_bank_conflicts"},
                          {"backend", scanlab::backend_name()},
                          {"n", n},
                          {"tile", m},
                          {"banks", ch03::kNumBanks},
                          {"verified", ok_unpadded && ok_padded}};
    file << meta.dump_in_order() << "\n";
    for (const Level& l : levels) {
      scanlab::Json line = {{"type", "banks"},
                            {"phase", l.phase},
                            {"level", l.name},
                            {"stride", l.stride},
                            {"active", l.active},
                            {"unpadded", phase_json(before, l.phase)},
                            {"padded", phase_json(after, l.phase)}};
      file << line.dump_in_order() << "\n";
    }
    for (const Level& l : levels) {
      scanlab::Json line = {{"type", "bank_map"},
                            {"phase", l.phase},
                            {"level", l.name},
                            {"stride", l.stride},
                            {"unpadded", lane_map<ch03::Unpadded>(l, m)},
                            {"padded", lane_map<ch03::Padded>(l, m)}};
      file << line.dump_in_order() << "\n";
    }
    file << scanlab::Json{{"type", "end"}, {"records", 0}, {"dropped", 0}, {"truncated", 0}}.dump_in_order() << "\n";
    if (!file) throw std::runtime_error("writing the bank report failed");
    if (print) std::cout << "bank report written to " << report_path << "\n";
  }
  return ok_unpadded && ok_padded;
}

#endif  // SCANLAB_EMU

// ---- the run -------------------------------------------------------------------------------

template <class Layout, class T, class Op>
void launch_scan(const Config& cfg, const T* in, T* out, std::size_t n, Op op) {
  const bool inclusive = cfg.kind == ScanKind::inclusive;
  if (cfg.tiles) {
    if (inclusive) ch03::blelloch_layout_inclusive_scan_tiles<Layout>(in, out, n, cfg.tile, op);
    else ch03::blelloch_layout_exclusive_scan_tiles<Layout>(in, out, n, cfg.tile, op);
  } else if (inclusive) {
    ch03::blelloch_layout_inclusive_scan_block<Layout>(in, out, static_cast<int>(n), op);
  } else {
    ch03::blelloch_layout_exclusive_scan_block<Layout>(in, out, static_cast<int>(n), op);
  }
}

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool verbose = !cfg.common.quiet;
  const bool padded = cfg.layout == "padded";
  const std::string what = scanlab::describe_scan<T, Op>(n, cfg.kind);
  scanlab::Json report = {{"chapter", "03_bank_conflicts"},
                          {"backend", scanlab::backend_name()},
                          {"variant", cfg.tiles ? "tiles" : "block"},
                          {"layout", cfg.layout},
                          {"n", n},
                          {"seed", cfg.common.seed},
                          {"kind", scanlab::to_string(cfg.kind)},
                          {"op", cfg.op},
                          {"type", scanlab::type_label<T>()}};
  if (cfg.tiles) report["tile"] = cfg.tile;

  const std::vector<T> in = scanlab::random_scan_input<T>(n, cfg.common.seed);
  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out(n);
  const std::function<void()> launch = [&] {
    if (padded) launch_scan<ch03::Padded>(cfg, d_in.data(), d_out.data(), n, op);
    else launch_scan<ch03::Unpadded>(cfg, d_in.data(), d_out.data(), n, op);
  };
  const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out, /*in_place=*/false, launch);
  scanlab::VerifyResult check;
  {
    SCANLAB_NVTX_RANGE("verify");
    check = scanlab::verify_tiles(in, got, cfg.kind, op, cfg.tiles ? static_cast<std::size_t>(cfg.tile) : 0);
  }
  std::cout << (cfg.tiles ? "tiles" : "block") << " (" << (padded ? ch03::Padded::name() : ch03::Unpadded::name())
            << "): " << scanlab::verdict_line(check, what)
            << (cfg.tiles ? " (tiles of " + std::to_string(cfg.tile) + ")" : "") << "\n";
  report["verified"] = check.ok;
  report["message"] = check.message();
  bool ok = check.ok;

#if defined(SCANLAB_EMU)
  if (!cfg.tiles && n > 0 && (verbose || !cfg.bank_report.empty())) {
    SCANLAB_NVTX_RANGE("bank table");
    const bool table_ok = bank_table(static_cast<int>(n), cfg.common.seed, cfg.bank_report, verbose);
    report["bank_table_verified"] = table_ok;
    ok = ok && table_ok;
  }
#endif

  if (!scanlab::on_emulator() && check.ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b =
        scanlab::time_bandwidth(launch, /*warmup=*/3, cfg.common.repeat, 2.0 * static_cast<double>(n) * sizeof(T),
                                "counting 2*n*sizeof(T) bytes");
    if (verbose && !cfg.tiles) {
      std::cout << "(one block on one SM: the time is mostly launch latency; --tiles fills the GPU; "
                   "ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st counters show the "
                   "conflicts)\n";
    }
    scanlab::add_timing(report, b);
  } else if (verbose && scanlab::on_emulator()) {
    scanlab::say_not_timed();
  }

  scanlab::write_json_report(cfg.common.json, report);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 03: Blelloch scan without shared-memory bank conflicts", "ch03_bank_conflicts"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, kDefaultN);
  scanlab::ScanKindFlags kind_flags;
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::exclusive);
  scanlab::add_element_options(cli, cfg.type, cfg.op);
  cli.option("--layout", cfg.layout, "shared-memory layout: padded (this chapter) or unpadded (chapter 02's)")
      .one_of({"padded", "unpadded"})
      .show_default();
  const scanlab::TilesOptions tiles = scanlab::add_tiles_options(cli, cfg.tiles, cfg.tile, ch03::kMaxBlockScan);
  scanlab::Option report_opt = cli.option("--bank-report", cfg.bank_report,
                                          "emulator only: write the per-level bank table and warp 0's "
                                          "index-to-bank maps to this JSON-lines file (lab viz 03)");
  report_opt.excludes(tiles.tiles);
  report_opt.excludes(tiles.tile);
  cli.parse(argc, argv);

  cfg.kind = kind_flags.kind();
  if (tiles.tile.given()) cfg.tiles = true;
  auto usage_error = [&](const std::string& message) {
    return cli.usage_error(message);
  };
  if (const std::string error = scanlab::element_options_error(cfg.type, cfg.op); !error.empty()) {
    return usage_error(error);
  }
  if (cfg.tiles && !ch03::is_power_of_two(cfg.tile)) {
    return usage_error("--tile " + std::to_string(cfg.tile) + " is not a power of two");
  }
  if (!cfg.tiles && cfg.common.n > static_cast<std::uint64_t>(ch03::kMaxBlockScan)) {
    return usage_error("n = " + std::to_string(cfg.common.n) + " is more than one block scans (at most " +
                       std::to_string(ch03::kMaxBlockScan) + " elements). Use --tiles for more.");
  }
  if (!cfg.bank_report.empty() && !scanlab::on_emulator()) {
    return usage_error("--bank-report needs the emulator's bank counter (the emu build); on a GPU, "
                       "ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st counters say the same");
  }

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 03: Blelloch scan with conflict-free shared indexing. Element i lives in "
                   "slot i + i/32 + i/1024,\nso the tree's power-of-two strides no longer map a "
                   "warp onto one of the 32 banks; loads come from separate halves.\n"
                << "backend: " << scanlab::backend_description() << "\n";
    }
    return scanlab::with_element_operator(cfg.type, cfg.op, [&](auto op) {
      return run<typename decltype(op)::value_type>(cfg, op);
    });
  });
}
