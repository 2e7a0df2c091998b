// What a traced build of chapter 07 records about the look-back protocol, and how it replays a
// scripted schedule (for the Fig. 6 snapshot of Merrill and Garland, NVR-2016-002, section 4.3).
//
// The descriptor accessors of decoupled_lookback.cuh call the probe around every protocol step: a
// value or flag stored, a fused word stored, a predecessor's descriptor read. In an untraced build
// (no -DSCANLAB_TRACE) LookbackProbe is an empty struct whose methods do nothing, so the graded and
// timed kernels contain none of this. In a traced build each step becomes a trace event
// (scanlab/trace.hpp; the labels are listed in book/docs/chapters/07-decoupled-lookback.md):
//
//   "ticket"  step = tile   f0 = blockIdx.x
//   "word"    step = tile   f0 = status (1 A, 2 P)      f1 = value        (fused descriptors)
//   "value"   step = tile   f0 = field (1 aggregate, 2 inclusive prefix)  f1 = value   (fenced)
//   "flag"    step = tile   f0 = status (1 A, 2 P)                                       (fenced)
//   "read"    step = reader f0 = predecessor  f1 = status seen (0 X, 1 A, 2 P)  f2 = value
//
// A read is recorded when it sees something new (a polling loop that keeps seeing X records once).
// Values are recorded for integer types; other types record 0.
//
// A script makes the protocol steps happen in a chosen global order: step k of tile t (k counts
// the tile's value stores, flag stores and first reads of each predecessor) waits until a turn
// counter equals script[t * actions_per_tile + k], then advances it. -1 = not scripted. Only the
// serial look-back with fenced descriptors is scripted (one thread per tile takes the steps), and
// every scripted tile must be resident at once (the driver uses 8 small tiles).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include <scanlab/trace.hpp>

namespace ch07 {

#if SCANLAB_TRACE_ENABLED

struct LookbackProbe {
  scanlab::TraceLog log = {};
  const int* script = nullptr;  // positions, actions_per_tile per tile
  int* script_steps = nullptr;  // per tile: scripted steps taken so far
  unsigned* turn = nullptr;     // the position whose turn it is
  int actions_per_tile = 0;
  long long last_pred = -1;  // this thread's last read, to record only what is new
  int last_status = -1;

  template <class T>
  static __device__ long long value_field(const T& v) {
    if constexpr (std::is_integral_v<T>) return static_cast<long long>(v);
    else return 0;
  }

  // A scripted step of `tile`: wait for its turn. Returns the position (-1 when not scripted).
  __device__ int begin(unsigned tile) {
    if (script == nullptr) return -1;
    const int k = script_steps[tile];
    if (k >= actions_per_tile) return -1;
    const int pos = script[static_cast<long long>(tile) * actions_per_tile + k];
    script_steps[tile] = k + 1;
    if (pos < 0) return -1;
    while (*reinterpret_cast<volatile unsigned*>(turn) != static_cast<unsigned>(pos)) {
    }
    return pos;
  }
  __device__ void end(int pos) {
    if (pos < 0) return;
    __threadfence();
    atomicAdd(turn, 1u);
  }

  __device__ void on_ticket(unsigned tile) {
    SCANLAB_TRACE_EVENT(log, "ticket", static_cast<int>(tile), static_cast<long long>(blockIdx.x));
  }
  template <class T>
  __device__ void on_word(unsigned tile, unsigned status, const T& v) {
    SCANLAB_TRACE_EVENT(log, "word", static_cast<int>(tile), static_cast<long long>(status), value_field(v));
  }
  template <class T>
  __device__ void on_value(unsigned tile, int field, const T& v) {
    SCANLAB_TRACE_EVENT(log, "value", static_cast<int>(tile), static_cast<long long>(field), value_field(v));
  }
  __device__ void on_flag(unsigned tile, unsigned status) {
    SCANLAB_TRACE_EVENT(log, "flag", static_cast<int>(tile), static_cast<long long>(status));
  }
  // A read: scripted (first read of this predecessor only) and recorded when new.
  __device__ bool first_read(long long pred) const { return pred != last_pred; }
  template <class T>
  __device__ void on_read(unsigned reader, long long pred, unsigned status, const T& v) {
    if (pred == last_pred && static_cast<int>(status) == last_status) return;
    last_pred = pred;
    last_status = static_cast<int>(status);
    SCANLAB_TRACE_EVENT(log, "read", static_cast<int>(reader), pred, static_cast<long long>(status),
                        status != 0 ? value_field(v) : 0);
  }
};

#else

// Untraced builds: nothing recorded, nothing scripted; every call compiles away.
struct LookbackProbe {
  __device__ int begin(unsigned) { return -1; }
  __device__ void end(int) {}
  __device__ void on_ticket(unsigned) {}
  template <class T>
  __device__ void on_word(unsigned, unsigned, const T&) {}
  template <class T>
  __device__ void on_value(unsigned, int, const T&) {}
  __device__ void on_flag(unsigned, unsigned) {}
  __device__ bool first_read(long long) const { return false; }
  template <class T>
  __device__ void on_read(unsigned, long long, unsigned, const T&) {}
};

#endif

}  // namespace ch07
