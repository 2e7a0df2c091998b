// Chapter 03, given: the two index layouts your kernels are instantiated with. Padded uses your
// CONFLICT_FREE_OFFSET, from bank_conflicts.cuh (exercises/03_bank_conflicts/ or, for the
// reference, solutions/03_bank_conflicts/: the build's include path picks which one).
#pragma once

#include <scanlab/hd.hpp>

#include "bank_conflicts.cuh"

namespace ch03 {

// Where element i of the tile lives in shared memory, and how the tile is loaded.
// --8<-- [start:layouts]
struct Unpadded {  // chapter 02: slot i, thread t loads elements 2t and 2t + 1
  static constexpr bool kHalves = false;
  SCANLAB_HD static constexpr int slot(int i) { return i; }
  static constexpr const char* name() { return "unpadded, adjacent loads (chapter 02)"; }
};

struct Padded {  // slot i + CONFLICT_FREE_OFFSET(i), thread t loads elements t and t + m/2
  static constexpr bool kHalves = true;
  SCANLAB_HD static constexpr int slot(int i) { return i + CONFLICT_FREE_OFFSET(i); }
  static constexpr const char* name() { return "padded, loads from separate halves"; }
};
// --8<-- [end:layouts]

}  // namespace ch03
