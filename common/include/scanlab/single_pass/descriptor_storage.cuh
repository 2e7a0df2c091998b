// scanlab/single_pass/descriptor_storage.cuh: the device memory of a single-pass scan's tiles
// (chapters 07, 08, 10, 11 and 12), in ONE allocation:
//
//   [ header | side 0: ticket, status words | side 1: ticket, status words | aggregates | inclusives ]
//     (the scan's own, optional)  (fused: 32 bytes per tile, fenced: 4)      (fenced only, sizeof(T) each)
//
// (The library's fused descriptors give each tile's 8-byte word a 32-byte sector, lookback.cuh;
// descriptors without kBytesPerTile, chapter 07's own, take 8 bytes a tile.)
//
// Launches use the two sides in turn, and each launch's blocks clear the side the launch before it
// used (protocol.cuh, Ticket; the bookkeeping is zeroed_sides.hpp's). So a scan never waits for a
// memset: the next launch's side is already zero. Only the first launch on each side, the first
// after one that did not report back, and the first after a launch that was too small to clear its
// predecessor's side pay a cudaMemsetAsync. A fenced tile's values need no clearing: they are read
// only after its flag says they were written.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/single_pass/policy.cuh>    // Descriptors
#include <scanlab/single_pass/protocol.cuh>  // Ticket
#include <scanlab/single_pass/zeroed_sides.hpp>

namespace scanlab::single_pass {

// Status bytes per tile: Desc::kBytesPerTile where the descriptors say, else one fused word (8) or
// one fenced flag (4).
template <class Desc, Descriptors D, class = void>
struct StatusBytesPerTile : std::integral_constant<std::size_t, D == Descriptors::fused ? 8 : 4> {};
template <class Desc, Descriptors D>
struct StatusBytesPerTile<Desc, D, std::void_t<decltype(Desc::kBytesPerTile)>>
    : std::integral_constant<std::size_t, Desc::kBytesPerTile> {};

// A launch of `tiles` tiles for n elements must fit in the descriptors made for max_tiles tiles,
// and its tile numbers in 31 bits (one block a tile, in a 1-D grid). std::invalid_argument
// otherwise, in the words of `who`, the scan object that was asked.
inline void check_tile_count(std::size_t tiles, std::size_t max_tiles, std::size_t n, const std::string& who) {
  if (tiles > max_tiles) {
    throw std::invalid_argument(who + ": n = " + std::to_string(n) + " is more than this scan object was made for");
  }
  if (tiles > 0x7fffffffu) throw std::invalid_argument(who + ": more than 2^31 - 1 tiles");
}

// Desc: the device view to fill: single_pass::TileDescriptors<T, D> (lookback.cuh), or a type with
// the same fields (chapter 07's own, which adds its tracing probe; this header does not include
// lookback.cuh, so that chapter 07, which defines those names itself, can use it).
// Reusable, not concurrently: launches from one object must follow each other on one stream (or be
// ordered by the caller).
template <class T, Descriptors D, class Desc>
class DescriptorStorage {
  static_assert(D != Descriptors::automatic, "resolve the descriptor kind first (resolve_descriptors<T>)");

 public:
  // What one launch is given: its descriptors, and its ticket (which names the stale side to clear).
  struct Launch {
    Desc desc;
    Ticket ticket;
  };

  // Room for max_tiles tiles, and header_bytes of the scan's own before them (see header()).
  explicit DescriptorStorage(std::size_t max_tiles, std::size_t header_bytes = 0)
      : max_tiles_(max_tiles),
        header_(align16(header_bytes)),
        storage_(bytes_for(max_tiles)),
        // Nothing is clean yet: the first launch on each side gets a memset, on the launch's stream
        // (a cudaMemset here would go to the legacy default stream, which a non-blocking stream
        // does not wait for).
        sides_(side_bytes() / sizeof(unsigned)) {}

  std::size_t max_tiles() const { return max_tiles_; }
  // check_tile_count against this storage's tiles, before a launch is asked for.
  void check_tiles(std::size_t tiles, std::size_t n, const std::string& who) const {
    check_tile_count(tiles, max_tiles_, n, who);
  }
  // The scan's own bytes (header_bytes of them, 16-byte aligned); never cleared.
  unsigned char* header() { return storage_.data(); }

  // The next launch of `tiles` tiles (at most max_tiles()): its side is zero, by a memset on s only
  // on the side's first use or if the launch that should have cleared it did not report back. Call
  // launched() once the launch has gone out without an error.
  Launch next_launch(std::size_t tiles, cudaStream_t s) {
    const ZeroedSides::Turn turn = sides_.next((kTicketBytes + status_bytes(tiles)) / sizeof(unsigned));
    if (turn.memset_words != 0) {
      SCANLAB_CUDA_CHECK(cudaMemsetAsync(side_words(turn.side), 0, turn.memset_words * sizeof(unsigned), s));
    }
    const Ticket ticket{side_words(turn.side), side_words(1 - turn.side), turn.stale_words};
    return {view(), ticket};
  }

  // The launch from next_launch went out: its blocks clear the other side (if it was given to them).
  void launched() { sides_.launched(); }

  // The descriptors of the latest launch (to read statuses back after it).
  Desc view() {
    unsigned char* side = storage_.data() + side_offset(sides_.side()) + kTicketBytes;
    Desc d{};
    if constexpr (D == Descriptors::fused) {
      d.words = reinterpret_cast<unsigned long long*>(side);
    } else {
      const std::size_t values = side_offset(2);
      d.flags = reinterpret_cast<unsigned*>(side);
      d.aggregates = reinterpret_cast<T*>(storage_.data() + values);
      d.inclusives = reinterpret_cast<T*>(storage_.data() + values + align16(max_tiles_ * sizeof(T)));
    }
    return d;
  }

 private:
  static constexpr std::size_t kTicketBytes = 16;  // the ticket's counter, padded
  static std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
  static std::size_t status_bytes(std::size_t tiles) { return tiles * StatusBytesPerTile<Desc, D>::value; }
  std::size_t side_bytes() const { return align16(kTicketBytes + status_bytes(max_tiles_)); }
  std::size_t side_offset(int side) const { return header_ + side * side_bytes(); }  // side 2: the values
  unsigned* side_words(int side) { return reinterpret_cast<unsigned*>(storage_.data() + side_offset(side)); }
  std::size_t bytes_for(std::size_t tiles) const {
    std::size_t b = side_offset(2);
    if (D == Descriptors::fenced) b += 2 * align16(tiles * sizeof(T));
    return b;
  }

  std::size_t max_tiles_;
  std::size_t header_;
  scanlab::DeviceBuffer<unsigned char> storage_;
  ZeroedSides sides_;  // which side the latest launch used, and what of each may be non-zero
};

}  // namespace scanlab::single_pass
