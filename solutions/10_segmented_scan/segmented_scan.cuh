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
// Your code is here: the lifted operator, the store of the exclusive scan and the box filter. The
// scans that use them (chapter 07's single pass, from scanlab/single_pass/), the head-flag rules,
// the transpose, the table and the host functions are given in
// chapters/10_segmented_scan/segmented_scan_dispatch.cuh.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include <scanlab/hd.hpp>

namespace ch10 {

// One element of the lifted scan: a value and whether it starts a segment (0 or 1). After the
// scan, head says whether a segment starts anywhere in the range the pair summarises.
template <class T>
struct Flagged {
  T value;
  unsigned head;
};

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
    // b's range starts a segment: nothing from a's range reaches past it.
    const T value = b.head ? b.value : Op{}(a.value, b.value);
    return Flagged<T>{value, a.head | b.head};
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
    out[i] = (i == 0 || heads(i)) ? Op::identity() : p.value;
    // END TODO
  }
};
// --8<-- [end:exclusive_store]

// out[y][x] = the rounded mean of the image over the box [x - r, x + r] x [y - r, y + r] clipped to
// the image, r = radius(x, y). With S the table and S(-1, .) = S(., -1) = 0, the box
// [x0 + 1, x1] x [y0 + 1, y1] sums to S(x1, y1) - S(x0, y1) - S(x1, y0) + S(x0, y0).
// --8<-- [start:box_filter]
template <class T, class Radius>
__global__ void box_filter_kernel(const T* sat, std::uint8_t* out, int width, int height, Radius radius) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  const int r = radius(x, y);
  const int x0 = (x - r > 0 ? x - r : 0) - 1;  // the column just left of the box (-1: none)
  const int y0 = (y - r > 0 ? y - r : 0) - 1;
  const int x1 = x + r < width ? x + r : width - 1;
  const int y1 = y + r < height ? y + r : height - 1;
  auto S = [&](int cx, int cy) -> T {
    return (cx < 0 || cy < 0) ? T(0) : sat[static_cast<std::size_t>(cy) * width + cx];
  };
  // BEGIN TODO
  const T sum = S(x1, y1) - S(x0, y1) - S(x1, y0) + S(x0, y0);
  const T count = static_cast<T>((x1 - x0) * (y1 - y0));
  out[static_cast<std::size_t>(y) * width + x] = static_cast<std::uint8_t>((sum + count / 2) / count);
  // END TODO
}
// --8<-- [end:box_filter]

}  // namespace ch10
