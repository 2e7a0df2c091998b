// scanlab/single_pass/descriptor_storage.cuh: the device memory of a single-pass scan's tiles: a
// header (the ticket in its first four bytes, and whatever else a scan keeps beside it), then the
// tiles' descriptors, in ONE allocation, so that one cudaMemsetAsync before each launch resets the
// ticket and every tile's status together (chapters 07, 11 and 12).
//
//   [ header | status words (fused: 8 bytes per tile) or flags (fenced: 4) | aggregates | inclusive prefixes ]
//                                                                           (fenced only, sizeof(T) each)
//
// Only the header and the status part are cleared: a fenced tile's values are read only after its
// flag says they were written.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/single_pass/policy.cuh>  // Descriptors

namespace scanlab::single_pass {

// Desc: the device view to fill: single_pass::TileDescriptors<T, D> (lookback.cuh), or a type with
// the same fields (chapter 07's own, which adds its tracing probe; this header does not include
// lookback.cuh, so that chapter 07, which defines those names itself, can use it).
template <class T, Descriptors D, class Desc>
class DescriptorStorage {
  static_assert(D != Descriptors::automatic, "resolve the descriptor kind first (resolve_descriptors<T>)");

 public:
  // Room for max_tiles tiles, after header_bytes (at least 4, for the ticket; rounded up to 16).
  explicit DescriptorStorage(std::size_t max_tiles, std::size_t header_bytes = 16)
      : max_tiles_(max_tiles), header_(align16(header_bytes < 4 ? 4 : header_bytes)), storage_(bytes_for(max_tiles)) {}

  std::size_t max_tiles() const { return max_tiles_; }
  unsigned* ticket() { return reinterpret_cast<unsigned*>(storage_.data()); }
  unsigned char* header() { return storage_.data(); }

  // Zero the header and the status of the first `tiles` tiles (stream-ordered, before the launch).
  void reset(std::size_t tiles, cudaStream_t s) {
    SCANLAB_CUDA_CHECK(cudaMemsetAsync(storage_.data(), 0, header_ + status_bytes(tiles), s));
  }

  Desc view() {
    unsigned char* base = storage_.data();
    Desc d{};
    if constexpr (D == Descriptors::fused) {
      d.words = reinterpret_cast<unsigned long long*>(base + header_);
    } else {
      const std::size_t values = align16(header_ + status_bytes(max_tiles_));
      d.flags = reinterpret_cast<unsigned*>(base + header_);
      d.aggregates = reinterpret_cast<T*>(base + values);
      d.inclusives = reinterpret_cast<T*>(base + values + align16(max_tiles_ * sizeof(T)));
    }
    return d;
  }

 private:
  static std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
  static std::size_t status_bytes(std::size_t tiles) { return D == Descriptors::fused ? tiles * 8 : tiles * 4; }
  std::size_t bytes_for(std::size_t tiles) const {
    std::size_t b = align16(header_ + status_bytes(tiles));
    if (D == Descriptors::fenced) b += 2 * align16(tiles * sizeof(T));
    return b;
  }

  std::size_t max_tiles_;
  std::size_t header_;
  scanlab::DeviceBuffer<unsigned char> storage_;
};

}  // namespace scanlab::single_pass
