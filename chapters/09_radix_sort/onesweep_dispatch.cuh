// Chapter 09, given: the Onesweep radix sort's kernels and host side. Your code, the descriptors,
// the ranking of a warp's keys and the look-back, is in onesweep.cuh (exercises/09_radix_sort/, or
// solutions/ for the reference build); nothing here needs changing.
//
// A sort of n keys of B bits is B / 8 passes, least significant digit first, after one histogram:
//   onesweep_histogram_kernel   reads the keys once and counts every pass's digits at once;
//   onesweep_bins_kernel        an exclusive scan of each pass's 256 counts: where each digit's
//                               keys start in that pass's output (the "bins"); it moves the
//                               counts to where the passes read them and leaves the histograms
//                               zero for the next sort, which needs no memset before it;
//   onesweep_pass_kernel        per pass, one tile per block, in the order of an atomic ticket:
//     1. load     the tile's keys, warp-striped: the tile's order is the input order;
//     2. rank     your rank_in_warp, item by item, gives every key its rank among its warp's keys
//                 of its digit, and leaves each warp's count of each digit (in a pass of at most
//                 two digits, one ballot per item does it: below); thread d sums digit d's counts;
//     3. publish  thread d publishes the tile's count of digit d (A; tile 0: P) at once;
//     4. places   a block scan of the 256 counts gives where each digit starts in the tile, and the
//                 warps in order where each warp's keys of each digit start; a key's place in the
//                 tile sorted by the digit is that start plus its rank, and the key goes there in
//                 shared memory;
//     5. look back thread d: your look_back_digit, the keys of digit d in all earlier tiles (then
//                 it clears digit d's word of its tile on the other side of the descriptors);
//     6. scatter  consecutive threads copy consecutive keys of the sorted tile out, each to
//                 bins[d] + (digit d's keys in earlier tiles) + (its rank among the tile's keys of
//                 digit d): the keys of one digit go out as one run, so the stores coalesce. A sort
//                 of pairs then loads the tile's values (the L2 cache was asked for them before
//                 step 5) and sends them the same way.
// A sort of at most one tile takes none of these: onesweep_single_tile_kernel, one block, runs
// every pass on the keys in shared memory (steps 2 and 4 of a tile, then each key to its place),
// in one launch.
// A pass of at most two digits. Keys that are mostly alike have few distinct digits in their upper
// bytes: small integers (the top three bytes of int32 in [-100, 100] are all 0x00 or all 0xff), or
// keys whose high bits never change. There rank_in_warp's meeting words make the lanes of a warp
// take turns at one or two shared-memory atomics (32 lanes on 2 words). The histograms say before
// the pass which digits occur in it; when at most two do, a key's rank needs no meeting: one
// ballot says which lanes hold the low digit, and every other valid key holds the high one. Tiles
// of a pass with more digits still go through rank_in_warp.
// The passes run back to back. Each launch of a pass is placed on the GPU while the one before it
// finishes its last tiles (a programmatic dependent launch, scanlab/dependent_launch.cuh), and no
// memset stands between them: the descriptors have two sides, which the launches use in turn, and
// each tile clears its own tile's words on the side of the launch before it, for the launch after
// it (step 5).
// Each pass reads and writes every key once (and every value): 2 x (key + value) bytes per element,
// plus the tiles' descriptors (1 KiB per tile written, and 1 KiB of the other side cleared). Counts
// are 30 bits: more than 2^28 keys are sorted in portions of at most 2^28 per launch, each portion
// starting from the bins the last tile of the previous one left (the total count of each digit so
// far).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/block_scan.cuh>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/occupancy.hpp>
#include <scanlab/prefetch.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/zeroed_sides.hpp>

#include "../../common/include/scanlab/dependent_launch.cuh"  // by path: it has a launch (see there)
#include "index_checks.cuh"
#include "onesweep.cuh"
#include "onesweep_tile.cuh"

namespace ch09 {

// The tiles, measured with uniform keys and CUB in the same process (tests/gpu/tuning/
// ch09_onesweep_sweep.sh and ch09_onesweep_u64_sweep.sh). Keys of 4 bytes sort fastest in tiles of
// 256 threads x 28 keys with registers capped for 4 blocks per SM (on an H200 0.96-1.00 x the
// faster CUB SortKeys at 2^24..2^28, where 256 x 24 took 0.97 and 256 x 32 0.94-0.95). Pairs hold
// a value beside every key and want longer tiles, as CUB's do: 384 x 28 capped for 2 blocks took
// 0.97-0.99 x the faster CUB SortPairs, 384 x 24 0.94-0.97, and 256 x 20 capped for 3 0.80-0.89.
// A longer tile pays its fixed work (the scan of 256 counts, their publication and look-back, the
// barriers) less often. Keys of 8 bytes (H200, uniform over 64 bits, uint32 values): 256 x 20
// capped for 3 blocks when sorting keys (1.02-1.04 x CUB), 384 x 20 capped for 2 with pairs
// (0.97-0.98, where 256 x 15 took 0.83-0.89). The pairs' figures are from before the values were
// asked of the L2 cache early (below): with it, 1.01-1.02 for uint32 pairs at 2^26 and up and
// 1.02 for uint64 pairs, and longer tiles (uint32 384 x 30 and 32, uint64 384 x 22 and 24) were no
// faster (book, chapter 09, "The values asked for early"). Those tiles need more than the 48 KiB
// of static shared memory a block may declare (a tile of pairs of uint32 keys, 67 KiB; of uint64
// keys, 85 KiB): the pass kernel's storage is dynamic shared memory (book, chapter 09, "Longer
// tiles"). On a GPU that lets a block take less (a T4: 64 KiB), pairs sort in the keys' tiles
// (OnesweepWorkspace::shared_per_block).
template <class Key>
using OnesweepKeysShape = std::conditional_t<sizeof(Key) == 4, OnesweepShape<256, 28, 4>, OnesweepShape<256, 20, 3>>;
template <class Key>
using OnesweepPairsShape = std::conditional_t<sizeof(Key) == 4, OnesweepShape<384, 28, 2>, OnesweepShape<384, 20, 2>>;

// Thread d's look-back finds its predecessors' counts mostly published already (they are written
// before the exchange): no sleep before the first read, a short one between reads of an X.
constexpr scanlab::single_pass::PollSchedule kOnesweepPolls = {0, 100};

// At most this many keys per launch of a pass (counts must fit the descriptors' 30 bits).
constexpr std::size_t kOnesweepMaxPortion = (std::size_t(1) << 28) - 1;

// ---------------------------------------------------------------------------------------------
// The histograms and the bins
// ---------------------------------------------------------------------------------------------

constexpr int kHistogramThreads = 256;
constexpr int kHistogramItems = 8;

// histograms[p * 256 + d] += how many keys have digit d in pass p, for all passes at once (the
// histograms are zero before: the bins kernel of the sort before cleared them). Each block counts a
// grid-stride share of the keys in shared memory and adds its counts once. A thread loads
// kHistogramItems keys before it counts any: with one load at a time, too few bytes are in flight
// to keep the memory busy (Little's law: bandwidth x latency).
template <class Key>
__global__ void __launch_bounds__(kHistogramThreads)
    onesweep_histogram_kernel(const Key* keys, std::size_t n, unsigned* histograms) {
  scanlab::allow_next_grid();  // the bins kernel's few blocks may be placed now; they wait for this one
  constexpr int kPasses = RadixKey<Key>::kPasses;
  __shared__ unsigned counts[kPasses][kOnesweepDigits];
  for (int i = static_cast<int>(threadIdx.x); i < kPasses * static_cast<int>(kOnesweepDigits); i += kHistogramThreads) {
    counts[i / kOnesweepDigits][i % kOnesweepDigits] = 0;
  }
  __syncthreads();
  constexpr std::size_t kRound = static_cast<std::size_t>(kHistogramThreads) * kHistogramItems;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kRound;
  for (std::size_t first = static_cast<std::size_t>(blockIdx.x) * kRound + threadIdx.x; first < n; first += stride) {
    Key round[kHistogramItems];  // key first + j x 256: a block's loads of one j are consecutive
#pragma unroll
    for (int j = 0; j < kHistogramItems; ++j) {
      const std::size_t i = first + static_cast<std::size_t>(j) * kHistogramThreads;
      if (i < n) round[j] = keys[i];
    }
#pragma unroll
    for (int j = 0; j < kHistogramItems; ++j) {
      if (first + static_cast<std::size_t>(j) * kHistogramThreads >= n) break;
      const typename RadixKey<Key>::Bits bits = RadixKey<Key>::ordered_bits(round[j]);
#pragma unroll
      for (int p = 0; p < kPasses; ++p) {
        atomicAdd(&counts[p][static_cast<unsigned>(bits >> (p * kOnesweepDigitBits)) & (kOnesweepDigits - 1u)], 1u);
      }
    }
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < kPasses * static_cast<int>(kOnesweepDigits); i += kHistogramThreads) {
    const unsigned c = counts[i / kOnesweepDigits][i % kOnesweepDigits];
    if (c != 0) atomicAdd(&histograms[i], c);
  }
}

// Block p: bins[p * stride + d] = the number of keys whose pass-p digit is below d (an exclusive
// scan of pass p's histogram): where digit d's keys start in pass p's output. The histogram moves
// to digit_counts, where the passes read it, and is left zero for the next sort's histogram kernel:
// no memset before it. Launched right behind the histogram kernel (launch_dependent).
__global__ void __launch_bounds__(kOnesweepDigits)
    onesweep_bins_kernel(unsigned* histograms, unsigned* digit_counts, unsigned* bins, std::size_t stride) {
  scanlab::wait_for_previous_grid();
  scanlab::allow_next_grid();  // the first pass's blocks may be placed; they wait for this kernel
  using Scan = scanlab::BlockScan<unsigned, static_cast<int>(kOnesweepDigits)>;
  __shared__ typename Scan::TempStorage temp;
  const unsigned i = blockIdx.x * kOnesweepDigits + threadIdx.x;
  unsigned item[1] = {histograms[i]};
  digit_counts[i] = item[0];
  histograms[i] = 0;
  unsigned total;
  Scan(temp).exclusive_scan(item, scanlab::Plus<unsigned>{}, total);
  bins[blockIdx.x * stride + threadIdx.x] = item[0];
}

// ---------------------------------------------------------------------------------------------
// One pass
// ---------------------------------------------------------------------------------------------

template <class Shape, class Key, class Value>
struct OnesweepStorage {
  union {
    Key keys[Shape::TILE_ITEMS];      // the tile sorted by the digit, then
    Value values[Shape::TILE_ITEMS];  // its values in the same order
  } exchange;
  unsigned warp_counts[Shape::WARPS][kOnesweepDigits];  // each warp's count of each digit, then
                                                        // where its keys of that digit go in the tile
  unsigned warp_match[Shape::WARPS][kOnesweepDigits];   // rank_in_warp's meeting points (zero)
  unsigned out_base[kOnesweepDigits];                   // where the tile's keys of digit d go, minus their place in it
  unsigned pass_digits[kOnesweepDigits / scanlab::kWarpThreads];  // bit d: digit d occurs in this pass
  typename scanlab::BlockScan<unsigned, Shape::BLOCK_THREADS>::TempStorage scan;
  unsigned tile_slot;
};

// Bytes of shared memory a tile of Shape takes: the pass kernel's whole storage, all of it dynamic.
template <class Shape, class Key, class Value>
constexpr std::size_t kOnesweepTileBytes = sizeof(OnesweepStorage<Shape, Key, Value>);

// Which digits occur in this pass: thread d (of the first 256) reads the pass's histogram at d, and
// each warp's lane 0 writes its 32 digits' bits. A barrier later makes them visible to all.
__device__ inline void mark_digits_of_pass(const unsigned* pass_histogram, unsigned* pass_digits) {
  const unsigned d = threadIdx.x;
  const unsigned occurs = __ballot_sync(scanlab::kFullWarpMask, d < kOnesweepDigits && pass_histogram[d] != 0);
  if (d < kOnesweepDigits && scanlab::lane_id() == 0) pass_digits[d / scanlab::kWarpThreads] = occurs;
}

// The digits of a pass, when it has at most two: `low` and `high` (equal when it has one).
struct TwoDigits {
  bool few;  // at most two digits occur in this pass
  unsigned low, high;
};

// Read from the bits mark_digits_of_pass wrote, where the ranking needs them. (Variants that held
// them in registers from the start, or had one thread or the bins kernel find them, made the
// compiler spill far more in the pairs' pass, -Xptxas -v; those timed ran slower on an H100.)
__device__ inline TwoDigits two_digits_of_pass(const unsigned* pass_digits) {
  TwoDigits two{false, kNoDigit, kNoDigit};
  int digits = 0;
  for (unsigned w = 0; w < kOnesweepDigits / scanlab::kWarpThreads; ++w) {
    const unsigned bits = pass_digits[w];
    if (bits == 0) continue;
    digits += __popc(bits);
    if (two.low == kNoDigit)
      two.low = w * scanlab::kWarpThreads + static_cast<unsigned>(__ffs(static_cast<int>(bits)) - 1);
    two.high = w * scanlab::kWarpThreads + 31u - static_cast<unsigned>(__clz(static_cast<int>(bits)));
  }
  two.few = digits >= 1 && digits <= 2;  // (a pass of n >= 1 keys has at least one)
  return two;
}

// What one launch of a pass is given. It sorts keys [begin, end) of keys_in by the digit at `shift`
// into keys_out, at bins[d] + ... for digit d. The last tile writes next_bins (when not null): bins
// plus this launch's counts, the bins of the next portion. pass_histogram holds the whole input's
// count of each digit in this pass. `words` and `ticket` are zero before the launch. For the checks
// of checking builds (index_checks.cuh): n, the keys of all portions; first_bins, the bins of the
// pass's first portion (with pass_histogram, where each digit's keys end); fault, the record.
template <class Key, class Value>
struct OnesweepPass {
  const Key* keys_in;
  Key* keys_out;
  const Value* values_in;
  Value* values_out;
  std::size_t begin, end;
  int shift;
  const unsigned* bins;
  unsigned* next_bins;
  const unsigned* pass_histogram;
  unsigned* words;
  unsigned* ticket;
  scanlab::single_pass::PollSchedule polls;
  std::size_t n;
  const unsigned* first_bins;
  unsigned long long* fault;
};

// The descriptors of the launch before, which this launch clears for the launch after it (the
// workspace keeps two sides of descriptors, used by the launches in turn: ZeroedSides): tile t
// (t < tiles) zeroes its 256 words there, tile 0 also that side's ticket. tiles is 0 where the
// host clears that side itself. A kernel parameter of its own: one more field in OnesweepPass made
// the compiler spill more in the pairs' kernel, which then ran 5-9% slower (book, chapter 09).
struct OnesweepStaleSide {
  unsigned* ticket;
  unsigned* words;
  std::size_t tiles;
};

// Small numbers packed in registers, 32 / kBits to a register, each below 2^kBits: a tile's ranks
// and then its places (16 bits: a tile holds at most 2^16 keys), and the digits of the keys a
// thread scatters (8 bits).
// Unpacked, the ranks took a register each and the keys' pass spilled several times as many bytes
// (ptxas -v).
template <int N, int kBits>
struct PackedFields {
  static constexpr int kPerWord = 32 / kBits;
  static constexpr unsigned kMask = (1u << kBits) - 1u;
  unsigned w[(N + kPerWord - 1) / kPerWord] = {};
  __device__ __forceinline__ void set(int j, unsigned v) {
    const int shift = (j % kPerWord) * kBits;
    w[j / kPerWord] = (w[j / kPerWord] & ~(kMask << shift)) | (v << shift);
  }
  __device__ __forceinline__ unsigned get(int j) const { return (w[j / kPerWord] >> ((j % kPerWord) * kBits)) & kMask; }
};

// The warps' counters of a tile, zero for the ranking (a barrier must follow before it starts).
template <class Shape>
__device__ __forceinline__ void clear_warp_counters(unsigned (&warp_counts)[Shape::WARPS][kOnesweepDigits],
                                                    unsigned (&warp_match)[Shape::WARPS][kOnesweepDigits]) {
  for (int i = static_cast<int>(threadIdx.x); i < Shape::WARPS * static_cast<int>(kOnesweepDigits);
       i += Shape::BLOCK_THREADS) {
    (&warp_counts[0][0])[i] = 0;
    (&warp_match[0][0])[i] = 0;
  }
}

// Step 2 of a tile (below), for one warp's keys: each key's rank among the warp's keys of its
// digit, packed, and the warp's count of each digit left in its row of the counters, warp_counts
// (zero before; warp_match, its meeting words, zero before and after). digit(j): item j's digit,
// kNoDigit past the input's end; warp_keys: the warp's keys in the input. A pass of at most two
// digits (two.few) is ranked by ballots, without rank_in_warp (the top of this file says why).
// Checking builds record a rank outside the warp's keys as a fault of `tile`.
template <int ITEMS, bool kStopAtEnd = false, class DigitOf>
__device__ __forceinline__ PackedFields<ITEMS, 16> rank_in_warps(unsigned* warp_counts, unsigned* warp_match,
                                                                 TwoDigits two, int warp_keys, DigitOf digit,
                                                                 unsigned long long* fault, unsigned tile) {
  const int lane = scanlab::lane_id();
  PackedFields<ITEMS, 16> rank;
  if (two.few) {
    // A key's rank: the keys of its digit in the warp's earlier items and in the lanes below it.
    // The valid keys of a tile end at one lane of one item: so below a valid key every lane is
    // valid, and every earlier item is full.
    const unsigned below = scanlab::lanes_below_mask(lane);
    unsigned low_before = 0;  // keys of the low digit in this warp's earlier items
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const unsigned d = digit(j);
      const unsigned low = __ballot_sync(scanlab::kFullWarpMask, d == two.low);
      const unsigned low_below = static_cast<unsigned>(__popc(low & below));
      const unsigned keys_before = static_cast<unsigned>(j * scanlab::kWarpThreads + lane);
      rank.set(j, d == two.low ? low_before + low_below : keys_before - low_before - low_below);
      low_before += static_cast<unsigned>(__popc(low));
    }
    if (lane == 0) {  // the warp's counts: low_before of the low digit, the rest of the high one
      warp_counts[two.low] = low_before;
      if (two.high != two.low) warp_counts[two.high] = static_cast<unsigned>(warp_keys) - low_before;
    }
  } else {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      // kStopAtEnd: the rest of the warp's items lie past the input's end, and the whole warp stops
      // here together. (Not in a pass's tiles: there the test moved ptxas's spills in the pass
      // kernels, and sorted uint32 keys 1% slower at 2^28 on an H200.)
      if (kStopAtEnd && j * scanlab::kWarpThreads >= warp_keys) break;
      unsigned r = rank_in_warp(digit(j), warp_counts, warp_match);
      if constexpr (kCheckIndices) {
        if (digit(j) != kNoDigit && r >= static_cast<unsigned>(warp_keys)) {
          record_index_fault(fault, IndexFault::rank_in_warp, tile, static_cast<unsigned long long>(scanlab::warp_id()),
                             static_cast<unsigned long long>(lane), static_cast<unsigned long long>(j), digit(j), r,
                             static_cast<unsigned long long>(warp_keys));
          r = 0;  // a rank in the warp: the sort stops after this launch anyway
        }
      }
      rank.set(j, r);
    }
  }
  return rank;
}

// Thread d of the first 256, once every warp has ranked its keys (after a barrier): the tile's
// count of digit d, the warps' counts added up.
template <int WARPS>
__device__ __forceinline__ unsigned tile_count_of_digit(const unsigned (&warp_counts)[WARPS][kOnesweepDigits]) {
  unsigned count = 0;
  if (threadIdx.x < kOnesweepDigits) {
    for (int w = 0; w < WARPS; ++w) count += warp_counts[w][threadIdx.x];
  }
  return count;
}

// Step 4 of a tile: where each digit starts in the tile (a block scan of the 256 counts: thread d
// holds digit d's count and gets its start), and where each warp's keys of each digit start (the
// warps in order), written over the warps' counts. Ends with a barrier: every start is in.
template <class Shape>
__device__ __forceinline__ unsigned digit_starts_in_tile(
    unsigned (&warp_counts)[Shape::WARPS][kOnesweepDigits],
    typename scanlab::BlockScan<unsigned, Shape::BLOCK_THREADS>::TempStorage& scan, unsigned count) {
  unsigned start[1] = {count};
  unsigned tile_total;
  scanlab::BlockScan<unsigned, Shape::BLOCK_THREADS>(scan).exclusive_scan(start, scanlab::Plus<unsigned>{}, tile_total);
  if (threadIdx.x < kOnesweepDigits) {
    unsigned place = start[0];
    for (int w = 0; w < Shape::WARPS; ++w) {
      const unsigned c = warp_counts[w][threadIdx.x];
      warp_counts[w][threadIdx.x] = place;
      place += c;
    }
  }
  __syncthreads();
  return start[0];
}

// One tile of a pass: steps 1 to 6 above. kFull: the tile holds TILE_ITEMS keys, as every tile of a
// launch but the last does. Its code then checks no bounds, and each lane loads from one pointer at
// fixed offsets: a third fewer instructions in the keys' pass (Nsight Compute, H200, 2^26 keys),
// though not a faster pass by itself, which waits mostly on shared memory and on its look-back.
template <class Shape, class Key, class Value, bool kPairs, bool kFull>
__device__ __forceinline__ void onesweep_sort_tile(OnesweepStorage<Shape, Key, Value>& s,
                                                   const OnesweepPass<Key, Value>& pass, const OnesweepStaleSide& stale,
                                                   unsigned tile, std::size_t tile_begin, int valid) {
  constexpr int ITEMS = Shape::ITEMS_PER_THREAD;
  constexpr int THREADS = Shape::BLOCK_THREADS;
  static_assert(Shape::TILE_ITEMS <= 65536, "a tile's ranks and places are packed in 16 bits");
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  const unsigned d_mine = threadIdx.x;  // the digit this thread publishes and looks back for

  clear_warp_counters<Shape>(s.warp_counts, s.warp_match);

  // 1. load, warp-striped: item j of this lane is key warp_first + j x 32 + lane of the tile
  Key keys[ITEMS];
  const int warp_first = warp * ITEMS * scanlab::kWarpThreads;
  auto in_tile = [&](int j) {
    return kFull || warp_first + j * scanlab::kWarpThreads + lane < valid;
  };
  const std::size_t lane_first = tile_begin + static_cast<std::size_t>(warp_first + lane);
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    if (in_tile(j)) keys[j] = __ldcs(pass.keys_in + lane_first + j * scanlab::kWarpThreads);
  }
  auto digit = [&](int j) {
    return in_tile(j) ? RadixKey<Key>::digit(keys[j], pass.shift) : kNoDigit;
  };
  mark_digits_of_pass(pass.pass_histogram, s.pass_digits);
  __syncthreads();  // the counters are zero, the pass's digits marked

  // 2. rank: your rank_in_warp, item by item, gives each key its rank among the warp's keys of its
  //    digit (the counters start at zero), and leaves each warp's count of each digit in its
  //    counters. The ranks wait in registers, two to a register, until the warp's keys of each
  //    digit know where they start in the tile (step 4). Counting the keys first, with one shared
  //    atomic each, and ranking them from the warps' starts took 6% longer on an H200 (book,
  //    chapter 09, "Rank first, place later"); the counts now go out after the ranking.
  const int warp_keys =
      kFull ? ITEMS * scanlab::kWarpThreads : min(max(valid - warp_first, 0), ITEMS * scanlab::kWarpThreads);
  PackedFields<ITEMS, 16> rank =  // for pairs, later the keys' places in the tile
      rank_in_warps<ITEMS>(s.warp_counts[warp], s.warp_match[warp], two_digits_of_pass(s.pass_digits), warp_keys, digit,
                           pass.fault, tile);
  __syncthreads();                                            // every warp's counts
  const unsigned count = tile_count_of_digit(s.warp_counts);  // thread d: the tile's count of digit d

  // 3. publish the counts at once: later tiles may be waiting for them
  DigitCountDescriptors desc{pass.words, d_mine};
  if (d_mine < kOnesweepDigits) {
    desc.publish(tile, tile == 0 ? scanlab::single_pass::kPrefix : scanlab::single_pass::kAggregate, count);
  }

  // 4. where each digit starts in the tile (a block scan of the counts), and where each warp's keys
  //    of each digit start (the warps in order); then every key to its place in the sorted tile:
  //    where its warp's keys of its digit start, plus its rank
  const unsigned start = digit_starts_in_tile<Shape>(s.warp_counts, s.scan, count);
#pragma unroll
  for (int j = 0; j < ITEMS; ++j) {
    const unsigned d = digit(j);
    if (d != kNoDigit) {
      const unsigned p = s.warp_counts[warp][d] + rank.get(j);
      s.exchange.keys[p] = keys[j];
      if constexpr (kPairs) rank.set(j, p);  // the values follow their keys to the same places
    }
  }

  // Pairs: the L2 cache is asked for the tile's values now, with the look-back and the keys'
  //    scatter still to come before their load (step 6): the load then waits for the L2, not for
  //    DRAM, and the values take no registers meanwhile. On an H200 this took 3-4% off a sort of
  //    pairs (book, chapter 09, "The values asked for early"). Full tiles only: the last, partial
  //    tile is one of a launch.
  if constexpr (kPairs && kFull) scanlab::prefetch_to_l2(pass.values_in + tile_begin, sizeof(Value) * valid, THREADS);

  // 5. look back, one thread per digit
  if (d_mine < kOnesweepDigits) {
    const unsigned before = look_back_digit(desc, tile, count, pass.polls);
    if constexpr (kCheckIndices) {  // at most the earlier tiles' keys, and within the digit's keys
      const unsigned long long earlier = static_cast<unsigned long long>(tile) * Shape::TILE_ITEMS;
      const unsigned long long digit_end =
          static_cast<unsigned long long>(pass.first_bins[d_mine]) + pass.pass_histogram[d_mine];
      if (pass.bins[d_mine] + static_cast<unsigned long long>(count) > digit_end) {
        record_index_fault(pass.fault, IndexFault::keys_changed, tile, d_mine, count, pass.bins[d_mine], digit_end,
                           static_cast<unsigned long long>(pass.shift));
      } else if (before > earlier || pass.bins[d_mine] + static_cast<unsigned long long>(before) + count > digit_end) {
        record_index_fault(pass.fault, IndexFault::look_back, tile, d_mine, count, before, earlier, pass.bins[d_mine],
                           digit_end);
      }
    }
    const unsigned first = pass.bins[d_mine] + before;  // where the tile's first key of digit d goes
    s.out_base[d_mine] = first - start;                 // minus its place in the sorted tile
    if (pass.next_bins != nullptr && tile_begin + Shape::TILE_ITEMS >= pass.end) pass.next_bins[d_mine] = first + count;
    // The launch before this one is over, and no one reads its descriptors any more: the tile
    // clears its own tile's words there (tile 0 also that side's ticket), for the next launch.
    if (tile < stale.tiles) stale.words[static_cast<std::size_t>(tile) * kOnesweepDigits + d_mine] = 0;
    if (tile == 0 && d_mine == 0) *stale.ticket = 0;
  }
  __syncthreads();  // the sorted tile and the bases

  // 6. scatter: place p of the sorted tile goes to out_base[its digit] + p. A sort of pairs keeps
  //    the digit of each key it stored (a byte, four to a register) to find its value's position
  //    again, instead of a register for each position: the uint32 pairs' kernel then spills 20
  //    bytes, not 100 (ptxas), and sorted 2^24 pairs 3% faster on an H200, level from 2^26 on
  //    (book, chapter 09, "Rank first, place later").
  auto out_position = [&](unsigned d, int p) {
    const unsigned o = s.out_base[d] + static_cast<unsigned>(p);
    if constexpr (kCheckIndices) {
      if (o >= pass.n) {  // (the first fault is kept: a value's repeat of its key's is a no-op)
        record_index_fault(pass.fault, IndexFault::onesweep_place, tile, static_cast<unsigned long long>(p), d, o,
                           pass.n);
        return 0u;  // a position in the output: the sort stops after this launch anyway
      }
    }
    return o;
  };
  PackedFields<kPairs ? ITEMS : 1, 8> scattered_digit;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int p = k * THREADS + static_cast<int>(threadIdx.x);
    if (kFull || p < valid) {
      const Key key = s.exchange.keys[p];
      const unsigned d = RadixKey<Key>::digit(key, pass.shift);
      if constexpr (kCheckIndices) {
        const unsigned d_before = p == 0 ? 0u : RadixKey<Key>::digit(s.exchange.keys[p - 1], pass.shift);
        if (d_before > d) {
          record_index_fault(pass.fault, IndexFault::tile_not_sorted, tile, static_cast<unsigned long long>(p),
                             d_before, d, static_cast<unsigned long long>(pass.shift));
        }
      }
      pass.keys_out[out_position(d, p)] = key;
      if constexpr (kPairs) scattered_digit.set(k, d);
    }
  }
  // Pairs: the values only now, as CUB loads them, so that they take no registers while the keys
  // are ranked, looked back for and copied out. Loaded with the keys, they made the compiler spill
  // (0.88 x CUB's SortPairs at 2^28 on an H200); loaded before the look-back, so that their loads
  // overlapped its wait, 0.90 at 2^28 in tiles of 384 x 24 where this took 0.95, and it lets the
  // tiles grow (book, chapter 09, "The values last").
  if constexpr (kPairs) {
    Value values[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      if (in_tile(j)) values[j] = __ldcs(pass.values_in + lane_first + j * scanlab::kWarpThreads);
    }
    __syncthreads();  // every key has left the exchange
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      if (in_tile(j)) s.exchange.values[rank.get(j)] = values[j];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int p = k * THREADS + static_cast<int>(threadIdx.x);
      if (kFull || p < valid) pass.values_out[out_position(scattered_digit.get(k), p)] = s.exchange.values[p];
    }
  }
}

// One launch of a pass: a tile per block, in the order of the ticket. Its storage is the launch's
// dynamic shared memory, kOnesweepTileBytes of it (the host allows the kernel that much).
template <class Shape, class Key, class Value, bool kPairs,
          int kMinBlocks = kPairs ? Shape::MIN_BLOCKS_PER_SM_PAIRS : Shape::MIN_BLOCKS_PER_SM_KEYS>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS, kMinBlocks)
    onesweep_pass_kernel(const OnesweepPass<Key, Value> pass, const OnesweepStaleSide stale) {
  // Launched right behind the kernel before it (launch_dependent): nothing of global memory before
  // that kernel has ended. Once every block of this one has passed here, all of them are running,
  // and the next pass's blocks may take the room of this one's as they end.
  scanlab::wait_for_previous_grid();
  scanlab::allow_next_grid();
  extern __shared__ __align__(16) unsigned char onesweep_shared[];
  auto& s = *reinterpret_cast<OnesweepStorage<Shape, Key, Value>*>(onesweep_shared);
  const unsigned tile =
      scanlab::single_pass::dynamic_tile_index(pass.ticket, scanlab::single_pass::TileOrder::ticket, s.tile_slot);
  const std::size_t tile_begin = pass.begin + static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  if (pass.end - tile_begin >= Shape::TILE_ITEMS) {
    onesweep_sort_tile<Shape, Key, Value, kPairs, true>(s, pass, stale, tile, tile_begin, Shape::TILE_ITEMS);
  } else {
    onesweep_sort_tile<Shape, Key, Value, kPairs, false>(s, pass, stale, tile, tile_begin,
                                                         static_cast<int>(pass.end - tile_begin));
  }
}

// ---------------------------------------------------------------------------------------------
// A sort in one tile
// ---------------------------------------------------------------------------------------------

// A sort of at most one tile's keys takes one launch: one block holds the keys (and the values)
// in shared memory from the first pass to the last. Each pass ranks them by its digit as a pass's
// tile does (steps 2 and 4: your rank_in_warp, the warps' counts, their scan) and puts each key at
// its place in the tile sorted by the digit, which, with one tile, is its place in the pass's
// output: the next pass reads the keys from there, warp-striped as ever. There is nothing to look
// back for, and no histogram or bins to find first. The multi-launch sort would spend 2 + passes
// launches on these keys, one after the other, each too small to fill the GPU: on an H200 a sort of
// 4096 uint32 keys took 56 us from launch to the host seeing it done that way, 21 us in one launch,
// and CUB's one-block sort 19-20 (book, chapter 09, "Small sorts: one launch").

// The block of a sort in one tile: 512 threads over at most one of the sort's tiles (Shape). A
// lone block has no other blocks beside it on its SM to hide the waits of its warps' ranking
// (rank_in_warp's round trips to shared memory, item after item), so it takes more warps than a
// pass's block, each with fewer items. On an H200, 4096 uint32 keys sorted in 12.7 us with 512
// threads, 13.7 with 1024 and 16.7 with 256; pairs and uint64 keys alike (book, chapter 09, "Small
// sorts: one launch").
constexpr int kOnesweepSingleTileThreads = 512;
template <class Shape>
using OnesweepSingleTileShape =
    OnesweepShape<kOnesweepSingleTileThreads,
                  (Shape::TILE_ITEMS + kOnesweepSingleTileThreads - 1) / kOnesweepSingleTileThreads>;

template <class Shape, class Key, class Value, bool kPairs>
struct OnesweepSingleTileStorage {
  Key keys[Shape::TILE_ITEMS];                          // the tile, in the order of the last pass
  Value values[kPairs ? Shape::TILE_ITEMS : 1];         // their values, in the same order
  unsigned warp_counts[Shape::WARPS][kOnesweepDigits];  // as in a pass's tile
  unsigned warp_match[Shape::WARPS][kOnesweepDigits];
  typename scanlab::BlockScan<unsigned, Shape::BLOCK_THREADS>::TempStorage scan;
};

template <class Shape, class Key, class Value, bool kPairs>
constexpr std::size_t kOnesweepSingleTileBytes = sizeof(OnesweepSingleTileStorage<Shape, Key, Value, kPairs>);

// n keys (1 <= n <= Shape::TILE_ITEMS) of keys_in, sorted into keys_out, every pass in one block.
// In place is allowed: every key is read before any is written.
template <class Shape, class Key, class Value, bool kPairs>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS)
    onesweep_single_tile_kernel(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, int n,
                                unsigned long long* fault) {
  constexpr int ITEMS = Shape::ITEMS_PER_THREAD;
  constexpr int THREADS = Shape::BLOCK_THREADS;
  extern __shared__ __align__(16) unsigned char onesweep_shared[];
  auto& s = *reinterpret_cast<OnesweepSingleTileStorage<Shape, Key, Value, kPairs>*>(onesweep_shared);
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  // Each warp takes `items` consecutive rows of 32 keys, as few as the keys need: a pass ranks a
  // warp's items one after the other, so a small sort spread over every warp takes fewer steps.
  // The tile's order (warp, item, lane) is still the input order.
  const int items = (n + THREADS - 1) / THREADS;
  const int warp_first = warp * items * scanlab::kWarpThreads;
  const int warp_keys = min(max(n - warp_first, 0), items * scanlab::kWarpThreads);
  // Item j of this lane: its place in the tile, and whether it holds a key.
  auto at = [&](int j) {
    return warp_first + j * scanlab::kWarpThreads + lane;
  };
  auto in_input = [&](int j) {
    return j < items && at(j) < n;
  };
  Key keys[ITEMS];
  Value values[kPairs ? ITEMS : 1];
  // A lane's keys (and values) from `from_keys`: the input for the first pass, for each later one
  // the tile in the order the pass before left it. (Called with each source, not with a pointer
  // chosen at run time, so that the compiler still sees which loads are of shared memory.)
  auto load_items = [&](const Key* from_keys, const Value* from_values) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      if (in_input(j)) {
        keys[j] = from_keys[at(j)];
        if constexpr (kPairs) values[j] = from_values[at(j)];
      }
    }
  };
  load_items(keys_in, values_in);
  for (int pass = 0; pass < RadixKey<Key>::kPasses; ++pass) {
    if (pass > 0) load_items(s.keys, s.values);
    clear_warp_counters<Shape>(s.warp_counts, s.warp_match);
    __syncthreads();  // the counters are zero; every key and value of the pass before is read
    auto digit = [&](int j) {
      return in_input(j) ? RadixKey<Key>::digit(keys[j], pass * kOnesweepDigitBits) : kNoDigit;
    };
    // (No histogram says which digits occur, so every pass goes through rank_in_warp.)
    const PackedFields<ITEMS, 16> rank = rank_in_warps<ITEMS, true>(
        s.warp_counts[warp], s.warp_match[warp], TwoDigits{false, kNoDigit, kNoDigit}, warp_keys, digit, fault, 0);
    __syncthreads();  // every warp's counts
    (void)digit_starts_in_tile<Shape>(s.warp_counts, s.scan, tile_count_of_digit(s.warp_counts));
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
      const unsigned d = digit(j);
      if (d != kNoDigit) {
        const unsigned p = s.warp_counts[warp][d] + rank.get(j);
        s.keys[p] = keys[j];
        if constexpr (kPairs) s.values[p] = values[j];
      }
    }
    __syncthreads();  // the tile sorted by this pass's digit
  }
  // The last pass's order is the output: consecutive threads store consecutive keys.
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int p = k * THREADS + static_cast<int>(threadIdx.x);
    if (p < n) {
      keys_out[p] = s.keys[p];
      if constexpr (kPairs) values_out[p] = s.values[p];
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

// Scratch for sorting up to `capacity` keys of type Key (and values of type Value): a second key
// and value buffer to ping-pong with, the histograms, the bins of every pass and portion, and two
// sides of one portion's descriptors (the launches use them in turn, and each clears the other for
// the next: no memset between passes). Allocate once, outside timing. portion_keys (tests) lowers
// the portion.
template <class Key, class Value = std::uint32_t, class KeysShape = OnesweepKeysShape<Key>,
          class PairsShape = OnesweepPairsShape<Key>>
struct OnesweepWorkspace {
  template <bool kPairs>
  using Shape = std::conditional_t<kPairs, PairsShape, KeysShape>;
  static constexpr int kPasses = RadixKey<Key>::kPasses;
  static constexpr std::size_t kSmallerTile = static_cast<std::size_t>(
      KeysShape::TILE_ITEMS < PairsShape::TILE_ITEMS ? KeysShape::TILE_ITEMS : PairsShape::TILE_ITEMS);

  explicit OnesweepWorkspace(std::size_t n, std::size_t portion_keys = kOnesweepMaxPortion)
      : capacity(n),
        portion(checked_portion(portion_keys)),
        portions(std::max<std::size_t>(1, (n + portion - 1) / portion)),
        keys_alt(n),
        values_alt(n),
        histograms(static_cast<std::size_t>(kPasses) * kOnesweepDigits),
        digit_counts(histograms.size()),
        bins(static_cast<std::size_t>(kPasses) * portions * kOnesweepDigits),
        side_words(launch_words((portion + kSmallerTile - 1) / kSmallerTile)),
        descriptors(2 * side_words),
        sides(side_words) {
    histograms.fill_zero();
  }

  // Words of a launch of `tiles` tiles on its side of the descriptors: the ticket, then 256 a tile.
  static std::size_t launch_words(std::size_t tiles) { return 1 + tiles * kOnesweepDigits; }
  // Side k (0 or 1) of the descriptors: its ticket, then its tiles' words.
  unsigned* side_at(int k) { return descriptors.data() + k * side_words; }
  const unsigned* side_at(int k) const { return descriptors.data() + k * side_words; }
  // The ticket of the latest launch, on its side (tests: how many tiles it handed out).
  const unsigned* latest_ticket() const { return side_at(sides.side()); }

  static std::size_t checked_portion(std::size_t portion_keys) {
    if (portion_keys == 0 || portion_keys > kOnesweepMaxPortion) {
      throw std::invalid_argument("ch09::OnesweepWorkspace: a portion holds 1 to 2^28 - 1 keys");
    }
    return portion_keys;
  }

  // Bytes of shared memory a tile of keys, or of pairs, takes.
  static constexpr std::size_t kKeysTileBytes = kOnesweepTileBytes<KeysShape, Key, Value>;
  static constexpr std::size_t kPairsTileBytes = kOnesweepTileBytes<PairsShape, Key, Value>;

  // Whether a tile of pairs fits in the shared memory a block may take; where it does not, pairs
  // sort in the keys' tiles (smaller, and slower for pairs, but they fit more GPUs).
  bool pairs_tiles_fit() const { return kPairsTileBytes <= shared_per_block; }

  std::size_t capacity;
  // The shared memory a block may take on the device current when the workspace was made: 227 KiB
  // on an H100 or H200, 99 KiB on most other Ampere and Ada GPUs, 64 KiB on a T4. Tests lower it to
  // sort pairs in the keys' tiles on any device.
  std::size_t shared_per_block = scanlab::shared_memory_per_block_optin();
  scanlab::single_pass::PollSchedule polls = kOnesweepPolls;  // the look-back's waits (tuning)
  // Sorts of at most this many keys that fit in one tile take one launch (onesweep_single_tile_kernel);
  // tests lower it to run the passes on small sorts too.
  std::size_t single_tile_keys = ~std::size_t(0);
  std::size_t portion;   // keys per launch of a pass (its last tile may be partial)
  std::size_t portions;  // launches per pass
  scanlab::DeviceBuffer<Key> keys_alt;
  scanlab::DeviceBuffer<Value> values_alt;
  scanlab::DeviceBuffer<unsigned> histograms;    // pass x digit; zero between sorts (the bins kernel)
  scanlab::DeviceBuffer<unsigned> digit_counts;  // pass x digit: this sort's histograms, for the passes
  bool histograms_zero = true;                   // false from a histogram launch to its bins launch
  scanlab::DeviceBuffer<unsigned> bins;          // pass x portion x digit
  std::size_t side_words;                        // launch_words of a portion in the smaller tiles
  scanlab::DeviceBuffer<unsigned> descriptors;   // two sides of side_words: the ticket, tiles x 256
  scanlab::single_pass::ZeroedSides sides;       // which side the next launch takes; what is dirty
  IndexFaultRecord fault;                        // checking builds: a bad position a kernel found
};

namespace detail {

// The passes of one sort, in tiles of Shape: one launch per pass and portion.
template <class Shape, bool kPairs, class Key, class Value, class Workspace>
void onesweep_passes(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                     Workspace& ws, cudaStream_t s, const char* who) {
  constexpr int kPasses = RadixKey<Key>::kPasses;
  static_assert(kPasses % 2 == 0, "an even number of passes ends in the output");
  // The passes alternate between the output and the workspace's buffer, so that an even number of
  // passes ends in the output; keys_in == keys_out (in place) is allowed.
  Key* keys[2] = {keys_out, ws.keys_alt.data()};
  Value* values[2] = {values_out, ws.values_alt.data()};
  const Key* from_keys = keys_in;
  const Value* from_values = values_in;
  int to = 1;
  constexpr std::size_t kSharedBytes = kOnesweepTileBytes<Shape, Key, Value>;
  static const std::size_t resident = scanlab::resident_blocks_with_stage(
      onesweep_pass_kernel<Shape, Key, Value, kPairs>, Shape::BLOCK_THREADS, kSharedBytes, who);
  for (int pass = 0; pass < kPasses; ++pass) {
    SCANLAB_NVTX_RANGE("ch09::onesweep pass");
    for (std::size_t q = 0; q < ws.portions; ++q) {
      const std::size_t begin = q * ws.portion;
      const std::size_t end = std::min(n, begin + ws.portion);
      const std::size_t tiles = (end - begin + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS;
      unsigned* pass_bins = ws.bins.data() + (static_cast<std::size_t>(pass) * ws.portions + q) * kOnesweepDigits;
      unsigned* next_bins = q + 1 < ws.portions ? pass_bins + kOnesweepDigits : nullptr;
      const auto turn = ws.sides.next(ws.launch_words(tiles));
      unsigned* side = ws.side_at(turn.side);
      unsigned* other = ws.side_at(1 - turn.side);
      if (turn.memset_words != 0) SCANLAB_CUDA_CHECK(cudaMemsetAsync(side, 0, turn.memset_words * sizeof(unsigned), s));
      const OnesweepStaleSide stale{other, other + 1,
                                    turn.stale_words == 0 ? 0 : (turn.stale_words - 1) / kOnesweepDigits};
      const scanlab::single_pass::PollSchedule polls = scanlab::single_pass::polls_for_grid(ws.polls, tiles, resident);
      const unsigned* first_bins = ws.bins.data() + static_cast<std::size_t>(pass) * ws.portions * kOnesweepDigits;
      const OnesweepPass<Key, Value> args{from_keys,
                                          keys[to],
                                          from_values,
                                          kPairs ? values[to] : nullptr,
                                          begin,
                                          end,
                                          pass * kOnesweepDigitBits,
                                          pass_bins,
                                          next_bins,
                                          ws.digit_counts.data() + static_cast<std::size_t>(pass) * kOnesweepDigits,
                                          side + 1,
                                          side,
                                          polls,
                                          n,
                                          first_bins,
                                          ws.fault.device()};
      // Right behind the kernel before it (scanlab/dependent_launch.cuh): its blocks are placed
      // while the last tiles of the previous pass finish.
      scanlab::launch_dependent(onesweep_pass_kernel<Shape, Key, Value, kPairs>, static_cast<unsigned>(tiles),
                                Shape::BLOCK_THREADS, kSharedBytes, s, args, stale);
      ws.sides.launched();
      ws.fault.throw_if_faulted(s);
    }
    from_keys = keys[to];
    from_values = values[to];
    to = 1 - to;
  }
}

// A sort of at most one tile of Shape, in one launch, where the workspace allows it and the
// kernel's storage fits in the shared memory a block may take. Returns whether it ran.
template <class Shape, bool kPairs, class Key, class Value, class Workspace>
bool onesweep_single_tile(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                          Workspace& ws, cudaStream_t s, const char* who) {
  using Block = OnesweepSingleTileShape<Shape>;
  constexpr std::size_t kBytes = kOnesweepSingleTileBytes<Block, Key, Value, kPairs>;
  if (n > std::min<std::size_t>(Shape::TILE_ITEMS, ws.single_tile_keys) || kBytes > ws.shared_per_block) return false;
  SCANLAB_NVTX_RANGE("ch09::onesweep one tile");
  auto* kernel = onesweep_single_tile_kernel<Block, Key, Value, kPairs>;
  static const std::size_t resident = scanlab::resident_blocks_with_stage(kernel, Block::BLOCK_THREADS, kBytes, who);
  (void)resident;  // asked for the shared memory it allows the kernel, and the check that a block fits
  kernel<<<1, Block::BLOCK_THREADS, kBytes, s>>>(keys_in, keys_out, values_in, values_out, static_cast<int>(n),
                                                 ws.fault.device());
  SCANLAB_CHECK_LAUNCH();
  ws.fault.throw_if_faulted(s);
  return true;
}

template <bool kPairs, class Key, class Value, class KeysShape, class PairsShape>
void onesweep_sort(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::size_t n,
                   OnesweepWorkspace<Key, Value, KeysShape, PairsShape>& ws, cudaStream_t s, const char* who) {
  constexpr int kPasses = RadixKey<Key>::kPasses;
  if (n >= 0xffffffffu || n > ws.capacity) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is 2^32 - 1 or more (32-bit positions) or more than the workspace was made for (" +
                                std::to_string(ws.capacity) + ")");
  }
  // Pairs whose tiles need more shared memory than this device lets a block take sort in the
  // keys' tiles; keys whose tiles do not fit cannot sort here at all (a clear error, before any
  // launch).
  const bool keys_tiles = !kPairs || !ws.pairs_tiles_fit();
  if (keys_tiles && ws.kKeysTileBytes > ws.shared_per_block) {
    throw std::runtime_error(std::string(who) + ": a tile takes " + std::to_string(ws.kKeysTileBytes) +
                             " bytes of shared memory, and this GPU lets a block take " +
                             std::to_string(ws.shared_per_block) +
                             " (GPUs of compute capability 7.0 or newer let a block take 64 KiB or more)");
  }
  if (n == 0) return;
  if (keys_tiles ? onesweep_single_tile<KeysShape, kPairs>(keys_in, keys_out, values_in, values_out, n, ws, s, who)
                 : onesweep_single_tile<PairsShape, kPairs>(keys_in, keys_out, values_in, values_out, n, ws, s, who)) {
    return;
  }

  {
    SCANLAB_NVTX_RANGE("ch09::onesweep histograms");
    // The histograms are zero, unless a sort stopped between its two launches (one failed): then
    // the host zeroes them.
    if (!ws.histograms_zero) {
      SCANLAB_CUDA_CHECK(cudaMemsetAsync(ws.histograms.data(), 0, ws.histograms.size() * sizeof(unsigned), s));
    }
    static const std::size_t resident = scanlab::resident_blocks(onesweep_histogram_kernel<Key>, kHistogramThreads);
    const std::size_t round = static_cast<std::size_t>(kHistogramThreads) * kHistogramItems;
    const std::size_t blocks = std::max<std::size_t>(1, std::min(resident, (n + round - 1) / round));
    ws.histograms_zero = false;
    onesweep_histogram_kernel<Key>
        <<<static_cast<unsigned>(blocks), kHistogramThreads, 0, s>>>(keys_in, n, ws.histograms.data());
    SCANLAB_CHECK_LAUNCH();
    scanlab::launch_dependent(onesweep_bins_kernel, kPasses, kOnesweepDigits, 0, s, ws.histograms.data(),
                              ws.digit_counts.data(), ws.bins.data(), ws.portions * kOnesweepDigits);
    ws.histograms_zero = true;
  }

  if (keys_tiles) onesweep_passes<KeysShape, kPairs>(keys_in, keys_out, values_in, values_out, n, ws, s, who);
  else onesweep_passes<PairsShape, kPairs>(keys_in, keys_out, values_in, values_out, n, ws, s, who);
}

}  // namespace detail

// Onesweep LSD radix sort: d_keys_out = d_keys_in stably sorted by the keys' bits in sorting order
// (onesweep_tile.cuh: for numbers, ascending; -0.0 before +0.0). In place (in == out) is allowed.
// --8<-- [start:onesweep_host]
template <class Key, class Value, class KeysShape, class PairsShape>
void onesweep_sort_keys(const Key* d_keys_in, Key* d_keys_out, std::size_t n,
                        OnesweepWorkspace<Key, Value, KeysShape, PairsShape>& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch09::onesweep_sort_keys");
  detail::onesweep_sort<false>(d_keys_in, d_keys_out, static_cast<const Value*>(nullptr), static_cast<Value*>(nullptr),
                               n, ws, s, "ch09::onesweep_sort_keys");
}
// --8<-- [end:onesweep_host]

// The same for key-value pairs: each value moves with its key.
template <class Key, class Value, class KeysShape, class PairsShape>
void onesweep_sort_pairs(const Key* d_keys_in, Key* d_keys_out, const Value* d_values_in, Value* d_values_out,
                         std::size_t n, OnesweepWorkspace<Key, Value, KeysShape, PairsShape>& ws, cudaStream_t s = 0) {
  SCANLAB_NVTX_RANGE("ch09::onesweep_sort_pairs");
  detail::onesweep_sort<true>(d_keys_in, d_keys_out, d_values_in, d_values_out, n, ws, s, "ch09::onesweep_sort_pairs");
}

}  // namespace ch09
