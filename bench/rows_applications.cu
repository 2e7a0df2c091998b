// scanlab_bench: rows for the applications of chapters 08-10 (compaction, radix sort, segmented
// scan, summed-area table) and their CUB counterparts (cub::DeviceSelect::If,
// cub::DevicePartition::If, cub::DeviceRadixSort, cub::DeviceScan::InclusiveSumByKey), measured in
// the same run so that "x CUB" compares each row with its own counterpart (Row::baselines).
//
// Their outputs are not scans, so they are checked by their own verifiers (Check::custom; the sorts
// by Check::sorted), with the harness's random input: x > 0 keeps about half of the narrow one (the
// paper's "50% selection"), sort keys are the int32 bit patterns of the all-bits one (Input; the
// _narrow sort rows take the narrow one), segment heads are drawn from a seed that depends only on
// n (mean segment length 500, as in the paper's reduce-by-key), the table treats n = w * h as a
// square-ish image.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/oracle.hpp>
#include <scanlab/random.hpp>
#include <scanlab/verify.hpp>

#include "registry.hpp"
#include "rows_sort_u64.cuh"  // chapter 09 on uint64 keys: here, beside chapter 09's other rows
#include "sort_check.hpp"

#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "onesweep_dispatch.cuh"                       // chapters/09_radix_sort
#include "radix_sort_dispatch.cuh"                     // chapters/09_radix_sort
#include "segmented_scan_dispatch.cuh"                 // chapters/10_segmented_scan
#include "stream_compaction_dispatch.cuh"              // chapters/08_stream_compaction
#include "stream_compaction_single_pass_dispatch.cuh"  // chapters/08_stream_compaction

namespace scanlab::bench {

namespace {

template <class P>
using elem_t = std::remove_const_t<std::remove_pointer_t<P>>;

// The compactions keep x > threshold. The harness's input is uniform in [-100, 100] (int32) or
// [-1, 1] (float), so 0 keeps about half (the paper's "50% selection") and 80 / 0.8 about a tenth.
template <class T>
struct KeepAbove {
  T threshold;
  __host__ __device__ bool operator()(T x) const { return x > threshold; }
};

struct Selection {
  const char* suffix;  // appended to the row names
  const char* what;
  int32_t int_threshold;
  float float_threshold;
  template <class T>
  KeepAbove<T> pred() const {
    if constexpr (std::is_integral_v<T>) return {static_cast<T>(int_threshold)};
    else return {static_cast<T>(float_threshold)};
  }
};

constexpr Selection kSelections[] = {
    {"", "x > 0, about half kept", 0, 0.0f},
    {"_10pct", "x > 80 (int32) or 0.8 (float), about a tenth kept", 80, 0.8f},
};

template <class T>
std::string first_mismatch(const std::vector<T>& want, const T* got, size_t n) {
  const VerifyResult r = verify_exact(want.data(), got, n);
  return r.ok ? std::string() : r.message();
}

// Kept elements in order at the front; with `partition`, the rejected ones after them, in order
// or (CUB's DevicePartition) reversed.
enum class Rejected { none, in_order, reversed };

template <class T>
Verifier<T> compaction_verifier(KeepAbove<T> keep, Rejected rejected) {
  return [keep, rejected](const std::vector<T>& in, const std::vector<T>& got) {
    std::vector<T> want;
    for (const T& x : in)
      if (keep(x)) want.push_back(x);
    if (rejected == Rejected::none) return first_mismatch(want, got.data(), want.size());
    std::vector<T> rest;
    for (const T& x : in)
      if (!keep(x)) rest.push_back(x);
    if (rejected == Rejected::reversed) std::reverse(rest.begin(), rest.end());
    want.insert(want.end(), rest.begin(), rest.end());
    return first_mismatch(want, got.data(), want.size());
  };
}

void set_compaction_checks(Row& r, const Selection& sel, Rejected rejected) {
  r.verify_int32 = compaction_verifier(sel.pred<int32_t>(), rejected);
  r.verify_float = compaction_verifier(sel.pred<float>(), rejected);
  // A select-if writes only the kept elements; a partition writes all n.
  if (rejected == Rejected::none) {
    set_written(r, [sel](const auto& in) {
      using T = typename std::decay_t<decltype(in)>::value_type;
      const KeepAbove<T> keep = sel.pred<T>();
      return static_cast<size_t>(std::count_if(in.begin(), in.end(), keep));
    });
  }
}

// Head flags for n elements with the given mean segment length (each element starts a segment
// with probability 1 / mean; mean 1 makes every element a head), the same in the factory and the
// verifier: drawn from a seed that depends only on n and the mean.
std::vector<uint8_t> bench_heads(size_t n, uint32_t mean) {
  Rng rng(0x5e9u ^ n ^ (static_cast<uint64_t>(mean) << 40));
  std::vector<uint8_t> heads(n);
  for (auto& h : heads) h = rng.uniform(0, static_cast<int>(mean) - 1) == 0 ? 1 : 0;
  if (n > 0) heads[0] = 1;
  return heads;
}

template <class T>
Verifier<T> segmented_verifier(uint32_t mean) {
  return [mean](const std::vector<T>& in, const std::vector<T>& got) -> std::string {
    const std::vector<uint8_t> heads = bench_heads(in.size(), mean);
    for (size_t b = 0; b < in.size();) {
      size_t e = b + 1;
      while (e < in.size() && !heads[e]) ++e;
      if constexpr (std::is_floating_point_v<T>) {
        const VerifyResult r = verify_float_scan(in.data() + b, got.data() + b, e - b, ScanKind::inclusive);
        if (!r.ok) return "segment [" + std::to_string(b) + ", " + std::to_string(e) + "): " + r.message();
      } else {
        // Exact, in wrapping unsigned arithmetic; no allocation per segment (mean length 1 has n).
        uint32_t sum = 0;
        for (size_t i = b; i < e; ++i) {
          sum += static_cast<uint32_t>(in[i]);
          if (static_cast<uint32_t>(got[i]) != sum) {
            return "segment [" + std::to_string(b) + ", " + std::to_string(e) + "): index " + std::to_string(i) +
                   ": expected " + std::to_string(static_cast<T>(sum)) + ", got " + std::to_string(got[i]);
          }
        }
      }
      b = e;
    }
    return std::string();
  };
}

// n = w * h with w the largest power of two <= sqrt(n) that divides n.
void image_shape(size_t n, int& w, int& h) {
  size_t ww = 1;
  while ((ww * 2) * (ww * 2) <= n && n % (ww * 2) == 0) ww *= 2;
  w = static_cast<int>(ww);
  h = static_cast<int>(n / ww);
}

Verifier<int32_t> sat_verifier() {
  return [](const std::vector<int32_t>& in, const std::vector<int32_t>& got) {
    int w = 0, h = 0;
    image_shape(in.size(), w, h);
    std::vector<int32_t> want(in.size());
    for (int y = 0; y < h; ++y) {
      uint32_t row = 0;
      for (int x = 0; x < w; ++x) {
        const size_t i = static_cast<size_t>(y) * w + x;
        row += static_cast<uint32_t>(in[i]);
        const uint32_t above = y > 0 ? static_cast<uint32_t>(want[i - static_cast<size_t>(w)]) : 0u;
        want[i] = static_cast<int32_t>(row + above);
      }
    }
    return first_mismatch(want, got.data(), got.size());
  };
}

// ---- chapter 08 ------------------------------------------------------------------------------

// One set of rows per selection; the CUB rows are the baselines of the chapter's rows.
void register_ch08(Registry& reg, const Selection& sel) {
  const std::string sfx = sel.suffix;
  const std::string cub_select = "cub_select_if" + sfx;
  const std::string cub_partition = "cub_partition_if" + sfx;
  {
    Row& r = reg.add({cub_select, std::string("cub::DeviceSelect::If, ") + sel.what, Check::custom});
    set_stateful(r, [sel](auto tag, size_t n) {
      using T = typename decltype(tag)::type;
      const KeepAbove<T> keep = sel.pred<T>();
      size_t bytes = 0;
      SCANLAB_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                               static_cast<unsigned*>(nullptr), static_cast<int64_t>(n), keep));
      auto temp = std::make_shared<DeviceBuffer<unsigned char>>(bytes > 0 ? bytes : 1);
      auto count = std::make_shared<DeviceBuffer<unsigned>>(1);
      return [temp, count, bytes, keep](const T* in, T* out, size_t m, cudaStream_t s) {
        size_t b = bytes;
        SCANLAB_CUDA_CHECK(
            cub::DeviceSelect::If(temp->data(), b, in, out, count->data(), static_cast<int64_t>(m), keep, s));
      };
    });
    set_compaction_checks(r, sel, Rejected::none);
  }
  {
    Row& r = reg.add({cub_partition, std::string("cub::DevicePartition::If, ") + sel.what + " (rejected ones reversed)",
                      Check::custom});
    set_stateful(r, [sel](auto tag, size_t n) {
      using T = typename decltype(tag)::type;
      const KeepAbove<T> keep = sel.pred<T>();
      size_t bytes = 0;
      SCANLAB_CUDA_CHECK(cub::DevicePartition::If(nullptr, bytes, static_cast<const T*>(nullptr),
                                                  static_cast<T*>(nullptr), static_cast<unsigned*>(nullptr),
                                                  static_cast<int64_t>(n), keep));
      auto temp = std::make_shared<DeviceBuffer<unsigned char>>(bytes > 0 ? bytes : 1);
      auto count = std::make_shared<DeviceBuffer<unsigned>>(1);
      return [temp, count, bytes, keep](const T* in, T* out, size_t m, cudaStream_t s) {
        size_t b = bytes;
        SCANLAB_CUDA_CHECK(
            cub::DevicePartition::If(temp->data(), b, in, out, count->data(), static_cast<int64_t>(m), keep, s));
      };
    });
    set_compaction_checks(r, sel, Rejected::reversed);
  }
  // The chapter's four compactions share one shape: a workspace, a count, a call.
  enum class Algo { select_three_phase, select_single_pass, partition_single_pass, partition_three_phase };
  struct Ch08Row {
    const char* name;
    const char* what;
    Algo algo;
    Rejected rejected;
  };
  const Ch08Row rows[] = {
      {"ch08_select_if_three_phase", "chapter 08: select-if: count (__syncthreads_count), scan, scatter (ballot/popc)",
       Algo::select_three_phase, Rejected::none},
      {"ch08_select_if_single_pass", "chapter 08: select-if in one pass, the count fused into chapter 07's look-back",
       Algo::select_single_pass, Rejected::none},
      {"ch08_partition_if_single_pass", "chapter 08: partition in one pass (rejected ones reversed, like CUB's)",
       Algo::partition_single_pass, Rejected::reversed},
      {"ch08_partition_if", "chapter 08: stable partition, three phases", Algo::partition_three_phase,
       Rejected::in_order},
  };
  for (const Ch08Row& row : rows) {
    Row& r = reg.add({row.name + sfx, std::string(row.what) + ", " + sel.what, Check::custom});
    r.baselines = {row.rejected == Rejected::none ? cub_select : cub_partition};
    const Algo algo = row.algo;
    set_stateful(r, [sel, algo](auto tag, size_t n) {
      using T = typename decltype(tag)::type;
      const KeepAbove<T> keep = sel.pred<T>();
      auto count = std::make_shared<DeviceBuffer<unsigned>>(1);
      const bool single_pass = algo == Algo::select_single_pass || algo == Algo::partition_single_pass;
      auto three = single_pass ? nullptr : std::make_shared<ch08::CompactionWorkspace>(n);
      auto one = single_pass ? std::make_shared<ch08::SinglePassWorkspace>(n) : nullptr;
      return [algo, keep, count, three, one](const T* in, T* out, size_t m, cudaStream_t s) {
        switch (algo) {
          case Algo::select_three_phase: ch08::select_if(in, out, count->data(), m, keep, *three, s); break;
          case Algo::select_single_pass: ch08::select_if_single_pass(in, out, count->data(), m, keep, *one, s); break;
          case Algo::partition_single_pass:
            ch08::partition_if_single_pass(in, out, count->data(), m, keep, *one, s);
            break;
          case Algo::partition_three_phase: ch08::partition_if(in, out, count->data(), m, keep, *three, s); break;
        }
      };
    });
    set_compaction_checks(r, sel, row.rejected);
  }
}

// ---- chapter 09 (int32 rows only: the keys are the input's bit patterns as uint32) -------------

const uint32_t* as_keys(const int32_t* p) { return reinterpret_cast<const uint32_t*>(p); }
uint32_t* as_keys(int32_t* p) { return reinterpret_cast<uint32_t*>(p); }

// The sorts' keys: uniform over all 32 bits (rows without a suffix), and the other rows' narrow
// input, kept as rows ending _narrow: in [-100, 100] the top three bytes of every key are all 0x00
// or all 0xff, so most passes find every key in one of two digits, which flatters every sort.
struct SortInput {
  const char* suffix;
  const char* what;
  Input input;
};
constexpr SortInput kSortInputs[] = {
    {"", "uint32 keys uniform over all 32 bits", Input::all_bits},
    {"_narrow", "keys int32 in [-100, 100] as uint32", Input::narrow},
};

// A sort row: int32 only, the output checked against the input sorted as uint32 (Check::sorted); a
// key-value sort counts the values' bytes too, and its values are checked (set_pairs).
Row& add_sort_row(Registry& reg, const std::string& name, const std::string& what, const SortInput& in, bool pairs) {
  Row& r = reg.add({name + in.suffix, what + "; " + in.what, Check::sorted});
  r.input = in.input;
  r.arrays = pairs ? 2 : 1;
  return r;
}

// A key-value sort's values: each key's index in the input, so that the check can tell that every
// value moved with its key, equal keys in input order; the output poisoned, so that a sort that
// leaves it unwritten fails.
struct SortValues {
  explicit SortValues(size_t n) : in(iota(n)), out(n) { out.fill_poison(); }
  static std::vector<uint32_t> iota(size_t n) {
    std::vector<uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0u);
    return v;
  }
  DeviceBuffer<uint32_t> in, out;
};

// A key-value sort: make(n) returns sort(keys_in, keys_out, SortValues&, n, stream); the values are
// made with it, and the check (after Check::sorted's of the keys) reads back those the last run wrote.
template <class Make>
void set_pairs(Row& r, Make make) {
  auto last = std::make_shared<std::shared_ptr<SortValues>>();
  r.make_int32 = [last, make](size_t n) {
    auto values = std::make_shared<SortValues>(n);
    *last = values;
    auto sort = make(n);
    return Runner<int32_t>([values, sort](const int32_t* in, int32_t* out, size_t m, cudaStream_t s) {
      sort(as_keys(in), as_keys(out), *values, m, s);
    });
  };
  r.verify_int32 = [last](const std::vector<int32_t>& in, const std::vector<int32_t>& got) {
    return *last ? sorted_values_problem(in, got, (*last)->out.download()) : std::string("no values were made");
  };
}

// CUB's radix sort with the item count as Count: CUB picks its offset type, and with it another
// path, from the count's width (on an H200 the 64-bit path is faster for keys and slower for pairs).
template <class Count>
void add_cub_sort(Registry& reg, const SortInput& in, const std::string& count, bool pairs) {
  Row& r = add_sort_row(
      reg, std::string(pairs ? "cub_radix_sort_pairs_" : "cub_radix_sort_keys_") + count,
      std::string(pairs ? "cub::DeviceRadixSort::SortPairs (uint32 values)" : "cub::DeviceRadixSort::SortKeys") +
          ", num_items as " + count,
      in, pairs);
  r.max_n = static_cast<size_t>(std::numeric_limits<Count>::max());
  if (r.max_n < SIZE_MAX) r.limit_note = "at most " + std::to_string(r.max_n) + " items";
  uint32_t* none = nullptr;  // the temp-storage queries: typed pointers, no data
  if (pairs) {
    set_pairs(r, [none](size_t n) {
      size_t bytes = 0;
      SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const uint32_t*>(none), none,
                                                         static_cast<const uint32_t*>(none), none,
                                                         static_cast<Count>(n)));
      auto temp = std::make_shared<DeviceBuffer<unsigned char>>(bytes > 0 ? bytes : 1);
      return [temp, bytes](const uint32_t* in, uint32_t* out, SortValues& v, size_t m, cudaStream_t s) {
        size_t b = bytes;
        SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp->data(), b, in, out, v.in.data(), v.out.data(),
                                                           static_cast<Count>(m), 0, 32, s));
      };
    });
    return;
  }
  r.make_int32 = [none](size_t n) {
    size_t bytes = 0;
    SCANLAB_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, static_cast<const uint32_t*>(none), none,
                                                      static_cast<Count>(n)));
    auto temp = std::make_shared<DeviceBuffer<unsigned char>>(bytes > 0 ? bytes : 1);
    return Runner<int32_t>([temp, bytes](const int32_t* in, int32_t* out, size_t m, cudaStream_t s) {
      size_t b = bytes;
      SCANLAB_CUDA_CHECK(
          cub::DeviceRadixSort::SortKeys(temp->data(), b, as_keys(in), as_keys(out), static_cast<Count>(m), 0, 32, s));
    });
  };
}

void register_ch09(Registry& reg, const SortInput& in) {
  for (const bool pairs : {false, true}) {
    add_cub_sort<int>(reg, in, "int", pairs);
    add_cub_sort<size_t>(reg, in, "size_t", pairs);
  }
  const std::string sfx = in.suffix;
  const std::vector<std::string> cub_keys = {"cub_radix_sort_keys_int" + sfx, "cub_radix_sort_keys_size_t" + sfx};
  const std::vector<std::string> cub_pairs = {"cub_radix_sort_pairs_int" + sfx, "cub_radix_sort_pairs_size_t" + sfx};
  {
    Row& r =
        add_sort_row(reg, "ch09_radix_sort_keys", "chapter 09: LSD radix sort, 8 passes of 4-bit digits", in, false);
    r.baselines = cub_keys;
    r.make_int32 = [](size_t n) {
      auto ws = std::make_shared<ch09::RadixSortWorkspace>(n);
      return Runner<int32_t>([ws](const int32_t* in, int32_t* out, size_t m, cudaStream_t s) {
        ch09::radix_sort_keys(as_keys(in), as_keys(out), m, *ws, s);
      });
    };
  }
  {
    Row& r = add_sort_row(reg, "ch09_radix_sort_pairs", "chapter 09: LSD radix sort of key-value pairs, 4-bit digits",
                          in, true);
    r.baselines = cub_pairs;
    set_pairs(r, [](size_t n) {
      auto ws = std::make_shared<ch09::RadixSortWorkspace>(n);
      return [ws](const uint32_t* in, uint32_t* out, SortValues& v, size_t m, cudaStream_t s) {
        ch09::radix_sort_pairs(in, out, v.in.data(), v.out.data(), m, *ws, s);
      };
    });
  }
  {
    Row& r = add_sort_row(reg, "ch09_onesweep_sort_keys", "chapter 09: Onesweep, one pass per 8-bit digit", in, false);
    r.baselines = cub_keys;
    r.make_int32 = [](size_t n) {
      auto ws = std::make_shared<ch09::OnesweepWorkspace<uint32_t>>(n);
      return Runner<int32_t>([ws](const int32_t* in, int32_t* out, size_t m, cudaStream_t s) {
        ch09::onesweep_sort_keys(as_keys(in), as_keys(out), m, *ws, s);
      });
    };
  }
  {
    Row& r = add_sort_row(reg, "ch09_onesweep_sort_pairs", "chapter 09: Onesweep of key-value pairs, 8-bit digits", in,
                          true);
    r.baselines = cub_pairs;
    set_pairs(r, [](size_t n) {
      auto ws = std::make_shared<ch09::OnesweepWorkspace<uint32_t>>(n);
      return [ws](const uint32_t* in, uint32_t* out, SortValues& v, size_t m, cudaStream_t s) {
        ch09::onesweep_sort_pairs(in, out, v.in.data(), v.out.data(), m, *ws, s);
      };
    });
  }
  {
    Row& r = add_sort_row(reg, "ch09_radix_sort_split",
                          "chapter 09: LSD radix sort by 32 one-bit splits (scan of flags)", in, false);
    r.baselines = cub_keys;
    r.max_n = size_t(1) << 24;
    r.limit_note = "32 passes of scan + scatter: capped at 2^24";
    r.make_int32 = [](size_t n) {
      auto ws = std::make_shared<ch09::RadixSortWorkspace>(n);
      return Runner<int32_t>([ws](const int32_t* in, int32_t* out, size_t m, cudaStream_t s) {
        ch09::radix_sort_split(as_keys(in), as_keys(out), nullptr, nullptr, m, *ws, s);
      });
    };
  }
}

// ---- chapter 10 ------------------------------------------------------------------------------

// Mean segment lengths: 500 (the paper's reduce-by-key, rows without a suffix), then the four the
// chapter's speed goal names: every element its own segment, a warp, a few tiles, many tiles.
constexpr uint32_t kSegmentMeans[] = {500, 1, 32, 10000, 1000000};

void register_ch10_segmented(Registry& reg, uint32_t mean) {
  const std::string sfx = mean == 500 ? std::string() : "_seg" + std::to_string(mean);
  const std::string segments = "segments of mean length " + std::to_string(mean);
  {
    Row& r =
        reg.add({"cub_inclusive_sum_by_key" + sfx,
                 "cub::DeviceScan::InclusiveSumByKey, " + segments + " as runs of equal int32 keys", Check::custom});
    set_stateful(r, [mean](auto tag, size_t n) {
      using T = typename decltype(tag)::type;
      const std::vector<uint8_t> heads = bench_heads(n, mean);
      std::vector<int32_t> keys(n);
      int32_t id = 0;
      for (size_t i = 0; i < n; ++i) keys[i] = (id += (i > 0 && heads[i]) ? 1 : 0);
      auto d_keys = std::make_shared<DeviceBuffer<int32_t>>(keys);
      size_t bytes = 0;
      SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(
          nullptr, bytes, d_keys->data(), static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n));
      auto temp = std::make_shared<DeviceBuffer<unsigned char>>(bytes > 0 ? bytes : 1);
      return [temp, bytes, d_keys](const T* in, T* out, size_t m, cudaStream_t s) {
        size_t b = bytes;
        SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(temp->data(), b, d_keys->data(), in, out, m,
                                                              ::cuda::std::equal_to<>{}, s));
      };
    });
    r.verify_int32 = segmented_verifier<int32_t>(mean);
    r.verify_float = segmented_verifier<float>(mean);
  }
  {
    Row& r = reg.add({"ch10_segmented_scan" + sfx,
                      "chapter 10: segmented inclusive sum from head flags, " + segments + ", lifted operator",
                      Check::custom});
    r.baselines = {"cub_inclusive_sum_by_key" + sfx};
    set_stateful(r, [mean](auto tag, size_t n) {
      using T = typename decltype(tag)::type;
      auto d_heads = std::make_shared<DeviceBuffer<uint8_t>>(bench_heads(n, mean));
      auto ws = std::make_shared<ch10::SegmentedScanWorkspace<T>>(n);
      return [d_heads, ws](const T* in, T* out, size_t m, cudaStream_t s) {
        ch10::segmented_inclusive_scan(in, ch10::HeadFlagArray{d_heads->data()}, out, m, Plus<T>{}, *ws, s);
      };
    });
    r.verify_int32 = segmented_verifier<int32_t>(mean);
    r.verify_float = segmented_verifier<float>(mean);
  }
}

void register_ch10(Registry& reg) {
  for (const uint32_t mean : kSegmentMeans) register_ch10_segmented(reg, mean);
  {
    // The same four passes with CUB's scans: InclusiveSumByKey over row ids for the row scans (CUB
    // has no scan by head flags), chapter 10's transpose between them. Only the scans differ.
    Row& r = reg.add({"cub_summed_area_table",
                      "summed-area table from cub::DeviceScan::InclusiveSumByKey (row ids as keys) and chapter 10's "
                      "transpose x2",
                      Check::custom});
    r.make_int32 = [](size_t n) {
      int w = 0, h = 0;
      image_shape(n, w, h);
      std::vector<int32_t> rows_of_image(n), rows_of_transpose(n);
      for (size_t i = 0; i < n; ++i) {
        rows_of_image[i] = static_cast<int32_t>(i / static_cast<size_t>(w));
        rows_of_transpose[i] = static_cast<int32_t>(i / static_cast<size_t>(h));
      }
      auto keys = std::make_shared<DeviceBuffer<int32_t>>(rows_of_image);
      auto keys_t = std::make_shared<DeviceBuffer<int32_t>>(rows_of_transpose);
      auto tmp = std::make_shared<DeviceBuffer<int32_t>>(n);
      auto tmp2 = std::make_shared<DeviceBuffer<int32_t>>(n);  // CUB's scans out of place
      size_t bytes = 0;
      SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(
          nullptr, bytes, keys->data(), static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), n));
      auto temp = std::make_shared<DeviceBuffer<unsigned char>>(bytes > 0 ? bytes : 1);
      return Runner<int32_t>([=](const int32_t* in, int32_t* out, size_t m, cudaStream_t s) {
        size_t b = bytes;
        SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(temp->data(), b, keys->data(), in, out, m,
                                                              ::cuda::std::equal_to<>{}, s));
        ch10::transpose(out, tmp->data(), w, h, s);
        b = bytes;
        SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(temp->data(), b, keys_t->data(), tmp->data(),
                                                              tmp2->data(), m, ::cuda::std::equal_to<>{}, s));
        ch10::transpose(tmp2->data(), out, h, w, s);
      });
    };
    r.verify_int32 = sat_verifier();
  }
  {
    Row& r = reg.add({"ch10_summed_area_table",
                      "chapter 10: summed-area table of a w x h int32 image (n = w * h): row scans, transpose x2",
                      Check::custom});
    r.baselines = {"cub_summed_area_table"};
    r.make_int32 = [](size_t n) {
      int w = 0, h = 0;
      image_shape(n, w, h);
      auto ws = std::make_shared<ch10::SatWorkspace<int32_t>>(w, h);
      return Runner<int32_t>([ws, w, h](const int32_t* in, int32_t* out, size_t, cudaStream_t s) {
        ch10::summed_area_table(in, out, w, h, *ws, s);
      });
    };
    r.verify_int32 = sat_verifier();
  }
}

}  // namespace

void register_application_rows(Registry& reg) {
  for (const Selection& sel : kSelections) register_ch08(reg, sel);
  for (const SortInput& in : kSortInputs) register_ch09(reg, in);
  sort_u64::register_rows(reg);
  register_ch10(reg);
}

}  // namespace scanlab::bench
