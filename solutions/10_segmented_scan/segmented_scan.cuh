// Chapter 10, reference solution of exercises/10_segmented_scan/segmented_scan.cuh: read that file
// for the teaching notes and the hints. The comments here say why the answers are written as they
// are.
#pragma once

#include "flagged.cuh"  // given: Flagged<T>, the (value, head) pair

namespace ch10 {

// --8<-- [start:segmented_op]
// The right operand decides: a head in b's range cuts everything on its left, so a's value counts
// only when b's range has no head. The flags OR: the combined range holds a head if either does.
template <class Op>
struct Segmented {
  using T = typename Op::value_type;
  using value_type = Flagged<T>;
  SCANLAB_HD static Flagged<T> identity() { return Flagged<T>{Op::identity(), 0u}; }
  SCANLAB_HD Flagged<T> operator()(Flagged<T> a, Flagged<T> b) const {
    // BEGIN TODO
    const T value = b.head ? b.value : Op{}(a.value, b.value);
    return Flagged<T>{value, a.head | b.head};
    // END TODO
  }
};
// --8<-- [end:segmented_op]

// --8<-- [start:exclusive_store]
// p.value is everything before i since the last head, which is right unless i itself starts a
// segment; element 0 starts one whatever its flag says.
template <class T, class Op, class Heads>
struct ExclusiveValueStore {
  T* out;
  Heads heads;
  __device__ void operator()(std::size_t i, Flagged<T> p) const {
    // BEGIN TODO
    out[i] = (i == 0 || heads(i)) ? Op::identity() : p.value;
    // END TODO
  }
};
// --8<-- [end:exclusive_store]

// --8<-- [start:box_filter]
// Four corners whatever the radius (inclusion-exclusion: the two strips above and left of the box
// are taken away and their overlap, taken away twice, added back); the count is the clipped box's
// area, and adding half of it before dividing rounds to nearest.
template <class T, class Table>
__device__ __forceinline__ std::uint8_t box_mean(Table S, int x0, int y0, int x1, int y1) {
  // BEGIN TODO
  const T sum = S(x1, y1) - S(x0, y1) - S(x1, y0) + S(x0, y0);
  const T count = static_cast<T>((x1 - x0) * (y1 - y0));
  return static_cast<std::uint8_t>((sum + count / 2) / count);
  // END TODO
}
// --8<-- [end:box_filter]

}  // namespace ch10
