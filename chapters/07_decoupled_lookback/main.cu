// Chapter 07 driver: single-pass scan with decoupled look-back, any n.
//
// Generates a random input, runs decoupled_lookback.cuh (the exercise's or the solution's) into a
// poisoned output, checks it against scanlab's oracle and, on a GPU, times it (descriptor reset
// included). Exit code 0 only when verified.
//
//   ch07_decoupled_lookback_solution -n 16777219                 int32 exclusive sum, warp look-back
//   ch07_decoupled_lookback_solution --variant serial-fenced     the first step of the book
//   ch07_decoupled_lookback_solution --op affine --inclusive     a non-commutative operator
//   ch07_decoupled_lookback_solution --in-place -n 2147483653    (GPU) 64-bit offsets, in place
//   ch07_decoupled_lookback_solution --schedules                 (emulator) every dispatch order
//   ch07_decoupled_lookback_solution --order blockidx --emu-schedule reverse --emu-resident 4
//                                                                (emulator) the deadlock, reported
// Traced builds (the emulator's; on a GPU ch07_decoupled_lookback_solution_traced): --trace FILE
// records the protocol; --fig6 replays the schedule of the paper's Fig. 6 on 8 small tiles.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
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
#include <scanlab/driver/tuning_options.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/trace.hpp>
#include <scanlab/trace_writer.hpp>
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
// Host side only: the dispatch-order options of the emulator. Kernels never depend on the backend.
#include <scanlab_emu/options.hpp>
#endif

#include "decoupled_lookback_dispatch.cuh"
#include "decoupled_lookback_tuned.cuh"

namespace {

using scanlab::Plus;
using scanlab::ScanKind;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::exclusive;
  std::string type = "int";
  std::string op = "plus";
  std::string variant = "warp-fused";
  std::string order = "ticket";
  scanlab::TunableOptions tunable;  // --tile, --first-poll, --poll-every, --tuning
  bool in_place = false;
  scanlab::EmulatorScheduleOptions emu;  // --schedules, --emu-schedule, --emu-resident
  std::string trace;
  bool fig6 = false;
};

ch07::TileOrder tile_order(const Config& cfg) {
  return cfg.order == "blockidx" ? ch07::TileOrder::block_index : ch07::TileOrder::ticket;
}

// The scan object for one policy, run through std::function so the driver's code is written once.
using Launch = std::function<void(const void* in, void* out, std::size_t n, const ch07::Options&)>;

template <class P, class T, class Op>
Launch make_launch(std::size_t n, ScanKind kind, Op op) {
  auto scan = std::make_shared<ch07::DecoupledLookbackScan<T, P>>(n);
  return [scan, kind, op](const void* in, void* out, std::size_t count, const ch07::Options& o) {
    const T* i = static_cast<const T*>(in);
    T* d = static_cast<T*>(out);
    if (kind == ScanKind::inclusive) scan->inclusive(i, d, count, op, 0, o);
    else scan->exclusive(i, d, count, op, 0, o);
  };
}

// The variants of the book's steps. Fused descriptors need values of at most 32 bits; for wider
// types the fused variants fall back to fenced (the driver says so).
template <int B, int I, class T, class Op>
Launch pick_variant(const std::string& variant, std::size_t n, ScanKind kind, Op op) {
  using ch07::Descriptors;
  using ch07::Lookback;
  constexpr Descriptors kFused = sizeof(T) <= 4 ? Descriptors::fused : Descriptors::fenced;
  if (variant == "serial-fenced")
    return make_launch<ch07::Policy<B, I, Descriptors::fenced, Lookback::serial>, T>(n, kind, op);
  if (variant == "serial-fused") return make_launch<ch07::Policy<B, I, kFused, Lookback::serial>, T>(n, kind, op);
  if (variant == "warp-fenced")
    return make_launch<ch07::Policy<B, I, Descriptors::fenced, Lookback::warp>, T>(n, kind, op);
  return make_launch<ch07::Policy<B, I, kFused, Lookback::warp>, T>(n, kind, op);
}

// The tuned shapes (decoupled_lookback_tuned.cuh) are built for 4-byte sums with the default variant.
template <class T, class Op>
constexpr bool kTunedShapesBuilt = sizeof(T) == 4 && std::is_same_v<Op, Plus<T>>;

template <class T, class Op>
Launch make_tuned(const Config& cfg, std::size_t n, Op op) {
  Launch launch;
  if constexpr (kTunedShapesBuilt<T, Op>) {
    if (cfg.variant != "warp-fused")
      throw std::invalid_argument("--tile " + cfg.tunable.tile + " is built for --variant warp-fused");
    const bool built = ch07::with_tuned_policy(cfg.tunable.tile, [&](auto policy) {
      launch = make_launch<decltype(policy), T>(n, cfg.kind, op);
    });
    if (!built)
      throw std::invalid_argument("--tile " + cfg.tunable.tile +
                                  " is not built into the emulator build (tuning is for GPUs)");
  } else {
    throw std::invalid_argument("--tile " + cfg.tunable.tile + " is built for int and float sums only");
  }
  return launch;
}

template <class T, class Op>
Launch make_scan(const Config& cfg, std::size_t n, Op op) {
  const std::string& tile = cfg.tunable.tile;
  if (tile != "default" && tile != "small") return make_tuned<T>(cfg, n, op);
  // All four variants for int32 sums (the book's steps); the default one for the other operators,
  // which keeps the emulator build quick.
  if constexpr (std::is_same_v<T, std::int32_t> && std::is_same_v<Op, Plus<std::int32_t>>) {
    if (tile == "small") return pick_variant<32, 2, T>(cfg.variant, n, cfg.kind, op);
    // The default tile is the scan object's own (DefaultPolicy), so the driver times what the
    // library and the bench run.
    return pick_variant<ch07::DefaultPolicy::kBlockThreads, ch07::DefaultPolicy::kItems, T>(cfg.variant, n, cfg.kind,
                                                                                            op);
  } else {
    if (cfg.variant != "warp-fused" || tile != "default") {
      throw std::invalid_argument("--variant and --tile small are built for int32 sums only");
    }
    return make_launch<ch07::DefaultPolicy, T>(n, cfg.kind, op);
  }
}

// ---- the Fig. 6 script (traced builds) -------------------------------------------------------

// Positions of each tile's protocol steps (value store, flag store, first read of a predecessor)
// in one global order; after position 25 (tile 7's first read of tile 6) the descriptors are those
// of the paper's Fig. 6: P A A P A P X A, every aggregate 2, inclusive prefixes 2 4 - 8 - 12 - -.
constexpr int kFig6Tiles = 8;
constexpr int kFig6Actions = 8;
[[maybe_unused]] constexpr int kFig6MarkPosition = 25;
const std::vector<std::vector<int>> kFig6Script = {
    {0, 1},                      // tile 0: aggregate and prefix, flag P
    {2, 3, 10, 11, 31},          // tile 1: A; reads 0 (P); records its prefix ... sets P much later
    {4, 5, 32, 33, 34},          // tile 2: A; (later) reads 1, prefix, P
    {6, 7, 12, 13, 14, 15, 16},  // tile 3: A; reads 2, 1, 0 (a window of three); prefix, P
    {8, 9, 35, 36, 37},          // tile 4: A; (later) reads 3, prefix, P
    {17, 18, 19, 20, 21, 22},    // tile 5: A; reads 4, 3; prefix, P
    {26, 27, 28, 29, 30},        // tile 6: not started at the snapshot
    {23, 24, 25, 38, 39},        // tile 7: A; reads 6 (X: waits); then prefix, P
};

[[maybe_unused]] std::vector<int> fig6_positions() {
  std::vector<int> p(kFig6Tiles * kFig6Actions, -1);
  for (int t = 0; t < kFig6Tiles; ++t) {
    for (std::size_t k = 0; k < kFig6Script[t].size(); ++k) p[t * kFig6Actions + k] = kFig6Script[t][k];
  }
  return p;
}

// ---- the run ---------------------------------------------------------------------------------

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool verbose = !cfg.common.quiet;
  std::vector<T> in;
  if (cfg.fig6) {
    // Every tile of 64 elements sums to 2, as in the paper's example.
    in.assign(n, T{});
    if constexpr (std::is_same_v<T, std::int32_t>) {
      for (std::size_t i = 0; i < n; i += 64) in[i] = in[i + 1] = 1;
    }
  } else {
    SCANLAB_NVTX_RANGE("input");
    in = scanlab::single_pass_input<T>(n, cfg.common.seed);
  }
  const std::string what = std::to_string(n) + " elements, " + scanlab::to_string(cfg.kind) + " " + cfg.op + ", " +
                           scanlab::type_label<T>() + ", " + cfg.variant + (cfg.in_place ? ", in place" : "");
  scanlab::Json report =
      scanlab::scan_report<T>("07_decoupled_lookback", n, cfg.common.seed, cfg.kind, cfg.op, cfg.in_place);
  report["variant"] = cfg.variant;
  report["tile"] = cfg.tunable.tile;
  report["polls_ns"] = scanlab::Json::array_of({cfg.tunable.first_poll_ns, cfg.tunable.poll_every_ns});
  report["order"] = cfg.order;

  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out_storage(cfg.in_place ? 0 : n);
  scanlab::DeviceBuffer<T>& d_out = cfg.in_place ? d_in : d_out_storage;
  const Launch launch = make_scan<T>(cfg, n, op);

  ch07::Options options;
  options.order = tile_order(cfg);
  options.polls = {cfg.tunable.first_poll_ns, cfg.tunable.poll_every_ns};

  // Traced builds: where the protocol is recorded, and the Fig. 6 script.
  scanlab::TraceBuffer trace(cfg.trace.empty() ? 1 : 1u << 16, cfg.trace.empty() ? 16 : 1u << 12);
  scanlab::DeviceBuffer<int> script(kFig6Tiles * kFig6Actions), script_steps(kFig6Tiles);
  scanlab::DeviceBuffer<unsigned> turn(1);
#if SCANLAB_TRACE_ENABLED
  if (!cfg.trace.empty()) {
    options.probe.log = trace.log();
    if (cfg.fig6) {
      script.upload(fig6_positions());
      script_steps.fill_zero();
      turn.fill_zero();
      options.probe.script = script.data();
      options.probe.script_steps = script_steps.data();
      options.probe.turn = turn.data();
      options.probe.actions_per_tile = kFig6Actions;
    }
  }
#endif

  auto run_once = [&]() -> scanlab::VerifyResult {
    const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out_storage, cfg.in_place, [&] {
      launch(d_in.data(), d_out.data(), n, options);
    });
    SCANLAB_NVTX_RANGE("verify");
    return scanlab::verify_scan(in, got, cfg.kind, op);
  };

  // --schedules: the ticket makes the scan independent of the order in which blocks start and of
  // how many can be resident at once.
  const scanlab::SinglePassRun checked = scanlab::run_single_pass_checked(
      run_once, what, cfg.emu, cfg.common.seed, options.order == ch07::TileOrder::block_index, report);
  if (checked.finished) {
    scanlab::write_json_report(cfg.common.json, report);
    return checked.check.ok ? 0 : 1;
  }
  const bool ok = checked.check.ok;

#if SCANLAB_TRACE_ENABLED
  if (!cfg.trace.empty()) {
    const scanlab::TraceBuffer::Snapshot snap = trace.download();
    scanlab::Json meta = report;
    const bool small = cfg.tunable.tile == "small";  // traced builds run the emulator: default or small
    meta["tile_items"] = small ? 64 : 4096;
    meta["tiles"] = (n + (small ? 63 : 4095)) / (small ? 64 : 4096);
    meta["script"] = cfg.fig6 ? "fig6" : "none";
#if defined(SCANLAB_EMU)
    meta["schedule"] = scanlab_emu::describe_options();
#endif
    if (cfg.fig6) {
      // The snapshot of interest: right after tile 7's first read of tile 6.
      for (const scanlab::TraceRecord& r : snap.records) {
        if (std::string(r.label) == "read" && r.step == 7 && r.fields[0] == 6) {
          meta["fig6_seq"] = r.seq;
          break;
        }
      }
      meta["fig6_mark_position"] = kFig6MarkPosition;
    }
    scanlab::TraceWriter writer(cfg.trace, meta);
    writer.name_fields("ticket", {"block"});
    writer.name_fields("word", {"status", "value"});
    writer.name_fields("value", {"field", "value"});
    writer.name_fields("flag", {"status"});
    writer.name_fields("read", {"predecessor", "status", "value"});
    writer.records(snap);
    writer.finish();
    if (verbose) std::cout << "trace: " << snap.records.size() << " records in " << cfg.trace << "\n";
  }
#endif

  if (!scanlab::on_emulator() && ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b = scanlab::time_bandwidth(
        [&] {
          launch(d_in.data(), d_out.data(), n, options);
        },
        3, cfg.common.repeat, 2.0 * static_cast<double>(n) * sizeof(T),
        "2*n*sizeof(T) bytes; descriptor reset included");
    report["median_ms"] = b.stats.median_ms;
    report["gbps"] = b.gbps;
  } else if (verbose && scanlab::on_emulator()) {
    scanlab::say_not_timed();
  }
  scanlab::write_json_report(cfg.common.json, report);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 07: single-pass scan with decoupled look-back", "ch07_decoupled_lookback"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, 16777219);
  scanlab::ScanKindFlags kind_flags;
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::exclusive);
  scanlab::add_single_pass_element_options(cli, cfg.type, cfg.op);
  cli.option("--variant", cfg.variant,
             "look-back: serial-fenced, serial-fused, warp-fenced, warp-fused (the book's steps; int32 sums)")
      .one_of({"serial-fenced", "serial-fused", "warp-fenced", "warp-fused"})
      .show_default();
  scanlab::add_tile_order_option(cli, cfg.order);
  std::vector<std::string> tiles = {"small"};
  for (const std::string& shape : ch07::tuned_shapes()) tiles.push_back(shape);
  scanlab::add_tunable_options(cli, cfg.tunable, tiles,
                               "tile shape: default (128 threads x 32), small (32 x 2; int32 sums), or THREADSxITEMS "
                               "(GPU builds; int and float sums)",
                               ch07::kDefaultPolls.first_ns, ch07::kDefaultPolls.every_ns);
  cli.flag("--in-place", cfg.in_place, "scan in place (out == in)");
  scanlab::add_emulator_schedule_options(cli, cfg.emu);
  cli.option("--trace", cfg.trace, "traced build: write the look-back protocol to this JSON-lines file");
  cli.flag("--fig6", cfg.fig6,
           "traced build: 8 tiles of 64 elements summing to 2 each, replayed in the order of the paper's "
           "Fig. 6 (serial look-back, fenced descriptors)");
  cli.parse(argc, argv);
  cfg.kind = kind_flags.kind();

  auto usage_error = [&](const std::string& message) {
    return cli.usage_error(message);
  };
  if (const std::string error = scanlab::single_pass_element_options_error(cfg.type, cfg.op); !error.empty()) {
    return usage_error(error);
  }
  if (cfg.fig6) {
    if (!scanlab::trace_enabled())
      return usage_error(
          "--fig6 needs a traced build: the emulator's, or ch07_decoupled_lookback_solution_traced on a GPU");
    if (cfg.trace.empty()) return usage_error("--fig6 needs --trace FILE");
    cfg.common.n = kFig6Tiles * 64;
    cfg.tunable.tile = "small";
    cfg.variant = "serial-fenced";
    cfg.type = "int";
    cfg.op = "plus";
    cfg.kind = ScanKind::inclusive;
  }
  if (!cfg.trace.empty() && !scanlab::trace_enabled()) {
    return usage_error(
        "--trace needs a traced build: the emulator's, or ch07_decoupled_lookback_solution_traced on a GPU");
  }
  if (const std::string error = scanlab::tile_order_error(cfg.order); !error.empty()) return usage_error(error);
  if (const std::string error = scanlab::apply_emulator_schedule_options(cfg.emu); !error.empty()) {
    return usage_error(error);
  }
#if defined(SCANLAB_EMU)
  if (cfg.fig6) scanlab_emu::options().resident = kFig6Tiles;  // every scripted tile must be resident
#endif

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 07: decoupled look-back. Each tile publishes its aggregate at once, then combines its\n"
                   "predecessors' aggregates (nearest first) until it meets an inclusive prefix: one pass, ~2n data\n"
                   "movement, no chain of waits.\n"
                << "backend: " << scanlab::backend_description() << "\n";
    }
    // A tile shape that ./lab tune chose is built for int and float sums with the default variant.
    const bool shape_applies = cfg.variant == "warp-fused" && cfg.op == "plus" && cfg.type != "int64";
    const std::string tuning = scanlab::apply_tuning(cfg.tunable, "07_decoupled_lookback", shape_applies,
                                                     scanlab::on_emulator(), scanlab::backend_name());
    if (!cfg.common.quiet && !tuning.empty()) std::cout << tuning << "\n";
    return scanlab::with_single_pass_operator(cfg.type, cfg.op, [&](auto op) {
      return run<typename decltype(op)::value_type>(cfg, op);
    });
  });
}
