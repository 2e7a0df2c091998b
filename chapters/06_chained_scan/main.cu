// Chapter 06 driver: the chained scan (single pass, each tile waits for its predecessor's prefix).
//
// Generates a random input, runs chained_scan.cuh (the exercise's or the solution's) into a poisoned
// output, checks it against scanlab's oracle and, on a GPU, times it (flag reset included). Exit
// code 0 only when verified.
//
//   ch06_chained_scan_solution -n 16777219                   int32 exclusive sum
//   ch06_chained_scan_solution --op affine --inclusive       a non-commutative operator
//   ch06_chained_scan_solution --schedules                   (emulator) every dispatch order
//   ch06_chained_scan_solution --order blockidx --emu-schedule reverse --emu-resident 4
//                                                            (emulator) tiles by blockIdx.x: deadlock
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
#include <scanlab/verify.hpp>

#if defined(SCANLAB_EMU)
// Host side only: the dispatch-order options of the emulator. Kernels never depend on the backend.
#include <scanlab_emu/options.hpp>
#endif

#include "chained_scan.cuh"

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
  std::string order = "ticket";
  bool in_place = false;
  bool schedules = false;
  std::string emu_schedule;
  unsigned emu_resident = 0;
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

ch06::TileOrder tile_order(const Config& cfg) {
  return cfg.order == "blockidx" ? ch06::TileOrder::block_index : ch06::TileOrder::ticket;
}

using Launch = std::function<void(const void* in, void* out, std::size_t n)>;

template <class T, class Op>
Launch make_scan(const Config& cfg, std::size_t n, Op op) {
  auto scan = std::make_shared<ch06::ChainedScan<T>>(n);
  const ScanKind kind = cfg.kind;
  const ch06::TileOrder order = tile_order(cfg);
  return [scan, kind, order, op](const void* in, void* out, std::size_t count) {
    const T* i = static_cast<const T*>(in);
    T* d = static_cast<T*>(out);
    if (kind == ScanKind::inclusive) scan->inclusive(i, d, count, op, 0, order);
    else scan->exclusive(i, d, count, op, 0, order);
  };
}

void write_json(const Config& cfg, const nlohmann::json& report) {
  if (cfg.common.json.empty()) return;
  std::ofstream file(cfg.common.json);
  file << report.dump(2) << "\n";
  if (!file) throw std::runtime_error("cannot write the JSON report to '" + cfg.common.json + "'");
}

// ---- the run ---------------------------------------------------------------------------------

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool verbose = !cfg.common.quiet;
  std::vector<T> in;
  {
    SCANLAB_NVTX_RANGE("input");
    in = make_input<T>(n, cfg.common.seed);
  }
  const std::string what = std::to_string(n) + " elements, " + scanlab::to_string(cfg.kind) + " " + cfg.op + ", " +
                           type_label<T>() + (cfg.in_place ? ", in place" : "");
  nlohmann::json report = {{"chapter", "06_chained_scan"}, {"backend", scanlab::backend_name()},
                           {"n", n}, {"seed", cfg.common.seed}, {"kind", scanlab::to_string(cfg.kind)},
                           {"op", cfg.op}, {"type", type_label<T>()},
                           {"order", cfg.order}, {"in_place", cfg.in_place}};

  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out_storage(cfg.in_place ? 0 : n);
  scanlab::DeviceBuffer<T>& d_out = cfg.in_place ? d_in : d_out_storage;
  const Launch launch = make_scan<T>(cfg, n, op);

  auto run_once = [&]() -> scanlab::VerifyResult {
    {
      SCANLAB_NVTX_RANGE("upload");
      d_in.upload(in);
      if (!cfg.in_place) d_out.fill_poison();
    }
    {
      SCANLAB_NVTX_RANGE("scan");
      launch(d_in.data(), d_out.data(), n);
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
    if (cfg.order == "blockidx") {
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

  if (!scanlab::on_emulator() && ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::TimingStats t =
        scanlab::time_ms([&] { launch(d_in.data(), d_out.data(), n); }, 3, cfg.common.repeat);
    const double gbps = scanlab::gbps(2.0 * static_cast<double>(n) * sizeof(T), t.median_ms);
    std::cout << "median " << t.median_ms << " ms over " << t.reps << " run(s), " << gbps
              << " GB/s (2*n*sizeof(T) bytes; flag reset included)\n";
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
  CLI::App app{"Chapter 06: chained scan (single pass, a chain of tile prefixes)", "ch06_chained_scan"};
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
  app.add_option("--order", cfg.order, "tile order: ticket, or blockidx (deadlocks; emulator only)")
      ->check(CLI::IsMember({"ticket", "blockidx"}))
      ->capture_default_str();
  app.add_flag("--in-place", cfg.in_place, "scan in place (out == in)");
  app.add_flag("--schedules", cfg.schedules,
               "emulator: run under every dispatch order (in order, reverse, random) with 1, 3 and the default "
               "number of resident blocks");
  app.add_option("--emu-schedule", cfg.emu_schedule, "emulator: dispatch order")
      ->check(CLI::IsMember({"in-order", "reverse", "random"}));
  app.add_option("--emu-resident", cfg.emu_resident, "emulator: resident block slots (0: default)");
  scanlab::run_cli(app, argc, argv);
  cfg.kind = inclusive_flag ? ScanKind::inclusive : ScanKind::exclusive;

  auto usage_error = [&](const std::string& message) {
    std::cerr << app.get_name() << ": error: " << message << "\n\n" << app.help();
    return 2;
  };
  if (cfg.op == "affine" && cfg.type != "int") return usage_error("--op affine takes no --type");
  if (cfg.op == "max" && cfg.type != "int") return usage_error("--op max is built for int32");
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
#else
  if (cfg.schedules || !cfg.emu_schedule.empty() || cfg.emu_resident > 0) {
    return usage_error("--schedules, --emu-schedule and --emu-resident are emulator options");
  }
#endif

  try {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 06: chained scan. One pass, ~2n data movement; each tile waits for the inclusive prefix\n"
                   "of the tile before it and passes its own on, so prefixes travel one tile per message latency.\n"
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
