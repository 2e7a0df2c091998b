// Chapter 12 driver: a scan across devices, one process (rank) per device.
//
// Every rank makes its own slice of one input (element i depends only on the seed and i, so the
// input, and the result, do not depend on the number of ranks), uploads it to its device, runs its
// part of the scan (multi_gpu_scan_dispatch.cuh) and checks its slice against the oracle: each rank
// scans its slice on the host, the ranks exchange those host totals, and each rank combines the
// totals before it itself, so that the check shares nothing with the code it checks but the
// exchange. Rank 0 prints the verdict of all ranks. Exit code 0 only when every rank verified.
//
// Emulator build (one process per emulated device, Communicator = MPI):
//   mpirun -np 3 ch12_multi_gpu_scan_solution -n 100003        (./lab run 12 --solution --ranks 3)
//   ch12_multi_gpu_scan_solution                                one rank, without mpirun
// GPU build (one process per GPU, Communicator = NCCL; the program starts its ranks itself):
//   ch12_multi_gpu_scan_solution --ranks 2 -n 2^30 --in-place
//   ch12_multi_gpu_scan_solution --form scan-then-add --op affine --inclusive

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
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
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/random.hpp>
#include <scanlab/stats.hpp>
#include <scanlab/verify.hpp>

#include "multi_gpu_scan_dispatch.cuh"
#include "rank_processes.hpp"
#if defined(SCANLAB_CH12_MPI)
#include "mpi_communicator.hpp"
#endif
#if defined(SCANLAB_CH12_NCCL)
#include "nccl_communicator.hpp"
#endif

namespace {

using scanlab::ScanKind;

struct Config {
  scanlab::CommonOptions common;
  ScanKind kind = ScanKind::exclusive;
  std::string type = "int";
  std::string op = "plus";
  std::string form = "fused";
  bool in_place = false;
  int ranks = 0;  // 0: as many as the launcher started (MPI), or 1
};

// Element i of the input: a function of (seed, i) only, so that every rank makes its own slice.
// The values are those of the other chapters' inputs: integers in [-100, 100], floats in [-1, 1),
// affine maps with odd multipliers (so that a dropped or swapped map changes every later prefix).
template <class T>
T element(std::uint64_t seed, std::size_t i) {
  scanlab::Rng rng(scanlab::derive_seed(seed, 1200 + i));
  if constexpr (std::is_same_v<T, scanlab::Affine<std::uint32_t>>) {
    const std::uint32_t a = rng.next_u32() | 1u;
    return T{a, rng.next_u32()};
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return rng.uniform<std::int64_t>(-1000000000, 1000000000);
  } else if constexpr (std::is_floating_point_v<T>) {
    return rng.uniform<T>(T(-1), T(1));
  } else {
    return rng.uniform<T>(T(-100), T(100));
  }
}

// What a rank found when it checked its slice, exchanged as bytes.
struct SliceVerdict {
  std::uint64_t mismatches;
  std::uint64_t first_index;  // into the whole array
  char detail[192];
};

// Checks this rank's slice of the whole scan. Exact types: the host's scan of the slice, seeded
// with the ranks' host totals before this one (combined here, in rank order). Float sums: against a
// float64 reference with the tolerance of the whole length, as verify_float_scan does.
template <class T, class Op>
SliceVerdict check_slice(ch12::Communicator& comm, const std::vector<T>& in, const std::vector<T>& got,
                         const ch12::Slice& slice, std::size_t n, ScanKind kind, Op op) {
  SCANLAB_NVTX_RANGE("ch12 verify the slice");
  SliceVerdict v{};
  auto note_mismatch = [&](std::size_t i, const std::string& expected, const std::string& value) {
    if (v.mismatches++ == 0) {
      v.first_index = slice.begin + i;
      std::snprintf(v.detail, sizeof v.detail, "element %zu: expected %s, got %s", slice.begin + i, expected.c_str(),
                    value.c_str());
    }
  };
  if constexpr (std::is_floating_point_v<T>) {
    struct Sums {
      double sum, abs_sum;
    };
    Sums mine{0.0, 0.0};
    for (const T x : in) {
      mine.sum += static_cast<double>(x);
      mine.abs_sum += std::fabs(static_cast<double>(x));
    }
    const std::vector<Sums> all = ch12::allgather(comm, mine);
    long double ref = 0, abs_sum = 0;
    for (int q = 0; q < comm.rank(); ++q) {
      ref += all[static_cast<std::size_t>(q)].sum;
      abs_sum += all[static_cast<std::size_t>(q)].abs_sum;
    }
    const long double rel = scanlab::float_scan_tolerance<T>(n);
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (kind == ScanKind::inclusive) {
        ref += in[i];
        abs_sum += std::fabs(static_cast<long double>(in[i]));
      }
      const long double g = got[i];
      if (!(std::isfinite(static_cast<double>(g)) && std::fabs(g - ref) <= rel * abs_sum)) {
        note_mismatch(i, scanlab::to_display_string(static_cast<double>(ref)),
                      scanlab::detail::display_with_poison(got[i]));
      }
      if (kind == ScanKind::exclusive) {
        ref += in[i];
        abs_sum += std::fabs(static_cast<long double>(in[i]));
      }
    }
  } else {
    T mine = Op::identity();
    for (const T& x : in) mine = op(mine, x);
    const std::vector<T> all = ch12::allgather(comm, mine);
    T running = Op::identity();
    for (int q = 0; q < comm.rank(); ++q) running = op(running, all[static_cast<std::size_t>(q)]);
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (kind == ScanKind::inclusive) running = op(running, in[i]);
      if (!(got[i] == running)) {
        note_mismatch(i, scanlab::to_display_string(running), scanlab::detail::display_with_poison(got[i]));
      }
      if (kind == ScanKind::exclusive) running = op(running, in[i]);
    }
  }
  return v;
}

// A barrier: an allgather of nothing much.
void barrier(ch12::Communicator& comm) { (void)ch12::allgather(comm, 0); }

template <class T, class Op>
int run(const Config& cfg, ch12::Communicator& comm, Op op) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const int rank = comm.rank(), ranks = comm.size();
  const bool talk = rank == 0 && !cfg.common.quiet;
  const ch12::Form form = cfg.form == "fused" ? ch12::Form::fused : ch12::Form::scan_then_add;
  const ch12::Slice slice = ch12::slice_of(n, ranks, rank);

  std::vector<T> in(slice.size);
  {
    SCANLAB_NVTX_RANGE("ch12 make the slice");
    for (std::size_t i = 0; i < slice.size; ++i) in[i] = element<T>(cfg.common.seed, slice.begin + i);
  }
  scanlab::DeviceBuffer<T> d_in(slice.size);
  scanlab::DeviceBuffer<T> d_out_storage(cfg.in_place ? 0 : slice.size);
  T* d_out = cfg.in_place ? d_in.data() : d_out_storage.data();
  ch12::SeededScan<T> scan(slice.size);

  const std::string what = std::to_string(n) + " elements over " + std::to_string(ranks) + " rank(s), " +
                           scanlab::to_string(cfg.kind) + " " + cfg.op + ", " + scanlab::type_label<T>() + ", " +
                           cfg.form + (cfg.in_place ? ", in place" : "");
  if (talk) std::cout << "scan: " << what << "\n";

  d_in.upload(in);
  if (!cfg.in_place) d_out_storage.fill_poison();
  const ch12::RankResult<T> result =
      ch12::multi_gpu_scan(comm, scan, d_in.data(), d_out, slice.size, cfg.kind, op, form);
  std::vector<T> got(slice.size);
  if (slice.size > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(got.data(), d_out, slice.size * sizeof(T), cudaMemcpyDeviceToHost));

  const SliceVerdict mine = check_slice(comm, in, got, slice, n, cfg.kind, op);
  const std::vector<SliceVerdict> verdicts = ch12::allgather(comm, mine);
  std::uint64_t wrong = 0;
  for (const SliceVerdict& v : verdicts) wrong += v.mismatches;
  const bool ok = wrong == 0;

  scanlab::Json report =
      scanlab::scan_report<T>("12_multi_gpu_scan", n, cfg.common.seed, cfg.kind, cfg.op, cfg.in_place);
  report["communicator"] = comm.name();
  report["ranks"] = ranks;
  report["form"] = cfg.form;
  report["verified"] = ok;
  if (rank == 0) {
    for (int q = 0; q < ranks; ++q) {
      const ch12::Slice s = ch12::slice_of(n, ranks, q);
      const SliceVerdict& v = verdicts[static_cast<std::size_t>(q)];
      if (!cfg.common.quiet || v.mismatches > 0) {
        std::cout << "  rank " << q << ": elements [" << s.begin << ", " << s.begin + s.size << "), "
                  << (v.mismatches == 0 ? std::string("verified")
                                        : "FAILED: " + std::to_string(v.mismatches) + " wrong, first " + v.detail)
                  << "\n";
      }
    }
    if (!cfg.common.quiet && ranks > 1 && ranks <= 8) {
      std::cout << "  the slice totals the ranks exchanged:";
      for (const T& t : result.totals) std::cout << " " << scanlab::to_display_string(t);
      std::cout << (form == ch12::Form::fused ? "  (the last rank's is needed by no one: the identity)" : "") << "\n";
    }
    std::cout << (ok ? "verified: " : "FAILED: ") << what << (ok ? "" : " (" + std::to_string(wrong) + " wrong)")
              << "\n";
  }

  if (!scanlab::on_emulator() && ok && n > 0) {
    // The whole operation, exchange included, started together on every rank (a barrier before
    // each run): the time of a run is the slowest rank's.
    SCANLAB_NVTX_RANGE("ch12 timing");
    std::vector<double> step_samples[4];
    auto once = [&] {
      barrier(comm);
      const auto t0 = std::chrono::steady_clock::now();
      const ch12::RankResult<T> r =
          ch12::multi_gpu_scan(comm, scan, d_in.data(), d_out, slice.size, cfg.kind, op, form);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      for (int k = 0; k < 4; ++k) step_samples[k].push_back(r.step_ms[k]);
      double slowest = 0;
      for (const double t : ch12::allgather(comm, ms)) slowest = std::max(slowest, t);
      return slowest;
    };
    for (int i = 0; i < 3; ++i) once();
    for (auto& v : step_samples) v.clear();
    std::vector<double> samples;
    for (int i = 0; i < cfg.common.repeat; ++i) samples.push_back(once());
    const scanlab::TimingStats stats = scanlab::summarize_ms(samples);
    const double gbps = scanlab::gbps(2.0 * static_cast<double>(n) * sizeof(T), stats.median_ms);
    // Where the time goes: each step's median on each rank, and the largest of those over the ranks
    // (a rank's step 2 includes its wait for the slowest rank's step 1).
    struct Steps {
      double ms[4];
    };
    Steps mine{};
    for (int k = 0; k < 4; ++k) mine.ms[k] = scanlab::median(step_samples[k]);
    const std::vector<Steps> steps = ch12::allgather(comm, mine);
    if (rank == 0) {
      std::cout << "median " << stats.median_ms << " ms over " << stats.reps << " run(s), " << gbps
                << " GB/s (2*n*sizeof(T) bytes over all ranks; exchange included, slowest rank)\n";
      const char* names[4] = {form == ch12::Form::fused ? "1. reduce" : "1. scan", "2. allgather", "3. combine",
                              form == ch12::Form::fused ? "4. seeded scan" : "4. add offset"};
      std::cout << "steps, median ms (rank 0 | slowest rank):";
      for (int k = 0; k < 4; ++k) {
        double slowest = 0;
        for (const Steps& st : steps) slowest = std::max(slowest, st.ms[k]);
        std::cout << (k == 0 ? " " : ", ") << names[k] << " " << steps[0].ms[k] << " | " << slowest;
        report["step_ms"][names[k]] = {{"rank0", steps[0].ms[k]}, {"slowest", slowest}};
      }
      std::cout << "\n";
    }
    report["median_ms"] = stats.median_ms;
    report["min_ms"] = stats.min_ms;
    report["gbps"] = gbps;
  } else if (talk && scanlab::on_emulator()) {
    scanlab::say_not_timed();
  }
  if (rank == 0) scanlab::write_json_report(cfg.common.json, report);
  return ok ? 0 : 1;
}

int run_rank(const Config& cfg, ch12::Communicator& comm) {
  return scanlab::with_single_pass_operator(cfg.type, cfg.op, [&](auto op) {
    return run<typename decltype(op)::value_type>(cfg, comm, op);
  });
}

}  // namespace

int main(int argc, char** argv) {
#if defined(SCANLAB_CH12_MPI)
  // Before the command line: MPI_Init may take its own arguments out of argv.
  std::unique_ptr<ch12::Communicator> mpi = ch12::make_mpi_communicator(&argc, &argv);
#endif
  scanlab::CommandLine cli{"Chapter 12: scan across devices, one process (rank) per device", "ch12_multi_gpu_scan"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, 1000003);
  scanlab::ScanKindFlags kind_flags;
  scanlab::add_scan_kind_flags(cli, kind_flags, ScanKind::exclusive);
  scanlab::add_single_pass_element_options(cli, cfg.type, cfg.op);
  cli.option("--form", cfg.form, "fused (reduce, exchange, seeded scan) or scan-then-add")
      .one_of({"fused", "scan-then-add"})
      .show_default();
  cli.flag("--in-place", cfg.in_place, "scan in place (out == in)");
  cli.option("--ranks", cfg.ranks,
             "ranks: on a GPU, the processes this program starts, one per GPU; on the emulator, the number "
             "mpirun started (mpirun -np K)")
      .positive();
  cli.parse(argc, argv);
  cfg.kind = kind_flags.kind();
  if (const std::string error = scanlab::single_pass_element_options_error(cfg.type, cfg.op); !error.empty()) {
    return cli.usage_error(error);
  }

  return scanlab::run_reporting_errors(cli, [&]() -> int {
#if defined(SCANLAB_CH12_MPI)
    if (cfg.ranks != 0 && cfg.ranks != mpi->size()) {
      if (mpi->rank() != 0) return 2;
      return cli.usage_error("--ranks " + std::to_string(cfg.ranks) + ", but mpirun started " +
                             std::to_string(mpi->size()) + " process(es): run it as mpirun -np " +
                             std::to_string(cfg.ranks) + " ... (./lab run 12 --ranks " + std::to_string(cfg.ranks) +
                             " does)");
    }
    if (mpi->rank() == 0 && !cfg.common.quiet) {
      std::cout << "Chapter 12: scan across devices. Each rank finds its slice's total, the ranks allgather the\n"
                   "totals, each combines those before it and scans its slice from that offset.\n"
                << "backend: " << scanlab::backend_description() << ", one process per emulated device\n"
                << "communicator: " << mpi->name() << ", " << mpi->size() << " rank(s)\n";
    }
    return run_rank(cfg, *mpi);
#elif defined(SCANLAB_CH12_NCCL)
    const int ranks = cfg.ranks == 0 ? 1 : cfg.ranks;
    int devices = 0;
    // Counting the devices initialises CUDA in this process, which fork() must not copy: a child
    // process asks for the count.
    {
      const std::vector<int> counted = ch12::run_rank_processes(2, [&](ch12::Communicator& c) -> int {
        if (c.rank() == 0) return 0;
        int count = 0;
        return cudaGetDeviceCount(&count) == cudaSuccess ? std::min(count, 100) : 0;
      });
      devices = counted[1];
    }
    if (ranks > devices) {
      return cli.usage_error("--ranks " + std::to_string(ranks) + " needs " + std::to_string(ranks) +
                                           " GPUs (NCCL puts one rank on each GPU and refuses two on one); this "
                                           "machine has " + std::to_string(devices));
    }
    if (!cfg.common.quiet) {
      std::cout << "Chapter 12: scan across devices. Each rank finds its slice's total, the ranks allgather the\n"
                   "totals, each combines those before it and scans its slice from that offset.\n";
    }
    const std::vector<int> statuses = ch12::run_rank_processes(ranks, [&](ch12::Communicator& processes) -> int {
      std::unique_ptr<ch12::Communicator> nccl = ch12::make_nccl_communicator(processes, processes.rank());
      if (nccl->rank() == 0 && !cfg.common.quiet) {
        std::cout << "backend: " << scanlab::backend_description() << ", one process per GPU\n"
                  << "communicator: " << nccl->name() << ", " << nccl->size() << " rank(s)\n";
      }
      return run_rank(cfg, *nccl);
    });
    int status = 0;
    for (std::size_t r = 0; r < statuses.size(); ++r) {
      if (statuses[r] != 0) {
        if (status == 0) status = statuses[r];
        std::cerr << "ch12_multi_gpu_scan: rank " << r << " ended with status " << statuses[r] << "\n";
      }
    }
    return status;
#else
    (void)cfg;
    std::cout << "skipped: this build of chapter 12 has no communicator. "
              << (scanlab::on_emulator()
                      ? "The emulator build needs MPI (Debian: libopenmpi-dev and openmpi-bin; CMake's FindMPI)."
                      : "The GPU build needs NCCL: from the CUDA Toolkit, or pip's nvidia-nccl-cu13 wheel "
                        "(configure with -DSCANLAB_NCCL_ROOT=<the wheel's nvidia/nccl folder>).")
              << "\n";
    return 0;
#endif
  });
}
