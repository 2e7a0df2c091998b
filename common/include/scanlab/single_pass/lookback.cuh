// scanlab/single_pass/lookback.cuh: the decoupled look-back, as chapter 07 builds it, for the
// chapters after it (chapter 08's one-pass compaction carries its tiles' counts with it).
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002): section 4.1 (partition descriptors with status X/A/P; value, fence, flag), 4.4
// (fence-free descriptors in one 64-bit word, a warp inspecting a window of predecessors with a
// segmented reduction). CUB's DeviceScan is the production form. Chapter 07's page explains every
// line; this is the same protocol without chapter 07's tracing hooks.
//
// A kernel uses it in three steps (chapter 07's kernel in
// chapters/07_decoupled_lookback/decoupled_lookback_dispatch.cuh is the full example):
//   tile = dynamic_tile_index(ticket, TileOrder::ticket, slot)       (protocol.cuh)
//   ... the tile's aggregate, known to warp 0 ...
//   exclusive = publish_and_look_back<Lookback::warp>(desc, tile, aggregate, op, polls)   (warp 0)
// with TileDescriptors<T, D> pointing at zeroed status words (one memset before each launch).
//
// A student's own chapter 07 plugs in here: its ch07::TileDescriptors and ch07::publish_and_look_back
// have the same fields and the same signature, so a later chapter can include
// exercises/07_decoupled_lookback/decoupled_lookback.cuh instead of this header (with
// chapters/07_decoupled_lookback/ on the include path, for its tracing probe) and call ch07:: where
// it calls scanlab::single_pass:: (book, chapter 07, "The single-pass library").
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>

#include <scanlab/single_pass/policy.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/warp_scan.cuh>

namespace scanlab::single_pass {

// ---- partition descriptors (device views of storage the host owns and zeroes) ----------------

template <class T, Descriptors D>
struct TileDescriptors;

// Fenced: three fields per tile. A value is stored, then __threadfence(), then the flag: a reader
// that sees the flag also sees the value. The reader orders its two loads the same way. Any T.
template <class T>
struct TileDescriptors<T, Descriptors::fenced> {
  unsigned* flags;
  T* aggregates;
  T* inclusives;

  // status A: value is the tile's aggregate; status P: its inclusive prefix.
  __device__ void publish(unsigned tile, Status status, const T& value) {
    store_volatile(status == kPrefix ? &inclusives[tile] : &aggregates[tile], value);
    __threadfence();  // the value before the flag
    store_volatile(&flags[tile], static_cast<unsigned>(status));
  }

  // The predecessor's status; value is set when it is A or P.
  __device__ Status read(long long pred, T& value) const {
    const Status status = static_cast<Status>(load_volatile(&flags[pred]));
    if (status != kInvalid) {
      __threadfence();  // the flag before the value
      value = load_volatile(status == kPrefix ? &inclusives[pred] : &aggregates[pred]);
    }
    return status;
  }
};

// Fused: {status, value} in one 64-bit word, status in the high half. A 64-bit aligned store or load
// is single-copy atomic, so a reader sees the whole old word or the whole new one: no fence. The
// word goes out and comes back through store_published_word and load_published_word (protocol.cuh),
// which ask the L2 to keep its line while the tiles' bytes stream past.
//
// Each tile's word starts a 32-byte sector of its own (kWordStride words apart; the rest of the
// sector is unused). A window of 32 predecessors then reads 32 sectors instead of 8, but a sector
// changes only when its own tile publishes, and many warps poll the same words at once. On an
// H200 at 2^26 and 2^28, chapter 08's partition and chapter 11's scan ran 2-4% faster this way
// than with four tiles' words to a sector, select-if with half kept about as fast, and with a
// tenth kept about 2% slower; two tiles to a sector gained less, a 128-byte line per tile less
// again (book, chapter 08, "Measured"). Chapter 07's own descriptors keep one word a tile, packed.
template <class T>
struct TileDescriptors<T, Descriptors::fused> {
  static_assert(sizeof(T) <= 4, "fused descriptors hold values of at most 32 bits; use Descriptors::fenced");
  static constexpr std::size_t kWordStride = 4;  // words from one tile to the next
  static constexpr std::size_t kBytesPerTile = kWordStride * sizeof(unsigned long long);  // for the storage
  unsigned long long* words;

  __device__ void publish(unsigned tile, Status status, const T& value) {
    unsigned bits = 0;
    memcpy(&bits, &value, sizeof(T));
    store_published_word(&words[tile * kWordStride], (static_cast<unsigned long long>(status) << 32) | bits);
  }

  __device__ Status read(long long pred, T& value) const {
    const unsigned long long word = load_published_word(&words[static_cast<std::size_t>(pred) * kWordStride]);
    const unsigned bits = static_cast<unsigned>(word);
    memcpy(&value, &bits, sizeof(T));
    return static_cast<Status>(word >> 32);
  }
};

// ---- the look-back --------------------------------------------------------------------------------

// One thread, one predecessor at a time. Returns the exclusive prefix of `tile` (> 0): the inclusive
// prefix of the nearest P, followed by the aggregates after it.
template <class T, class Desc, class Op>
__device__ T lookback_serial(const Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  T exclusive = Op::identity();
  long long pred = static_cast<long long>(tile) - 1;
  PollDelay delay(polls);
  while (true) {
    T value;
    const Status status = desc.read(pred, value);
    if (status == kInvalid) {
      delay.wait();  // X: wait for this predecessor, it has started
      continue;
    }
    exclusive = op(value, exclusive);  // predecessors are on the LEFT
    if (status == kPrefix) return exclusive;
    --pred;  // A: keep going (tile 0 always publishes P, so this ends)
  }
}

// One thread, Window predecessors a round: it loads the words of tiles pred, pred - 1, ...,
// pred - Window + 1 before it looks at any of them, so that their trips to L2 overlap instead of
// following one another (Little's law again: a thread with one load in flight waits a whole round
// trip per predecessor). Then it folds them nearest first, up to the first P (done) or the first X
// (it waits, and the next round starts at that X). Reading a word past the P costs a load and
// nothing else: each word is read whole, and a status only ever moves X -> A -> P. Returns what
// lookback_serial returns; Window = 1 is lookback_serial. (Fenced descriptors gain nothing: the
// fence in each read waits for the loads before it.)
template <class T, int Window, class Desc, class Op>
__device__ T lookback_window(const Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  static_assert(Window >= 1, "a window holds at least one predecessor");
  T exclusive = Op::identity();
  long long pred = static_cast<long long>(tile) - 1;
  PollDelay delay(polls);
  // Tile 0 is always a P, so a look-back never gets below it; only a broken descriptor (one that
  // reads a P as an A, say) would, and then it ends with a wrong prefix instead of waiting forever.
  while (pred >= 0) {
    T value[Window];
    Status status[Window];
#pragma unroll
    for (int k = 0; k < Window; ++k) {
      value[k] = Op::identity();
      status[k] = kInvalid;  // no tile below 0 (never folded: tile 0 is a P)
      if (pred - k >= 0) status[k] = desc.read(pred - k, value[k]);
    }
    int folded = 0;  // A's folded this round, nearest first
#pragma unroll
    for (int k = 0; k < Window; ++k) {
      if (status[k] == kInvalid) break;     // an X: wait for it, it has started
      exclusive = op(value[k], exclusive);  // predecessors are on the LEFT
      if (status[k] == kPrefix) return exclusive;
      ++folded;
    }
    pred -= folded;
    if (folded < Window) delay.wait();
  }
  return exclusive;
}

// All 32 lanes of one warp: lane l inspects predecessor base + l of the window [base, base + 31],
// lane 31 the nearest. Lanes wait while a predecessor that matters is X (one above the nearest P,
// or any when there is no P). Then a segmented reduction: the nearest P's inclusive prefix and the
// aggregates after it, in lane order; without a P, the whole window's aggregates, and the window
// slides back 32 tiles. Returns the exclusive prefix in every lane.
template <class T, class Desc, class Op>
__device__ T lookback_warp(const Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  const int lane = scanlab::lane_id();
  T exclusive = Op::identity();
  PollDelay delay(polls);
  for (long long base = static_cast<long long>(tile) - 32;; base -= 32) {
    const long long pred = base + lane;
    T value = Op::identity();
    unsigned prefix_lanes;
    while (true) {
      // Before tile 0 there is nothing: a P holding the identity ends every look-back.
      const Status status = pred >= 0 ? desc.read(pred, value) : kPrefix;
      if (pred < 0) value = Op::identity();
      prefix_lanes = __ballot_sync(scanlab::kFullWarpMask, status == kPrefix);
      const unsigned invalid_lanes = __ballot_sync(scanlab::kFullWarpMask, status == kInvalid);
      const int nearest_p = prefix_lanes ? 31 - __clz(static_cast<int>(prefix_lanes)) : -1;
      const unsigned needed = nearest_p < 0 ? ~0u : (nearest_p == 31 ? 0u : ~0u << (nearest_p + 1));
      if ((invalid_lanes & needed) == 0) {
        if (lane < nearest_p) value = Op::identity();  // before the segment's head: not needed
        break;
      }
      delay.wait();
    }
    const T window = scanlab::warp_reduce(value, op);  // in lane order: nearest predecessor last
    exclusive = op(window, exclusive);
    if (prefix_lanes != 0) return exclusive;
  }
}

// For ALL 32 lanes of the block's warp 0, once the tile's aggregate is known (in every lane):
// publish the aggregate (A; tile 0 publishes its P at once), look back, publish the inclusive
// prefix (P). Returns the tile's exclusive prefix (in lane 0; in every lane for Lookback::warp).
template <Lookback L, class T, class Desc, class Op>
__device__ T publish_and_look_back(Desc& desc, unsigned tile, const T& aggregate, Op op, PollSchedule polls) {
  const int lane = scanlab::lane_id();
  if (tile == 0) {
    if (lane == 0) desc.publish(0, kPrefix, aggregate);
    return Op::identity();
  }
  if (lane == 0) desc.publish(tile, kAggregate, aggregate);
  T exclusive;
  if constexpr (L == Lookback::warp) {
    exclusive = lookback_warp<T>(desc, tile, op, polls);
  } else {
    exclusive = lane == 0 ? lookback_serial<T>(desc, tile, op, polls) : Op::identity();
  }
  if (lane == 0) desc.publish(tile, kPrefix, op(exclusive, aggregate));
  return exclusive;
}

// publish_and_look_back as the LookBack of single_pass_scan_kernel (scan_kernel.cuh).
template <Lookback L>
struct LibraryLookBack {
  template <class Desc>
  __device__ void on_ticket(Desc&, unsigned) const {}
  template <class Desc, class T, class Op>
  __device__ T operator()(Desc& desc, unsigned tile, const T& aggregate, Op op, PollSchedule polls) const {
    return publish_and_look_back<L>(desc, tile, aggregate, op, polls);
  }
};

}  // namespace scanlab::single_pass
