// Chapter 09 driver: the split primitive, LSD radix sort of 32-bit keys and key-value pairs, and
// Onesweep (32- and 64-bit keys of any number type).
//
// First the split of a small worked example, then n random keys (values: their input positions)
// sorted with radix_sort.cuh (the exercise's or the solution's) and checked against a sequential
// std::stable_sort: the keys must be in order AND every value must be where a stable sort puts it.
// On a GPU the sort is also timed. Exit code 0 only when everything verified.
//
//   ch09_radix_sort_solution                        2^18 (emulator) / 2^24 (GPU) pairs, 4-bit digits
//   ch09_radix_sort_solution --keys-only
//   ch09_radix_sort_solution --algorithm split      32 passes of the one-bit split
//   ch09_radix_sort_solution --max-key 15           many equal keys: where stability shows
//   ch09_radix_sort_solution --algorithm onesweep   one pass per 8-bit digit (--key-type int32, float, uint64)

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <scanlab/json.hpp>
#include <scanlab/chapter_driver.hpp>
#include <scanlab/command_line.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/verify.hpp>

#include "onesweep_dispatch.cuh"
#include "radix_sort_dispatch.cuh"

namespace {

struct Config {
  scanlab::CommonOptions common;
  std::string algorithm = "digits";
  std::string key_type = "uint32";
  bool keys_only = false;
  std::uint64_t max_key = 0xffffffffu;
  bool skip_example = false;
};

std::string join(const std::vector<std::uint32_t>& v) {
  std::ostringstream os;
  os << "{";
  for (std::size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "}";
  return os.str();
}

bool run_split_example() {
  const std::vector<std::uint32_t> keys = {3, 1, 7, 0, 4, 1, 6, 3};
  std::vector<std::uint32_t> want;
  for (auto k : keys)
    if ((k & 1u) == 0) want.push_back(k);
  for (auto k : keys)
    if ((k & 1u) != 0) want.push_back(k);
  scanlab::DeviceBuffer<std::uint32_t> d_in(keys);
  scanlab::DeviceBuffer<std::uint32_t> d_out(keys.size());
  d_out.fill_poison();
  ch09::RadixSortWorkspace ws(keys.size());
  ch09::split_by_bit(d_in.data(), d_out.data(), nullptr, nullptr, keys.size(), 0, ws);
  SCANLAB_CHECK_SYNC();
  const auto got = d_out.download();
  const bool ok = got == want;
  std::cout << "split of " << join(keys) << " by bit 0: " << join(got)
            << (ok ? "  (verified)" : "  FAILED: expected " + join(want)) << "\n";
  return ok;
}

// The keys: from r uniform in [0, max-key], as the key type makes them. Signed and floating-point keys
// are centred on zero (negative ones too); 64-bit keys spread r over all eight bytes with an odd
// multiplier (a bijection, so equal r stay equal keys).
template <class Key>
std::vector<Key> make_keys(std::size_t n, std::uint64_t seed, std::uint64_t max_key) {
  const std::vector<std::uint32_t> r =
      scanlab::random_vector<std::uint32_t>(n, seed, 0u, static_cast<std::uint32_t>(max_key));
  const std::int64_t half = static_cast<std::int64_t>((max_key + 1) / 2);
  std::vector<Key> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<Key, std::uint64_t>) keys[i] = r[i] * 0x9E3779B97F4A7C15ull;
    else if constexpr (std::is_floating_point_v<Key>)
      keys[i] = static_cast<Key>(static_cast<std::int64_t>(r[i]) - half) * Key(0.25);
    else if constexpr (std::is_signed_v<Key>) keys[i] = static_cast<Key>(static_cast<std::int64_t>(r[i]) - half);
    else keys[i] = static_cast<Key>(r[i]);
  }
  return keys;
}

// The sorts of the first half (uint32 keys) and Onesweep (any key type), in place.
template <class Key>
struct Sorter {
  Sorter(const Config& cfg, std::size_t n) : cfg(cfg), onesweep(n) {
    if constexpr (std::is_same_v<Key, std::uint32_t>) {
      if (cfg.algorithm != "onesweep") first_half = std::make_unique<ch09::RadixSortWorkspace>(n);
    }
  }
  void operator()(Key* keys, std::uint32_t* values, std::size_t n) {
    if (cfg.algorithm == "onesweep") {
      if (cfg.keys_only) ch09::onesweep_sort_keys(keys, keys, n, onesweep);
      else ch09::onesweep_sort_pairs(keys, keys, values, values, n, onesweep);
      return;
    }
    if constexpr (std::is_same_v<Key, std::uint32_t>) {
      if (cfg.algorithm == "split") ch09::radix_sort_split(keys, cfg.keys_only ? nullptr : values, n, *first_half);
      else if (cfg.keys_only) ch09::radix_sort_keys(keys, n, *first_half);
      else ch09::radix_sort_pairs(keys, values, n, *first_half);
    }
  }
  const Config& cfg;
  ch09::OnesweepWorkspace<Key> onesweep;
  std::unique_ptr<ch09::RadixSortWorkspace> first_half;
};

// The range the keys were drawn from, as make_keys makes them: "in [lo, hi]" (64-bit keys: how r
// becomes a key).
std::string key_range(const Config& cfg) {
  const std::uint64_t m = cfg.max_key;
  const std::int64_t half = static_cast<std::int64_t>((m + 1) / 2);
  const std::int64_t lo = -half, hi = static_cast<std::int64_t>(m) - half;
  std::ostringstream os;
  if (cfg.key_type == "uint32") os << "in [0, " << m << "]";
  else if (cfg.key_type == "int32") os << "in [" << lo << ", " << hi << "]";
  else if (cfg.key_type == "float")
    os << std::fixed << std::setprecision(2) << "in [" << static_cast<double>(lo) * 0.25 << ", "
       << static_cast<double>(hi) * 0.25 << "] in steps of 0.25";
  else os << "r x 0x9E3779B97F4A7C15 for r in [0, " << m << "]";
  return os.str();
}

std::string describe(const Config& cfg) {
  if (cfg.algorithm == "split") return "32 one-bit splits";
  if (cfg.algorithm == "digits") return "8 passes of 4-bit digits";
  return "Onesweep, 8-bit digits";
}

template <class Key>
int run_sort(const Config& cfg) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const std::vector<Key> keys = make_keys<Key>(n, cfg.common.seed, cfg.max_key);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);

  // The sequential meaning: a stable sort of the positions by the keys' bits in sorting order
  // (for numbers, ascending).
  std::vector<std::uint32_t> want_values = positions;
  std::stable_sort(want_values.begin(), want_values.end(), [&](std::uint32_t a, std::uint32_t b) {
    return ch09::RadixKey<Key>::ordered_bits(keys[a]) < ch09::RadixKey<Key>::ordered_bits(keys[b]);
  });
  std::vector<Key> want_keys(n);
  for (std::size_t i = 0; i < n; ++i) want_keys[i] = keys[want_values[i]];

  scanlab::DeviceBuffer<Key> d_keys(n);
  scanlab::DeviceBuffer<std::uint32_t> d_values(n);
  Sorter<Key> sort(cfg, n);
  {
    SCANLAB_NVTX_RANGE("upload");
    d_keys.upload(keys);
    d_values.upload(positions);
  }
  {
    SCANLAB_NVTX_RANGE("sort");
    sort(d_keys.data(), d_values.data(), n);
    SCANLAB_CHECK_SYNC();
  }
  std::vector<Key> got_keys;
  std::vector<std::uint32_t> got_values;
  {
    SCANLAB_NVTX_RANGE("download");
    got_keys = d_keys.download();
    got_values = d_values.download();
  }
  const std::string what = std::to_string(n) + " " + cfg.key_type + (cfg.keys_only ? " keys " : " key-value pairs ") +
                           key_range(cfg) + ", " + describe(cfg);
  const scanlab::VerifyResult rk = scanlab::verify_exact(want_keys.data(), got_keys.data(), n);
  scanlab::VerifyResult rv;
  if (!cfg.keys_only) rv = scanlab::verify_exact(want_values.data(), got_values.data(), n);
  const bool sort_ok = rk.ok && rv.ok;
  std::cout << (sort_ok ? "verified: " : "FAILED: ") << what;
  if (!rk.ok) std::cout << ": keys: " << rk.message();
  if (rk.ok && !rv.ok) std::cout << ": keys in order, but not stable: values (input positions): " << rv.message();
  std::cout << "\n";

  scanlab::Json report = {{"chapter", "09_radix_sort"},
                          {"backend", scanlab::backend_name()},
                          {"n", n},
                          {"seed", cfg.common.seed},
                          {"algorithm", cfg.algorithm},
                          {"key_type", cfg.key_type},
                          {"pairs", !cfg.keys_only},
                          {"max_key", cfg.max_key},
                          {"verified", sort_ok},
                          {"message", rk.ok ? rv.message() : rk.message()}};
  if (sort_ok && !scanlab::on_emulator() && n > 0) {
    SCANLAB_NVTX_RANGE("timing");
    // Each repetition sorts the already sorted output again: radix sort does the same work for any
    // key order, and re-uploading inside the timed region would time the copy.
    const scanlab::TimingStats t = scanlab::time_ms(
        [&] {
          sort(d_keys.data(), d_values.data(), n);
        },
        2, cfg.common.repeat);
    std::cout << "median " << t.median_ms << " ms over " << t.reps
              << " run(s): " << static_cast<double>(n) / (t.median_ms * 1e6) << " G keys/s\n";
    report["median_ms"] = t.median_ms;
    report["gkeys_per_s"] = static_cast<double>(n) / (t.median_ms * 1e6);
  } else if (scanlab::on_emulator() && !cfg.common.quiet) {
    scanlab::say_not_timed();
  }
  scanlab::write_json_report(cfg.common.json, report);
  return sort_ok ? 0 : 1;
}

int run(const Config& cfg) {
  bool ok = true;
  if (!cfg.skip_example) ok = run_split_example() && ok;
  if (cfg.key_type != "uint32" && cfg.algorithm != "onesweep") {
    throw std::invalid_argument("--key-type " + cfg.key_type +
                                " needs --algorithm onesweep (the first half sorts uint32)");
  }
  int rc = 0;
  if (cfg.key_type == "uint32") rc = run_sort<std::uint32_t>(cfg);
  else if (cfg.key_type == "int32") rc = run_sort<std::int32_t>(cfg);
  else if (cfg.key_type == "float") rc = run_sort<float>(cfg);
  else rc = run_sort<std::uint64_t>(cfg);
  return ok && rc == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 09: radix sort (split, LSD radix sort of uint32 keys and pairs)",
                           "ch09_radix_sort"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, scanlab::on_emulator() ? (1u << 18) : (1u << 24));
  cli.option("--algorithm", cfg.algorithm,
             "digits: 8 passes of 4-bit digits; split: 32 one-bit splits; onesweep: one pass per 8-bit digit")
      .one_of({"digits", "split", "onesweep"})
      .show_default();
  cli.option("--key-type", cfg.key_type, "the keys' type (other than uint32: --algorithm onesweep)")
      .one_of({"uint32", "int32", "float", "uint64"})
      .show_default();
  cli.flag("--keys-only", cfg.keys_only, "sort keys only (default: keys with their input positions as values)");
  cli.option("--max-key", cfg.max_key,
             "keys from r uniform in [0, max-key] (uint32: the keys are r; int32 and float: centred on 0); "
             "small values make many equal keys")
      .range(std::uint64_t{0}, std::uint64_t{0xffffffffu})
      .show_default();
  cli.flag("--no-example", cfg.skip_example, "skip the worked split example");
  cli.parse(argc, argv);
  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 09: radix sort. split = one scan of the \"bit is 0\" flags; LSD radix sort = "
                   "one stable split\n(or one stable 4-bit digit pass) per digit, least significant first.\n"
                << "backend: " << scanlab::backend_description() << "\n\n";
    }
    return run(cfg);
  });
}
