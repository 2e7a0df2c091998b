// scanlab/single_pass/protocol.cuh: how the tiles of a single-pass scan talk to each other
// (chapters 06 and 07, and the later chapters that build on them).
//
//   load_volatile, store_volatile   reading and writing what other blocks publish
//   load_published_word, ...        the same for a fused descriptor's 64-bit word, kept in the L2
//   TileOrder, dynamic_tile_index   a block's tile number: an atomic ticket (chapter 06)
//   Ticket, clear_stale             a launch's ticket, and the previous launch's descriptors that its
//                                   blocks clear, last, for the next one (no memset between scans)
//   Status                          a tile's status flag X / A / P (chapter 07)
//
// Builds on Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back"
// (NVR-2016-002): section 4.1 (the status flags) and 4.4 (dynamic tile ids).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>

namespace scanlab::single_pass {

// ---- reading and writing what other blocks publish ----------------------------------------------
// Volatile accesses go to the L2 cache, which all SMs share; a plain load could be served by this
// SM's L1, which is not coherent with other SMs' stores. On the emulator a volatile read is also a
// polling step (the thread may yield to other blocks). Values are moved as 32-bit words so that any
// trivially copyable T works (a volatile struct assignment would not compile).

template <class T>
__device__ __forceinline__ T load_volatile(const T* p) {
  static_assert(sizeof(T) % 4 == 0, "published values are moved as 32-bit words");
  T v;
  if constexpr (sizeof(T) == 8) {
    const unsigned long long w = *reinterpret_cast<const volatile unsigned long long*>(p);
    memcpy(&v, &w, 8);
  } else {
    unsigned w[sizeof(T) / 4];
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i) w[i] = reinterpret_cast<const volatile unsigned*>(p)[i];
    memcpy(&v, w, sizeof(T));
  }
  return v;
}

template <class T>
__device__ __forceinline__ void store_volatile(T* p, const T& v) {
  static_assert(sizeof(T) % 4 == 0, "published values are moved as 32-bit words");
  if constexpr (sizeof(T) == 8) {
    unsigned long long w;
    memcpy(&w, &v, 8);
    *reinterpret_cast<volatile unsigned long long*>(p) = w;
  } else {
    unsigned w[sizeof(T) / 4];
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < int(sizeof(T) / 4); ++i) reinterpret_cast<volatile unsigned*>(p)[i] = w[i];
  }
}

// A fused descriptor's 64-bit word (lookback.cuh), one access each way. On a GPU of compute
// capability 8.0 or newer, a relaxed access at GPU scope: single-copy atomic as the volatile one is,
// and enough for the blocks of one GPU (a volatile access is relaxed at system scope). It carries an
// L2 cache policy that keeps the word's line (evict_last): the words of the tiles in flight are read
// again and again by the look-backs while every tile's bytes stream through the same L2 (staged
// with evict_first, read_once_copy.cuh). On an H200 a look-back's window of 32 words took about
// 1.1 us without the hints and 1.0 with them, and chapter 08's partition at 2^26 went from 0.82-0.84
// to 0.84 of a copy's speed with this hint, 0.84-0.85 with the copies' too (book, chapter 08,
// "Measured"). Elsewhere, and on the emulator, where a volatile read is also a polling step:
// store_volatile and load_volatile.
__device__ __forceinline__ void store_published_word(unsigned long long* p, unsigned long long word) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("st.relaxed.gpu.global.L2::cache_hint.b64 [%0], %1, %2;" ::"l"(__cvta_generic_to_global(p)), "l"(word),
               "l"(policy)
               : "memory");
#else
  store_volatile(p, word);
#endif
}

__device__ __forceinline__ unsigned long long load_published_word(const unsigned long long* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  unsigned long long word, policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("ld.relaxed.gpu.global.L2::cache_hint.b64 %0, [%1], %2;"
               : "=l"(word)
               : "l"(__cvta_generic_to_global(p)), "l"(policy)
               : "memory");
  return word;
#else
  return load_volatile(p);
#endif
}

// ---- the tile number --------------------------------------------------------------------------

// How a block finds its tile.
enum class TileOrder {
  ticket,       // atomicAdd on a counter: the order in which blocks start (always safe)
  block_index,  // blockIdx.x: deadlocks when a later block is resident before an earlier one
};

// This block's tile number, in every thread (chapter 06's ticket: tile t's block has started before
// tile t + 1's, so waiting for a lower-numbered tile always ends). `ticket` is zero before the
// launch. Contains a __syncthreads: every thread of the block must call it.
__device__ __forceinline__ unsigned dynamic_tile_index(unsigned* ticket, TileOrder order, unsigned& shared_slot) {
  if (threadIdx.x == 0) shared_slot = order == TileOrder::ticket ? atomicAdd(ticket, 1u) : blockIdx.x;
  __syncthreads();
  return shared_slot;
}

// A launch's ticket, as DescriptorStorage hands it out. Its storage has two sides, used by
// launches in turn: this launch takes tile numbers from `counter` (zero before the launch) and
// publishes on its own side, while its blocks clear the other side, which the previous launch left
// dirty: its counter and status words, `stale_words` 32-bit words at `stale`. So the next launch
// finds its side at zero without a cudaMemsetAsync before it: a separate operation on the stream,
// which the launch would wait for.
struct Ticket {
  unsigned* counter;
  unsigned* stale;
  std::size_t stale_words;
};

// Every thread of every block, as the kernel's last statement: zero this block's share of the
// previous launch's words (a grid-stride loop: one or two stores per thread after a launch no
// larger than this one, more after a larger one; nothing of this launch reads them). Last,
// because at the start its loop would hold registers while the tile is loaded: on the H100 that
// made chapter 08's partition spill and took it 1.5x longer.
__device__ __forceinline__ void clear_stale(const Ticket& ticket) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < ticket.stale_words;
       i += stride)
    ticket.stale[i] = 0;
}

// ---- what a tile publishes ----------------------------------------------------------------------

// A tile's status flag (paper, section 4.1). Zero is X, so that zeroed words (cleared by the scan
// before, see Ticket) read as "nothing published".
enum Status : unsigned {
  kInvalid = 0,    // X: nothing published yet
  kAggregate = 1,  // A: the tile's own aggregate is available
  kPrefix = 2,     // P: the tile's inclusive prefix is available
};

}  // namespace scanlab::single_pass
