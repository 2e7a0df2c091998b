// Chapter 09's grading runner: the student's split, LSD radix sorts and Onesweep, run through the chapter's
// given launch code on the keys (and values) the checker (09_radix_sort.cu) sends. It decides
// nothing; see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>

#include "onesweep_dispatch.cuh"
#include "radix_sort_dispatch.cuh"

using namespace scanlab::grading;

// Sorts input 0 (keys) with input 1 (values) in place. Parameters: algo (digits_keys,
// digits_pairs, split_keys, split_pairs), n (default: all the keys). Outputs: keys, values.
SCANLAB_GRADE_ENTRY(sort) {
  const std::vector<std::uint32_t> keys = call.input<std::uint32_t>(0);
  const std::vector<std::uint32_t> values = call.input<std::uint32_t>(1);
  if (values.size() != keys.size()) throw std::runtime_error("keys and values differ in length");
  const std::string algo = call.param<std::string>("algo");
  const std::size_t n = call.length(keys.size());
  scanlab::DeviceBuffer<std::uint32_t> d_keys(keys), d_values(values);
  ch09::RadixSortWorkspace ws(keys.size());
  if (algo == "digits_keys") ch09::radix_sort_keys(d_keys.data(), n, ws);
  else if (algo == "digits_pairs") ch09::radix_sort_pairs(d_keys.data(), d_values.data(), n, ws);
  else if (algo == "split_keys") ch09::radix_sort_split(d_keys.data(), nullptr, n, ws);
  else if (algo == "split_pairs") ch09::radix_sort_split(d_keys.data(), d_values.data(), n, ws);
  else throw std::runtime_error("unknown algo " + algo);
  SCANLAB_CHECK_SYNC();
  call.output(d_keys.download());
  call.output(d_values.download());
}

// One stable split of input 0 (keys) and input 1 (values) by bit `bit`, into poisoned outputs.
// Outputs: keys, values.
SCANLAB_GRADE_ENTRY(split_by_bit) {
  const std::vector<std::uint32_t> keys = call.input<std::uint32_t>(0);
  const std::vector<std::uint32_t> values = call.input<std::uint32_t>(1);
  if (values.size() != keys.size()) throw std::runtime_error("keys and values differ in length");
  const std::size_t n = keys.size();
  scanlab::DeviceBuffer<std::uint32_t> d_keys(keys), d_values(values), d_keys_out(n), d_values_out(n);
  d_keys_out.fill_poison();
  d_values_out.fill_poison();
  ch09::RadixSortWorkspace ws(n);
  ch09::split_by_bit(d_keys.data(), d_keys_out.data(), d_values.data(), d_values_out.data(), n, call.param<int>("bit"),
                     ws);
  SCANLAB_CHECK_SYNC();
  call.output(d_keys_out.download());
  call.output(d_values_out.download());
}

// Onesweep of input 0 (keys of any of the key types) with input 1 (u32 values). Parameters: pairs
// (false: keys only), portion (keys per launch of a pass, to test the portions without 2^28 keys;
// default the largest), in_place (sort d_keys itself; default: into poisoned outputs). Outputs:
// keys, values (keys only: the values untouched); info: tile_items, the keys per tile.
template <class Key>
void onesweep(Call& call) {
  const std::vector<Key> keys = call.input<Key>(0);
  const std::vector<std::uint32_t> values = call.input<std::uint32_t>(1);
  if (values.size() != keys.size()) throw std::runtime_error("keys and values differ in length");
  const std::size_t n = keys.size();
  const bool pairs = call.param<bool>("pairs");
  const bool in_place = call.param<bool>("in_place", false);
  ch09::OnesweepWorkspace<Key> ws(n, call.param<std::size_t>("portion", ch09::kOnesweepMaxPortion));
  scanlab::DeviceBuffer<Key> d_keys(keys), d_keys_out(n);
  scanlab::DeviceBuffer<std::uint32_t> d_values(values), d_values_out(n);
  d_keys_out.fill_poison();
  d_values_out.fill_poison();
  Key* keys_out = in_place ? d_keys.data() : d_keys_out.data();
  std::uint32_t* values_out = in_place || !pairs ? d_values.data() : d_values_out.data();
  if (pairs) ch09::onesweep_sort_pairs(d_keys.data(), keys_out, d_values.data(), values_out, n, ws);
  else ch09::onesweep_sort_keys(d_keys.data(), keys_out, n, ws);
  SCANLAB_CHECK_SYNC();
  call.info()["tile_items"] =  // the checker's sizes
      pairs ? ch09::OnesweepPairsShape<Key>::TILE_ITEMS : ch09::OnesweepKeysShape<Key>::TILE_ITEMS;
  scanlab::DeviceBuffer<Key>& k = in_place ? d_keys : d_keys_out;
  scanlab::DeviceBuffer<std::uint32_t>& v = in_place || !pairs ? d_values : d_values_out;
  call.output(k.download());
  call.output(v.download());
}

SCANLAB_GRADE_ENTRY(onesweep) {
  const std::string type = call.param<std::string>("key_type");
  if (type == "u32") onesweep<std::uint32_t>(call);
  else if (type == "i32") onesweep<std::int32_t>(call);
  else if (type == "f32") onesweep<float>(call);
  else if (type == "u64") onesweep<std::uint64_t>(call);
  else throw std::runtime_error("unknown key type " + type);
}
