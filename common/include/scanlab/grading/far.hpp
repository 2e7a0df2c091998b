// scanlab/grading/far.hpp: arrays longer than 2^31 elements, for the checker and the runner.
//
// An index computed in 32 bits (`int i = blockIdx.x * blockDim.x + threadIdx.x`) is right for every
// array a test can allocate on the CPU and wrong past element 2^31 - 1 (an int) or 2^32 - 1 (an
// unsigned). Two ways to test it, with the same input and the same check:
//   on the emulator  the runner is sent only the last tiles of the array and runs the code on
//                    pointers shifted back by `first` elements (run_on_device_window in
//                    scanlab/grading/runner.hpp): element i of the array is pointer[i], and only
//                    elements [first, n) exist in memory. The launch starts at the first of those
//                    tiles (the chapters' kernels take a first tile or block for that).
//   on a GPU         the runner makes the whole input on the device (far_input, a kernel of the
//                    runner), runs the code on all n elements and returns elements [first, n).
// Both return out[first, n); the checker makes the same elements of the input with far_input and
// compares.
#pragma once

#include <cstddef>
#include <cstdint>

#include "scanlab/hd.hpp"

namespace scanlab::grading {

// Lengths past the two 32-bit limits, each with a ragged last tile for any tile size up to 4096
// that is a power of two or a multiple of 32 plus a few.
inline constexpr std::size_t kPast2To31 = (std::size_t{1} << 31) + 5;
inline constexpr std::size_t kPast2To32 = (std::size_t{1} << 32) + 5;

// Element i of the large inputs: an int32 in [-8, 8] from a hash of i (small, so that an int32 sum
// of 2^32 of them stays far from overflowing; signed, so that a sum does not grow with i).
SCANLAB_HD inline std::int32_t far_input(std::uint64_t i) {
  std::uint64_t z = i + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<std::int32_t>(z % 17u) - 8;
}

}  // namespace scanlab::grading
