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

// The given kernels check the positions the student's functions return on a GPU too, as they do
// on the emulator (chapters/09_radix_sort/index_checks.cuh).
#define SCANLAB_CH09_CHECK_INDICES 1
#include "onesweep_dispatch.cuh"
#include "radix_sort_dispatch.cuh"

using namespace scanlab::grading;

// ---- the student's functions one at a time ------------------------------------------------------
// Each kernel below calls one function of the student's with inputs the checker chose and returns
// what it returned, so that the checker can test it before the whole sort and say what it saw.

namespace {

// What a slot of an output holds when no key was written to it: the poison (scanlab/verify.hpp),
// which the checker shows as "unwritten".
constexpr std::uint32_t kUnwritten = 0xcdcdcdcdu;

// out[i] = split_destination(f, n, i, keys[i], bit).
template <class Dummy = void>
__global__ void split_destinations_kernel(const unsigned* f, const std::uint32_t* keys, std::size_t n, int bit,
                                          std::uint64_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ch09::split_destination(f, n, i, keys[i], bit);
}

// One block_split_by_bit of one tile (keys, values), from s.keys[0] into s.keys[1], which holds
// kUnwritten in every slot before.
template <class Dummy = void>
__global__ void block_split_kernel(const std::uint32_t* keys, const std::uint32_t* values, int bit,
                                   std::uint32_t* keys_out, std::uint32_t* values_out) {
  __shared__ ch09::LocalSortStorage s;
  for (int r = 0; r < ch09::kSortItems; ++r) {
    const int j = r * ch09::kSortThreads + static_cast<int>(threadIdx.x);
    s.keys[0][j] = keys[j];
    s.values[0][j] = values[j];
    s.keys[1][j] = kUnwritten;
    s.values[1][j] = kUnwritten;
  }
  __syncthreads();
  ch09::block_split_by_bit<true>(s, 0, bit);
  for (int r = 0; r < ch09::kSortItems; ++r) {
    const int j = r * ch09::kSortThreads + static_cast<int>(threadIdx.x);
    keys_out[j] = s.keys[1][j];
    values_out[j] = s.values[1][j];
  }
}

// out[p] = scatter_destination(digit_offsets, tiles, tile, digit of key p, p, s) for a tile already
// sorted by the digit at `shift` (the given find_digit_starts fills s.digit_start).
template <class Dummy = void>
__global__ void scatter_destinations_kernel(const std::uint32_t* sorted, int shift, const unsigned* digit_offsets,
                                            std::size_t tiles, std::size_t tile, std::uint64_t* out) {
  __shared__ ch09::LocalSortStorage s;
  for (int r = 0; r < ch09::kSortItems; ++r) {
    const int j = r * ch09::kSortThreads + static_cast<int>(threadIdx.x);
    s.keys[0][j] = sorted[j];
  }
  __syncthreads();
  ch09::find_digit_starts(s, 0, shift);
  for (int r = 0; r < ch09::kSortItems; ++r) {
    const int p = r * ch09::kSortThreads + static_cast<int>(threadIdx.x);
    out[p] = ch09::scatter_destination(digit_offsets, tiles, tile, ch09::digit_of(s.keys[0][p], shift), p, s);
  }
}

// One warp: rank_in_warp for items 0 .. items - 1 (digits[j * 32 + lane]), from the counters the
// checker chose, with zero meeting words. Outputs the ranks, then the counters and the meeting words
// after the last item.
template <class Dummy = void>
__global__ void rank_in_warp_kernel(const unsigned* digits, int items, const unsigned* counters_in, unsigned* ranks,
                                    unsigned* counters_out, unsigned* match_out) {
  __shared__ unsigned counters[ch09::kOnesweepDigits];
  __shared__ unsigned match[ch09::kOnesweepDigits];
  const unsigned lane = threadIdx.x;
  for (unsigned d = lane; d < ch09::kOnesweepDigits; d += scanlab::kWarpThreads) {
    counters[d] = counters_in[d];
    match[d] = 0;
  }
  __syncwarp();
  for (int j = 0; j < items; ++j)
    ranks[j * scanlab::kWarpThreads + lane] =
        ch09::rank_in_warp(digits[j * scanlab::kWarpThreads + lane], counters, match);
  __syncwarp();
  for (unsigned d = lane; d < ch09::kOnesweepDigits; d += scanlab::kWarpThreads) {
    counters_out[d] = counters[d];
    match_out[d] = match[d];
  }
}

// 256 threads, thread d for digit d: publish(tile, status, counts[d]) into words.
template <class Dummy = void>
__global__ void publish_kernel(unsigned* words, unsigned tile, unsigned status, const unsigned* counts) {
  ch09::DigitCountDescriptors desc{words, threadIdx.x};
  desc.publish(tile, static_cast<scanlab::single_pass::Status>(status), counts[threadIdx.x]);
}

// 256 threads: read(pred, count) of digit d's word, into counts[d] and statuses[d].
template <class Dummy = void>
__global__ void read_kernel(unsigned* words, long long pred, unsigned* counts, unsigned* statuses) {
  const ch09::DigitCountDescriptors desc{words, threadIdx.x};
  unsigned count = kUnwritten;
  statuses[threadIdx.x] = static_cast<unsigned>(desc.read(pred, count));
  counts[threadIdx.x] = count;
}

// 256 threads: before[d] = look_back_digit for digit d of `tile`, whose own count is counts[d].
template <class Dummy = void>
__global__ void look_back_kernel(unsigned* words, unsigned tile, const unsigned* counts, unsigned* before) {
  const ch09::DigitCountDescriptors desc{words, threadIdx.x};
  before[threadIdx.x] = ch09::look_back_digit(desc, tile, counts[threadIdx.x], ch09::kOnesweepPolls);
}

}  // namespace

// Input 0: keys (n), input 1: f (n + 1 values, the exclusive scan of the keys' "bit is 0" flags);
// parameter bit. Output: split_destination of every key (u64).
SCANLAB_GRADE_ENTRY(split_destination) {
  const std::vector<std::uint32_t> keys = call.input<std::uint32_t>(0);
  const std::vector<std::uint32_t> f = call.input<std::uint32_t>(1);
  const std::size_t n = keys.size();
  if (n == 0 || f.size() != n + 1) throw std::runtime_error("f must hold n + 1 values for n > 0 keys");
  scanlab::DeviceBuffer<std::uint32_t> d_keys(keys), d_f(f);
  scanlab::DeviceBuffer<std::uint64_t> d_out(n);
  d_out.fill_poison();
  split_destinations_kernel<><<<static_cast<unsigned>((n + 255) / 256), 256>>>(d_f.data(), d_keys.data(), n,
                                                                               call.param<int>("bit"), d_out.data());
  SCANLAB_CHECK_SYNC();
  call.output(d_out.download());
}

// Input 0: the keys of one tile (kSortTile), whose values are their slots; parameter bit.
// Outputs: the tile's keys and values after one block_split_by_bit (kUnwritten: never written).
SCANLAB_GRADE_ENTRY(block_split) {
  const std::vector<std::uint32_t> keys = call.input<std::uint32_t>(0);
  if (keys.size() != static_cast<std::size_t>(ch09::kSortTile)) throw std::runtime_error("one tile of keys");
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint32_t>(i);
  scanlab::DeviceBuffer<std::uint32_t> d_keys(keys), d_values(values), d_keys_out(keys.size()),
      d_values_out(keys.size());
  block_split_kernel<><<<1, ch09::kSortThreads>>>(d_keys.data(), d_values.data(), call.param<int>("bit"),
                                                  d_keys_out.data(), d_values_out.data());
  SCANLAB_CHECK_SYNC();
  call.output(d_keys_out.download());
  call.output(d_values_out.download());
}

// Input 0: one tile of keys sorted by the digit at parameter shift; input 1: digit_offsets (the
// scanned digit-major table, kDigits x tiles); parameters tiles, tile. Output: scatter_destination
// of every place (u64).
SCANLAB_GRADE_ENTRY(scatter_destination) {
  const std::vector<std::uint32_t> sorted = call.input<std::uint32_t>(0);
  const std::vector<std::uint32_t> offsets = call.input<std::uint32_t>(1);
  const std::size_t tiles = call.param<std::size_t>("tiles");
  if (sorted.size() != static_cast<std::size_t>(ch09::kSortTile)) throw std::runtime_error("one tile of keys");
  if (offsets.size() != tiles * ch09::kDigits) throw std::runtime_error("digit_offsets must hold kDigits x tiles");
  scanlab::DeviceBuffer<std::uint32_t> d_sorted(sorted), d_offsets(offsets);
  scanlab::DeviceBuffer<std::uint64_t> d_out(sorted.size());
  d_out.fill_poison();
  scatter_destinations_kernel<><<<1, ch09::kSortThreads>>>(d_sorted.data(), call.param<int>("shift"), d_offsets.data(),
                                                           tiles, call.param<std::size_t>("tile"), d_out.data());
  SCANLAB_CHECK_SYNC();
  call.output(d_out.download());
}

// Input 0: digits, 32 per item (kNoDigit: a lane past the end); input 1: the warp's 256 counters.
// Outputs: the ranks (32 per item), the counters after, the meeting words after.
SCANLAB_GRADE_ENTRY(rank_in_warp) {
  const std::vector<std::uint32_t> digits = call.input<std::uint32_t>(0);
  const std::vector<std::uint32_t> counters = call.input<std::uint32_t>(1);
  if (digits.empty() || digits.size() % scanlab::kWarpThreads != 0) throw std::runtime_error("whole items of 32");
  if (counters.size() != ch09::kOnesweepDigits) throw std::runtime_error("256 counters");
  scanlab::DeviceBuffer<std::uint32_t> d_digits(digits), d_counters(counters), d_ranks(digits.size()),
      d_counters_out(counters.size()), d_match(counters.size());
  d_ranks.fill_poison();
  rank_in_warp_kernel<>
      <<<1, scanlab::kWarpThreads>>>(d_digits.data(), static_cast<int>(digits.size() / scanlab::kWarpThreads),
                                     d_counters.data(), d_ranks.data(), d_counters_out.data(), d_match.data());
  SCANLAB_CHECK_SYNC();
  call.output(d_ranks.download());
  call.output(d_counters_out.download());
  call.output(d_match.download());
}

// The descriptors. Input 0: the words (tiles x 256). Parameter op: "publish" (parameters tile,
// status; input 1: the 256 counts; output: the words after) or "read" (parameter pred; outputs:
// the 256 counts and the 256 statuses read).
SCANLAB_GRADE_ENTRY(digit_descriptors) {
  const std::vector<std::uint32_t> words = call.input<std::uint32_t>(0);
  if (words.empty() || words.size() % ch09::kOnesweepDigits != 0) throw std::runtime_error("whole tiles of words");
  scanlab::DeviceBuffer<std::uint32_t> d_words(words);
  const std::string op = call.param<std::string>("op");
  if (op == "publish") {
    const std::vector<std::uint32_t> counts = call.input<std::uint32_t>(1);
    if (counts.size() != ch09::kOnesweepDigits) throw std::runtime_error("256 counts");
    scanlab::DeviceBuffer<std::uint32_t> d_counts(counts);
    publish_kernel<><<<1, ch09::kOnesweepDigits>>>(d_words.data(), call.param<unsigned>("tile"),
                                                   call.param<unsigned>("status"), d_counts.data());
    SCANLAB_CHECK_SYNC();
    call.output(d_words.download());
  } else if (op == "read") {
    scanlab::DeviceBuffer<std::uint32_t> d_counts(ch09::kOnesweepDigits), d_statuses(ch09::kOnesweepDigits);
    read_kernel<>
        <<<1, ch09::kOnesweepDigits>>>(d_words.data(), call.param<int>("pred"), d_counts.data(), d_statuses.data());
    SCANLAB_CHECK_SYNC();
    call.output(d_counts.download());
    call.output(d_statuses.download());
  } else {
    throw std::runtime_error("unknown op " + op);
  }
}

// Input 0: the words of tiles 0 .. tile (every earlier word published, the tile's own A); input 1:
// the tile's 256 counts; parameter tile. Outputs: look_back_digit of every digit, the words after.
SCANLAB_GRADE_ENTRY(look_back) {
  const std::vector<std::uint32_t> words = call.input<std::uint32_t>(0);
  const std::vector<std::uint32_t> counts = call.input<std::uint32_t>(1);
  const unsigned tile = call.param<unsigned>("tile");
  if (words.size() != (static_cast<std::size_t>(tile) + 1) * ch09::kOnesweepDigits)
    throw std::runtime_error("the words of tiles 0 .. tile");
  if (counts.size() != ch09::kOnesweepDigits) throw std::runtime_error("256 counts");
  scanlab::DeviceBuffer<std::uint32_t> d_words(words), d_counts(counts), d_before(ch09::kOnesweepDigits);
  d_before.fill_poison();
  look_back_kernel<><<<1, ch09::kOnesweepDigits>>>(d_words.data(), tile, d_counts.data(), d_before.data());
  SCANLAB_CHECK_SYNC();
  call.output(d_before.download());
  call.output(d_words.download());
}

// ---- the whole sorts ----------------------------------------------------------------------------

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
  // The checker's sizes.
  call.info("tile_items", pairs ? ch09::OnesweepPairsShape<Key>::TILE_ITEMS : ch09::OnesweepKeysShape<Key>::TILE_ITEMS);
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
