// Chapter 10, given: the pair that a segmented scan scans, a value and its head flag. Your code
// (segmented_scan.cuh, in exercises/10_segmented_scan/ or solutions/) combines these pairs and
// stores their values; nothing here needs changing.
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

template <class T>
SCANLAB_HD_INLINE bool operator==(const Flagged<T>& a, const Flagged<T>& b) {
  return a.value == b.value && a.head == b.head;
}

}  // namespace ch10
