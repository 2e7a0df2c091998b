// scanlab/block_scan.cuh: scans and reductions of one thread block's tile, built from warp scans.
//
// Builds on: the raking idea of GPU Gems 3 ch. 39.2.5 (each thread scans several elements
// sequentially in registers, after Lichterman, a consequence of Brent's theorem) and the warp-scan
// block scan of Merrill and Garland (NVR-2016-002, section 3) as CUB's BlockScan implements it
// (BLOCK_SCAN_WARP_SCANS). The interface follows CUB's shape: a TempStorage struct that the caller
// places in __shared__ memory, a constructor taking it, and scan methods.
//
// Arrangement: a tile of BLOCK_THREADS * ITEMS_PER_THREAD items in the *blocked* arrangement,
// thread t holding items [t * ITEMS_PER_THREAD, (t + 1) * ITEMS_PER_THREAD) of the tile in
// items[0 .. ITEMS_PER_THREAD) (see block_load_store.cuh for getting them there).
//
// The construction, for P = BLOCK_THREADS threads, I = ITEMS_PER_THREAD, N = P * I items:
//   1. thread reduce     each thread folds its I items sequentially:     I - 1 steps, P(I - 1) ops
//   2. warp scan         Kogge-Stone over the 32 thread totals of a warp:  5 steps, 129 ops per warp
//   3. warp totals       lane 31 of each warp writes its warp's total; __syncthreads; warp 0 scans
//                        the (at most 32) totals with one more warp scan:  5 steps, 129 ops
//                        (and, for multi-block scans, asks the prefix callback for the block's
//                        prefix); __syncthreads
//   4. thread scan       each thread rescans its I items sequentially, seeded with its exclusive
//                        prefix (warp prefix op lane prefix):              I + 1 steps, P(I + 1) ops
// Work: about 2N + 4P + 129 operator applications, i.e. ~2N for I >= 8, against N - 1 for a
// sequential scan and the Blelloch scan's ~2N; the Hillis-Steele scan needs ~N log2 N.
// Depth: 2I + ~11 steps and 2 barriers. A larger I means fewer threads doing the log-depth part
// and more (cheap, register-only, independent) sequential work: Brent's theorem in practice.
//
// Rules (as in CUB): every thread of the block calls every method (they contain barriers); blockDim.x
// equals BLOCK_THREADS, a multiple of 32 and at most 1024; before a TempStorage is used again (a
// second scan, the next tile), the block must pass a __syncthreads() after the previous use.
// Operators need not be commutative: items further left are always the left operand.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "scanlab/warp_scan.cuh"

namespace scanlab {

// ---- thread-level helpers: sequential work in registers -----------------------------------------

// items[0] op items[1] op ... op items[N-1]: N - 1 applications, N - 1 steps.
template <int N, class T, class Op>
__device__ __forceinline__ T thread_reduce(const T (&items)[N], Op op) {
  T total = items[0];
#pragma unroll
  for (int i = 1; i < N; ++i) total = op(total, items[i]);
  return total;
}

// In place: items[i] = seed op items[0] op ... op items[i]. Returns the last one.
template <int N, class T, class Op>
__device__ __forceinline__ T thread_inclusive_scan(T (&items)[N], T seed, Op op) {
  T running = seed;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    running = op(running, items[i]);
    items[i] = running;
  }
  return running;
}

// In place: items[i] = seed op items[0] op ... op items[i-1] (items[0] = seed). Returns the total
// seed op items[0] op ... op items[N-1].
template <int N, class T, class Op>
__device__ __forceinline__ T thread_exclusive_scan(T (&items)[N], T seed, Op op) {
  T running = seed;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    const T x = items[i];
    items[i] = running;
    running = op(running, x);
  }
  return running;
}

// ---- block prefix callbacks for multi-block scans ------------------------------------------------
//
// A callback is called as `T prefix = callback(block_aggregate)` by all 32 lanes of warp 0, after
// the block's total is known and before any thread's result is final; lane 0's return value is the
// prefix that every result of the block gets on its LEFT. Warp 0 may use warp collectives inside
// (a look-back can read 32 predecessors at once). Other warps never call it, so only warp 0's copy
// of a stateful callback is up to date.

// The same prefix for every tile: reduce-then-scan's spine result for a one-tile block.
template <class T>
struct ConstantBlockPrefix {
  T prefix;
  __device__ T operator()(const T&) const { return prefix; }
};

// A running total carried from tile to tile by one block that scans consecutive tiles (the scan
// phase of reduce-then-scan): returns the total so far, then adds this tile's aggregate on the right.
template <class T, class Op>
struct RunningBlockPrefix {
  T running;
  Op op;
  __device__ T operator()(const T& block_aggregate) {
    const T prefix = running;
    running = op(running, block_aggregate);
    return prefix;
  }
};

// ---- BlockScan ---------------------------------------------------------------------------------

template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD = 1>
class BlockScan {
 public:
  static_assert(BLOCK_THREADS % kWarpThreads == 0 && BLOCK_THREADS >= kWarpThreads && BLOCK_THREADS <= 1024,
                "BlockScan: BLOCK_THREADS must be a multiple of 32 in [32, 1024]");
  static_assert(ITEMS_PER_THREAD >= 1, "BlockScan: ITEMS_PER_THREAD must be at least 1");
  static_assert(std::is_trivially_copyable_v<T>, "BlockScan: T must be trivially copyable");

  static constexpr int kWarps = BLOCK_THREADS / kWarpThreads;
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;

  // Shared memory the scan needs: one value per warp plus two. Declare it in the kernel as
  //   __shared__ typename BlockScan<T, 256, 16>::TempStorage temp;
  struct TempStorage {
    T warp_totals[kWarps];  // a warp's total, then (after warp 0's scan) the total of the warps up
                            // to it, with the block's prefix on the left in the prefixed forms
    T block_prefix;         // prefixed forms: the callback's prefix
    T block_aggregate;      // prefixed forms: the block's total (without the prefix)
  };

  __device__ explicit BlockScan(TempStorage& storage) : temp_(storage) {}

  // -- a tile of ITEMS_PER_THREAD items per thread, blocked, scanned in place --

  // --8<-- [start:block_scan_api]
  template <class Op>
  __device__ void inclusive_scan(T (&items)[ITEMS_PER_THREAD], Op op, T& block_aggregate) {
    const T prefix = scan_thread_totals<false>(thread_reduce(items, op), op, block_aggregate, kNoPrefix);
    thread_inclusive_scan(items, prefix, op);
  }

  template <class Op>
  __device__ void exclusive_scan(T (&items)[ITEMS_PER_THREAD], Op op, T& block_aggregate) {
    const T prefix = scan_thread_totals<false>(thread_reduce(items, op), op, block_aggregate, kNoPrefix);
    thread_exclusive_scan(items, prefix, op);
  }

  template <class Op>
  __device__ void inclusive_scan(T (&items)[ITEMS_PER_THREAD], Op op) {
    T block_aggregate;
    inclusive_scan(items, op, block_aggregate);
  }

  template <class Op>
  __device__ void exclusive_scan(T (&items)[ITEMS_PER_THREAD], Op op) {
    T block_aggregate;
    exclusive_scan(items, op, block_aggregate);
  }

  // Multi-block forms: every result gets the prefix returned by prefix_callback(block_aggregate)
  // (see "block prefix callbacks" above) on its left; block_aggregate excludes that prefix.
  template <class Op, class PrefixCallback>
  __device__ void inclusive_scan_prefixed(T (&items)[ITEMS_PER_THREAD], Op op, PrefixCallback& prefix_callback,
                                          T& block_aggregate) {
    const T prefix = scan_thread_totals<true>(thread_reduce(items, op), op, block_aggregate, &prefix_callback);
    thread_inclusive_scan(items, prefix, op);
  }

  template <class Op, class PrefixCallback>
  __device__ void exclusive_scan_prefixed(T (&items)[ITEMS_PER_THREAD], Op op, PrefixCallback& prefix_callback,
                                          T& block_aggregate) {
    const T prefix = scan_thread_totals<true>(thread_reduce(items, op), op, block_aggregate, &prefix_callback);
    thread_exclusive_scan(items, prefix, op);
  }

  template <class Op, class PrefixCallback>
  __device__ void inclusive_scan_prefixed(T (&items)[ITEMS_PER_THREAD], Op op, PrefixCallback& prefix_callback) {
    T block_aggregate;
    inclusive_scan_prefixed(items, op, prefix_callback, block_aggregate);
  }

  template <class Op, class PrefixCallback>
  __device__ void exclusive_scan_prefixed(T (&items)[ITEMS_PER_THREAD], Op op, PrefixCallback& prefix_callback) {
    T block_aggregate;
    exclusive_scan_prefixed(items, op, prefix_callback, block_aggregate);
  }

  // -- one value per thread (the tile is BLOCK_THREADS values, in thread order) --

  // The inclusive forms combine the warp's prefix with the lane's inclusive warp scan directly: one
  // shuffle and one operator application fewer per thread than an exclusive scan plus x.
  template <class Op>
  __device__ T inclusive_scan(T x, Op op, T& block_aggregate) {
    const T inclusive = warp_inclusive_scan(x, op);
    bool has_left;
    const T left = scan_warp_totals<false>(inclusive, op, block_aggregate, kNoPrefix, has_left);
    return has_left ? op(left, inclusive) : inclusive;
  }

  template <class Op>
  __device__ T exclusive_scan(T x, Op op, T& block_aggregate) {
    return scan_thread_totals<false>(x, op, block_aggregate, kNoPrefix);
  }
  // --8<-- [end:block_scan_api]

  // The core: given each thread's total, returns each thread's exclusive prefix within the block
  // (with the callback's prefix on the left when PREFIXED), and the block's aggregate.
  // --8<-- [start:scan_thread_totals]
  template <bool PREFIXED, class Op, class PrefixCallback>
  __device__ T scan_thread_totals(T thread_total, Op op, T& block_aggregate, PrefixCallback* prefix_callback) {
    const T inclusive = warp_inclusive_scan(thread_total, op);  // step 2
    const T lane_below = warp_shuffle_up(inclusive, 1u);        // the lane prefix (not in lane 0)
    bool has_left;
    const T left = scan_warp_totals<PREFIXED>(inclusive, op, block_aggregate, prefix_callback, has_left);
    // Lane 0's lane prefix is the identity, and so is `left` where there is nothing to its left:
    // skip those combines (they would be exact anyway, but this keeps e.g. float -0.0 intact).
    if (lane_id() == 0) return left;
    return has_left ? op(left, lane_below) : lane_below;
  }

  // Step 3, given each lane's inclusive scan within its warp (lane 31's is the warp's total):
  // returns everything left of this thread's warp (with the callback's prefix on the left when
  // PREFIXED), and the block's aggregate. has_left is false where there is nothing to the left
  // (warp 0 without a prefix; the value returned is then the identity). Warp 0 scans the warp
  // totals inclusively and warp w reads the result of warp w - 1: the shortest path between the
  // two barriers, which every other warp waits on.
  template <bool PREFIXED, class Op, class PrefixCallback>
  __device__ T scan_warp_totals(const T& inclusive, Op op, T& block_aggregate, PrefixCallback* prefix_callback,
                                bool& has_left) {
    const int lane = lane_id();
    const int warp = warp_id();
    has_left = PREFIXED || warp > 0;
    if constexpr (kWarps == 1) {
      // One warp: the warp scan is the block scan; no shared memory, no barrier.
      block_aggregate = warp_shuffle(inclusive, kWarpThreads - 1);
      if constexpr (PREFIXED) return warp_shuffle((*prefix_callback)(block_aggregate), 0);
      else return Op::identity();
    } else {
      if (lane == kWarpThreads - 1) temp_.warp_totals[warp] = inclusive;
      __syncthreads();
      if (warp == 0) {
        const T mine = lane < kWarps ? temp_.warp_totals[lane] : Op::identity();
        T through_mine = warp_inclusive_scan(mine, op);
        if constexpr (PREFIXED) {
          const T aggregate = warp_shuffle(through_mine, kWarps - 1);
          const T block_prefix = warp_shuffle((*prefix_callback)(aggregate), 0);
          through_mine = op(block_prefix, through_mine);
          if (lane == 0) {
            temp_.block_prefix = block_prefix;
            temp_.block_aggregate = aggregate;
          }
        }
        if (lane < kWarps) temp_.warp_totals[lane] = through_mine;
      }
      __syncthreads();
      if constexpr (PREFIXED) block_aggregate = temp_.block_aggregate;
      else block_aggregate = temp_.warp_totals[kWarps - 1];
      if (warp > 0) return temp_.warp_totals[warp - 1];
      if constexpr (PREFIXED) return temp_.block_prefix;
      else return Op::identity();
    }
  }
  // --8<-- [end:scan_thread_totals]

 private:
  struct NoPrefix {
    __device__ T operator()(const T& x) const { return x; }
  };
  static constexpr NoPrefix* kNoPrefix = nullptr;

  TempStorage& temp_;
};

// ---- BlockReduce -------------------------------------------------------------------------------

// The total of a block's tile, in order: thread reduce, warp reduce (butterfly), and the warp
// totals combined in warp order. Work ~N + 5P + kWarps; depth I - 1 + 5 + kWarps, one barrier.
template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD = 1>
class BlockReduce {
 public:
  static_assert(BLOCK_THREADS % kWarpThreads == 0 && BLOCK_THREADS >= kWarpThreads && BLOCK_THREADS <= 1024,
                "BlockReduce: BLOCK_THREADS must be a multiple of 32 in [32, 1024]");
  static constexpr int kWarps = BLOCK_THREADS / kWarpThreads;
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;

  struct TempStorage {
    T warp_total[kWarps];
  };

  __device__ explicit BlockReduce(TempStorage& storage) : temp_(storage) {}

  // The tile's total, returned to EVERY thread of the block.
  template <class Op>
  __device__ T reduce(const T (&items)[ITEMS_PER_THREAD], Op op) {
    return reduce(thread_reduce(items, op), op);
  }

  // The total of one value per thread, in thread order, returned to every thread.
  // --8<-- [start:block_reduce]
  template <class Op>
  __device__ T reduce(T x, Op op) {
    const T warp_total = warp_reduce(x, op);
    if constexpr (kWarps == 1) {
      return warp_total;
    } else {
      if (lane_id() == 0) temp_.warp_total[warp_id()] = warp_total;
      __syncthreads();
      T total = temp_.warp_total[0];
#pragma unroll
      for (int w = 1; w < kWarps; ++w) total = op(total, temp_.warp_total[w]);
      return total;
    }
  }
  // --8<-- [end:block_reduce]

 private:
  TempStorage& temp_;
};

}  // namespace scanlab
