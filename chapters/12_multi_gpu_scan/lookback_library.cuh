// Chapter 12, given: what your code (multi_gpu_scan.cuh, in exercises/12_multi_gpu_scan/ or
// solutions/) builds on: chapter 07's decoupled look-back from the single-pass library
// (common/include/scanlab/single_pass/), its descriptors, statuses and poll schedule, under the
// short name single_pass, and the warp helpers (scanlab::lane_id). Nothing here needs changing.
#pragma once

#include <cuda_runtime.h>

#include <scanlab/hd.hpp>
#include <scanlab/single_pass/lookback.cuh>  // chapter 07's decoupled look-back, as a library
#include <scanlab/single_pass/policy.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/warp_scan.cuh>

namespace ch12 {

namespace single_pass = scanlab::single_pass;

}  // namespace ch12
