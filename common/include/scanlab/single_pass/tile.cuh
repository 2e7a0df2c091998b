// scanlab/single_pass/tile.cuh: the tile work of the single-pass scans (chapters 06 and 07, and
// the later chapters that build on them): how one thread block loads its tile, reduces it, scans it
// once the tile's prefix is known, and stores it.
//
// Builds on Merrill and Garland (NVR-2016-002, sections 3.1 and 4): a single-pass scan reads n and
// writes n elements, so the block-level work must be cheap enough to hide behind the memory traffic;
// and the tile's aggregate must be known (and published) before the block's local scan is finished,
// so that successors never wait for a block's downsweep. It uses the warp shuffles and warp scans of
// scanlab/warp_scan.cuh (chapter 04).
//
// The arrangement: WARP-STRIPED VECTORS. A warp owns WARP_ITEMS = 32 * ITEMS consecutive elements of
// the tile, seen as ROWS rows of 32 vectors of VEC elements (VEC * sizeof(T) = 16 bytes when T fits):
//
//     warp segment = row 0: lane 0 | lane 1 | ... | lane 31    (32 * VEC consecutive elements)
//                    row 1: lane 0 | lane 1 | ... | lane 31
//                    ...
//
// Every load or store instruction of a warp moves 32 neighbouring 16-byte vectors, 512 contiguous
// bytes: perfectly coalesced, with no shared-memory transpose and no barrier. The price is that a
// thread's elements are not consecutive: it holds one VEC-run per row. So the scan is done per row
// (a sequential fold of VEC elements, then a Kogge-Stone warp scan across the 32 lanes) and the rows
// of a warp are chained in order; ROWS warp scans run side by side, so their shuffles overlap.
//
// Phases of one tile (the chapter kernels add the inter-tile protocol between 2 and 3):
//   1. load      ROWS vector loads per thread (guarded scalar loads for the last, partial tile)
//   2. reduce    row folds and warp scans (registers and shuffles only); one value per warp goes to
//                shared memory; after ONE __syncthreads every thread knows the block aggregate and
//                its warp's exclusive prefix
//   3. scan      once the tile's exclusive prefix is known: each thread rescans its VEC-runs seeded
//                with (tile prefix, warp prefix, row prefix, lane prefix), in place
//   4. store     ROWS vector stores per thread (guarded for the partial tile)
// Operators need not be commutative: elements further left are always the left operand.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <scanlab/warp_scan.cuh>

namespace scanlab::single_pass {

// The tile shape: BLOCK_THREADS threads with ITEMS elements each.
template <class T, int BLOCK_THREADS_, int ITEMS_>
struct TileShape {
  static constexpr int BLOCK_THREADS = BLOCK_THREADS_;
  static constexpr int ITEMS = ITEMS_;
  static_assert(BLOCK_THREADS % 32 == 0 && BLOCK_THREADS >= 32 && BLOCK_THREADS <= 1024,
                "BLOCK_THREADS must be a multiple of 32 in [32, 1024]");
  static_assert(ITEMS >= 1, "ITEMS must be at least 1");
  static_assert(std::is_trivially_copyable_v<T>, "scanned values must be trivially copyable");

  // Elements per 16-byte vector, when whole vectors carry T and ITEMS is a multiple of it; else 1.
  static constexpr int kVecCandidate = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? int(16 / sizeof(T)) : 1;
  static constexpr int VEC = (ITEMS % kVecCandidate == 0) ? kVecCandidate : 1;
  static constexpr bool VECTORIZABLE = VEC * sizeof(T) == 16;
  static constexpr int ROWS = ITEMS / VEC;
  static constexpr int WARPS = BLOCK_THREADS / 32;
  static constexpr int WARP_ITEMS = 32 * ITEMS;
  static constexpr int TILE_ITEMS = BLOCK_THREADS * ITEMS;

  // Tile offset of element k of row r of `lane` in `warp`.
  static __device__ __forceinline__ int offset(int warp, int lane, int r, int k) {
    return warp * WARP_ITEMS + r * (32 * VEC) + lane * VEC + k;
  }
};

// Whether a pointer allows the 16-byte vector path (cudaMalloc gives 256-byte alignment; a pointer
// into the middle of an array may not).
__host__ __device__ inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// ---- 1. load and 4. store -------------------------------------------------------------------

// Full tile. VECTORIZED: 16-byte loads (the caller checked aligned16 for the whole array; tiles
// start at multiples of TILE_ITEMS elements, so every vector is aligned too). Every element is read
// once and written once, so both go out with the streaming hint (__ldcs, __stcs: "evict first"),
// leaving L2 to what is reused, such as the tiles' descriptors (measured: 2-4% faster at 2^28 on an
// H200).
// --8<-- [start:load_tile]
template <class Shape, class T>
__device__ __forceinline__ void load_full_tile(const T* tile, T (&items)[Shape::ITEMS], bool vectorized) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  if constexpr (Shape::VECTORIZABLE) {
    if (vectorized) {
      const uint4* vectors = reinterpret_cast<const uint4*>(tile + Shape::offset(warp, lane, 0, 0));
#pragma unroll
      for (int r = 0; r < Shape::ROWS; ++r) {
        const uint4 word = __ldcs(&vectors[r * 32]);  // row r: the warp reads 32 neighbouring vectors
        memcpy(&items[r * Shape::VEC], &word, 16);
      }
      return;
    }
  }
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) items[r * Shape::VEC + k] = tile[Shape::offset(warp, lane, r, k)];
  }
}
// --8<-- [end:load_tile]

// A full tile staged in shared memory (chapter 11: an asynchronous copy put it there, in the
// array's own order). The same warp-striped reads as from global memory: each row of a warp is 32
// neighbouring 16-byte vectors, 512 contiguous bytes, so a warp's read touches every bank once
// (the fewest wavefronts a 16-byte read can take). Plain loads: the streaming hint is for global
// memory.
// --8<-- [start:load_staged_tile]
template <class Shape, class T>
__device__ __forceinline__ void load_staged_tile(const T* stage, T (&items)[Shape::ITEMS]) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  if constexpr (Shape::VECTORIZABLE) {
    const uint4* vectors = reinterpret_cast<const uint4*>(stage + Shape::offset(warp, lane, 0, 0));
#pragma unroll
    for (int r = 0; r < Shape::ROWS; ++r) {
      const uint4 word = vectors[r * 32];
      memcpy(&items[r * Shape::VEC], &word, 16);
    }
  } else {
#pragma unroll
    for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
      for (int k = 0; k < Shape::VEC; ++k) items[r * Shape::VEC + k] = stage[Shape::offset(warp, lane, r, k)];
    }
  }
}
// --8<-- [end:load_staged_tile]

// The other way: a thread's items back to the stage, to the places load_staged_tile read them from
// (chapter 10 leaves a tile's first pass there for its second).
template <class Shape, class T>
__device__ __forceinline__ void store_staged_tile(T* stage, const T (&items)[Shape::ITEMS]) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  if constexpr (Shape::VECTORIZABLE) {
    uint4* vectors = reinterpret_cast<uint4*>(stage + Shape::offset(warp, lane, 0, 0));
#pragma unroll
    for (int r = 0; r < Shape::ROWS; ++r) {
      uint4 word;
      memcpy(&word, &items[r * Shape::VEC], 16);
      vectors[r * 32] = word;
    }
  } else {
#pragma unroll
    for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
      for (int k = 0; k < Shape::VEC; ++k) stage[Shape::offset(warp, lane, r, k)] = items[r * Shape::VEC + k];
    }
  }
}

// The last tile: elements at tile offsets >= valid are `fill` (the identity: they change no prefix).
template <class Shape, class T>
__device__ __forceinline__ void load_partial_tile(const T* tile, T (&items)[Shape::ITEMS], int valid, T fill) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int i = Shape::offset(warp, lane, r, k);
      items[r * Shape::VEC + k] = i < valid ? tile[i] : fill;
    }
  }
}

template <class Shape, class T>
__device__ __forceinline__ void store_full_tile(T* tile, const T (&items)[Shape::ITEMS], bool vectorized) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  if constexpr (Shape::VECTORIZABLE) {
    if (vectorized) {
      uint4* vectors = reinterpret_cast<uint4*>(tile + Shape::offset(warp, lane, 0, 0));
#pragma unroll
      for (int r = 0; r < Shape::ROWS; ++r) {
        uint4 word;
        memcpy(&word, &items[r * Shape::VEC], 16);
        __stcs(&vectors[r * 32], word);
      }
      return;
    }
  }
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) tile[Shape::offset(warp, lane, r, k)] = items[r * Shape::VEC + k];
  }
}

template <class Shape, class T>
__device__ __forceinline__ void store_partial_tile(T* tile, const T (&items)[Shape::ITEMS], int valid) {
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int i = Shape::offset(warp, lane, r, k);
      if (i < valid) tile[i] = items[r * Shape::VEC + k];
    }
  }
}

// ---- 2. reduce ------------------------------------------------------------------------------

// What a thread keeps between the reduction and the final scan: for each of its rows, the
// combination of everything in its warp's segment before its VEC-run (row prefix, lane prefix).
template <class Shape, class T>
struct ThreadSeeds {
  T row[Shape::ROWS];
};

// Per warp, no shared memory: fills seeds (exclusive prefixes of the thread's runs within the warp
// segment) and returns the warp's total (in every lane).
// --8<-- [start:warp_reduce_rows]
template <class Shape, class T, class Op>
__device__ __forceinline__ T warp_segment_scan(const T (&items)[Shape::ITEMS], ThreadSeeds<Shape, T>& seeds, Op op) {
  const int lane = scanlab::lane_id();
  T inclusive[Shape::ROWS];
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {  // fold each VEC-run, left to right
    T run = items[r * Shape::VEC];
#pragma unroll
    for (int k = 1; k < Shape::VEC; ++k) run = op(run, items[r * Shape::VEC + k]);
    inclusive[r] = run;
  }
  // Kogge-Stone across the lanes, all rows at once (their shuffles are independent).
#pragma unroll
  for (int d = 1; d < 32; d *= 2) {
#pragma unroll
    for (int r = 0; r < Shape::ROWS; ++r) {
      const T left = scanlab::warp_shuffle_up(inclusive[r], static_cast<unsigned>(d));
      if (lane >= d) inclusive[r] = op(left, inclusive[r]);
    }
  }
  // Rows follow each other: row r's elements come after the totals of rows 0 .. r-1.
  T rows_before = Op::identity();
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    const T lane_before = scanlab::warp_shuffle_up(inclusive[r], 1u);
    const T row_total = scanlab::warp_shuffle(inclusive[r], 31);
    seeds.row[r] = lane == 0 ? rows_before : op(rows_before, lane_before);
    rows_before = r == 0 ? row_total : op(rows_before, row_total);
  }
  return rows_before;
}
// --8<-- [end:warp_reduce_rows]

// Shared memory of the block-level step: one value per warp.
template <class Shape, class T>
struct WarpTotals {
  T warp[Shape::WARPS];
};

// Block level. Lane 0 of every warp writes its warp's total; after the barrier every thread folds
// the (few) warp totals in order, getting the block aggregate and its own warp's exclusive prefix.
// Contains one __syncthreads: every thread of the block must call it.
// --8<-- [start:block_reduce]
template <class Shape, class T, class Op>
__device__ __forceinline__ T block_aggregate_and_warp_prefix(T warp_total, WarpTotals<Shape, T>& shared, Op op,
                                                             T& warp_prefix) {
  const int warp = scanlab::warp_id();
  if (scanlab::lane_id() == 0) shared.warp[warp] = warp_total;
  __syncthreads();
  T total = shared.warp[0];
  warp_prefix = Op::identity();
#pragma unroll
  for (int w = 1; w < Shape::WARPS; ++w) {
    if (w == warp) warp_prefix = total;
    total = op(total, shared.warp[w]);
  }
  return total;
}
// --8<-- [end:block_reduce]

// A tile of several chunks (the staged kernels of chapters 10 and 11), whose warps' totals of each
// chunk sit in shared memory: given `running`, everything before the chunk, returns what comes
// before this thread's warp's part of it, and moves `running` past the whole chunk (in warp order).
template <int WARPS, class V, class Op>
__device__ __forceinline__ V fold_chunk_warp_totals(V& running, const V (&warp_totals)[WARPS], int warp, Op op) {
  V before = running;
#pragma unroll
  for (int w = 0; w < WARPS; ++w) {
    if (w == warp) before = running;
    running = op(running, warp_totals[w]);
  }
  return before;
}

// ---- 3. scan --------------------------------------------------------------------------------

// In place: every element becomes its exclusive (or inclusive) prefix, given `before` = everything
// in the array before this thread's warp segment (tile prefix op warp prefix).
// --8<-- [start:scan_rows]
template <bool INCLUSIVE, class Shape, class T, class Op>
__device__ __forceinline__ void scan_thread_runs(T (&items)[Shape::ITEMS], const ThreadSeeds<Shape, T>& seeds, T before,
                                                 Op op) {
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    T running = op(before, seeds.row[r]);
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const T x = items[r * Shape::VEC + k];
      if constexpr (INCLUSIVE) {
        running = op(running, x);
        items[r * Shape::VEC + k] = running;
      } else {
        items[r * Shape::VEC + k] = running;
        running = op(running, x);
      }
    }
  }
}
// --8<-- [end:scan_rows]

// Tiles of Shape for n elements (host): the grid of a one-tile-per-block launch, and what its
// descriptors are sized for.
template <class Shape>
constexpr std::size_t tiles_for(std::size_t n) {
  return (n + Shape::TILE_ITEMS - 1) / Shape::TILE_ITEMS;
}

// Elements of the tile that exist (TILE_ITEMS except for the last tile).
template <class Shape>
__device__ __forceinline__ int valid_in_tile(std::size_t n, unsigned tile) {
  const std::size_t start = static_cast<std::size_t>(tile) * Shape::TILE_ITEMS;
  const std::size_t left = n - start;
  return left < static_cast<std::size_t>(Shape::TILE_ITEMS) ? static_cast<int>(left) : Shape::TILE_ITEMS;
}

}  // namespace scanlab::single_pass
