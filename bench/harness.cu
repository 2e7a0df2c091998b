// scanlab_bench: the harness. For every (type, n) it prepares the random input of each kind its
// rows take (Row::input: the narrow one, the sorts' all-bits keys), then for every row: allocates
// what the row needs (untimed), poisons the outputs, warms up, times each repetition with a CUDA
// event pair around the whole operation, and finally verifies the output of the last timed
// repetition against the sequential oracle from scanlab/common.
//
// Methodology after design.md §7 (and the usual practice of CUB's and nvbench's benchmarks); the
// timed loop itself is scanlab/timed_reps.cuh, which the grader's speed runner shares:
// - Events bracket the whole operation as a user would call it: CUB's init kernel, a chapter's
//   flag/counter resets, several kernels. Allocations made once up front are not timed.
// - Before each timed repetition a one-thread spin kernel keeps the stream busy for a few tens
//   of microseconds, so the start event, the operation and the stop event are all queued on the
//   GPU before the operation begins: the host's launch latency is not measured, the GPU's
//   time between the operation's own kernels is.
// - Inputs and outputs rotate over enough buffer pairs to span l2_rotate_factor x the L2 size,
//   so no repetition finds its input (or its output lines) still in L2 from an earlier one. At
//   large n there is a single pair, which is already several times the L2. --l2-warm turns the
//   rotation off (sizes that fit in L2 then measure a hot cache, and are flagged as such).
// - The median of the repetitions is reported (min and max too): a median ignores the odd
//   repetition disturbed by clocks or the host.
// - Copy and CUB run at every (type, n) just before the other rows, so the ratios compare
//   numbers taken minutes, not days, apart on the same device.
#include "harness.hpp"

#include <cub/version.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timed_reps.cuh>
#include <scanlab/verify.hpp>

#include "baseline.hpp"

#define SCANLAB_BENCH_STR2(x) #x
#define SCANLAB_BENCH_STR(x) SCANLAB_BENCH_STR2(x)

namespace scanlab::bench {
namespace {

template <class T>
__global__ void fill_kernel(T* p, size_t n, T value) {
  const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
  for (size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    p[i] = value;
  }
}

template <class T>
void fill_device(T* p, size_t n, T value, cudaStream_t s) {
  if (n == 0) return;
  const size_t blocks = std::min<size_t>((n + 255) / 256, 4096);
  fill_kernel<T><<<static_cast<unsigned>(blocks), 256, 0, s>>>(p, n, value);
  SCANLAB_CHECK_LAUNCH();
}

template <class T>
const char* type_name() {
  return std::is_same_v<T, float> ? "float" : "int32";
}

// Small symmetric ranges: never all zeros, and int32 prefix sums of a random walk stay far from
// overflow even at 2^32 elements, so the host oracle's arithmetic is well defined.
template <class T>
T random_lo() {
  if constexpr (std::is_integral_v<T>) return T(-100);
  else return T(-1);
}
template <class T>
T random_hi() {
  if constexpr (std::is_integral_v<T>) return T(100);
  else return T(1);
}

// The input of a row (Row::input). The narrow one keeps the seed it always had, so that runs of
// the scans stay comparable; the sorts' keys come from a seed derived from it.
template <class T>
std::vector<T> draw_input(Input kind, size_t n, uint64_t seed) {
  if (kind == Input::narrow) return random_vector<T>(n, seed, random_lo<T>(), random_hi<T>());
  if constexpr (std::is_integral_v<T>) {
    return random_vector<T>(n, derive_seed(seed, 1), std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  } else {
    throw std::logic_error("the all-bits input is for int32 rows only");
  }
}

class Stream {
 public:
  Stream() { SCANLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_{};
};

// The input of one (type, n) and the expected outputs, computed once on first use.
template <class T>
class Expected {
 public:
  explicit Expected(std::vector<T> in) : in_(std::move(in)) {}
  const std::vector<T>& input() const { return in_; }

  const std::vector<T>& exclusive() {
    if (exclusive_.empty()) {
      exclusive_.resize(in_.size());
      exclusive_scan_oracle(in_.data(), exclusive_.data(), in_.size(), Plus<T>{});
    }
    return exclusive_;
  }
  const std::vector<T>& inclusive() {
    if (inclusive_.empty()) {
      inclusive_.resize(in_.size());
      inclusive_scan_oracle(in_.data(), inclusive_.data(), in_.size(), Plus<T>{});
    }
    return inclusive_;
  }
  const std::vector<T>& sorted() {  // as uint32 bit patterns
    if (sorted_.empty()) {
      sorted_ = in_;
      std::sort(sorted_.begin(), sorted_.end(), [](T a, T b) {
        return static_cast<uint32_t>(a) < static_cast<uint32_t>(b);
      });
    }
    return sorted_;
  }
  const std::vector<T>& inclusive_tiles(size_t tile) {
    if (tiles_.empty() || tiles_len_ != tile) {
      tiles_.resize(in_.size());
      tiles_len_ = tile;
      for (size_t off = 0; off < in_.size(); off += tile) {
        const size_t len = std::min(tile, in_.size() - off);
        inclusive_scan_oracle(in_.data() + off, tiles_.data() + off, len, Plus<T>{});
      }
    }
    return tiles_;
  }

 private:
  std::vector<T> in_;
  std::vector<T> exclusive_, inclusive_, tiles_, sorted_;
  size_t tiles_len_ = 0;
};

// Empty string: the output is right. Otherwise what is wrong, first mismatch first.
template <class T>
std::string verify_row(const Row& row, Expected<T>& exp, const std::vector<T>& got) {
  const size_t n = got.size();
  const T* in = exp.input().data();
  if (row.check == Check::custom) {
    const Verifier<T>& verify = row.template verifier<T>();
    return verify ? verify(exp.input(), got) : std::string("no verifier for this type");
  }
  if (row.check == Check::copy) {
    const VerifyResult r = verify_exact(in, got.data(), n);
    return r.ok ? std::string() : r.message();
  }
  if constexpr (std::is_integral_v<T>) {
    const std::vector<T>* want = nullptr;
    switch (row.check) {
      case Check::exclusive: want = &exp.exclusive(); break;
      case Check::inclusive: want = &exp.inclusive(); break;
      case Check::inclusive_tiles: want = &exp.inclusive_tiles(row.tile); break;
      case Check::sorted: want = &exp.sorted(); break;
      case Check::copy: break;
      case Check::custom: break;
    }
    const VerifyResult r = verify_exact(want->data(), got.data(), n);
    if (!r.ok) return r.message();
    // Sorted keys, then the row's own check where it has one (a key-value sort's values).
    const Verifier<T>& also = row.template verifier<T>();
    return row.check == Check::sorted && also ? also(exp.input(), got) : std::string();
  } else {
    if (row.check == Check::sorted) return "the sort check is for int32 rows only";
    if (row.check == Check::inclusive_tiles) {
      // Each tile is its own scan, so each gets the tolerance of its own length.
      size_t bad_tiles = 0;
      std::string first;
      for (size_t off = 0; off < n; off += row.tile) {
        const size_t len = std::min(row.tile, n - off);
        const VerifyResult r = verify_float_scan(in + off, got.data() + off, len, ScanKind::inclusive);
        if (!r.ok) {
          if (bad_tiles == 0) {
            first = "tile starting at element " + std::to_string(off) + ": " + r.message();
          }
          ++bad_tiles;
        }
      }
      if (bad_tiles == 0) return std::string();
      return first + " [" + std::to_string(bad_tiles) + " of " + std::to_string((n + row.tile - 1) / row.tile) +
             " tiles wrong]";
    }
    const ScanKind kind = row.check == Check::exclusive ? ScanKind::exclusive : ScanKind::inclusive;
    const VerifyResult r = verify_float_scan(in, got.data(), n, kind);
    return r.ok ? std::string() : r.message();
  }
}

struct Context {
  const Config& cfg;
  const DeviceMeta& meta;
  cudaStream_t stream;
  long long spin_cycles;
};

// load_input(kind) puts that input into in_pool (drawing it on first use) and returns it.
template <class T>
Measurement measure_row(const Context& ctx, const Row& row, size_t n, size_t slots, DeviceBuffer<T>& in_pool,
                        DeviceBuffer<T>& out_pool, const std::function<Expected<T>&(Input)>& load_input,
                        std::string& device_lost) {
  Measurement m;
  m.algorithm = row.name;
  m.type = type_name<T>();
  m.n = n;
  m.elem_bytes = sizeof(T);
  m.written = n;
  m.arrays = row.arrays;
  m.slots = slots;
  m.l2_resident = static_cast<double>(slots) * 2.0 * static_cast<double>(n) * sizeof(T) <
                  ctx.cfg.l2_rotate_factor * static_cast<double>(ctx.meta.l2_bytes);
  if (n < row.min_n || n > row.max_n) {
    m.status = Status::skipped;
    m.note = row.limit_note.empty() ? "outside the row's size limits" : row.limit_note;
    return m;
  }
  const Factory<T>& factory = row.template factory<T>();
  if (!factory) {
    m.status = Status::skipped;
    m.note = std::string("no ") + type_name<T>() + " version";
    return m;
  }
  try {
    Expected<T>& exp = load_input(row.input);
    if (row.template written<T>()) m.written = row.template written<T>()(exp.input());
    const Runner<T> run = factory(n);  // the row's allocations: untimed
    fill_device(out_pool.data(), out_pool.size(), poison<T>(), ctx.stream);
    SCANLAB_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));

    size_t op = 0;  // running count of operations, picks the buffer pair
    auto out_of = [&](size_t slot) {
      return out_pool.data() + slot * n;
    };
    SCANLAB_NVTX_RANGE("scanlab_bench warm-up and timed repetitions");
    const timing::Times t = timing::time_repetitions(
        [&](size_t slot) {
          run(in_pool.data() + slot * n, out_of(slot), n, ctx.stream);
        },
        slots, op, ctx.cfg.warmup, ctx.cfg.reps, ctx.spin_cycles, ctx.stream);
    m.median_ms = t.median_ms;
    m.min_ms = t.min_ms;
    m.max_ms = t.max_ms;
    m.reps = t.reps;

    // The last timed repetition's output (its buffer pair was poisoned before the warm-up).
    std::vector<T> got(n);
    SCANLAB_CUDA_CHECK(cudaMemcpy(got.data(), out_of(t.last_slot), n * sizeof(T), cudaMemcpyDeviceToHost));
    const std::string wrong = verify_row(row, exp, got);
    m.status = wrong.empty() ? Status::ok : Status::failed;
    m.note = wrong.empty() ? row.limit_note : "wrong output: " + wrong;
  } catch (const std::exception& e) {  // CudaError, or a wrapper rejecting its arguments
    m.status = Status::failed;
    m.note = e.what();
    // A launch-configuration error leaves the context usable; a fault in a kernel does not.
    cudaGetLastError();
    const cudaError_t st = cudaDeviceSynchronize();
    if (st != cudaSuccess) {
      device_lost = row.name + ": " + e.what() + "; the device then reports " + cudaGetErrorName(st);
    }
  }
  return m;
}

template <class T>
std::vector<Measurement> run_size(const Context& ctx, const std::vector<const Row*>& rows, size_t n,
                                  std::string& device_lost) {
  const double ws = 2.0 * static_cast<double>(n) * sizeof(T);  // one buffer pair, bytes
  size_t slots = 1;
  if (!ctx.cfg.l2_warm) {
    const double span = ctx.cfg.l2_rotate_factor * static_cast<double>(ctx.meta.l2_bytes);
    slots = std::max<size_t>(1, static_cast<size_t>(std::ceil(span / ws)));
  }
  const size_t pool_elems = slots * n;

  std::vector<Measurement> out;
  auto skipped = [&](const Row* row, const std::string& why) {
    Measurement m;
    m.algorithm = row->name;
    m.type = type_name<T>();
    m.n = n;
    m.elem_bytes = sizeof(T);
    m.written = n;
    m.arrays = row->arrays;
    m.status = Status::skipped;
    m.note = why;
    return m;
  };
  size_t free_b = 0, total_b = 0;
  SCANLAB_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  const double need = 2.0 * static_cast<double>(pool_elems) * sizeof(T) + 256.0 * 1024 * 1024;
  if (need > static_cast<double>(free_b)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "not enough device memory (needs %.1f GiB, %.1f GiB free)", need / 1073741824.0,
                  static_cast<double>(free_b) / 1073741824.0);
    for (const Row* row : rows) out.push_back(skipped(row, buf));
    return out;
  }

  const uint64_t seed = ctx.cfg.seed ^ (0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(n) + 1)) ^
                        (std::is_integral_v<T> ? 0u : 0x5bd1e995u);
  DeviceBuffer<T> in_pool(pool_elems);
  DeviceBuffer<T> out_pool(pool_elems);
  // The inputs of this (type, n), each drawn on first use; in_pool holds the one last loaded.
  std::optional<Expected<T>> inputs[2];
  std::optional<Input> loaded;
  const std::function<Expected<T>&(Input)> load_input = [&](Input kind) -> Expected<T>& {
    std::optional<Expected<T>>& exp = inputs[kind == Input::narrow ? 0 : 1];
    if (!exp) exp.emplace(draw_input<T>(kind, n, seed));
    if (loaded != kind) {
      SCANLAB_CUDA_CHECK(cudaMemcpy(in_pool.data(), exp->input().data(), n * sizeof(T), cudaMemcpyHostToDevice));
      // The same data in every pair (L2 is keyed by address, not value), copied in doubling steps:
      // one copy a pair would take minutes at tiny n, where the pairs number in the millions.
      for (size_t have = 1; have < slots; have *= 2) {
        const size_t copy = std::min(have, slots - have) * n;
        SCANLAB_CUDA_CHECK(
            cudaMemcpy(in_pool.data() + have * n, in_pool.data(), copy * sizeof(T), cudaMemcpyDeviceToDevice));
      }
      SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
      loaded = kind;
    }
    return *exp;
  };

  for (const Row* row : rows) {
    if (!device_lost.empty()) {
      out.push_back(skipped(row, "not run: the device failed in an earlier row"));
    } else {
      out.push_back(measure_row<T>(ctx, *row, n, slots, in_pool, out_pool, load_input, device_lost));
    }
  }

  const Anchor copy = fastest_anchor(out, {kCopyRow});
  for (size_t i = 0; i < out.size(); ++i) {
    Measurement& m = out[i];
    if (m.status != Status::ok || m.median_ms <= 0) continue;
    if (copy.ms > 0) m.ratio_copy = copy.ms / m.median_ms;
    // An application row: its own CUB counterpart, the faster of several where it has more.
    const std::vector<std::string>& names = rows[i]->baselines;
    const Anchor cub = names.empty() ? fastest_anchor(out, {kCubRow}) : fastest_anchor(out, names);
    if (cub.ms > 0) {
      m.ratio_cub = cub.ms / m.median_ms;
      m.cub_row = cub.name;
      m.cub_row_picked = names.size() > 1;
    }
  }
  return out;
}

}  // namespace

bool query_device(int device, DeviceMeta& meta, std::string& why_not) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    why_not = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")"
                               : std::string("no CUDA device is visible");
    cudaGetLastError();
    return false;
  }
  if (device < 0 || device >= count) {
    throw std::invalid_argument("--device " + std::to_string(device) + ": there are " + std::to_string(count) +
                                " CUDA device(s)");
  }
  SCANLAB_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  SCANLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  meta.name = prop.name;
  meta.cc_major = prop.major;
  meta.cc_minor = prop.minor;
  meta.sm_count = prop.multiProcessorCount;
  meta.l2_bytes = static_cast<size_t>(prop.l2CacheSize);
  meta.global_mem_bytes = prop.totalGlobalMem;
  // Clock fields left cudaDeviceProp in CUDA 13; the attributes remain, and may be missing.
  auto attr = [&](cudaDeviceAttr a, int& dst, int scale) {
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, device) == cudaSuccess && v > 0) {
      dst = v / scale;
    } else {
      cudaGetLastError();
    }
  };
  attr(cudaDevAttrClockRate, meta.sm_clock_mhz, 1000);  // kHz
  attr(cudaDevAttrMemoryClockRate, meta.mem_clock_mhz, 1000);
  attr(cudaDevAttrGlobalMemoryBusWidth, meta.bus_width_bits, 1);
  SCANLAB_CUDA_CHECK(cudaRuntimeGetVersion(&meta.runtime_version));
  SCANLAB_CUDA_CHECK(cudaDriverGetVersion(&meta.driver_version));
  meta.cub_version = CUB_VERSION;
  meta.nvcc_version = std::to_string(__CUDACC_VER_MAJOR__) + "." + std::to_string(__CUDACC_VER_MINOR__) + "." +
                      std::to_string(__CUDACC_VER_BUILD__);
#ifdef __CUDA_ARCH_LIST__
  meta.built_for = "compute capabilities " SCANLAB_BENCH_STR(__CUDA_ARCH_LIST__);
#else
  meta.built_for = "unknown";
#endif
  return true;
}

std::vector<std::string> method_lines(const Config& cfg, const DeviceMeta& meta) {
  std::vector<std::string> lines;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "time: CUDA events around the whole operation (init kernels, flag resets, all "
                "launches; up-front allocations excluded), %d warm-up runs, median of %d "
                "repetitions (min and max also given)",
                cfg.warmup, cfg.reps);
  lines.emplace_back(buf);
  std::snprintf(buf, sizeof buf,
                "a %.0f us one-thread spin kernel precedes each repetition so that host launch "
                "latency stays out of the events",
                cfg.spin_us);
  lines.emplace_back(buf);
  if (cfg.l2_warm) {
    lines.emplace_back("L2: --l2-warm: one input/output pair reused by every repetition; rows flagged '*' fit "
                       "(partly) in L2 and measure a hot cache");
  } else {
    std::snprintf(buf, sizeof buf,
                  "L2: inputs/outputs rotate over buffer pairs spanning >= %.0fx the L2 (%.0f MiB), "
                  "so no repetition finds its data in L2 (input random, output poisoned first)",
                  cfg.l2_rotate_factor, cfg.l2_rotate_factor * static_cast<double>(meta.l2_bytes) / 1048576.0);
    lines.emplace_back(buf);
  }
  lines.emplace_back("GB/s counts (n + written)*sizeof(T): each element read once, each output written once "
                     "(2n for scans, copies and sorts; n + k for a select-if that keeps k), times 2 for key-value "
                     "sorts (keys and values); a sort's passes move the keys several times, which is not counted; "
                     "x copy = copy time / row time and x CUB = CUB time / row time, same run, same type and n "
                     "(above 1: faster)");
  lines.emplace_back("sorts: uint32 keys uniform over all 32 bits (rows ending _narrow: int32 in [-100, 100] as "
                     "uint32, the top three bytes all equal); their CUB counterpart runs with an int and a size_t "
                     "item count (CUB takes another path for each) and x CUB is against the faster, named with the "
                     "row");
  lines.emplace_back("copy = cudaMemcpyAsync device-to-device of n elements; cub = cub::DeviceScan::ExclusiveSum "
                     "(temp storage allocated once outside timing, its init kernel timed; 32-bit num_items "
                     "below 2^32)");
  lines.emplace_back("every row's last output is verified against the sequential oracle (int32 exactly, float "
                     "against a float64 reference with a sqrt(n)-scaled tolerance)");
  return lines;
}

BenchResult run_benchmark(const Config& cfg, const Registry& reg, const DeviceMeta& meta,
                          const std::function<void(const std::vector<Measurement>&)>& on_size) {
  BenchResult result;
  // Baselines first at every size (the ratios need them), then the asked-for rows in the order given.
  std::vector<const Row*> rows;
  std::vector<bool> shown;
  for (const char* base : {kCopyRow, kCubRow}) {
    if (const Row* r = reg.find(base)) {
      rows.push_back(r);
      shown.push_back(std::find(cfg.algorithms.begin(), cfg.algorithms.end(), base) != cfg.algorithms.end());
    }
  }
  for (const std::string& name : cfg.algorithms) {
    if (name == kCopyRow || name == kCubRow) continue;
    const Row* r = reg.find(name);
    if (r == nullptr) throw std::invalid_argument("unknown algorithm '" + name + "'");
    if (std::find(rows.begin(), rows.end(), r) != rows.end()) {  // already there as a baseline
      shown[static_cast<size_t>(std::find(rows.begin(), rows.end(), r) - rows.begin())] = true;
      continue;
    }
    for (const std::string& base : r->baselines) {  // its CUB counterparts first, measured for the ratio
      const Row* b = reg.find(base);
      if (b == nullptr) throw std::invalid_argument("row '" + name + "': unknown baseline '" + base + "'");
      if (std::find(rows.begin(), rows.end(), b) == rows.end()) {
        rows.push_back(b);
        shown.push_back(std::find(cfg.algorithms.begin(), cfg.algorithms.end(), b->name) != cfg.algorithms.end());
      }
    }
    rows.push_back(r);
    shown.push_back(true);
  }

  Stream stream;
  const double clock_mhz = meta.sm_clock_mhz > 0 ? meta.sm_clock_mhz : 2000.0;
  const Context ctx{cfg, meta, stream.get(), static_cast<long long>(cfg.spin_us * clock_mhz)};
  try {
    for (const std::string& type : cfg.types) {
      for (size_t n : cfg.sizes) {
        std::vector<Measurement> ms = type == "float" ? run_size<float>(ctx, rows, n, result.fatal)
                                                      : run_size<int32_t>(ctx, rows, n, result.fatal);
        for (size_t i = 0; i < ms.size(); ++i) ms[i].shown = shown[i];
        on_size(ms);
        result.rows.insert(result.rows.end(), ms.begin(), ms.end());
        if (!result.fatal.empty()) return result;
      }
    }
  } catch (const CudaError& e) {  // outside a row: allocation, upload, events
    result.fatal = e.what();
  }
  return result;
}

}  // namespace scanlab::bench
