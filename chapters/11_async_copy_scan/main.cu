// Chapter 11 driver: the asynchronous-copy scan (chapter 07's single pass, its tiles staged in
// shared memory by bulk copies).
//
// Generates a random input, runs async_copy_scan.cuh (the exercise's or the solution's) inside the
// given kernel into a poisoned output, checks it against scanlab's oracle and, on a GPU, times it
// (descriptor reset included). Exit code 0 only when verified.
//
//   ch11_async_copy_scan_solution -n 16777219                 int32 exclusive sum
//   ch11_async_copy_scan_solution --op affine --inclusive     a non-commutative operator
//   ch11_async_copy_scan_solution --in-place                  out == in
//   ch11_async_copy_scan_solution --schedules                 (emulator) every dispatch order

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
#include <scanlab/verify.hpp>

#include "async_copy_scan_dispatch.cuh"
#include "async_copy_scan_tuned.cuh"

static_assert(ch11::kStagedFrom == 8388608, "--staged-from's help names the scan object's default");

namespace {

using scanlab::ScanKind;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::exclusive;
  std::string type = "int";
  std::string op = "plus";
  bool in_place = false;
  scanlab::TunableOptions tunable;  // --tile, --first-poll, --poll-every, --tuning
  // This program shows the staged kernel at every size; the scan object by itself stages from
  // ch11::kStagedFrom elements up (--staged-from 8388608 picks the kernel as the scan object does).
  std::uint64_t staged_from = 0;
  bool one_tile = false;                 // the chapter's first staged kernel (one tile per block) instead of two tiles
  scanlab::EmulatorScheduleOptions emu;  // --schedules, --emu-schedule, --emu-resident
};

using Launch = std::function<void(const void* in, void* out, std::size_t n)>;

// The scan object's options from the command line (and the tuning file).
ch11::Options scan_options(const Config& cfg) {
  ch11::Options o;
  o.polls = {cfg.tunable.first_poll_ns, cfg.tunable.poll_every_ns};
  o.staged_from = static_cast<std::size_t>(cfg.staged_from);
  o.two_tiles = !cfg.one_tile;
  return o;
}

template <class P, class T, class Op>
Launch make_launch(const Config& cfg, std::size_t n, Op op) {
  auto scan = std::make_shared<ch11::AsyncCopyScan<T, P>>(n);
  const ScanKind kind = cfg.kind;
  const ch11::Options o = scan_options(cfg);
  return [scan, kind, op, o](const void* in, void* out, std::size_t count) {
    const T* i = static_cast<const T*>(in);
    T* d = static_cast<T*>(out);
    if (kind == ScanKind::inclusive) scan->inclusive(i, d, count, op, 0, o);
    else scan->exclusive(i, d, count, op, 0, o);
  };
}

// The default shape for every type and operator; the tuned shapes (async_copy_scan_tuned.cuh) for 4-byte
// sums.
template <class T, class Op>
Launch make_scan(const Config& cfg, std::size_t n, Op op) {
  const std::string& tile = cfg.tunable.tile;
  if (tile == "default") return make_launch<ch11::DefaultPolicy, T>(cfg, n, op);
  Launch launch;
  if constexpr (sizeof(T) == 4 && std::is_same_v<Op, scanlab::Plus<T>>) {
    const bool built = ch11::with_tuned_policy(tile, [&](auto policy) {
      launch = make_launch<decltype(policy), T>(cfg, n, op);
    });
    if (!built)
      throw std::invalid_argument("--tile " + tile + " is not built into the emulator build (tuning is for GPUs)");
  } else {
    throw std::invalid_argument("--tile " + tile + " is built for int and float sums only");
  }
  return launch;
}

// ---- the run ---------------------------------------------------------------------------------

template <class T, class Op>
int run(const Config& cfg, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const bool verbose = !cfg.common.quiet;
  std::vector<T> in;
  {
    SCANLAB_NVTX_RANGE("input");
    in = scanlab::single_pass_input<T>(n, cfg.common.seed);
  }
  const std::string what = std::to_string(n) + " elements, " + scanlab::to_string(cfg.kind) + " " + cfg.op + ", " +
                           scanlab::type_label<T>() + (cfg.in_place ? ", in place" : "");
  scanlab::Json report =
      scanlab::scan_report<T>("11_async_copy_scan", n, cfg.common.seed, cfg.kind, cfg.op, cfg.in_place);
  const bool staged = ch11::AsyncCopyScan<T>::stages(n, scan_options(cfg));
  report["kernel"] = !staged        ? "registers (chapter 07's)"
                     : cfg.one_tile ? "staged, one tile per block"
                                    : "staged, two tiles per block";
  if (verbose && !staged) {
    std::cout << "n = " << n << " is below --staged-from " << cfg.staged_from
              << ": chapter 07's kernel (tiles in registers), which is faster at this size; --staged-from 0 stages "
                 "every size\n";
  }
  report["tile"] = cfg.tunable.tile;
  report["polls_ns"] = scanlab::Json::array_of({cfg.tunable.first_poll_ns, cfg.tunable.poll_every_ns});

  scanlab::DeviceBuffer<T> d_in(n);
  scanlab::DeviceBuffer<T> d_out_storage(cfg.in_place ? 0 : n);
  scanlab::DeviceBuffer<T>& d_out = cfg.in_place ? d_in : d_out_storage;
  const Launch launch = make_scan<T>(cfg, n, op);

  auto run_once = [&]() -> scanlab::VerifyResult {
    const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out_storage, cfg.in_place, [&] {
      launch(d_in.data(), d_out.data(), n);
    });
    SCANLAB_NVTX_RANGE("verify");
    return scanlab::verify_scan(in, got, cfg.kind, op);
  };

  // --schedules: the ticket makes the scan independent of the order in which blocks start and of
  // how many can be resident at once.
  const scanlab::SinglePassRun checked =
      scanlab::run_single_pass_checked(run_once, what, cfg.emu, cfg.common.seed, false, report);
  if (checked.finished) {
    scanlab::write_json_report(cfg.common.json, report);
    return checked.check.ok ? 0 : 1;
  }
  const bool ok = checked.check.ok;

  if (!scanlab::on_emulator() && ok && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    const scanlab::Bandwidth b = scanlab::time_bandwidth(
        [&] {
          launch(d_in.data(), d_out.data(), n);
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
  scanlab::CommandLine cli{"Chapter 11: a single-pass scan whose tiles are staged by asynchronous bulk copies",
                           "ch11_async_copy_scan"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, 16777219);
  scanlab::ScanKindFlags kind_flags;
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::exclusive);
  scanlab::add_single_pass_element_options(cli, cfg.type, cfg.op);
  cli.flag("--in-place", cfg.in_place, "scan in place (out == in)");
  scanlab::add_tunable_options(cli, cfg.tunable, ch11::tuned_shapes(),
                               "tile shape: default (128 threads x 16 items x 4 chunks) or THREADSxITEMSxCHUNKS (GPU "
                               "builds; int and float sums)",
                               ch11::kTwoTilePolls.first_ns, ch11::kTwoTilePolls.every_ns);
  cli.option("--staged-from", cfg.staged_from,
             "stage tiles in shared memory from this many elements up, and run chapter 07's kernel (tiles in "
             "registers) below, as the scan object does by itself from 8388608 (2^23): faster there (0: stage "
             "every size)")
      .show_default();
  cli.flag("--one-tile", cfg.one_tile,
           "stage with the chapter's first kernel, one tile per block, instead of two tiles per block with a "
           "warp of their own for the look-back");
  scanlab::add_emulator_schedule_options(cli, cfg.emu);
  cli.parse(argc, argv);
  cfg.kind = kind_flags.kind();

  auto usage_error = [&](const std::string& message) {
    return cli.usage_error(message);
  };
  if (const std::string error = scanlab::single_pass_element_options_error(cfg.type, cfg.op); !error.empty()) {
    return usage_error(error);
  }
  if (const std::string error = scanlab::apply_emulator_schedule_options(cfg.emu); !error.empty()) {
    return usage_error(error);
  }

  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 11: asynchronous-copy scan. Chapter 07's single pass (~2n data movement), each tile\n"
                   "brought into shared memory by bulk copies, so its bytes are in flight without registers.\n"
                << "backend: " << scanlab::backend_description() << "\n";
    }
    // A tile shape that ./lab tune chose is built for int and float sums.
    const bool shape_applies = cfg.op == "plus" && cfg.type != "int64";
    const std::string tuning = scanlab::apply_tuning(cfg.tunable, "11_async_copy_scan", shape_applies,
                                                     scanlab::on_emulator(), scanlab::backend_name());
    if (!cfg.common.quiet && !tuning.empty()) std::cout << tuning << "\n";
    return scanlab::with_single_pass_operator(cfg.type, cfg.op, [&](auto op) {
      return run<typename decltype(op)::value_type>(cfg, op);
    });
  });
}
