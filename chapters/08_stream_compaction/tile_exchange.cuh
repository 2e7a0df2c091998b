// Chapter 08, given: how a single-pass compaction packs a tile's kept elements in shared memory and
// stores them densely. Both single-pass kernels use these steps (the one-tile kernel in
// stream_compaction_single_pass_dispatch.cuh, and the two-tile kernel of large select-ifs and
// partitions in compact_two_tile.cuh); nothing here needs changing.
//
// A thread holds Shape::ITEMS elements in the single-pass library's warp-striped order
// (scanlab/single_pass/tile.cuh): one run of VEC consecutive elements per row, the warp's segment
// row 0 of lanes 0..31, then row 1, and so on.
//   rank      one keep bit per element; each run's place among the kept elements of the warp's
//             segment, from bit-sliced ballots across the lanes (the three-phase scatter's way;
//             the two-tile kernel: from one warp scan of the runs' counts packed into bytes);
//   exchange  every kept element to shared memory at its rank in the tile, so that the kept ones
//             lie there densely and in input order (partition: the rejected ones after them, in
//             input order in the one-tile kernel, in output order, the last first, in the two-tile
//             kernel's chunks);
//   store     consecutive threads copy consecutive slots out: every warp's stores are dense and
//             coalesced, whatever fraction is kept (the two-tile kernel's in whole 16-byte vectors,
//             realigned from the slots; below).
#pragma once

#include <cstddef>
#include <type_traits>

#include <cuda_runtime.h>

#include <scanlab/warp_scan.cuh>

namespace ch08 {

// Bits of a count 0..VEC (a run's kept elements): 3 for VEC = 4.
template <int VEC>
constexpr int kRunCountBits = VEC < 2 ? 1 : 1 + kRunCountBits<VEC / 2>;

// Exclusive scan across the 32 lanes of counts below 2^BITS, by bit slices (the three-phase
// version's warp_offsets_bit_sliced, for any width): __ballot_sync of bit b of every lane's count is
// column b of the counts in binary; its popc below this lane counts the earlier counts with bit b
// set, each worth 2^b. Returns the sum of the counts of the lanes below; `total` gets all 32 lanes'.
// Called by all 32 lanes of a warp.
template <int BITS>
__device__ __forceinline__ unsigned lanes_before_bit_sliced(unsigned count, unsigned& total) {
  const unsigned below = scanlab::lanes_below_mask(scanlab::lane_id());
  unsigned before = 0;
  total = 0;
#pragma unroll
  for (int b = 0; b < BITS; ++b) {
    const unsigned column = __ballot_sync(scanlab::kFullWarpMask, (count >> b) & 1u);
    before += static_cast<unsigned>(__popc(column & below)) << b;
    total += static_cast<unsigned>(__popc(column)) << b;
  }
  return before;
}

// Keep bits of a thread's elements, bit j for items[j]: the predicate, for elements of the tile's
// first `valid` only (kFull: the tile is whole, and no element is checked against `valid`).
template <class Shape, bool kFull = false, class T, class Pred>
__device__ __forceinline__ unsigned keep_bits(const T (&items)[Shape::ITEMS], int valid, Pred pred) {
  static_assert(Shape::ITEMS <= 32, "one bit per element");
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
  unsigned kept = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const int j = r * Shape::VEC + k;
      const bool keep = (kFull || Shape::offset(warp, lane, r, k) < valid) && pred(items[j]);
      kept |= (keep ? 1u : 0u) << j;
    }
  }
  return kept;
}

// Every run's place among the kept elements of the warp's segment: the kept elements of the rows
// above plus those of the lanes to its left in its row. Returns the warp's kept count. All 32 lanes.
template <class Shape>
__device__ __forceinline__ unsigned warp_run_places(unsigned kept, unsigned (&run_place)[Shape::ROWS]) {
  constexpr unsigned kRunMask = (1u << Shape::VEC) - 1u;
  unsigned warp_count = 0;
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    unsigned row_count;
    const unsigned run = (kept >> (r * Shape::VEC)) & kRunMask;
    run_place[r] =
        warp_count + lanes_before_bit_sliced<kRunCountBits<Shape::VEC>>(static_cast<unsigned>(__popc(run)), row_count);
    warp_count += row_count;
  }
  return warp_count;
}

// The same places and count from one warp scan of packed counts (SIMD within a register): a lane
// packs the counts of four of its runs into one 32-bit word, a byte each, and one inclusive warp
// scan of the word (scanlab/warp_scan.cuh, five shuffles) adds the four rows at once. No byte carries
// into the next: a row's total over the 32 lanes is at most 32 x VEC = 128. The bit slices above
// take three ballots and six popc a row; this takes a scan and a shuffle for four rows. In the
// two-tile kernel, which finds the places twice a chunk, it took 2-4% off the partition's time and
// 4-7% off the select-if's on an H200 (book, chapter 08). The one-tile kernel keeps the ballots:
// with this it measured within 3% either way, as close as the copy's time between builds. Elements
// of 1 or 2 bytes (8 or 16 a run) keep them too: a row's total, up to 256, would not fit in a byte.
template <class Shape>
__device__ __forceinline__ unsigned warp_run_places_packed(unsigned kept, unsigned (&run_place)[Shape::ROWS]) {
  if constexpr (scanlab::kWarpThreads * Shape::VEC > 0xff) {
    return warp_run_places<Shape>(kept, run_place);
  } else {
    constexpr unsigned kRunMask = (1u << Shape::VEC) - 1u;
    unsigned warp_count = 0;
#pragma unroll
    for (int g = 0; g < Shape::ROWS; g += 4) {  // rows g .. g + 3, byte q for row g + q
      unsigned counts = 0;
#pragma unroll
      for (int q = 0; q < 4 && g + q < Shape::ROWS; ++q)
        counts |= static_cast<unsigned>(__popc((kept >> ((g + q) * Shape::VEC)) & kRunMask)) << (8 * q);
      unsigned totals;
      const unsigned before = scanlab::warp_inclusive_scan(counts, scanlab::Plus<unsigned>{}, totals) - counts;
#pragma unroll
      for (int q = 0; q < 4 && g + q < Shape::ROWS; ++q) {
        run_place[g + q] = warp_count + ((before >> (8 * q)) & 0xffu);
        warp_count += (totals >> (8 * q)) & 0xffu;
      }
    }
    return warp_count;
  }
}

// Every element of the thread in the tile's order with its rank: place(j, keep, rank, i) for
// items[j] at tile offset i, where `rank` is the number of kept elements of the tile before it
// (warp_before: those of the tile's warps before this one). A rejected element at offset i has
// i - rank rejected ones before it.
template <class Shape, class Place>
__device__ __forceinline__ void for_each_ranked(unsigned kept, const unsigned (&run_place)[Shape::ROWS],
                                                unsigned warp_before, Place place) {
  constexpr unsigned kRunMask = (1u << Shape::VEC) - 1u;
  const int warp = scanlab::warp_id();
  const int lane = scanlab::lane_id();
#pragma unroll
  for (int r = 0; r < Shape::ROWS; ++r) {
    const unsigned run = (kept >> (r * Shape::VEC)) & kRunMask;
#pragma unroll
    for (int k = 0; k < Shape::VEC; ++k) {
      const unsigned rank = warp_before + run_place[r] + static_cast<unsigned>(__popc(run & ((1u << k) - 1u)));
      place(r * Shape::VEC + k, ((run >> k) & 1u) != 0, rank, Shape::offset(warp, lane, r, k));
    }
  }
}

// The exchange: kept element number `rank` of the tile to slots[rank]; with kPartition a rejected
// one at tile offset i to slots[count + i - rank], after all `count` kept ones.
template <bool kPartition, class Shape, class T>
__device__ __forceinline__ void exchange_kept_first(const T (&items)[Shape::ITEMS], unsigned kept,
                                                    const unsigned (&run_place)[Shape::ROWS], unsigned warp_before,
                                                    unsigned count, int valid, T* slots) {
  for_each_ranked<Shape>(kept, run_place, warp_before, [&](int j, bool keep, unsigned rank, int i) {
    if (keep) {
      slots[rank] = items[j];
    } else if (kPartition) {
      if (i < valid) slots[count + (static_cast<unsigned>(i) - rank)] = items[j];
    }
  });
}

// A store of an element that nothing reads again soon: the streaming hint ("evict first") where
// CUDA has one for the type, leaving L2 to the tiles' descriptors (chapter 07 measured the same).
template <class T>
__device__ __forceinline__ void store_streaming(T* p, const T& v) {
  if constexpr (std::is_arithmetic_v<T>) {
    __stcs(p, v);
  } else {
    *p = v;
  }
}

// The stores, by the tile's Shape::BLOCK_THREADS threads (thread t copies slots t, t +
// BLOCK_THREADS, ...): the `count` kept slots to out[kept_before, ...); with kPartition the
// `valid - count` rejected ones backwards from the end of the output, after the `start -
// kept_before` rejected ones of the elements before the tile (rejected element number j of the
// array goes to out[n - 1 - j]).
template <bool kPartition, class Shape, class T>
__device__ __forceinline__ void store_exchanged(const T* slots, unsigned count, int valid, T* out, std::size_t n,
                                                std::size_t start, std::size_t kept_before) {
  const std::size_t rejected_before = start - kept_before;
  const int used = kPartition ? valid : static_cast<int>(count);
  for (int i = static_cast<int>(threadIdx.x); i < used; i += Shape::BLOCK_THREADS) {
    if (!kPartition || i < static_cast<int>(count)) {
      store_streaming(&out[kept_before + static_cast<std::size_t>(i)], slots[i]);
    } else {
      store_streaming(&out[n - 1 - (rejected_before + static_cast<std::size_t>(i - static_cast<int>(count)))],
                      slots[i]);
    }
  }
}

// ---- the exchange in output order, before the chunk's place in the output is known ------------
//
// The two-tile kernel packs a chunk while its look-back warp is still finding the chunk's place in
// the output, so the exchange cannot line slots up with output addresses. It puts the kept
// elements in slots [0, count) and (partition) the rejected ones in [count, valid), in output
// order: rejected one number q of the chunk (input order) at slot valid - 1 - q, since the rejected
// ones fill the output downwards. The stores realign: a 16-byte vector of the output is read from
// the slots at any element offset, with one or two aligned 16-byte loads and a shift by whole words.
template <bool kPartition, class Shape, bool kFull = false, class T>
__device__ __forceinline__ void exchange_in_output_order(const T (&items)[Shape::ITEMS], unsigned kept,
                                                         const unsigned (&run_place)[Shape::ROWS], unsigned warp_before,
                                                         int valid, T* slots) {
  for_each_ranked<Shape>(kept, run_place, warp_before, [&](int j, bool keep, unsigned rank, int i) {
    if constexpr (kPartition) {
      // One store for either kind: a branch for each would issue two, each with half of the lanes.
      // On an H200 that took 5-8% off the partition's time at 2^24..2^28 (book, chapter 08). The
      // one-tile kernel keeps its two: with 24 elements a thread in registers it would spill.
      const int slot = keep ? static_cast<int>(rank) : valid - 1 - (i - static_cast<int>(rank));
      if (kFull || keep || i < valid) slots[slot] = items[j];
    } else if (keep) {
      slots[rank] = items[j];
    }
  });
}

// The 16 bytes of slots from slot p on, for elements of 4 or 8 bytes: one aligned load where p is
// 16-byte aligned, else two and a shift by whole 32-bit words. It reads no slot past the 16-byte
// vector that holds slot p + VEC - 1, so nothing past the chunk's last element when that vector is
// the chunk's last (the chunk is whole 16-byte vectors).
template <class T>
__device__ __forceinline__ uint4 load_vector_at(const T* slots, int p) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "a shift by whole 32-bit words");
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const int mis = p % V;  // elements past the 16-byte boundary (the same for every vector of a run)
  const uint4* at = reinterpret_cast<const uint4*>(slots + (p - mis));
  const uint4 a = at[0];
  if (mis == 0) return a;
  const uint4 b = at[1];
  switch (mis * static_cast<int>(sizeof(T)) / 4) {
    case 1: return make_uint4(a.y, a.z, a.w, b.x);
    case 2: return make_uint4(a.z, a.w, b.x, b.y);
    default: return make_uint4(a.w, b.x, b.y, b.z);
  }
}

// The 16-byte vectors (VEC elements) of the output that a run of len elements from out[o] touches.
template <class Shape>
__device__ __forceinline__ int output_vectors(std::size_t o, int len) {
  return (static_cast<int>(o % Shape::VEC) + len + Shape::VEC - 1) / Shape::VEC;
}

// A run of slots [first, first + len) to out[o, o + len), by the chunk's Shape::BLOCK_THREADS
// threads, one vector of the output each in turn from vector u0 on: a whole 16-byte vector in one
// streaming store (when `vectors`: the output is 16-byte aligned), the vectors at the run's ends
// element by element.
template <class Shape, class T>
__device__ __forceinline__ void store_run(const T* slots, int first, T* out, std::size_t o, int len, int u0,
                                          bool vectors) {
  constexpr int V = Shape::VEC;
  const int m = static_cast<int>(o % V);  // the run's first element's place in its output vector
  const int run_vectors = output_vectors<Shape>(o, len);
  T* const dst = out + (o - static_cast<std::size_t>(m));
  for (int u = u0; u < run_vectors; u += Shape::BLOCK_THREADS) {
    const int j = u * V - m;  // the run's element at the vector's first place
    T* const d = dst + u * V;
    if constexpr (Shape::VECTORIZABLE && (sizeof(T) == 4 || sizeof(T) == 8)) {
      if (vectors && j >= 0 && j + V <= len) {
        __stcs(reinterpret_cast<uint4*>(d), load_vector_at(slots, first + j));
        continue;
      }
    }
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (j + k >= 0 && j + k < len) store_streaming(d + k, slots[first + j + k]);
  }
}

// The stores of a chunk exchanged in output order: its `count` kept ones to out[kept_before, ...),
// and (kPartition) its rejected ones to their place at the end of the output, after the
// `rejected_before` rejected ones of the elements before the chunk.
template <bool kPartition, class Shape, class T>
__device__ __forceinline__ void store_in_output_order(const T* slots, unsigned count, int valid, T* out, std::size_t n,
                                                      std::size_t kept_before, std::size_t rejected_before,
                                                      bool vectors) {
  constexpr int B = Shape::BLOCK_THREADS;
  const int t = static_cast<int>(threadIdx.x);
  const int kept = static_cast<int>(count);
  store_run<Shape>(slots, 0, out, kept_before, kept, t, vectors);
  if constexpr (kPartition) {
    const int rejected = valid - kept;
    // Count on from the kept run's vectors, so that every thread stores about as many.
    const int kept_vectors = output_vectors<Shape>(kept_before, kept);
    store_run<Shape>(slots, kept, out, n - rejected_before - static_cast<std::size_t>(rejected), rejected,
                     (t - kept_vectors % B + B) % B, vectors);
  }
}

}  // namespace ch08
