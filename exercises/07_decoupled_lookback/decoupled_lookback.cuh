// Chapter 07: single-pass scan with decoupled look-back.
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002): section 4.1 (partition descriptors with status X/A/P, aggregate and inclusive
// prefix; value, fence, flag), 4.2 (properties), 4.4 (dynamic tile ids, fence-free descriptors in one
// 64-bit word, a warp inspecting a window of predecessors with a segmented reduction). CUB's
// DeviceScan is the production form. The tile work is chapter 06's (scanlab/single_pass/tile.cuh),
// the warp collectives chapter 04's (scanlab/warp_scan.cuh).
//
// Per tile (one block), compared with chapter 06's chain:
//   1. ticket       the tile number comes from an atomic counter (chapter 06)
//   2. load+reduce  the tile's aggregate, in every thread, after one barrier
//   3. publish A    the aggregate goes out AT ONCE, before this tile's own prefix is known, so a
//                   successor never waits for this tile's look-back, only for its aggregate
//   4. look back    warp 0 combines the aggregates of the predecessors, nearest first, until it
//                   meets an inclusive prefix (P): no waiting for a chain, a bounded amount of
//                   redundant work instead
//   5. publish P    the inclusive prefix, as soon as it is known: it ends the look-back of every
//                   later tile that reaches it
//   6. scan+store   seeded with the exclusive prefix
//
// Your code: steps 3 to 5, below, in the steps of the book:
//   TileDescriptors<T, Descriptors::fenced>  flag word + aggregate + inclusive prefix per tile;
//                                            value, __threadfence(), flag (any T)
//   TileDescriptors<T, Descriptors::fused>   {status, value} in ONE 64-bit word, stored and loaded
//                                            whole: no fence (values of at most 32 bits)
//   lookback_serial                          one thread, one predecessor at a time
//   lookback_warp                            32 lanes read 32 predecessors at once; a segmented
//                                            reduction from the nearest P
//   publish_and_look_back                    steps 3 to 5 for warp 0
// Given: the vocabulary and the poll schedule from the single-pass library
// (common/include/scanlab/single_pass/) and the tracing probe, named in
// chapters/07_decoupled_lookback/lookback_vocabulary.cuh, and in
// chapters/07_decoupled_lookback/decoupled_lookback_dispatch.cuh the kernel (steps 1, 2 and 6
// around your publish_and_look_back) and the host side.
#pragma once

#include "lookback_vocabulary.cuh"  // given: Descriptors, Lookback, Status, PollSchedule, ..., the probe

namespace ch07 {

// ---------------------------------------------------------------------------------------------
// Partition descriptors (device views; the storage belongs to DecoupledLookbackScan)
// ---------------------------------------------------------------------------------------------

template <class T, Descriptors D>
struct TileDescriptors;

// Fenced: three fields per tile. A value is stored, then __threadfence(), then the flag: a reader
// that sees the flag also sees the value. The reader orders its two loads the same way.
// --8<-- [start:fenced]
template <class T>
struct TileDescriptors<T, Descriptors::fenced> {
  unsigned* flags;
  T* aggregates;
  T* inclusives;
  LookbackProbe probe;

  // Tile 0: its aggregate is its inclusive prefix (paper, step 3).
  __device__ void publish_first(const T& aggregate) {
    int pos = probe.begin(0);
    single_pass::store_volatile(&aggregates[0], aggregate);
    single_pass::store_volatile(&inclusives[0], aggregate);
    probe.on_value(0, kAggregate, aggregate);
    probe.on_value(0, kPrefix, aggregate);
    probe.end(pos);
    __threadfence();
    pos = probe.begin(0);
    single_pass::store_volatile(&flags[0], static_cast<unsigned>(kPrefix));
    probe.on_flag(0, kPrefix);
    probe.end(pos);
  }

  // status A: value is the tile's aggregate (into aggregates[tile]); status P: its inclusive prefix
  // (into inclusives[tile]). A reader in another block that sees `status` in flags[tile] must see
  // `value` too. Other blocks' memory is reached with single_pass::store_volatile/load_volatile.
  // The probe calls (as in publish_first) record and script the two stores in traced builds.
  __device__ void publish(unsigned tile, Status status, const T& value) {
    // BEGIN TODO
    // TODO(student): publish value with status so that the contract above holds.
    (void)tile;
    (void)status;
    (void)value;
    // END TODO
  }

  // Tile `reader` reads predecessor pred: returns its status, and sets value (its aggregate for A,
  // its inclusive prefix for P) when it is not X, the value that came with that flag. Reports
  // every read with probe.on_read (and, in traced builds, probe.begin/end around a first read).
  __device__ Status read(unsigned reader, long long pred, T& value) {
    // BEGIN TODO
    // TODO(student): the predecessor's status and, unless X, its value.
    (void)reader;
    (void)pred;
    (void)value;
    return kPrefix;
    // END TODO
  }
};
// --8<-- [end:fenced]

// Fused: {status, value} in one 64-bit word, status in the high half. A 64-bit aligned store or load
// is single-copy atomic, so a reader sees the whole old word or the whole new one, never a flag
// without its value: no fence at all (paper, section 4.4).
// --8<-- [start:fused]
template <class T>
struct TileDescriptors<T, Descriptors::fused> {
  static_assert(sizeof(T) <= 4, "fused descriptors hold values of at most 32 bits; use Descriptors::fenced");
  unsigned long long* words;
  LookbackProbe probe;

  // The word: status in the high 32 bits, the bytes of value in the low 32 bits.
  static __device__ __forceinline__ unsigned long long pack(Status status, const T& value) {
    // BEGIN TODO
    // TODO(student): the packed word.
    (void)status;
    (void)value;
    return 0;
    // END TODO
  }

  __device__ void publish_first(const T& aggregate) { publish(0, kPrefix, aggregate); }

  // As the fenced publish, with ONE store of the whole word; reports probe.on_word.
  __device__ void publish(unsigned tile, Status status, const T& value) {
    // BEGIN TODO
    // TODO(student): publish the packed word, without a fence.
    (void)tile;
    (void)status;
    (void)value;
    // END TODO
  }

  // As the fenced read, with ONE load of the whole word; reports probe.on_read.
  __device__ Status read(unsigned reader, long long pred, T& value) {
    // BEGIN TODO
    // TODO(student): read and unpack the predecessor's word.
    (void)reader;
    (void)pred;
    (void)value;
    return kPrefix;
    // END TODO
  }
};
// --8<-- [end:fused]

// ---------------------------------------------------------------------------------------------
// The look-back (device)
// ---------------------------------------------------------------------------------------------

// One thread, one predecessor at a time (paper, section 4.1, step 4). Returns the exclusive prefix
// of `tile` (> 0): the inclusive prefix of the nearest P, followed by the aggregates after it, with
// predecessors on the LEFT. Reads through desc.read(tile, pred, value). Waiting follows the poll
// schedule: one PollDelay made before the first read (it sleeps first_ns), and its wait() after
// every read that finds the predecessor still X.
// --8<-- [start:lookback_serial]
template <class T, class Desc, class Op>
__device__ T lookback_serial(Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  // BEGIN TODO
  // TODO(student): the serial look-back described above.
  (void)desc;
  (void)tile;
  (void)op;
  (void)polls;
  return Op::identity();
  // END TODO
}
// --8<-- [end:lookback_serial]

// All 32 lanes of one warp: lane l inspects predecessor base + l of the window [base, base + 31],
// lane 31 the nearest. Lanes wait while a predecessor that matters is X (one above the nearest P,
// or any when there is no P). Then a segmented reduction: the nearest P's inclusive prefix and the
// aggregates after it, in lane order; without a P, the whole window's aggregates, and the window
// slides back 32 tiles. Returns the exclusive prefix in every lane. Every lane of the warp calls
// it. Waiting as in lookback_serial: one PollDelay before the first read, wait() between reads.
// --8<-- [start:lookback_warp]
template <class T, class Desc, class Op>
__device__ T lookback_warp(Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  // BEGIN TODO
  // TODO(student): the warp look-back described above.
  (void)desc;
  (void)tile;
  (void)op;
  (void)polls;
  return Op::identity();
  // END TODO
}
// --8<-- [end:lookback_warp]

// Steps 3-5, called by ALL 32 lanes of the block's warp 0 with the tile's aggregate in every lane:
// publish the aggregate (A) before looking back, look back (lookback_warp with every lane, or
// lookback_serial in lane 0, by L), publish the inclusive prefix (P). Tile 0 publishes its P at
// once (publish_first) and returns the identity. Returns the tile's exclusive prefix (in lane 0;
// in every lane for Lookback::warp). Each descriptor store is made by one lane.
// --8<-- [start:protocol]
template <Lookback L, class T, class Desc, class Op>
__device__ T publish_and_look_back(Desc& desc, unsigned tile, const T& aggregate, Op op, PollSchedule polls) {
  const int lane = scanlab::lane_id();
  // BEGIN TODO
  // TODO(student): steps 3 to 5 as described above.
  (void)lane;
  (void)desc;
  (void)tile;
  (void)aggregate;
  (void)op;
  (void)polls;
  return Op::identity();
  // END TODO
}
// --8<-- [end:protocol]

}  // namespace ch07
