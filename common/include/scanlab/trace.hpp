// scanlab/trace.hpp: kernels record what they do, for the visualizer (book/docs/traces.md).
//
// A kernel takes a `scanlab::TraceLog` (a small POD) by value and records into it with two macros:
//
//   SCANLAB_TRACE_BLOCK_ARRAY(log, "up", level, temp, m);   // every thread of the block calls it
//   SCANLAB_TRACE_EVENT(log, "publish", step, tile, flag, value, pred);  // the calling thread
//
// Both compile to nothing unless SCANLAB_TRACE is defined. On a GPU the traced builds are separate
// executables (chNN_slug_solution_traced), so the kernel that is timed has no trace code. On the
// emulator, where nothing is timed and the grader builds its own runners, the programs of the
// traced chapters (02, 05, 07, 08) are always built traced: one build runs and draws. A traced
// kernel run without a TraceBuffer does what the untraced one does: no record, no memory access,
// no extra barrier. The same code runs on the GPU and on the emulator: it is plain CUDA (atomicAdd,
// global stores).
//
// Device layout: a record array and a byte arena, each filled through an atomicAdd on its own
// counter. The record slot a thread reserves doubles as a global sequence number, so records of
// different threads and blocks are ordered the way their reservations were (for look-back events:
// the order in which the atomics were performed). A full buffer drops records and counts them;
// it never writes out of bounds. TraceBuffer (host, RAII) owns the device side;
// scanlab/trace_writer.hpp downloads it and writes JSON lines.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/hd.hpp"
#include "scanlab/monoid.hpp"

namespace scanlab {

// How the host decodes an array's bytes (TraceRecord::type).
enum class TraceType : std::uint32_t {
  unknown = 0,  // written as raw 32-bit words
  int32 = 1,
  uint32 = 2,
  int64 = 3,
  uint64 = 4,
  float32 = 5,
  float64 = 6,
  affine_uint32 = 7,  // Affine<uint32_t>: a pair (a, b)
  affine_int32 = 8,
  affine_float32 = 9,
};

template <class T>
SCANLAB_HD constexpr TraceType trace_type_of() {
  if constexpr (std::is_same_v<T, std::int32_t>) return TraceType::int32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return TraceType::uint32;
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>) return TraceType::int64;
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>)
    return TraceType::uint64;
  else if constexpr (std::is_same_v<T, float>) return TraceType::float32;
  else if constexpr (std::is_same_v<T, double>) return TraceType::float64;
  else if constexpr (std::is_same_v<T, Affine<std::uint32_t>>) return TraceType::affine_uint32;
  else if constexpr (std::is_same_v<T, Affine<std::int32_t>>) return TraceType::affine_int32;
  else if constexpr (std::is_same_v<T, Affine<float>>) return TraceType::affine_float32;
  else return TraceType::unknown;
}

enum class TraceKind : std::uint32_t { array = 1, event = 2 };

constexpr int kTraceLabelChars = 24;  // including the terminating zero; longer labels are cut
constexpr int kTraceEventFields = 4;

// One record, fixed size. Arrays keep their values in the byte arena at data_offset.
struct TraceRecord {
  std::uint64_t seq;                       // global order of reservation (= the slot index)
  std::uint32_t kind;                      // TraceKind
  std::uint32_t type;                      // TraceType of an array's elements
  std::uint32_t block;                     // linear block index of the recording thread
  std::uint32_t thread;                    // linear thread index within its block
  std::int32_t step;                       // the caller's step / level / tile number
  std::uint32_t elem_bytes;                // sizeof(T) of an array's elements
  std::uint64_t count;                     // elements stored (an array cut short by a full arena stores 0)
  std::uint64_t requested;                 // elements the kernel asked to record
  std::uint64_t data_offset;               // byte offset of the values in the arena
  std::int64_t fields[kTraceEventFields];  // an event's payload
  char label[kTraceLabelChars];
};

// Counter slots (TraceLog::counters[i]).
enum TraceCounter : int {
  kTraceNextRecord = 0,  // records reserved (also the next sequence number)
  kTraceNextByte = 1,    // arena bytes reserved
  kTraceDropped = 2,     // records that found the record array full
  kTraceTruncated = 3,   // arrays whose values found the arena full
  kTraceCounterCount = 4
};

// What a kernel receives. All-null (the default) records nothing, so launch wrappers can take
// `TraceLog log = {}` and a traced build run without a TraceBuffer still works.
struct TraceLog {
  unsigned long long* counters;
  TraceRecord* records;
  unsigned char* arena;
  unsigned long long record_capacity;
  unsigned long long arena_bytes;
};

// ---- device side ----------------------------------------------------------------------------

namespace trace_detail {

__device__ inline std::uint32_t linear_block() {
  return static_cast<std::uint32_t>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
}

__device__ inline std::uint32_t linear_thread() {
  return static_cast<std::uint32_t>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

// Reserves a record and fills its common part; nullptr when tracing is off or the buffer is full.
__device__ inline TraceRecord* begin_record(const TraceLog& log, TraceKind kind, const char* label, int step) {
  if (log.records == nullptr) return nullptr;
  const unsigned long long slot = atomicAdd(&log.counters[kTraceNextRecord], 1ull);
  if (slot >= log.record_capacity) {
    atomicAdd(&log.counters[kTraceDropped], 1ull);
    return nullptr;
  }
  TraceRecord* r = &log.records[slot];
  r->seq = slot;
  r->kind = static_cast<std::uint32_t>(kind);
  r->type = 0;
  r->block = linear_block();
  r->thread = linear_thread();
  r->step = step;
  r->elem_bytes = 0;
  r->count = 0;
  r->requested = 0;
  r->data_offset = 0;
  for (int f = 0; f < kTraceEventFields; ++f) r->fields[f] = 0;
  int c = 0;
  for (; c < kTraceLabelChars - 1 && label[c] != '\0'; ++c) r->label[c] = label[c];
  for (; c < kTraceLabelChars; ++c) r->label[c] = '\0';
  return r;
}

}  // namespace trace_detail

// Records values[0, count) as one array (called by ONE thread; the macro picks thread 0).
template <class T>
__device__ void trace_array(const TraceLog& log, const char* label, int step, const T* values, int count) {
  TraceRecord* r = trace_detail::begin_record(log, TraceKind::array, label, step);
  if (r == nullptr) return;
  r->type = static_cast<std::uint32_t>(trace_type_of<T>());
  r->elem_bytes = static_cast<std::uint32_t>(sizeof(T));
  r->requested = count > 0 ? static_cast<std::uint64_t>(count) : 0;
  // 16-byte granules keep every element type aligned in the arena.
  const unsigned long long bytes = (r->requested * sizeof(T) + 15ull) & ~15ull;
  const unsigned long long offset = atomicAdd(&log.counters[kTraceNextByte], bytes);
  if (offset + bytes > log.arena_bytes) {
    atomicAdd(&log.counters[kTraceTruncated], 1ull);
    return;
  }
  T* dst = reinterpret_cast<T*>(log.arena + offset);
  for (int i = 0; i < count; ++i) dst[i] = values[i];
  r->data_offset = offset;
  r->count = r->requested;
}

// Records one protocol event with up to four integer fields (their names are per label, see the
// writer's name_fields and book/docs/traces.md).
__device__ inline void trace_event(const TraceLog& log, const char* label, int step, long long f0, long long f1 = 0,
                                   long long f2 = 0, long long f3 = 0) {
  TraceRecord* r = trace_detail::begin_record(log, TraceKind::event, label, step);
  if (r == nullptr) return;
  r->fields[0] = f0;
  r->fields[1] = f1;
  r->fields[2] = f2;
  r->fields[3] = f3;
}

// A block-wide snapshot: a barrier so that every thread's writes are in, thread 0 copies, and a
// barrier so that nobody overwrites the array while it is being copied. Every thread of the block
// must reach it, like any __syncthreads. The barriers exist only while a trace is recorded: with
// tracing off (a log of nulls, the same for every thread) the kernel keeps its own barriers only,
// so that a barrier the code lacks is not supplied by its trace lines.
template <class T>
__device__ void trace_block_array(const TraceLog& log, const char* label, int step, const T* values, int count) {
  if (log.records == nullptr) return;
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) trace_array(log, label, step, values, count);
  __syncthreads();
}

}  // namespace scanlab

#if defined(SCANLAB_TRACE)
#define SCANLAB_TRACE_ENABLED 1
#define SCANLAB_TRACE_ARRAY(log, label, step, ptr, count) ::scanlab::trace_array((log), (label), (step), (ptr), (count))
#define SCANLAB_TRACE_BLOCK_ARRAY(log, label, step, ptr, count) \
  ::scanlab::trace_block_array((log), (label), (step), (ptr), (count))
#define SCANLAB_TRACE_EVENT(log, label, step, ...) ::scanlab::trace_event((log), (label), (step), __VA_ARGS__)
#else
#define SCANLAB_TRACE_ENABLED 0
// Nothing is evaluated: an untraced build contains no trace code and no extra barriers. (sizeof
// names the arguments without evaluating them, so that a variable kept only for a trace line is
// not reported as unused.)
#define SCANLAB_TRACE_ARRAY(log, label, step, ptr, count) \
  ((void)(log), (void)sizeof(step), (void)sizeof(ptr), (void)sizeof(count))
#define SCANLAB_TRACE_BLOCK_ARRAY(log, label, step, ptr, count) \
  ((void)(log), (void)sizeof(step), (void)sizeof(ptr), (void)sizeof(count))
#define SCANLAB_TRACE_EVENT(log, label, step, ...) ((void)(log), (void)sizeof(step))
#endif

namespace scanlab {

// True in traced builds (compiled with -DSCANLAB_TRACE).
constexpr bool trace_enabled() { return SCANLAB_TRACE_ENABLED != 0; }

// ---- host side ------------------------------------------------------------------------------

// The device memory a traced run records into. Move-only; log() is what kernels receive.
class TraceBuffer {
 public:
  TraceBuffer(std::size_t record_capacity = 4096, std::size_t arena_bytes = std::size_t(4) << 20)
      : counters_(kTraceCounterCount), records_(record_capacity), arena_(arena_bytes) {
    clear();
  }

  // Forgets everything recorded so far.
  void clear() { counters_.fill_zero(); }

  TraceLog log() {
    return TraceLog{counters_.data(), records_.data(), arena_.data(), static_cast<unsigned long long>(records_.size()),
                    static_cast<unsigned long long>(arena_.size())};
  }

  struct Snapshot {
    std::vector<TraceRecord> records;  // in sequence order
    std::vector<unsigned char> arena;
    unsigned long long reserved = 0, dropped = 0, truncated = 0;
  };

  // Downloads what was recorded (call after the kernels finished, e.g. after SCANLAB_CHECK_SYNC).
  Snapshot download() const {
    Snapshot s;
    const std::vector<unsigned long long> c = counters_.download();
    s.reserved = c[kTraceNextRecord];
    s.dropped = c[kTraceDropped];
    s.truncated = c[kTraceTruncated];
    const std::size_t kept = static_cast<std::size_t>(
        s.reserved < records_.size() ? s.reserved : static_cast<unsigned long long>(records_.size()));
    s.records.resize(kept);
    records_.download(s.records.data(), kept);
    const std::size_t used = static_cast<std::size_t>(
        c[kTraceNextByte] < arena_.size() ? c[kTraceNextByte] : static_cast<unsigned long long>(arena_.size()));
    s.arena.resize(used);
    arena_.download(s.arena.data(), used);
    return s;
  }

 private:
  DeviceBuffer<unsigned long long> counters_;
  DeviceBuffer<TraceRecord> records_;
  DeviceBuffer<unsigned char> arena_;
};

}  // namespace scanlab
