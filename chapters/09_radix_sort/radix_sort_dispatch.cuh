// Chapter 09, given: the host side of both radix sorts (the workspace, the passes, the launches and
// their checks), the flags the split scans, the split's scatter kernel, the tile digit histograms
// and the kernel that sorts and scatters a tile. Your code, a key's position in the split, the
// block-wide split and a sorted key's global position, is in radix_sort.cuh
// (exercises/09_radix_sort/, or solutions/ for the reference build); nothing here needs changing.
//
//   split_by_bit, radix_sort_split      per bit: a device-wide exclusive scan of the flags
//                                       (scanlab/device_scan.cuh), split_scatter_kernel
//   radix_sort_keys, radix_sort_pairs   per 4-bit digit: tile_digit_histogram_kernel, an exclusive
//                                       scan of the digit table, tile_sort_scatter_kernel
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>

// By its path, in quotes: the emulator's translator rewrites the kernels of quoted includes only,
// and it searches the including file's folder and the chapter's folders, not common/include.
#include "../../common/include/scanlab/device_scan.cuh"  // by path: the emulator build translates it
#include "index_checks.cuh"
#include "radix_sort.cuh"

namespace ch09 {

// e[i] = 1 when bit `bit` of key i is 0 (a "false" key), and 0 past the end, so that the exclusive
// scan's element n is the number of false keys.
struct ZeroBitFlags {
  const std::uint32_t* keys;
  std::size_t n;
  int bit;
  __device__ unsigned operator()(std::size_t i) const { return i < n ? (((keys[i] >> bit) & 1u) ^ 1u) : 0u; }
};

// One thread a key: key i (and its value) goes to the position your split_destination gives it.
// In checking builds (index_checks.cuh) a position past the output stops the sort with a message
// about it instead of being written.
// --8<-- [start:split_scatter_kernel]
template <bool kPairs>
__global__ void split_scatter_kernel(const std::uint32_t* keys_in, std::uint32_t* keys_out,
                                     const std::uint32_t* values_in, std::uint32_t* values_out, const unsigned* f,
                                     std::size_t n, int bit, unsigned long long* fault) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t key = keys_in[i];
  const std::size_t d = split_destination(f, n, i, key, bit);
  if constexpr (kCheckIndices) {
    if (d >= n) {
      record_index_fault(fault, IndexFault::split_destination, i, d, n, key, static_cast<unsigned long long>(bit), f[i],
                         f[n]);
      return;
    }
  }
  keys_out[d] = key;
  if (kPairs) values_out[d] = values_in[i];
}
// --8<-- [end:split_scatter_kernel]

// Checking builds: whether a block-wide split by `bit` left the tile split (every key whose bit is
// clear before every key whose bit is set); thread t looks at the slot boundaries it owns.
__device__ inline void check_tile_split(const std::uint32_t* keys, int bit, unsigned long long* fault) {
  for (int k = 0; k < kSortItems; ++k) {
    const int p = static_cast<int>(threadIdx.x) * kSortItems + k;
    if (p == 0) continue;
    if (((keys[p - 1] >> bit) & 1u) > ((keys[p] >> bit) & 1u)) {
      record_index_fault(fault, IndexFault::tile_not_split, blockIdx.x, static_cast<unsigned long long>(bit),
                         static_cast<unsigned long long>(p), keys[p - 1], keys[p]);
      return;
    }
  }
}

// table[d * tiles + b] = how many keys of tile b have digit d.
template <class Dummy = void>
__global__ void tile_digit_histogram_kernel(const std::uint32_t* keys, std::size_t n, int shift, unsigned* table,
                                            std::size_t tiles) {
  __shared__ unsigned counts[kDigits];
  if (threadIdx.x < kDigits) counts[threadIdx.x] = 0;
  __syncthreads();
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kSortTile;
  for (int r = 0; r < kSortItems; ++r) {
    const std::size_t i = base + static_cast<std::size_t>(r) * kSortThreads + threadIdx.x;
    if (i < n) atomicAdd(&counts[digit_of(keys[i], shift)], 1u);
  }
  __syncthreads();
  if (threadIdx.x < kDigits) table[threadIdx.x * tiles + blockIdx.x] = counts[threadIdx.x];
}

// One digit pass: tile b loads its keys, sorts them locally by the digit at `shift` with kDigitBits
// block-wide splits (your block_split_by_bit), and writes each key of the sorted tile to its global
// position (your scatter_destination). Consecutive threads write consecutive keys of the sorted
// tile: mostly runs of consecutive addresses, one per digit. In checking builds (index_checks.cuh)
// a tile that a split left unsplit, or a position past the output, stops the sort with a message.
// --8<-- [start:tile_sort_scatter_kernel]
template <bool kPairs>
__global__ void tile_sort_scatter_kernel(const std::uint32_t* keys_in, std::uint32_t* keys_out,
                                         const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                                         int shift, const unsigned* digit_offsets, std::size_t tiles,
                                         unsigned long long* fault) {
  __shared__ LocalSortStorage s;
  const int valid = load_sort_tile<kPairs>(keys_in, values_in, n, s);
  int src = 0;
  for (int b = 0; b < kDigitBits; ++b) {
    block_split_by_bit<kPairs>(s, src, shift + b);
    src = 1 - src;
    if constexpr (kCheckIndices) check_tile_split(s.keys[src], shift + b, fault);
  }
  find_digit_starts(s, src, shift);
  for (int r = 0; r < kSortItems; ++r) {
    const int p = r * kSortThreads + static_cast<int>(threadIdx.x);
    if (p >= valid) continue;  // the padding keys are the last ones of the sorted tile
    const std::uint32_t key = s.keys[src][p];
    const unsigned d = digit_of(key, shift);
    const std::size_t dest = scatter_destination(digit_offsets, tiles, blockIdx.x, d, p, s);
    if constexpr (kCheckIndices) {
      if (dest >= n) {
        record_index_fault(fault, IndexFault::scatter_destination, blockIdx.x, d, static_cast<unsigned long long>(p),
                           dest, n, s.digit_start[d], tiles);
        continue;
      }
    }
    keys_out[dest] = key;
    if (kPairs) values_out[dest] = s.values[src][p];
  }
}
// --8<-- [end:tile_sort_scatter_kernel]

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

inline std::size_t sort_tiles(std::size_t n) { return (n + kSortTile - 1) / kSortTile; }

// Scratch for sorting up to n keys (and values): a second key/value buffer to ping-pong with, the
// split's n + 1 flags, the digit table and the scans' partials. Allocate once, outside timing.
struct RadixSortWorkspace {
  explicit RadixSortWorkspace(std::size_t n)
      : capacity(n),
        keys_alt(n),
        values_alt(n),
        scan_out(std::max(n + 1, kDigits * sort_tiles(n))),
        partials(scanlab::device_scan_tiles<unsigned>(std::max(n + 1, kDigits * sort_tiles(n))) + 1) {}
  std::size_t capacity;
  scanlab::DeviceBuffer<std::uint32_t> keys_alt;
  scanlab::DeviceBuffer<std::uint32_t> values_alt;
  scanlab::DeviceBuffer<unsigned> scan_out;  // the split's f, or the digit table
  scanlab::DeviceBuffer<unsigned> partials;
  IndexFaultRecord fault;  // checking builds: a bad position a kernel found (index_checks.cuh)
};

namespace detail {
inline void check_sort_size(std::size_t n, const RadixSortWorkspace& ws, const char* who) {
  if (n >= 0xffffffffu) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " does not fit the 32-bit positions (less than 2^32 - 1)");
  }
  if (n > ws.capacity) {
    throw std::invalid_argument(std::string(who) + ": n = " + std::to_string(n) +
                                " is more than the workspace was made for (" + std::to_string(ws.capacity) + ")");
  }
}

template <bool kPairs>
void split_pass(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                std::uint32_t* values_out, std::size_t n, int bit, RadixSortWorkspace& ws, cudaStream_t s) {
  scanlab::device_scan<unsigned>(ZeroBitFlags{keys_in, n, bit}, scanlab::ArrayStore<unsigned>{ws.scan_out.data()},
                                 n + 1, ws.partials.data(), scanlab::Plus<unsigned>{}, /*inclusive=*/false, s);
  const unsigned blocks = static_cast<unsigned>((n + 255) / 256);
  split_scatter_kernel<kPairs>
      <<<blocks, 256, 0, s>>>(keys_in, keys_out, values_in, values_out, ws.scan_out.data(), n, bit, ws.fault.device());
  SCANLAB_CHECK_LAUNCH();
  ws.fault.throw_if_faulted(s);
}

template <bool kPairs>
void digit_pass(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                std::uint32_t* values_out, std::size_t n, int shift, RadixSortWorkspace& ws, cudaStream_t s) {
  const std::size_t tiles = sort_tiles(n);
  unsigned* table = ws.scan_out.data();
  tile_digit_histogram_kernel<><<<static_cast<unsigned>(tiles), kSortThreads, 0, s>>>(keys_in, n, shift, table, tiles);
  SCANLAB_CHECK_LAUNCH();
  scanlab::device_exclusive_scan(table, table, kDigits * tiles, ws.partials.data(), scanlab::Plus<unsigned>{}, s);
  tile_sort_scatter_kernel<kPairs><<<static_cast<unsigned>(tiles), kSortThreads, 0, s>>>(
      keys_in, keys_out, values_in, values_out, n, shift, table, tiles, ws.fault.device());
  SCANLAB_CHECK_LAUNCH();
  ws.fault.throw_if_faulted(s);
}

// Runs passes over bits [0, 32) in steps of `bits`. The first pass reads the input; then the passes
// alternate between the workspace's buffer and the output, so that an even number of passes (32 or
// 8) ends in the output. keys_in == keys_out is allowed (in place).
template <bool kPairs, class Pass>
void lsd_passes(const std::uint32_t* keys_in, std::uint32_t* keys_out, const std::uint32_t* values_in,
                std::uint32_t* values_out, int bits, RadixSortWorkspace& ws, Pass pass) {
  static_assert(kKeyBits % 2 == 0, "an even number of passes ends in the output");
  std::uint32_t* keys[2] = {keys_out, ws.keys_alt.data()};
  std::uint32_t* values[2] = {values_out, ws.values_alt.data()};
  const std::uint32_t* from_keys = keys_in;
  const std::uint32_t* from_values = values_in;
  int to = 1;
  for (int shift = 0; shift < kKeyBits; shift += bits) {
    pass(from_keys, keys[to], from_values, kPairs ? values[to] : nullptr, shift);
    from_keys = keys[to];
    from_values = values[to];
    to = 1 - to;
  }
}
}  // namespace detail

// Splits keys_in[0, n) by bit `bit` into keys_out: keys with the bit 0 first, then those with 1,
// each side in input order. values (may be null for keys only) move with their keys.
// --8<-- [start:split_host]
inline void split_by_bit(const std::uint32_t* d_keys_in, std::uint32_t* d_keys_out, const std::uint32_t* d_values_in,
                         std::uint32_t* d_values_out, std::size_t n, int bit, RadixSortWorkspace& ws,
                         cudaStream_t s = 0) {
  detail::check_sort_size(n, ws, "ch09::split_by_bit");
  if (bit < 0 || bit >= kKeyBits) throw std::invalid_argument("ch09::split_by_bit: bit must be in [0, 32)");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch09::split_by_bit");
  if (d_values_in != nullptr) detail::split_pass<true>(d_keys_in, d_keys_out, d_values_in, d_values_out, n, bit, ws, s);
  else detail::split_pass<false>(d_keys_in, d_keys_out, nullptr, nullptr, n, bit, ws, s);
}
// --8<-- [end:split_host]

// LSD radix sort with 32 one-bit splits: keys_out (and values_out) = keys_in (values_in) stably
// sorted. Values may be null (keys only). In place (in == out) is allowed.
inline void radix_sort_split(const std::uint32_t* d_keys_in, std::uint32_t* d_keys_out,
                             const std::uint32_t* d_values_in, std::uint32_t* d_values_out, std::size_t n,
                             RadixSortWorkspace& ws, cudaStream_t s = 0) {
  detail::check_sort_size(n, ws, "ch09::radix_sort_split");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch09::radix_sort_split (32 splits)");
  if (d_values_in != nullptr) {
    detail::lsd_passes<true>(d_keys_in, d_keys_out, d_values_in, d_values_out, 1, ws,
                             [&](auto ki, auto ko, auto vi, auto vo, int bit) {
                               detail::split_pass<true>(ki, ko, vi, vo, n, bit, ws, s);
                             });
  } else {
    detail::lsd_passes<false>(d_keys_in, d_keys_out, nullptr, nullptr, 1, ws,
                              [&](auto ki, auto ko, auto, auto, int bit) {
                                detail::split_pass<false>(ki, ko, nullptr, nullptr, n, bit, ws, s);
                              });
  }
}

// In place: sorts d_keys[0, n) (and d_values with them; null for keys only).
inline void radix_sort_split(std::uint32_t* d_keys, std::uint32_t* d_values, std::size_t n, RadixSortWorkspace& ws,
                             cudaStream_t s = 0) {
  radix_sort_split(d_keys, d_keys, d_values, d_values, n, ws, s);
}

// LSD radix sort with 4-bit digits (8 passes): d_keys_out = d_keys_in sorted (in == out allowed).
// --8<-- [start:sort_host]
inline void radix_sort_keys(const std::uint32_t* d_keys_in, std::uint32_t* d_keys_out, std::size_t n,
                            RadixSortWorkspace& ws, cudaStream_t s = 0) {
  detail::check_sort_size(n, ws, "ch09::radix_sort_keys");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch09::radix_sort_keys (8 passes of 4 bits)");
  detail::lsd_passes<false>(d_keys_in, d_keys_out, nullptr, nullptr, kDigitBits, ws,
                            [&](auto ki, auto ko, auto, auto, int shift) {
                              SCANLAB_NVTX_RANGE("ch09::digit pass");
                              detail::digit_pass<false>(ki, ko, nullptr, nullptr, n, shift, ws, s);
                            });
}
// --8<-- [end:sort_host]

inline void radix_sort_keys(std::uint32_t* d_keys, std::size_t n, RadixSortWorkspace& ws, cudaStream_t s = 0) {
  radix_sort_keys(d_keys, d_keys, n, ws, s);
}

// The same for key-value pairs: each value moves with its key.
inline void radix_sort_pairs(const std::uint32_t* d_keys_in, std::uint32_t* d_keys_out,
                             const std::uint32_t* d_values_in, std::uint32_t* d_values_out, std::size_t n,
                             RadixSortWorkspace& ws, cudaStream_t s = 0) {
  detail::check_sort_size(n, ws, "ch09::radix_sort_pairs");
  if (n == 0) return;
  SCANLAB_NVTX_RANGE("ch09::radix_sort_pairs (8 passes of 4 bits)");
  detail::lsd_passes<true>(d_keys_in, d_keys_out, d_values_in, d_values_out, kDigitBits, ws,
                           [&](auto ki, auto ko, auto vi, auto vo, int shift) {
                             SCANLAB_NVTX_RANGE("ch09::digit pass");
                             detail::digit_pass<true>(ki, ko, vi, vo, n, shift, ws, s);
                           });
}

inline void radix_sort_pairs(std::uint32_t* d_keys, std::uint32_t* d_values, std::size_t n, RadixSortWorkspace& ws,
                             cudaStream_t s = 0) {
  radix_sort_pairs(d_keys, d_keys, d_values, d_values, n, ws, s);
}

}  // namespace ch09
