// scanlab/warp_scan.cuh: scans and reductions across the 32 lanes of one warp, through shuffles.
//
// Builds on Kogge and Stone (1973), the minimum-depth scan network, which the Hillis-Steele scan of
// chapter 01 also is; Merrill and Garland (NVR-2016-002, section 3) explain why GPUs use it inside a
// warp: the 32 lanes step together and the shuffle crossbar moves values between them without
// shared memory or barriers, so the extra work of Kogge-Stone (below) costs nothing the warp could
// have spent elsewhere. CUB's WarpScanShfl is the production form of the same idea.
//
// Costs for one warp of 32 lanes, log2(32) = 5 steps:
//   warp_inclusive_scan  5 shuffles, 5 steps; sum over d = 1, 2, 4, 8, 16 of (32 - d) = 129 operator
//                        applications that matter (a sequential scan needs 31): not work-efficient,
//                        but the lanes that idle in a step could not do anything else anyway.
//   warp_exclusive_scan  the inclusive scan plus one more shuffle (no extra operator application).
//   warp_reduce          5 butterfly (xor) shuffles and 5 steps; every lane ends with the total.
//
// Requirements: 1-D thread blocks whose size is a multiple of 32 (the lane is threadIdx.x % 32),
// and every lane of the warp calls the function (full mask, no divergence around the call).
//
// Operators are monoids from <scanlab/monoid.hpp>: Op::identity() and op(left, right). They need not
// be commutative: every combine keeps the lower-numbered lane's value as the LEFT operand.
//
// Values of any trivially copyable type move through the shuffles: 4- and 8-byte types as one
// 32-/64-bit word (Affine<uint32_t> is 8 bytes), anything else as a run of 32-bit words. The same
// code compiles with nvcc and on the CPU emulator.
#pragma once

#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

namespace scanlab {

inline constexpr int kWarpThreads = 32;
inline constexpr unsigned kFullWarpMask = 0xffffffffu;

// This thread's lane within its warp (1-D blocks).
__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) & (kWarpThreads - 1); }

// This thread's warp within its block (1-D blocks).
__device__ __forceinline__ int warp_id() { return static_cast<int>(threadIdx.x) / kWarpThreads; }

// The bits of the lanes below `lane` (lane 0: none): ANDed with a __ballot_sync of a flag, then
// counted with __popc, it gives this lane's rank among the flagged lanes of its warp.
__device__ __forceinline__ unsigned lanes_below_mask(int lane) { return (1u << lane) - 1u; }

// ---- shuffles of any trivially copyable type ----------------------------------------------------

namespace warp_detail {

enum class ShuffleKind { up, xor_lanes, index };

template <ShuffleKind K, class W>
__device__ __forceinline__ W shuffle_word(W word, int arg, unsigned mask) {
  if constexpr (K == ShuffleKind::up) return __shfl_up_sync(mask, word, static_cast<unsigned>(arg));
  else if constexpr (K == ShuffleKind::xor_lanes) return __shfl_xor_sync(mask, word, arg);
  else return __shfl_sync(mask, word, arg);
}

// Copies the bytes of v into shuffle-able words and back: memcpy is how C++ spells a bit cast of a
// trivially copyable type, and compilers turn it into register moves.
template <ShuffleKind K, class T>
__device__ __forceinline__ T shuffle(const T& v, int arg, unsigned mask) {
  static_assert(std::is_trivially_copyable_v<T>, "warp shuffles move trivially copyable values");
  T result;
  if constexpr (sizeof(T) == 8) {
    unsigned long long word;
    memcpy(&word, &v, 8);
    word = shuffle_word<K>(word, arg, mask);
    memcpy(&result, &word, 8);
  } else if constexpr (sizeof(T) == 4) {
    unsigned word;
    memcpy(&word, &v, 4);
    word = shuffle_word<K>(word, arg, mask);
    memcpy(&result, &word, 4);
  } else {
    // Larger (or odd-sized) types: one shuffle per 32-bit word.
    constexpr int kWords = static_cast<int>((sizeof(T) + 3) / 4);
    unsigned words[kWords] = {};
    memcpy(words, &v, sizeof(T));
#pragma unroll
    for (int w = 0; w < kWords; ++w) words[w] = shuffle_word<K>(words[w], arg, mask);
    memcpy(&result, words, sizeof(T));
  }
  return result;
}

}  // namespace warp_detail

// __shfl_up_sync for any trivially copyable T: lane i gets lane i - delta's value (its own when
// i < delta).
template <class T>
__device__ __forceinline__ T warp_shuffle_up(const T& v, unsigned delta, unsigned mask = kFullWarpMask) {
  return warp_detail::shuffle<warp_detail::ShuffleKind::up>(v, static_cast<int>(delta), mask);
}

// __shfl_xor_sync for any trivially copyable T: lane i gets lane (i ^ lane_mask)'s value.
template <class T>
__device__ __forceinline__ T warp_shuffle_xor(const T& v, int lane_mask, unsigned mask = kFullWarpMask) {
  return warp_detail::shuffle<warp_detail::ShuffleKind::xor_lanes>(v, lane_mask, mask);
}

// __shfl_sync for any trivially copyable T: every lane gets src_lane's value.
template <class T>
__device__ __forceinline__ T warp_shuffle(const T& v, int src_lane, unsigned mask = kFullWarpMask) {
  return warp_detail::shuffle<warp_detail::ShuffleKind::index>(v, src_lane, mask);
}

// ---- scans and reductions -----------------------------------------------------------------------

// Inclusive scan across the warp: lane i returns x_0 op x_1 op ... op x_i.
// Kogge-Stone: in the step with distance d every lane i >= d combines the partial result of lane
// i - d (which covers the d elements just below its own) on its LEFT. 5 steps, no shared memory.
// --8<-- [start:warp_inclusive_scan]
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int d = 1; d < kWarpThreads; d *= 2) {
    const T left = warp_shuffle_up(x, static_cast<unsigned>(d));
    if (lane >= d) x = op(left, x);
  }
  return x;
}
// --8<-- [end:warp_inclusive_scan]

// As above; warp_aggregate receives the whole warp's total (lane 31's result) in every lane.
template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T x, Op op, T& warp_aggregate) {
  const T inclusive = warp_inclusive_scan(x, op);
  warp_aggregate = warp_shuffle(inclusive, kWarpThreads - 1);
  return inclusive;
}

// Exclusive scan across the warp: lane 0 returns Op::identity(), lane i > 0 returns
// x_0 op ... op x_{i-1}. The inclusive scan shifted up by one lane: no division or inverse is
// needed, so it works for max, min and affine maps, where "inclusive minus x" does not exist.
// --8<-- [start:warp_exclusive_scan]
template <class T, class Op>
__device__ __forceinline__ T warp_exclusive_scan(T x, Op op, T& warp_aggregate) {
  const T inclusive = warp_inclusive_scan(x, op);
  warp_aggregate = warp_shuffle(inclusive, kWarpThreads - 1);
  const T shifted = warp_shuffle_up(inclusive, 1u);
  return lane_id() == 0 ? Op::identity() : shifted;
}
// --8<-- [end:warp_exclusive_scan]

template <class T, class Op>
__device__ __forceinline__ T warp_exclusive_scan(T x, Op op) {
  T warp_aggregate;
  return warp_exclusive_scan(x, op, warp_aggregate);
}

// Reduction across the warp; every lane returns x_0 op x_1 op ... op x_31.
// Butterfly: in the step with lane mask d, lanes i and i ^ d each hold the total of an aligned group
// of d lanes, and the two groups are neighbours; both combine them with the LOWER group on the left,
// so they compute the same value from the same operands in the same order (bit-identical, even for
// floats), and after 5 steps every lane holds the total of all 32.
// --8<-- [start:warp_reduce]
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T x, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int d = 1; d < kWarpThreads; d *= 2) {
    const T other = warp_shuffle_xor(x, d);
    x = (lane & d) ? op(other, x) : op(x, other);
  }
  return x;
}
// --8<-- [end:warp_reduce]

}  // namespace scanlab
