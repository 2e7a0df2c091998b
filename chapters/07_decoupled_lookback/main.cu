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
// Traced build (ch07_decoupled_lookback_solution_traced): --trace FILE records the protocol;
// --fig6 replays the schedule of the paper's Fig. 6 on 8 small tiles.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/cli.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/trace.hpp>
#include <scanlab/trace_writer.hpp>
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
// Host side only: the dispatch-order options of the emulator. Kernels never depend on the backend.
#include <scanlab_emu/options.hpp>
#endif

#include "decoupled_lookback.cuh"

namespace {

using scanlab::Affine;
using scanlab::AffineCompose;
using scanlab::Max;
using scanlab::Plus;
using scanlab::ScanKind;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::exclusive;
  std::string type = "int";
  std::string op = "plus";
  std::string variant = "warp-fused";
  std::string order = "ticket";
  std::string tile = "default";
  bool in_place = false;
  ch07::PollSchedule polls = ch07::kDefaultPolls;
  bool schedules = false;
  std::string emu_schedule;
  unsigned emu_resident = 0;
  std::string trace;
  bool fig6 = false;
};

template <class T>
const char* type_label() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else return "affine<uint32>";
}

template <class T>
std::vector<T> make_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, Affine<std::uint32_t>>) {
    auto maps = scanlab::random_vector<T>(n, seed, 0u, 0xffffffffu);
    for (auto& f : maps) f.a |= 1u;
    return maps;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return scanlab::random_vector<T>(n, seed, -1000000000, 1000000000);
  } else {
    return scanlab::random_vector<T>(n, seed);
  }
}

template <class T, class Op>
scanlab::VerifyResult verify(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op) {
  SCANLAB_NVTX_RANGE("verify");
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    return scanlab::verify_float_scan(in.data(), got.data(), in.size(), kind);
  } else {
    std::vector<T> expected(in.size());
    if (kind == ScanKind::inclusive) scanlab::inclusive_scan_oracle(in.data(), expected.data(), in.size(), op);
    else scanlab::exclusive_scan_oracle(in.data(), expected.data(), in.size(), op);
    return scanlab::verify_exact(expected.data(), got.data(), in.size());
  }
}

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
  if (variant == "serial-fenced") return make_launch<ch07::Policy<B, I, Descriptors::fenced, Lookback::serial>, T>(n, kind, op);
  if (variant == "serial-fused") return make_launch<ch07::Policy<B, I, kFused, Lookback::serial>, T>(n, kind, op);
  if (variant == "warp-fenced") return make_launch<ch07::Policy<B, I, Descriptors::fenced, Lookback::warp>, T>(n, kind, op);
  return make_launch<ch07::Policy<B, I, kFused, Lookback::warp>, T>(n, kind, op);
}

template <class T, class Op>
Launch make_scan(const Config& cfg, std::size_t n, Op op) {
  // All four variants for int32 sums (the book's steps); the default one for the other operators,
  // which keeps the emulator build quick.
  if constexpr (std::is_same_v<T, std::int32_t> && std::is_same_v<Op, Plus<std::int32_t>>) {
    if (cfg.tile == "small") return pick_variant<32, 2, T>(cfg.variant, n, cfg.kind, op);
    return pick_variant<256, 16, T>(cfg.variant, n, cfg.kind, op);
  } else {
    if (cfg.variant != "warp-fused" || cfg.tile != "default") {
      throw std::invalid_argument("--variant and --tile other than the defaults are built for int32 sums only");
    }
    return make_launch<ch07::DefaultPolicy, T>(n, cfg.kind, op);
  }
}

void write_json(const Config& cfg, const nlohmann::json& report) {
  if (cfg.common.json.empty()) return;
  std::ofstream file(cfg.common.json);
  file << report.dump(2) << "\n";
  if (!file) throw std::runtime_error("cannot write the JSON report to '" + cfg.common.json + "'");
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
    in = make_input<T>(n, cfg.common.seed);
  }
  const std::string what = std::to_string(n) + " elements, " + scanlab::to_string(cfg.kind) + " " + cfg.op + ", " +
                           type_label<T>() + ", " + cfg.variant + (cfg.in_place ? ", in place" : "");
  nlohmann::json report = {{"chapter", "07_decoupled_lookback"}, {"backend", scanlab::backend_name()},
                           {"n", n}, {"seed", cfg.common.seed}, {"kind", scanlab::to_string(cfg.kind)},
                           {"op", cfg.op}, {"type", type_label<T>()}, {"variant", cfg.variant},
                           {"order", cfg.order}, {"in_place", cfg.in_place}};

  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out_storage(cfg.in_place ? 0 : n);
  scanlab::DeviceBuffer<T>& d_out = cfg.in_place ? d_in : d_out_storage;
  const Launch launch = make_scan<T>(cfg, n, op);

  ch07::Options options;
  options.order = tile_order(cfg);
  options.polls = cfg.polls;

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
    {
      SCANLAB_NVTX_RANGE("upload");
      d_in.upload(in);
      if (!cfg.in_place) d_out.fill_poison();
    }
    {
      SCANLAB_NVTX_RANGE("scan");
      launch(d_in.data(), d_out.data(), n, options);
      SCANLAB_CHECK_SYNC();
    }
    std::vector<T> got;
    {
      SCANLAB_NVTX_RANGE("download");
      got = d_out.download();
    }
    return verify(in, got, cfg.kind, op);
  };

  bool ok = true;
  scanlab::VerifyResult check;
#if defined(SCANLAB_EMU)
  if (cfg.schedules) {
    // The ticket makes the scan independent of the order in which blocks start and of how many can
    // be resident at once.
    struct Restore {
      scanlab_emu::Options saved = scanlab_emu::options();
      ~Restore() { scanlab_emu::options() = saved; }
    } restore;
    for (const auto schedule : {scanlab_emu::Schedule::in_order, scanlab_emu::Schedule::reverse,
                                scanlab_emu::Schedule::random}) {
      for (const unsigned resident : {1u, 3u, 0u}) {
        scanlab_emu::options().schedule = schedule;
        scanlab_emu::options().resident = resident;
        scanlab_emu::options().seed = cfg.common.seed;
        scanlab::VerifyResult r;
        try {
          r = run_once();
        } catch (const scanlab::CudaError& e) {
          r.ok = false;
          r.note = e.what();
        }
        std::cout << "dispatch " << scanlab_emu::to_string(schedule) << ", "
                  << (resident ? std::to_string(resident) : std::string("default")) << " resident slot(s): "
                  << (r.ok ? "verified" : "FAILED: " + r.message()) << "\n";
        ok = ok && r.ok;
        if (!r.ok && check.ok) check = r;
      }
    }
    report["verified"] = ok;
    report["message"] = check.message();
    write_json(cfg, report);
    return ok ? 0 : 1;
  }
#endif

  try {
    check = run_once();
  } catch (const scanlab::CudaError& e) {
    std::cout << "FAILED: " << what << ": " << e.what() << "\n";
    if (options.order == ch07::TileOrder::block_index) {
      std::cout << "Tiles ordered by blockIdx.x: a resident block waited for a tile whose block could not\n"
                   "become resident. Take the tile number from an atomic ticket (--order ticket).\n";
    }
    report["verified"] = false;
    report["message"] = e.what();
    write_json(cfg, report);
    return 1;
  }
  ok = check.ok;
  std::cout << (ok ? "verified: " : "FAILED: ") << what << (ok ? "" : ": " + check.message()) << "\n";
  report["verified"] = ok;
  report["message"] = check.message();

#if SCANLAB_TRACE_ENABLED
  if (!cfg.trace.empty()) {
    const scanlab::TraceBuffer::Snapshot snap = trace.download();
    nlohmann::json meta = report;
    meta["tile_items"] = cfg.tile == "small" ? 64 : 4096;
    meta["tiles"] = (n + (cfg.tile == "small" ? 63 : 4095)) / (cfg.tile == "small" ? 64 : 4096);
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
    const scanlab::TimingStats t =
        scanlab::time_ms([&] { launch(d_in.data(), d_out.data(), n, options); }, 3, cfg.common.repeat);
    const double gbps = scanlab::gbps(2.0 * static_cast<double>(n) * sizeof(T), t.median_ms);
    std::cout << "median " << t.median_ms << " ms over " << t.reps << " run(s), " << gbps
              << " GB/s (2*n*sizeof(T) bytes; descriptor reset included)\n";
    report["median_ms"] = t.median_ms;
    report["gbps"] = gbps;
  } else if (verbose && scanlab::on_emulator()) {
    std::cout << "(not timed: the emulator's times say nothing about a GPU)\n";
  }
  write_json(cfg, report);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Chapter 07: single-pass scan with decoupled look-back", "ch07_decoupled_lookback"};
  Config cfg;
  scanlab::add_common_options(app, cfg.common, 16777219);
  bool inclusive_flag = false;
  bool exclusive_flag = false;
  auto* inc = app.add_flag("--inclusive", inclusive_flag, "inclusive scan");
  auto* exc = app.add_flag("--exclusive", exclusive_flag, "exclusive scan: out[0] = identity (the default)");
  inc->excludes(exc);
  app.add_option("--type", cfg.type, "element type")->check(CLI::IsMember({"int", "float", "int64"}))->capture_default_str();
  app.add_option("--op", cfg.op, "operator: plus, max (int), affine (composition of affine maps over uint32)")
      ->check(CLI::IsMember({"plus", "max", "affine"}))
      ->capture_default_str();
  app.add_option("--variant", cfg.variant,
                 "look-back: serial-fenced, serial-fused, warp-fenced, warp-fused (the book's steps; int32 sums)")
      ->check(CLI::IsMember({"serial-fenced", "serial-fused", "warp-fenced", "warp-fused"}))
      ->capture_default_str();
  app.add_option("--order", cfg.order, "tile order: ticket, or blockidx (deadlocks; emulator only)")
      ->check(CLI::IsMember({"ticket", "blockidx"}))
      ->capture_default_str();
  app.add_option("--tile", cfg.tile, "tile shape: default (128 threads x 32) or small (32 x 2; int32 sums)")
      ->check(CLI::IsMember({"default", "small"}))
      ->capture_default_str();
  app.add_flag("--in-place", cfg.in_place, "scan in place (out == in)");
  app.add_option("--first-poll", cfg.polls.first_ns, "__nanosleep before a tile's first look-back read, ns (0: none)")
      ->capture_default_str();
  app.add_option("--poll-every", cfg.polls.every_ns, "__nanosleep between look-back reads that find X, ns (0: spin)")
      ->capture_default_str();
  app.add_flag("--schedules", cfg.schedules,
               "emulator: run under every dispatch order (in order, reverse, random) with 1, 3 and the default "
               "number of resident blocks");
  app.add_option("--emu-schedule", cfg.emu_schedule, "emulator: dispatch order")
      ->check(CLI::IsMember({"in-order", "reverse", "random"}));
  app.add_option("--emu-resident", cfg.emu_resident, "emulator: resident block slots (0: default)");
  app.add_option("--trace", cfg.trace, "traced build: write the look-back protocol to this JSON-lines file");
  app.add_flag("--fig6", cfg.fig6,
               "traced build: 8 tiles of 64 elements summing to 2 each, replayed in the order of the paper's "
               "Fig. 6 (serial look-back, fenced descriptors)");
  scanlab::run_cli(app, argc, argv);
  cfg.kind = inclusive_flag ? ScanKind::inclusive : ScanKind::exclusive;

  auto usage_error = [&](const std::string& message) {
    std::cerr << app.get_name() << ": error: " << message << "\n\n" << app.help();
    return 2;
  };
  if (cfg.op == "affine" && cfg.type != "int") return usage_error("--op affine takes no --type");
  if (cfg.op == "max" && cfg.type != "int") return usage_error("--op max is built for int32");
  if (cfg.fig6) {
    if (!scanlab::trace_enabled()) return usage_error("--fig6 needs the traced build (ch07_decoupled_lookback_solution_traced)");
    if (cfg.trace.empty()) return usage_error("--fig6 needs --trace FILE");
    cfg.common.n = kFig6Tiles * 64;
    cfg.tile = "small";
    cfg.variant = "serial-fenced";
    cfg.type = "int";
    cfg.op = "plus";
    cfg.kind = ScanKind::inclusive;
  }
  if (!cfg.trace.empty() && !scanlab::trace_enabled()) {
    return usage_error("--trace needs the traced build (ch07_decoupled_lookback_solution_traced)");
  }
  if (cfg.order == "blockidx" && !scanlab::on_emulator()) {
    return usage_error("--order blockidx can hang a GPU for good; it is offered on the emulator only, which reports "
                       "the deadlock");
  }
#if defined(SCANLAB_EMU)
  if (!cfg.emu_schedule.empty()) {
    scanlab_emu::options().schedule = cfg.emu_schedule == "reverse"  ? scanlab_emu::Schedule::reverse
                                      : cfg.emu_schedule == "random" ? scanlab_emu::Schedule::random
                                                                     : scanlab_emu::Schedule::in_order;
  }
  if (cfg.emu_resident > 0) scanlab_emu::options().resident = cfg.emu_resident;
  if (cfg.fig6) scanlab_emu::options().resident = kFig6Tiles;  // every scripted tile must be resident
#else
  if (cfg.schedules || !cfg.emu_schedule.empty() || cfg.emu_resident > 0) {
    return usage_error("--schedules, --emu-schedule and --emu-resident are emulator options");
  }
#endif

  try {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 07: decoupled look-back. Each tile publishes its aggregate at once, then combines its\n"
                   "predecessors' aggregates (nearest first) until it meets an inclusive prefix: one pass, ~2n data\n"
                   "movement, no chain of waits.\n"
                << "backend: "
                << (scanlab::on_emulator() ? std::string("emulator (CPU SIMT emulator)") : scanlab::device_description())
                << "\n";
    }
    if (cfg.op == "affine") return run<Affine<std::uint32_t>>(cfg, AffineCompose<std::uint32_t>{});
    if (cfg.type == "float") return run<float>(cfg, Plus<float>{});
    if (cfg.type == "int64") return run<std::int64_t>(cfg, Plus<std::int64_t>{});
    if (cfg.op == "max") return run<std::int32_t>(cfg, Max<std::int32_t>{});
    return run<std::int32_t>(cfg, Plus<std::int32_t>{});
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": error: " << e.what() << "\n";
    return 1;
  }
}
