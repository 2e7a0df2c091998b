// Chapter 09, given: the checks the given kernels make on the positions your functions return,
// before they write through them. A position out of range then stops the sort with a message that
// names your function, what it was given and what it returned, instead of a write to memory that
// is not the output (which the emulator would report at the given kernel's line, far from the
// cause). Nothing here needs changing.
//
// The checks are on in checking builds: on the emulator (`./lab run`, `./lab grade`) and in the
// grading runner on a GPU (which defines SCANLAB_CH09_CHECK_INDICES). Elsewhere (`./lab run` on a
// GPU, the benchmark) kCheckIndices is false and the compiler removes them: the kernels are the
// unchecked ones, and no launch waits for the host.
//
// How: the first thread that finds a bad position claims a record in device memory (atomicCAS)
// and writes what it saw; the host reads the record after each launch and throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>

namespace ch09 {

#if defined(SCANLAB_EMU) || defined(SCANLAB_CH09_CHECK_INDICES)
constexpr bool kCheckIndices = true;
#else
constexpr bool kCheckIndices = false;
#endif

// What a record says went wrong (word 0 of the record; 0: nothing).
enum class IndexFault : unsigned long long {
  none = 0,
  split_destination,    // i, returned, n, key, bit, f[i], f[n]
  tile_not_split,       // tile, bit, slot, key before, key at slot
  scatter_destination,  // tile, digit, place, returned, n, digit_start[digit], tiles
  rank_in_warp,         // tile, warp, lane, item, digit, returned, keys of the warp
  look_back,            // tile, digit, count, returned, keys in earlier tiles, digit's first place, digit's end
  onesweep_place,       // tile, place in the sorted tile, digit, output position, n
  tile_not_sorted,      // tile, place, digit before it, digit at it, shift
  keys_changed,         // tile, digit, count, digit's first place in this launch, digit's end, shift
};

constexpr int kIndexFaultWords = 8;  // the kind and up to 7 values

// Records the first fault of a launch: later ones are dropped, so the message is about one key.
__device__ inline void record_index_fault(unsigned long long* record, IndexFault kind, unsigned long long a = 0,
                                          unsigned long long b = 0, unsigned long long c = 0, unsigned long long d = 0,
                                          unsigned long long e = 0, unsigned long long f = 0,
                                          unsigned long long g = 0) {
  if (atomicCAS(record, 0ull, static_cast<unsigned long long>(kind)) != 0ull) return;
  record[1] = a;
  record[2] = b;
  record[3] = c;
  record[4] = d;
  record[5] = e;
  record[6] = f;
  record[7] = g;
}

namespace detail {

inline std::string describe_index_fault(const unsigned long long* v) {
  std::ostringstream os;
  switch (static_cast<IndexFault>(v[0])) {
    case IndexFault::split_destination:
      os << "split_destination(f, n = " << v[3] << ", i = " << v[1] << ", key = 0x" << std::hex << v[4] << std::dec
         << ", bit = " << v[5] << ") returned " << v[2] << " for a split of " << v[3]
         << " keys (positions 0 to n - 1). Its inputs: f[i] = " << v[6] << ", f[n] = " << v[7];
      break;
    case IndexFault::tile_not_split:
      os << "after block_split_by_bit(s, src, bit = " << v[2] << ") the tile of block " << v[1]
         << " is not split by the bit: slot " << v[3] - 1 << " holds 0x" << std::hex << v[4] << " (bit " << std::dec
         << v[2] << " set) and slot " << v[3] << " holds 0x" << std::hex << v[5] << std::dec
         << " (bit clear); every key whose bit is clear must come before every key whose bit is set";
      break;
    case IndexFault::scatter_destination:
      os << "scatter_destination(digit_offsets, tiles = " << v[7] << ", tile = " << v[1] << ", d = " << v[2]
         << ", p = " << v[3] << ", s) returned " << v[4] << " for a sort of " << v[5]
         << " keys (positions 0 to n - 1). Its inputs: s.digit_start[d] = " << v[6]
         << ". (If scatter_destination is right, the sorted tile is not: the padding past the input's last key, all "
            "ones, stays behind every real key of the tile only when each block split keeps both sides in slot "
            "order.)";
      break;
    case IndexFault::rank_in_warp:
      os << "rank_in_warp(digit = " << v[5] << ", ...) returned " << v[6]
         << ", but the counters start at zero and the warp holds " << v[7] << " keys (ranks 0 to " << v[7] - 1
         << "): tile " << v[1] << ", warp " << v[2] << ", lane " << v[3] << ", item " << v[4];
      break;
    case IndexFault::look_back:
      os << "look_back_digit(desc, tile = " << v[1] << ", count = " << v[3] << ", polls) returned " << v[4]
         << " for digit " << v[2] << ", but ";
      if (v[4] > v[5]) {
        os << "the tiles before tile " << v[1] << " hold " << v[5] << " keys in all";
        if (v[4] > 0x3fffffffull) {
          os << ". " << v[4] << " has bit 30 or 31 set: a count read with the status bits left in (a "
             << "descriptor's count is its low kCountBits bits; the top two are the status)";
        } else {
          os << ": it counts more keys of the digit than the earlier tiles hold";
        }
      } else {
        os << "this tile's " << v[3] << " keys of the digit would then run to output position "
           << v[6] + v[4] + v[3] - 1 << ", past the last position of the digit's keys (" << v[7] - 1
           << "): it counts more keys of the digit before this tile than there are";
      }
      break;
    case IndexFault::onesweep_place:
      os << "the key at place " << v[2] << " of tile " << v[1] << "'s sorted tile (digit " << v[3]
         << ") would go to output position " << v[4] << " of " << v[5]
         << " (the digit's first position from look_back_digit, plus the key's place in the sorted tile, which comes "
            "from its rank from rank_in_warp): "
         << "one of the two is wrong for this digit";
      break;
    case IndexFault::tile_not_sorted:
      os << "after every key of tile " << v[1] << " went to its place (the pass on bits " << v[5] << " to " << v[5] + 7
         << "; a key's place is where its warp's keys of its digit start, plus its rank from rank_in_warp), the tile "
            "is not sorted by the digit: place "
         << v[2] - 1 << " holds a key of digit " << v[3] << " and place " << v[2] << " one of digit " << v[4]
         << ". Each key's place must lie in its digit's run, and no two keys may share one (a place no key took keeps "
            "whatever shared memory held)";
      break;
    case IndexFault::keys_changed:
      os << "in the pass on bits " << v[6] << " to " << v[6] + 7 << ", tile " << v[1] << " holds " << v[3]
         << " keys of digit " << v[2] << ", more than the " << v[5] - v[4]
         << " places left from where the launch's keys of the digit start to where the digit's keys end: the keys "
            "this pass sorts are not the keys the histograms counted before the first pass. An earlier pass lost "
            "some keys and wrote others twice (two keys given one place by rank_in_warp, or two tiles' runs of a "
            "digit overlapping because look_back_digit counted too few keys before a tile)";
      break;
    default: os << "a given kernel found a bad position (record kind " << v[0] << ")";
  }
  return os.str();
}

}  // namespace detail

// The device record of a sort's workspace, and the host's side of it.
struct IndexFaultRecord {
  scanlab::DeviceBuffer<unsigned long long> words{kCheckIndices ? kIndexFaultWords : 0};

  IndexFaultRecord() {
    if constexpr (kCheckIndices) words.fill_zero();
  }

  // The pointer the kernels get: null when the checks are off.
  unsigned long long* device() { return kCheckIndices ? words.data() : nullptr; }

  // After a launch: waits for it and, when a kernel found a bad position, clears the record (the
  // workspace may sort again) and throws with the record's message.
  void throw_if_faulted(cudaStream_t s) {
    if constexpr (kCheckIndices) {
      unsigned long long v[kIndexFaultWords];
      SCANLAB_CUDA_CHECK(cudaMemcpyAsync(v, words.data(), sizeof v, cudaMemcpyDeviceToHost, s));
      SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
      if (v[0] != 0) {
        words.fill_zero();
        throw std::runtime_error(detail::describe_index_fault(v));
      }
    }
  }
};

}  // namespace ch09
