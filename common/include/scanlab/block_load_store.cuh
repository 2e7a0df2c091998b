// scanlab/block_load_store.cuh: moving a thread block's tile between global memory and registers.
//
// Builds on GPU Gems 3 ch. 39.2.5 (Lichterman's float4 loads: more elements per thread, fetched in
// wide loads) and on CUB's BlockLoad/BlockStore and BlockExchange (the "warp/block transpose"
// algorithms and their padded shared-memory layout).
//
// The scans want the BLOCKED arrangement: thread t holds tile items [t * I, (t + 1) * I) (I =
// ITEMS_PER_THREAD), so that it can scan them sequentially. Global memory wants the STRIPED one:
// in each load instruction the 32 lanes of a warp read 32 neighbouring elements (or 32 neighbouring
// 16-byte vectors), which the memory system serves as few, fully used transactions. Two ways to
// reconcile them:
//
//   TileIo::direct     each thread reads or writes its own I consecutive items, as 16-byte vectors
//                      where possible. No shared memory and no barrier, but each warp instruction
//                      touches 32 addresses I * sizeof(T) bytes apart, so the hardware needs more
//                      transactions per useful byte (the caches catch the rest).
//   TileIo::transpose  global accesses striped (and 16-byte vectorised), the rearrangement done in
//                      shared memory: one write, __syncthreads, one read. Element i of the tile sits
//                      at slot i + i / 32, a pad word every 32 elements, so that a warp reading
//                      blocked items (32 addresses I elements apart) hits 32 different banks for
//                      4-byte types instead of 32 / gcd(I, 32)-way conflicts (chapter 03).
//
// Full tiles (all BLOCK_THREADS * I items valid) use 16-byte vector accesses when sizeof(T) divides
// 16, I is a multiple of the vector width and the tile's address is 16-byte aligned (cudaMalloc
// gives 256-byte alignment, so this fails only for pointers into the middle of an array); otherwise,
// and for the partial last tile, each element is accessed on its own and guarded with `valid`.
//
// Rules: every thread of the block calls load/store (the transpose forms contain a barrier);
// blockDim.x == BLOCK_THREADS; a __syncthreads() must separate one use of a TempStorage from the
// next one (a load followed by a store into the same storage, or the next tile's load).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace scanlab {

enum class TileIo { direct, transpose };

namespace tile_detail {

// Elements of T per 16-byte vector, or 0 when vectors cannot carry T.
template <class T>
inline constexpr int kVecItems = (sizeof(T) <= 16 && 16 % sizeof(T) == 0) ? static_cast<int>(16 / sizeof(T)) : 0;

template <class T, int ITEMS>
inline constexpr bool kCanVectorize = kVecItems<T> > 0 && ITEMS % kVecItems<T> == 0;

__device__ __forceinline__ bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

// Padded shared-memory slot of tile element i.
__device__ __forceinline__ int padded_slot(int i) { return i + i / 32; }

// The same slots written as (per-thread base) + (compile-time offset), so that a thread keeps one
// address register instead of one per item (the compiler cannot see through the division itself).
// Each form relies on whole 32-element rows, which the static_asserts of the callers guarantee.
template <int BLOCK_THREADS>
struct PaddedStriped {  // element k * BLOCK_THREADS + t
  static constexpr int kRow = BLOCK_THREADS + BLOCK_THREADS / 32;
  __device__ __forceinline__ static int base(int t) { return t + t / 32; }
  __device__ __forceinline__ static constexpr int offset(int k) { return k * kRow; }
};

template <int BLOCK_THREADS, int V>
struct PaddedVectorStriped {  // element (k * BLOCK_THREADS + t) * V + c, V dividing 32
  static constexpr int kRow = BLOCK_THREADS * V + BLOCK_THREADS * V / 32;
  __device__ __forceinline__ static int base(int t) { return t * V + (t * V) / 32; }
  __device__ __forceinline__ static constexpr int offset(int k, int c) { return k * kRow + c; }
};

template <int ITEMS>
struct PaddedBlocked {  // element t * ITEMS + i
  static constexpr bool kSplit = ITEMS % 32 == 0 || 32 % ITEMS == 0;
  __device__ __forceinline__ static int base(int t) {
    if constexpr (ITEMS % 32 == 0) return t * (ITEMS + ITEMS / 32);
    else if constexpr (32 % ITEMS == 0) return t * ITEMS + (t * ITEMS) / 32;
    else return t * ITEMS;
  }
  __device__ __forceinline__ static int slot(int base_of_t, int t, int i) {
    if constexpr (ITEMS % 32 == 0) return base_of_t + i + i / 32;
    else if constexpr (32 % ITEMS == 0) return base_of_t + i;
    else return padded_slot(t * ITEMS + i);
  }
};

}  // namespace tile_detail

// ---- direct, blocked: thread t's items are tile[t * I .. t * I + I) ---------------------------

// Full tile.
// --8<-- [start:load_blocked_direct]
template <int ITEMS_PER_THREAD, class T>
__device__ __forceinline__ void load_blocked_direct(const T* tile, T (&items)[ITEMS_PER_THREAD]) {
  const T* mine = tile + static_cast<int>(threadIdx.x) * ITEMS_PER_THREAD;
  if constexpr (tile_detail::kCanVectorize<T, ITEMS_PER_THREAD>) {
    if (tile_detail::aligned16(tile)) {
      constexpr int kV = tile_detail::kVecItems<T>;
      const uint4* vectors = reinterpret_cast<const uint4*>(mine);
#pragma unroll
      for (int v = 0; v < ITEMS_PER_THREAD / kV; ++v) {
        const uint4 word = vectors[v];
        memcpy(&items[v * kV], &word, 16);
      }
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) items[i] = mine[i];
}
// --8<-- [end:load_blocked_direct]

// Partial tile: items at tile positions >= valid get `fill` (the operator's identity, so that they
// change no prefix).
template <int ITEMS_PER_THREAD, class T>
__device__ __forceinline__ void load_blocked_direct(const T* tile, T (&items)[ITEMS_PER_THREAD], int valid, T fill) {
  const int first = static_cast<int>(threadIdx.x) * ITEMS_PER_THREAD;
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) items[i] = first + i < valid ? tile[first + i] : fill;
}

template <int ITEMS_PER_THREAD, class T>
__device__ __forceinline__ void store_blocked_direct(T* tile, const T (&items)[ITEMS_PER_THREAD]) {
  T* mine = tile + static_cast<int>(threadIdx.x) * ITEMS_PER_THREAD;
  if constexpr (tile_detail::kCanVectorize<T, ITEMS_PER_THREAD>) {
    if (tile_detail::aligned16(tile)) {
      constexpr int kV = tile_detail::kVecItems<T>;
      uint4* vectors = reinterpret_cast<uint4*>(mine);
#pragma unroll
      for (int v = 0; v < ITEMS_PER_THREAD / kV; ++v) {
        uint4 word;
        memcpy(&word, &items[v * kV], 16);
        vectors[v] = word;
      }
      return;
    }
  }
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) mine[i] = items[i];
}

template <int ITEMS_PER_THREAD, class T>
__device__ __forceinline__ void store_blocked_direct(T* tile, const T (&items)[ITEMS_PER_THREAD], int valid) {
  const int first = static_cast<int>(threadIdx.x) * ITEMS_PER_THREAD;
#pragma unroll
  for (int i = 0; i < ITEMS_PER_THREAD; ++i) {
    if (first + i < valid) tile[first + i] = items[i];
  }
}

// ---- BlockLoad / BlockStore --------------------------------------------------------------------

template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD, TileIo IO = TileIo::transpose>
class BlockLoad;

template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD, TileIo IO = TileIo::transpose>
class BlockStore;

// Direct: no shared memory (TempStorage is a placeholder so that both forms are used alike).
template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD>
class BlockLoad<T, BLOCK_THREADS, ITEMS_PER_THREAD, TileIo::direct> {
 public:
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;
  struct TempStorage {
    unsigned char unused;
  };
  __device__ explicit BlockLoad(TempStorage&) {}
  __device__ void load(const T* tile, T (&items)[ITEMS_PER_THREAD]) { load_blocked_direct(tile, items); }
  __device__ void load(const T* tile, T (&items)[ITEMS_PER_THREAD], int valid, T fill) {
    load_blocked_direct(tile, items, valid, fill);
  }
};

template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD>
class BlockStore<T, BLOCK_THREADS, ITEMS_PER_THREAD, TileIo::direct> {
 public:
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;
  struct TempStorage {
    unsigned char unused;
  };
  __device__ explicit BlockStore(TempStorage&) {}
  __device__ void store(T* tile, const T (&items)[ITEMS_PER_THREAD]) { store_blocked_direct(tile, items); }
  __device__ void store(T* tile, const T (&items)[ITEMS_PER_THREAD], int valid) {
    store_blocked_direct(tile, items, valid);
  }
};

// Transpose: striped global accesses, blocked registers, padded shared memory in between.
// Shared memory: (BLOCK_THREADS * I) * 33 / 32 elements (4.1 KiB per 1K 4-byte items).
template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD>
class BlockLoad<T, BLOCK_THREADS, ITEMS_PER_THREAD, TileIo::transpose> {
 public:
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;
  struct TempStorage {
    T slots[kTileItems + kTileItems / 32];
  };
  __device__ explicit BlockLoad(TempStorage& storage) : temp_(storage) {}

  // Full tile.
  // --8<-- [start:load_transpose]
  __device__ void load(const T* tile, T (&items)[ITEMS_PER_THREAD]) {
    const int t = static_cast<int>(threadIdx.x);
    bool done = false;
    if constexpr (tile_detail::kCanVectorize<T, ITEMS_PER_THREAD>) {
      if (tile_detail::aligned16(tile)) {
        // Vector v = k * BLOCK_THREADS + t holds tile items v * kV .. v * kV + kV - 1: in every
        // iteration the warp reads 32 consecutive 16-byte vectors (512 contiguous bytes).
        constexpr int kV = tile_detail::kVecItems<T>;
        using Slots = tile_detail::PaddedVectorStriped<BLOCK_THREADS, kV>;
        const uint4* vectors = reinterpret_cast<const uint4*>(tile) + t;
        T* slots = temp_.slots + Slots::base(t);
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD / kV; ++k) {
          const uint4 word = vectors[k * BLOCK_THREADS];
          T part[kV];
          memcpy(part, &word, 16);
#pragma unroll
          for (int c = 0; c < kV; ++c) slots[Slots::offset(k, c)] = part[c];
        }
        done = true;
      }
    }
    if (!done) {
      using Slots = tile_detail::PaddedStriped<BLOCK_THREADS>;
      T* slots = temp_.slots + Slots::base(t);
#pragma unroll
      for (int k = 0; k < ITEMS_PER_THREAD; ++k) slots[Slots::offset(k)] = tile[k * BLOCK_THREADS + t];
    }
    __syncthreads();
    read_blocked(items);
  }
  // --8<-- [end:load_transpose]

  // Partial tile: positions >= valid get `fill`.
  __device__ void load(const T* tile, T (&items)[ITEMS_PER_THREAD], int valid, T fill) {
    const int t = static_cast<int>(threadIdx.x);
    using Slots = tile_detail::PaddedStriped<BLOCK_THREADS>;
    T* slots = temp_.slots + Slots::base(t);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
      const int i = k * BLOCK_THREADS + t;
      slots[Slots::offset(k)] = i < valid ? tile[i] : fill;
    }
    __syncthreads();
    read_blocked(items);
  }

 private:
  __device__ void read_blocked(T (&items)[ITEMS_PER_THREAD]) {
    using Slots = tile_detail::PaddedBlocked<ITEMS_PER_THREAD>;
    const int t = static_cast<int>(threadIdx.x);
    const int base = Slots::base(t);
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) items[i] = temp_.slots[Slots::slot(base, t, i)];
  }

  TempStorage& temp_;
};

template <class T, int BLOCK_THREADS, int ITEMS_PER_THREAD>
class BlockStore<T, BLOCK_THREADS, ITEMS_PER_THREAD, TileIo::transpose> {
 public:
  static constexpr int kTileItems = BLOCK_THREADS * ITEMS_PER_THREAD;
  struct TempStorage {
    T slots[kTileItems + kTileItems / 32];
  };
  __device__ explicit BlockStore(TempStorage& storage) : temp_(storage) {}

  // Full tile.
  __device__ void store(T* tile, const T (&items)[ITEMS_PER_THREAD]) {
    write_blocked(items);
    __syncthreads();
    const int t = static_cast<int>(threadIdx.x);
    if constexpr (tile_detail::kCanVectorize<T, ITEMS_PER_THREAD>) {
      if (tile_detail::aligned16(tile)) {
        constexpr int kV = tile_detail::kVecItems<T>;
        using Slots = tile_detail::PaddedVectorStriped<BLOCK_THREADS, kV>;
        uint4* vectors = reinterpret_cast<uint4*>(tile) + t;
        const T* slots = temp_.slots + Slots::base(t);
#pragma unroll
        for (int k = 0; k < ITEMS_PER_THREAD / kV; ++k) {
          T part[kV];
#pragma unroll
          for (int c = 0; c < kV; ++c) part[c] = slots[Slots::offset(k, c)];
          uint4 word;
          memcpy(&word, part, 16);
          vectors[k * BLOCK_THREADS] = word;
        }
        return;
      }
    }
    using Slots = tile_detail::PaddedStriped<BLOCK_THREADS>;
    const T* slots = temp_.slots + Slots::base(t);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) tile[k * BLOCK_THREADS + t] = slots[Slots::offset(k)];
  }

  // Partial tile: only positions < valid are written.
  __device__ void store(T* tile, const T (&items)[ITEMS_PER_THREAD], int valid) {
    write_blocked(items);
    __syncthreads();
    const int t = static_cast<int>(threadIdx.x);
    using Slots = tile_detail::PaddedStriped<BLOCK_THREADS>;
    const T* slots = temp_.slots + Slots::base(t);
#pragma unroll
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) {
      const int i = k * BLOCK_THREADS + t;
      if (i < valid) tile[i] = slots[Slots::offset(k)];
    }
  }

 private:
  __device__ void write_blocked(const T (&items)[ITEMS_PER_THREAD]) {
    using Slots = tile_detail::PaddedBlocked<ITEMS_PER_THREAD>;
    const int t = static_cast<int>(threadIdx.x);
    const int base = Slots::base(t);
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; ++i) temp_.slots[Slots::slot(base, t, i)] = items[i];
  }

  TempStorage& temp_;
};

}  // namespace scanlab
