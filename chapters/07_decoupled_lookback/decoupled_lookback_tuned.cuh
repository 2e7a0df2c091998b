// Chapter 07, given: the tile shapes that `./lab tune` measures on your GPU, and that a tuning file
// may name (scanlab/tuning.hpp). Each is a whole policy, built into the programs that can run it:
// the chapter's driver (for 4-byte sums) and scanlab_bench --tune.
//
// The emulator build has the default shape only: it times nothing, so there is nothing to tune
// there, and every shape more is a kernel more to build.
#pragma once

#include <string>
#include <vector>

#include <scanlab/single_pass/policy.cuh>

namespace ch07 {

static_assert(scanlab::single_pass::DefaultPolicy::kBlockThreads == 128 &&
                  scanlab::single_pass::DefaultPolicy::kItems == 32,
              "the first tuned shape is the default policy");

// BLOCK_THREADS x ITEMS: the default first; then the same 4096 elements over twice the threads, and
// a smaller tile (more of them resident per SM).
inline std::vector<std::string> tuned_shapes() {
#if defined(SCANLAB_EMU)
  return {"128x32"};
#else
  return {"128x32", "128x24", "256x16"};
#endif
}

// Calls f(P{}) with the policy that `shape` names; false when this build has no such shape.
template <class F>
bool with_tuned_policy(const std::string& shape, F&& f) {
  if (shape == "128x32") return f(scanlab::single_pass::DefaultPolicy{}), true;
#if !defined(SCANLAB_EMU)
  if (shape == "128x24") return f(scanlab::single_pass::Policy<128, 24>{}), true;
  if (shape == "256x16") return f(scanlab::single_pass::Policy<256, 16>{}), true;
#endif
  return false;
}

}  // namespace ch07
