// Chapter 11, given: the tile shapes that `./lab tune` measures on your GPU, and that a tuning file
// may name (scanlab/tuning.hpp): BLOCK_THREADS x ITEMS x CHUNKS, built into the chapter's driver
// (for 4-byte sums) and scanlab_bench --tune.
//
// The emulator build has the default shape only: it times nothing, so there is nothing to tune
// there, and every shape more is a kernel more to build.
#pragma once

#include <string>
#include <vector>

#include "async_copy_scan_dispatch.cuh"

namespace ch11 {

static_assert(DefaultPolicy::kBlockThreads == 128 && DefaultPolicy::kItems == 16 && DefaultPolicy::kChunks == 4,
              "the first tuned shape is the default policy");

// The default first; then twice the chunks (more bytes in flight per block, fewer blocks per SM),
// and half the chunks of twice the items.
inline std::vector<std::string> tuned_shapes() {
#if defined(SCANLAB_EMU)
  return {"128x16x4"};
#else
  return {"128x16x4", "128x16x8", "128x32x2"};
#endif
}

// Calls f(P{}) with the policy that `shape` names; false when this build has no such shape.
template <class F>
bool with_tuned_policy(const std::string& shape, F&& f) {
  if (shape == "128x16x4") return f(DefaultPolicy{}), true;
#if !defined(SCANLAB_EMU)
  if (shape == "128x16x8") return f(Policy<128, 16, 8>{}), true;
  if (shape == "128x32x2") return f(Policy<128, 32, 2>{}), true;
#endif
  return false;
}

}  // namespace ch11
