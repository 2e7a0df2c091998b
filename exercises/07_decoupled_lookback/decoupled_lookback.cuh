// Chapter 07: single-pass scan with decoupled look-back.
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002): section 4.1 (partition descriptors with status X/A/P, aggregate and inclusive
// prefix; value, fence, flag), 4.2 (properties), 4.4 (dynamic tile ids, fence-free descriptors in one
// 64-bit word, a warp inspecting a window of predecessors with a segmented reduction). CUB's
// DeviceScan is the production form. The tile work is chapter 06's (tile_scan.cuh), the warp
// collectives chapter 04's (scanlab/warp_scan.cuh).
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
// The steps the book walks through are template parameters:
//   Descriptors::fenced  flag word + aggregate + inclusive prefix per tile; value, __threadfence(),
//                        flag (any T)
//   Descriptors::fused   {status, value} in ONE 64-bit word, stored and loaded whole: no fence
//                        (values of at most 32 bits; the default for them)
//   Lookback::serial     one thread, one predecessor at a time
//   Lookback::warp       32 lanes read 32 predecessors at once; a segmented reduction from the
//                        nearest P (the default)
// and, at run time, the polling schedule (a __nanosleep before the first read of a predecessor and
// between reads that find X) and the tile order (the ticket, or blockIdx.x for the deadlock
// demonstration).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/warp_scan.cuh>

#include "lookback_probe.cuh"
#include "tile_scan.cuh"

namespace ch07 {

// A tile's status flag (paper, section 4.1).
enum Status : unsigned {
  kInvalid = 0,    // X: nothing published yet
  kAggregate = 1,  // A: the tile's own aggregate is available
  kPrefix = 2,     // P: the tile's inclusive prefix is available
};

enum class Descriptors { automatic, fenced, fused };
enum class Lookback { serial, warp };
enum class TileOrder { ticket, block_index };

// fused when the value fits next to the status in 64 bits, else fenced.
template <class T>
constexpr Descriptors resolve_descriptors(Descriptors d) {
  return d != Descriptors::automatic ? d : (sizeof(T) <= 4 ? Descriptors::fused : Descriptors::fenced);
}

// BLOCK_THREADS x ITEMS per tile, the descriptor kind and the look-back. MIN_BLOCKS_PER_SM goes to
// __launch_bounds__: it caps the registers per thread so that that many blocks fit on one SM. A
// single-pass scan is limited by the bytes it has in flight, and those live in registers (a
// thread's ITEMS), so more resident tiles can matter more than a few spilled registers.
template <int BLOCK_THREADS, int ITEMS, Descriptors D = Descriptors::automatic, Lookback L = Lookback::warp,
          int MIN_BLOCKS_PER_SM = 1>
struct Policy {
  static constexpr int kBlockThreads = BLOCK_THREADS;
  static constexpr int kItems = ITEMS;
  static constexpr Descriptors kDescriptors = D;
  static constexpr Lookback kLookback = L;
  static constexpr int kMinBlocksPerSm = MIN_BLOCKS_PER_SM;
  template <class T>
  using Shape = tilescan::TileShape<T, BLOCK_THREADS, ITEMS>;
};

// 128 threads x 32 items: 4096 elements (16 KiB of int32) per tile, eight 16-byte loads per thread.
// Measured on an H200 against other shapes (book, "Speed"): with more items per thread, more of
// the registers hold data in flight.
using DefaultPolicy = Policy<128, 32>;

// --8<-- [start:polls]
// How warp 0 polls its predecessors' descriptors (CUB tunes the same two delays per GPU):
//   first_ns  sleep once after publishing A, before the first read. A read is a round trip through
//             an L2 that is also streaming the scan's data, and right after A goes out the nearby
//             predecessors often have no P yet: reading early walks back over more windows of A
//             and adds polling traffic on the cache lines that the others are publishing to.
//   every_ns  sleep between two reads of a window in which a predecessor that matters is still X.
// 0 spins. Neither changes a result, only when it is found.
struct PollSchedule {
  unsigned first_ns;
  unsigned every_ns;
};

// Tuned on an H200 at 2^28 int32 (book, "Speed"). DecoupledLookbackScan drops first_ns when the
// whole grid fits on the GPU at once (one wave), where it would only add latency.
constexpr PollSchedule kDefaultPolls = {2800, 900};
// --8<-- [end:polls]

// ---------------------------------------------------------------------------------------------
// Partition descriptors (device views; the storage belongs to DecoupledLookbackScan below)
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
    tilescan::store_volatile(&aggregates[0], aggregate);
    tilescan::store_volatile(&inclusives[0], aggregate);
    probe.on_value(0, kAggregate, aggregate);
    probe.on_value(0, kPrefix, aggregate);
    probe.end(pos);
    __threadfence();
    pos = probe.begin(0);
    tilescan::store_volatile(&flags[0], static_cast<unsigned>(kPrefix));
    probe.on_flag(0, kPrefix);
    probe.end(pos);
  }

  // status A: value is the tile's aggregate; status P: its inclusive prefix.
  __device__ void publish(unsigned tile, Status status, const T& value) {
    // BEGIN TODO
    // TODO(student): value, fence, flag (paper, section 4.1, steps 3 and 5).
    //   Store value with tilescan::store_volatile into inclusives[tile] when status == kPrefix, else
    //   into aggregates[tile]; then __threadfence(); then store the status into flags[tile].
    //   Keep the probe calls of publish_first around your two stores (they cost nothing untraced):
    //   probe.begin/on_value/end around the value, probe.begin/on_flag/end around the flag.
    (void)tile;
    (void)status;
    (void)value;
    // END TODO
  }

  // The predecessor's status; value is set when it is A or P.
  __device__ Status read(unsigned reader, long long pred, T& value) {
    // BEGIN TODO
    // TODO(student): read flags[pred] with tilescan::load_volatile. If it is not kInvalid:
    //   __threadfence() (the flag before the value), then load_volatile the inclusive prefix (kPrefix)
    //   or the aggregate (kAggregate) into value. Call probe.on_read(reader, pred, status, value) and
    //   return the status. (Wrap the read in probe.begin(reader)/probe.end when probe.first_read(pred).)
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

  static __device__ __forceinline__ unsigned long long pack(Status status, const T& value) {
    // BEGIN TODO
    // TODO(student): status in the high 32 bits, the value's bits (memcpy sizeof(T) bytes into an
    //   unsigned) in the low 32 bits.
    (void)status;
    (void)value;
    return 0;
    // END TODO
  }

  __device__ void publish_first(const T& aggregate) { publish(0, kPrefix, aggregate); }

  __device__ void publish(unsigned tile, Status status, const T& value) {
    // BEGIN TODO
    // TODO(student): ONE 64-bit volatile store of pack(status, value) into words[tile] (through a
    //   volatile unsigned long long*); no fence. Then probe.on_word(tile, status, value).
    (void)tile;
    (void)status;
    (void)value;
    // END TODO
  }

  __device__ Status read(unsigned reader, long long pred, T& value) {
    // BEGIN TODO
    // TODO(student): ONE 64-bit volatile load of words[pred]; the status is the high half, the value
    //   the low sizeof(T) bytes of the low half. probe.on_read(reader, pred, status, value); return it.
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

// --8<-- [start:poll_delay]
// A look-back's waiting: constructing one sleeps first_ns (before the first read); wait() sleeps
// every_ns (after a read that found a needed predecessor still X).
struct PollDelay {
  unsigned every_ns;
  __device__ explicit PollDelay(PollSchedule s) : every_ns(s.every_ns) {
    if (s.first_ns != 0) __nanosleep(s.first_ns);
  }
  __device__ void wait() const {
    if (every_ns != 0) __nanosleep(every_ns);
  }
};
// --8<-- [end:poll_delay]

// One thread, one predecessor at a time (paper, section 4.1, step 4). Returns the exclusive prefix
// of `tile` (> 0): the inclusive prefix of the nearest P, followed by the aggregates after it.
// --8<-- [start:lookback_serial]
template <class T, class Desc, class Op>
__device__ T lookback_serial(Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  // BEGIN TODO
  // TODO(student): make a PollDelay delay(polls) first (it sleeps before the first read). Then walk
  //   back from pred = tile - 1, one predecessor at a time, with desc.read(tile,
  //   pred, value): X -> delay.wait() and read the same one again; A -> exclusive = op(value,
  //   exclusive) and go on to pred - 1; P -> exclusive = op(value, exclusive) and return it.
  //   Predecessors are on the LEFT of everything after them.
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
// slides back 32 tiles. Returns the exclusive prefix in every lane.
// --8<-- [start:lookback_warp]
template <class T, class Desc, class Op>
__device__ T lookback_warp(Desc& desc, unsigned tile, Op op, PollSchedule polls) {
  // BEGIN TODO
  // TODO(student): make a PollDelay delay(polls) once, before the first window (it sleeps first).
  //   Windows of 32 predecessors [base, base + 31], base = tile - 32, tile - 64, ...
  //   Lane l reads pred = base + l (pred < 0: treat as P holding the identity). Repeat the reads
  //   (with delay.wait()) while some lane above the nearest P (or any lane, if there is no P) sees X;
  //   find the nearest P with __ballot_sync and __clz. Lanes below it take the identity; reduce the
  //   window IN LANE ORDER (scanlab::warp_reduce), put it on the LEFT of the running exclusive
  //   prefix, and stop after a window that had a P.
  (void)desc;
  (void)tile;
  (void)op;
  (void)polls;
  return Op::identity();
  // END TODO
}
// --8<-- [end:lookback_warp]

// Steps 3-5 for warp 0 of the block: publish the aggregate, look back, publish the inclusive
// prefix. Returns the tile's exclusive prefix (in lane 0; in every lane for Lookback::warp).
// --8<-- [start:protocol]
template <Lookback L, class T, class Desc, class Op>
__device__ T publish_and_look_back(Desc& desc, unsigned tile, const T& aggregate, Op op, PollSchedule polls) {
  const int lane = scanlab::lane_id();
  // BEGIN TODO
  // TODO(student): tile 0: lane 0 calls desc.publish_first(aggregate); return the identity.
  //   Other tiles: lane 0 publishes the aggregate (kAggregate) at once; then the look-back
  //   (lookback_warp with all lanes, or lookback_serial in lane 0 only, by L); then lane 0 publishes
  //   op(exclusive, aggregate) as kPrefix. Return the exclusive prefix.
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

// This block's tile number, in every thread (chapter 06). Contains a __syncthreads.
__device__ __forceinline__ unsigned lookback_tile_index(unsigned* ticket, TileOrder order, unsigned& shared_slot) {
  if (threadIdx.x == 0) shared_slot = order == TileOrder::ticket ? atomicAdd(ticket, 1u) : blockIdx.x;
  __syncthreads();
  return shared_slot;
}

// One block per tile. Three barriers: the ticket, the warp totals, the tile prefix.
// --8<-- [start:kernel]
template <class Shape, int MIN_BLOCKS, Lookback L, bool INCLUSIVE, class T, class Desc, class Op>
__global__ void __launch_bounds__(Shape::BLOCK_THREADS, MIN_BLOCKS)
    decoupled_lookback_scan_kernel(const T* in, T* out, std::size_t n, Desc descriptors, unsigned* ticket,
                                   TileOrder order, bool vectorized, PollSchedule polls, Op op) {
  __shared__ tilescan::WarpTotals<Shape, T> warp_totals;
  __shared__ unsigned tile_slot;
  __shared__ T tile_prefix;

  Desc desc = descriptors;  // this thread's copy (a traced build keeps per-thread state in it)
  const unsigned tile = lookback_tile_index(ticket, order, tile_slot);
  if (threadIdx.x == 0) desc.probe.on_ticket(tile);
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const int valid = tilescan::valid_in_tile<Shape>(n, tile);
  const bool full = valid == Shape::TILE_ITEMS;

  T items[Shape::ITEMS];
  if (full) tilescan::load_full_tile<Shape>(in + start, items, vectorized);
  else tilescan::load_partial_tile<Shape>(in + start, items, valid, Op::identity());

  tilescan::ThreadSeeds<Shape, T> seeds;
  const T warp_total = tilescan::warp_segment_scan<Shape>(items, seeds, op);
  T warp_prefix;
  const T aggregate = tilescan::block_aggregate_and_warp_prefix<Shape>(warp_total, warp_totals, op, warp_prefix);

  if (scanlab::warp_id() == 0) {
    const T exclusive = publish_and_look_back<L>(desc, tile, aggregate, op, polls);
    if (threadIdx.x == 0) tile_prefix = exclusive;
  }
  __syncthreads();

  tilescan::scan_thread_runs<INCLUSIVE, Shape>(items, seeds, op(tile_prefix, warp_prefix), op);
  if (full) tilescan::store_full_tile<Shape>(out + start, items, vectorized);
  else tilescan::store_partial_tile<Shape>(out + start, items, valid);
}
// --8<-- [end:kernel]

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

struct Options {
  TileOrder order = TileOrder::ticket;
  PollSchedule polls = kDefaultPolls;
  LookbackProbe probe = {};  // traced builds: where the protocol steps are recorded (and a script)
};

// The descriptors and the ticket for scans of up to max_n elements; reusable (not concurrently).
// One allocation: [ticket | status words or flags | aggregates | inclusive prefixes]; before each
// scan ONE cudaMemsetAsync clears the ticket and the status part (values need no reset: a value is
// read only after its flag says it is there). The reset is part of the timed operation.
template <class T, class P = DefaultPolicy>
class DecoupledLookbackScan {
 public:
  using Shape = typename P::template Shape<T>;
  static constexpr Descriptors kDescriptors = resolve_descriptors<T>(P::kDescriptors);
  using Desc = TileDescriptors<T, kDescriptors>;
  static constexpr std::size_t kTileItems = Shape::TILE_ITEMS;

  explicit DecoupledLookbackScan(std::size_t max_n) : max_tiles_(tiles_for(max_n)), storage_(bytes_for(max_tiles_)) {}

  static std::size_t tiles_for(std::size_t n) { return (n + kTileItems - 1) / kTileItems; }

  // in == out is allowed (in-place): a tile reads all of its input before it writes.
  template <class Op>
  void exclusive(const T* in, T* out, std::size_t n, Op op, cudaStream_t s = 0, const Options& o = {}) {
    run<false>(in, out, n, op, s, o);
  }
  template <class Op>
  void inclusive(const T* in, T* out, std::size_t n, Op op, cudaStream_t s = 0, const Options& o = {}) {
    run<true>(in, out, n, op, s, o);
  }

 private:
  static constexpr std::size_t kHeader = 16;  // the ticket, padded
  static constexpr std::size_t status_bytes(std::size_t tiles) {
    return kDescriptors == Descriptors::fused ? tiles * 8 : tiles * 4;
  }
  static std::size_t align16(std::size_t b) { return (b + 15) / 16 * 16; }
  static std::size_t bytes_for(std::size_t tiles) {
    std::size_t b = align16(kHeader + status_bytes(tiles));
    if (kDescriptors == Descriptors::fenced) b += 2 * align16(tiles * sizeof(T));
    return b;
  }

  Desc view(std::size_t tiles, const LookbackProbe& probe) {
    unsigned char* base = storage_.data();
    Desc d{};
    if constexpr (kDescriptors == Descriptors::fused) {
      d.words = reinterpret_cast<unsigned long long*>(base + kHeader);
    } else {
      const std::size_t values = align16(kHeader + status_bytes(max_tiles_));
      d.flags = reinterpret_cast<unsigned*>(base + kHeader);
      d.aggregates = reinterpret_cast<T*>(base + values);
      d.inclusives = reinterpret_cast<T*>(base + values + align16(max_tiles_ * sizeof(T)));
    }
    (void)tiles;
    d.probe = probe;
    return d;
  }

  template <bool INCLUSIVE, class Op>
  void run(const T* in, T* out, std::size_t n, Op op, cudaStream_t s, const Options& o) {
    if (n == 0) return;
    const std::size_t tiles = tiles_for(n);
    if (tiles > max_tiles_) {
      throw std::invalid_argument("ch07::DecoupledLookbackScan: n = " + std::to_string(n) +
                                  " is more than this scan object was made for");
    }
    if (tiles > 0x7fffffffu) throw std::invalid_argument("ch07::DecoupledLookbackScan: more than 2^31 - 1 tiles");
    SCANLAB_NVTX_RANGE("ch07::decoupled_lookback_scan");
    SCANLAB_CUDA_CHECK(cudaMemsetAsync(storage_.data(), 0, kHeader + status_bytes(tiles), s));
    unsigned* ticket = reinterpret_cast<unsigned*>(storage_.data());
    const bool vectorized = tilescan::aligned16(in) && tilescan::aligned16(out);
    // In one wave (every tile resident at once) no tile waits behind earlier waves' prefixes, and
    // the sleep before the first read only adds latency (measured on an H200: book, "Speed").
    PollSchedule polls = o.polls;
    if (tiles <= blocks_per_sm<INCLUSIVE, Op>() * sms_) polls.first_ns = 0;
    decoupled_lookback_scan_kernel<Shape, P::kMinBlocksPerSm, P::kLookback, INCLUSIVE, T, Desc, Op>
        <<<static_cast<unsigned>(tiles), Shape::BLOCK_THREADS, 0, s>>>(in, out, n, view(tiles, o.probe), ticket,
                                                                       o.order, vectorized, polls, op);
    SCANLAB_CHECK_LAUNCH();
  }

  // The SMs of the device this object's storage lives on (the current device at construction).
  static std::size_t device_sms() {
    int device = 0, sms = 0;
    SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
    SCANLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return static_cast<std::size_t>(sms);
  }

  // Blocks of one kernel instantiation that fit on an SM: asked once per process, not per scan
  // (it depends on the kernel's registers and shared memory only; mixed GPU generations in one
  // process would only make the one-wave rule, a timing choice, less exact).
  template <bool INCLUSIVE, class Op>
  static std::size_t blocks_per_sm() {
    static const std::size_t blocks = [] {
      int per_sm = 0;
      SCANLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, decoupled_lookback_scan_kernel<Shape, P::kMinBlocksPerSm, P::kLookback, INCLUSIVE, T, Desc, Op>,
          Shape::BLOCK_THREADS, 0));
      return static_cast<std::size_t>(per_sm);
    }();
    return blocks;
  }

  std::size_t max_tiles_;
  std::size_t sms_ = device_sms();
  scanlab::DeviceBuffer<unsigned char> storage_;
};

// One-shot forms: allocate the descriptors, scan, wait, free. Device pointers.
// --8<-- [start:launch]
template <class P = DefaultPolicy, class T, class Op>
void decoupled_lookback_exclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0,
                                       const Options& o = {}) {
  DecoupledLookbackScan<T, P> scan(n);
  scan.exclusive(d_in, d_out, n, op, s, o);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
}
// --8<-- [end:launch]

template <class P = DefaultPolicy, class T, class Op>
void decoupled_lookback_inclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0,
                                       const Options& o = {}) {
  DecoupledLookbackScan<T, P> scan(n);
  scan.inclusive(d_in, d_out, n, op, s, o);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace ch07
