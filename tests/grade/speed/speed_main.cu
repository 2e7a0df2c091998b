// The grader's speed runner: a student's operation, the reference solution's and a device-to-device
// copy, timed in this one process on one GPU with the bench's method (scanlab/timed_reps.cuh:
// warm-up, a spin kernel before each repetition, CUDA events, buffers rotating over several times
// the L2, medians), every output verified against the sequential oracle. It decides no points: it
// writes one JSON line per size on stdout, and the grader (scanlab_grade/speed.py) scores them.
//
//   speed_runner --sizes N[,N...] [--reps R] [--warmup W] [--limit X] [--seed S]
//
// A student's operation first runs once alone, watched from the host: when it has not finished
// after --limit times the reference's median (or faults, or its output is wrong), the line says so
// and the program ends at once (a kernel that spins forever cannot be stopped otherwise; the
// process's end ends it).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include "../../../common/include/scanlab/timed_reps.cuh"  // by path: it has a kernel (the emulator translates it)
#include <scanlab/verify.hpp>

#include "speed_entry.hpp"

SCANLAB_SPEED_DECLARE(student)
SCANLAB_SPEED_DECLARE(reference)

namespace {

struct Side {
  const char* (*check)();
  void* (*make)(std::size_t);
  void (*run)(void*, const int*, int*, std::size_t, cudaStream_t);
  void (*free)(void*);
};
const Side kStudent{scanlab_speed_student_check, scanlab_speed_student_make, scanlab_speed_student_run,
                    scanlab_speed_student_free};
const Side kReference{scanlab_speed_reference_check, scanlab_speed_reference_make, scanlab_speed_reference_run,
                      scanlab_speed_reference_free};

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

[[noreturn]] void end_with(std::size_t n, const char* status, const std::string& message) {
  std::printf("{\"n\": %zu, \"status\": \"%s\", \"message\": %s}\n", n, status, json_string(message).c_str());
  std::fflush(stdout);
  std::_Exit(0);  // no destructors: a kernel may still be running
}

// Empty: the output is right.
std::string verify(const std::string& check, const std::vector<int>& in, const std::vector<int>& got) {
  const std::size_t n = in.size();
  if (check == "exclusive") {
    std::vector<int> want(n);
    scanlab::exclusive_scan_oracle(in.data(), want.data(), n, scanlab::Plus<int>{});
    const scanlab::VerifyResult r = scanlab::verify_exact(want.data(), got.data(), n);
    return r.ok ? "" : r.message();
  }
  if (check.rfind("inclusive_tiles:", 0) == 0) {
    const std::size_t tile = std::stoul(check.substr(16));
    std::vector<int> want(n);
    for (std::size_t off = 0; off < n; off += tile) {
      const std::size_t len = tile < n - off ? tile : n - off;
      scanlab::inclusive_scan_oracle(in.data() + off, want.data() + off, len, scanlab::Plus<int>{});
    }
    const scanlab::VerifyResult r = scanlab::verify_exact(want.data(), got.data(), n);
    return r.ok ? "" : r.message();
  }
  if (check == "select_positive") {
    std::vector<int> want;
    for (const int x : in) {
      if (x > 0) want.push_back(x);
    }
    const scanlab::VerifyResult r = scanlab::verify_exact(want.data(), got.data(), want.size());
    return r.ok ? "" : r.message();
  }
  return "the runner does not know the check '" + check + "'";
}

struct Args {
  std::vector<std::size_t> sizes;
  int reps = 20, warmup = 3;
  double limit = 100.0;
  unsigned long long seed = 1;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--sizes") {
      std::size_t start = 0;
      while (start <= v.size()) {
        const std::size_t comma = v.find(',', start);
        a.sizes.push_back(std::stoull(v.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (k == "--reps") {
      a.reps = std::stoi(v);
    } else if (k == "--warmup") {
      a.warmup = std::stoi(v);
    } else if (k == "--limit") {
      a.limit = std::stod(v);
    } else if (k == "--seed") {
      a.seed = std::stoull(v);
    } else {
      throw std::invalid_argument("unknown option " + k);
    }
  }
  if (a.sizes.empty()) throw std::invalid_argument("--sizes is required");
  return a;
}

// Runs op once on the stream and waits at most limit_ms for it (polling: a hung kernel would block
// a synchronising call for ever). False: still running at the deadline.
bool run_within(const Side& side, void* op, const int* in, int* out, std::size_t n, cudaStream_t s, double limit_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  side.run(op, in, out, n, s);
#ifdef SCANLAB_EMU
  // The emulator runs a launch to its end before returning (its own watchdog ends a hang).
  (void)t0;
  (void)limit_ms;
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
  return true;
#else
  for (;;) {
    const cudaError_t st = cudaStreamQuery(s);
    if (st == cudaSuccess) return true;
    if (st != cudaErrorNotReady) SCANLAB_CUDA_CHECK(st);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms > limit_ms) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
#endif
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t n_now = 0;
  try {
    const Args a = parse(argc, argv);
    int device = 0, l2 = 0, clock_khz = 0;
    SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
    SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
#ifdef SCANLAB_EMU
    const long long spin = 0;  // no host launch latency to hide on the emulator
    (void)clock_khz;
#else
    const long long spin = static_cast<long long>(50.0 * clock_khz / 1000.0);  // 50 us: the bench's --spin-us
#endif
    cudaStream_t s{};
    SCANLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const std::string check = kReference.check();
    for (const std::size_t n : a.sizes) {
      n_now = n;
      const std::size_t slots = scanlab::timing::rotation_slots(n, sizeof(int), 4.0, static_cast<std::size_t>(l2));
      const std::vector<int> in = scanlab::random_vector<int>(n, a.seed + n, -100, 100);
      scanlab::DeviceBuffer<int> in_pool(slots * n), out_pool(slots * n);
      for (std::size_t k = 0; k < slots; ++k) {
        SCANLAB_CUDA_CHECK(cudaMemcpy(in_pool.data() + k * n, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
      }
      std::size_t op_count = 0;
      auto read_back = [&](std::size_t slot) {
        std::vector<int> got(n);
        SCANLAB_CUDA_CHECK(cudaMemcpy(got.data(), out_pool.data() + slot * n, n * sizeof(int), cudaMemcpyDeviceToHost));
        return got;
      };
      auto time_side = [&](const Side& side, void* op) {
        SCANLAB_CUDA_CHECK(cudaMemset(out_pool.data(), 0xff, slots * n * sizeof(int)));  // poisoned
        return scanlab::timing::time_repetitions(
            [&](std::size_t k) {
              side.run(op, in_pool.data() + k * n, out_pool.data() + k * n, n, s);
            },
            slots, op_count, a.warmup, a.reps, spin, s);
      };
      const auto copy = scanlab::timing::time_repetitions(
          [&](std::size_t k) {
            SCANLAB_CUDA_CHECK(cudaMemcpyAsync(out_pool.data() + k * n, in_pool.data() + k * n, n * sizeof(int),
                                               cudaMemcpyDeviceToDevice, s));
          },
          slots, op_count, a.warmup, a.reps, spin, s);

      void* ref = kReference.make(n);
      const auto ref_t = time_side(kReference, ref);
      const std::string ref_wrong = verify(check, in, read_back(ref_t.last_slot));
      kReference.free(ref);
      if (!ref_wrong.empty()) end_with(n, "reference_wrong", "the reference solution's output is wrong: " + ref_wrong);

      void* mine = nullptr;
      try {
        mine = kStudent.make(n);
        const double limit_ms = a.limit * ref_t.median_ms + 1000.0;  // + 1 s: a launch's set-up
        if (!run_within(kStudent, mine, in_pool.data(), out_pool.data(), n, s, limit_ms)) {
          end_with(n, "too_slow",
                   "your operation had not finished after " + std::to_string(limit_ms) + " ms, " +
                       std::to_string(a.limit) + " x the reference's time plus 1 s");
        }
        const auto mine_t = time_side(kStudent, mine);
        const std::string wrong = verify(check, in, read_back(mine_t.last_slot));
        if (!wrong.empty()) end_with(n, "wrong", "your output is wrong: " + wrong);
        std::printf("{\"n\": %zu, \"status\": \"ok\", \"copy_ms\": %.6f, \"reference_ms\": %.6f, \"student_ms\": %.6f, "
                    "\"student_min_ms\": %.6f, \"student_max_ms\": %.6f, \"reps\": %d, \"slots\": %zu}\n",
                    n, copy.median_ms, ref_t.median_ms, mine_t.median_ms, mine_t.min_ms, mine_t.max_ms, mine_t.reps,
                    slots);
        std::fflush(stdout);
      } catch (const std::exception& e) {
        end_with(n, "fault", std::string("your operation failed: ") + e.what());
      }
      kStudent.free(mine);
    }
  } catch (const std::exception& e) {
    end_with(n_now, "error", e.what());
  }
  return 0;
}
