// A SLOWED chapter 07 for the speed grade's measurement (tests/grader/speed/README.md): the
// reference solution with its look-back made serial (lane 0 alone, one predecessor a read) and
// its polls made a spin (no back-off). Correct, so it passes every correctness test; slower, so
// it must get part of the speed points and not all. diff it with the solution to see the change.
// Chapter 07, reference solution of exercises/07_decoupled_lookback/decoupled_lookback.cuh: read
// that file for the teaching notes and the hints. The comments here say why the answers are written
// as they are.
#pragma once

#include "lookback_vocabulary.cuh"  // given: Descriptors, Lookback, Status, PollSchedule, ..., the probe

namespace ch07 {

template <class T, Descriptors D>
struct TileDescriptors;

// --8<-- [start:fenced]
// publish is publish_first with the status as a parameter: the value into the field the status
// names, __threadfence(), then the flag. read mirrors it: flag, fence, value. A read's probe.begin
// is taken only on the first read of a predecessor, so a polling loop is one scripted step.
template <class T>
struct TileDescriptors<T, Descriptors::fenced> {
  unsigned* flags;
  T* aggregates;
  T* inclusives;
  LookbackProbe probe;

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

  __device__ void publish(unsigned tile, Status status, const T& value) {
    // BEGIN TODO
    int pos = probe.begin(tile);
    single_pass::store_volatile(status == kPrefix ? &inclusives[tile] : &aggregates[tile], value);
    probe.on_value(tile, status, value);
    probe.end(pos);
    __threadfence();  // the value before the flag
    pos = probe.begin(tile);
    single_pass::store_volatile(&flags[tile], static_cast<unsigned>(status));
    probe.on_flag(tile, status);
    probe.end(pos);
    // END TODO
  }

  __device__ Status read(unsigned reader, long long pred, T& value) {
    // BEGIN TODO
    const int pos = probe.first_read(pred) ? probe.begin(reader) : -1;
    const Status status = static_cast<Status>(single_pass::load_volatile(&flags[pred]));
    if (status != kInvalid) {
      __threadfence();  // the flag before the value
      value = single_pass::load_volatile(status == kPrefix ? &inclusives[pred] : &aggregates[pred]);
    }
    probe.on_read(reader, pred, status, value);
    probe.end(pos);
    return status;
    // END TODO
  }
};
// --8<-- [end:fenced]

// --8<-- [start:fused]
// pack copies the value's bytes (memcpy: T may be a float, which a cast would convert) into the
// low half. publish and read are one volatile 64-bit access each, single-copy atomic, so neither
// needs a fence.
template <class T>
struct TileDescriptors<T, Descriptors::fused> {
  static_assert(sizeof(T) <= 4, "fused descriptors hold values of at most 32 bits; use Descriptors::fenced");
  unsigned long long* words;
  LookbackProbe probe;

  static __device__ __forceinline__ unsigned long long pack(Status status, const T& value) {
    // BEGIN TODO
    unsigned bits = 0;
    memcpy(&bits, &value, sizeof(T));
    return (static_cast<unsigned long long>(status) << 32) | bits;
    // END TODO
  }

  __device__ void publish_first(const T& aggregate) { publish(0, kPrefix, aggregate); }

  __device__ void publish(unsigned tile, Status status, const T& value) {
    // BEGIN TODO
    *reinterpret_cast<volatile unsigned long long*>(&words[tile]) = pack(status, value);
    probe.on_word(tile, status, value);
    // END TODO
  }

  __device__ Status read(unsigned reader, long long pred, T& value) {
    // BEGIN TODO
    const unsigned long long word = *reinterpret_cast<const volatile unsigned long long*>(&words[pred]);
    const Status status = static_cast<Status>(word >> 32);
    const unsigned bits = static_cast<unsigned>(word);
    memcpy(&value, &bits, sizeof(T));
    probe.on_read(reader, pred, status, value);
    return status;
    // END TODO
  }
};
// --8<-- [end:fused]

// --8<-- [start:lookback_serial]
// Walk left from tile - 1: X polls the same predecessor again, A folds its aggregate in on the LEFT
// and moves one tile further, P folds its inclusive prefix in and ends the walk.
template <class T, class Desc, class Op>
__device__ T lookback_serial(Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  // BEGIN TODO
  T exclusive = Op::identity();
  long long pred = static_cast<long long>(tile) - 1;
  (void)polls;
  while (true) {
    T value;
    const Status status = desc.read(tile, pred, value);
    if (status == kInvalid) {
      continue;  // SLOWED: spin on the predecessor's word, no back-off between reads
    }
    exclusive = op(value, exclusive);  // predecessors are on the LEFT
    if (status == kPrefix) return exclusive;
    --pred;  // A: keep going (tile 0 always publishes P, so this ends)
  }
  // END TODO
}
// --8<-- [end:lookback_serial]

// --8<-- [start:lookback_warp]
// Per window: poll until no lane that matters is X (the lanes above the nearest P, or all of them
// when there is no P), blank the lanes below the nearest P, and reduce in lane order, which keeps
// nearer predecessors on the right. Positions before tile 0 read as a P holding the identity.
template <class T, class Desc, class Op>
__device__ T lookback_warp(Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  // BEGIN TODO
  const int lane = scanlab::lane_id();
  T exclusive = Op::identity();
  PollDelay delay(polls);
  for (long long base = static_cast<long long>(tile) - 32;; base -= 32) {
    const long long pred = base + lane;
    T value = Op::identity();
    unsigned prefix_lanes;
    while (true) {
      // Before tile 0 there is nothing: a P holding the identity ends every look-back.
      const Status status = pred >= 0 ? desc.read(tile, pred, value) : kPrefix;
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
  // END TODO
}
// --8<-- [end:lookback_warp]

// --8<-- [start:protocol]
// A goes out before the look-back, so that a successor never waits for this tile's look-back; P
// goes out as soon as the exclusive prefix is known. Lane 0 makes every store.
template <Lookback L, class T, class Desc, class Op>
__device__ T publish_and_look_back(Desc& desc, unsigned tile, const T& aggregate, Op op, PollSchedule polls) {
  const int lane = scanlab::lane_id();
  // BEGIN TODO
  if (tile == 0) {
    if (lane == 0) desc.publish_first(aggregate);
    return Op::identity();
  }
  if (lane == 0) desc.publish(tile, kAggregate, aggregate);
  T exclusive;
  // SLOWED: one thread walks back one predecessor at a time, whatever the policy asks for.
  (void)L;
  exclusive = lane == 0 ? lookback_serial<T>(desc, tile, op, polls) : Op::identity();
  if (lane == 0) desc.publish(tile, kPrefix, op(exclusive, aggregate));
  return exclusive;
  // END TODO
}
// --8<-- [end:protocol]

}  // namespace ch07
