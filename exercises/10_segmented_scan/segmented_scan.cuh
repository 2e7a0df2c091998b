// Chapter 10: segmented scan from head flags, and summed-area tables (row scans and a transpose)
// with a variable-width box filter.
//
// Builds on Schwartz (1980) and Blelloch, "Prefix Sums and Their Applications" (1990), section
// 1.5: a segmented scan is an ORDINARY scan over (value, head flag) pairs with the lifted operator
//     (a, fa) (+) (b, fb) = (fb ? b : a op b,  fa | fb),
// which is associative whenever op is. So any correct scan - across lanes, warps, tiles and blocks
// - becomes a correct segmented scan by swapping the operator; nothing in the scan needs to know
// about segments. (The scan article's segmented kernel applies this rule inside a warp
// only and stops there: its result is wrong for any segment that crosses a warp.)
//
// Summed-area tables: GPU Gems 3, ch. 39, section 39.3.2 (Crow 1984): scan every row, transpose,
// scan every row again, transpose back. Scanning all rows of a row-major image at once is itself a
// segmented scan, with a head at the start of every row. A box filter then reads four corners of
// the table per pixel, whatever the box's size, so the size can change from pixel to pixel.
//
// Your code is here: the lifted operator, the store of the exclusive scan and the mean of a box.
// Given: the pair Flagged<T> (chapters/10_segmented_scan/flagged.cuh), and in
// chapters/10_segmented_scan/segmented_scan_dispatch.cuh the scans that use your code (chapter 07's
// single pass, from scanlab/single_pass/), the head-flag rules, the transpose, the table, the box
// filter's kernel and the host functions.
#pragma once

#include "flagged.cuh"  // given: Flagged<T>, the (value, head) pair

namespace ch10 {

// Flagged<T> is one element of the lifted scan: a value and whether it starts a segment (head, 0
// or 1). After the scan, head says whether a segment starts anywhere in the range the pair
// summarises.

// The segmented version of the monoid Op, itself a monoid over Flagged<T> (not commutative, even
// when Op is). Identity: (Op's identity, no head).
// --8<-- [start:segmented_op]
template <class Op>
struct Segmented {
  using T = typename Op::value_type;
  using value_type = Flagged<T>;
  SCANLAB_HD static Flagged<T> identity() { return Flagged<T>{Op::identity(), 0u}; }
  SCANLAB_HD Flagged<T> operator()(Flagged<T> a, Flagged<T> b) const {
    // BEGIN TODO
    // TODO(student): the pair that summarises a's range (on the left) followed by b's range, by the
    //   lifted operator above. Op{} combines values, a's on the LEFT.
    (void)b;
    return a;
    // END TODO
  }
};
// --8<-- [end:segmented_op]

// The store of the segmented EXCLUSIVE scan: the scan calls it with p = the lifted exclusive prefix
// of element i (elements 0 .. i-1 combined) and it writes out[i]. Heads is a functor: heads(i) is
// non-zero when a segment starts at element i (element 0 always starts one).
// --8<-- [start:exclusive_store]
template <class T, class Op, class Heads>
struct ExclusiveValueStore {
  T* out;
  Heads heads;
  __device__ void operator()(std::size_t i, Flagged<T> p) const {
    // BEGIN TODO
    // TODO(student): out[i] = the exclusive prefix of element i within its segment: the identity of
    //   Op where a segment starts at i, else what p says of the elements before i.
    (void)p;
    (void)i;
    // END TODO
  }
};
// --8<-- [end:exclusive_store]

// The rounded mean of the image over the box [x0 + 1, x1] x [y0 + 1, y1], for the given
// box_filter_kernel (chapters/10_segmented_scan/segmented_scan_dispatch.cuh), which finds the box of
// each pixel (x0 and y0 are the column and the row just before it, -1 at the image's edge) and
// stores the mean. S(cx, cy) reads the summed-area table: the sum over [0, cx] x [0, cy], and 0
// where cx or cy is -1. The box sums to S(x1, y1) - S(x0, y1) - S(x1, y0) + S(x0, y0).
// --8<-- [start:box_filter]
template <class T, class Table>
__device__ __forceinline__ std::uint8_t box_mean(Table S, int x0, int y0, int x1, int y1) {
  // BEGIN TODO
  // TODO(student): the box's mean, rounded to nearest, as a uint8_t: its sum (in T) over its
  //   number of pixels.
  (void)S;
  (void)x0;
  (void)y0;
  (void)x1;
  (void)y1;
  return 0;
  // END TODO
}
// --8<-- [end:box_filter]

}  // namespace ch10
