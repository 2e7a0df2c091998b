// Chapter 07, given: the names your code (decoupled_lookback.cuh, in
// exercises/07_decoupled_lookback/ or solutions/) is written in: the single-pass library's
// descriptor kinds, look-backs, statuses and poll schedule (common/include/scanlab/single_pass/),
// the warp helpers, and the tracing probe. Nothing here needs changing.
#pragma once

#include <cuda_runtime.h>

#include <cstring>

#include <scanlab/single_pass/policy.cuh>    // Descriptors, Lookback
#include <scanlab/single_pass/polls.cuh>     // PollSchedule, PollDelay
#include <scanlab/single_pass/protocol.cuh>  // Status, load_volatile, store_volatile
#include <scanlab/warp_scan.cuh>

#include "lookback_probe.cuh"

namespace ch07 {

namespace single_pass = scanlab::single_pass;
using single_pass::Descriptors;  // automatic | fenced | fused
using single_pass::Lookback;     // serial | warp
using single_pass::PollDelay;
using single_pass::PollSchedule;
using single_pass::Status;  // kInvalid (X) | kAggregate (A) | kPrefix (P)
using single_pass::kAggregate;
using single_pass::kInvalid;
using single_pass::kPrefix;

}  // namespace ch07
