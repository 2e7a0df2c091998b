// Chapter 11, given: what your staging code (async_copy_scan.cuh, in exercises/11_async_copy_scan/
// or solutions/) builds on: the block-scope barrier of a chunk and a thread's arrival token
// (cuda::barrier, an mbarrier in shared memory), and the single-pass tile library under the short
// name single_pass. Nothing here needs changing.
#pragma once

#include <cuda/barrier>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include <scanlab/single_pass/tile.cuh>

namespace ch11 {

namespace single_pass = scanlab::single_pass;
using Barrier = cuda::barrier<cuda::thread_scope_block>;  // one per chunk: threads and bytes arrive on it
using Token = Barrier::arrival_token;                     // what a thread waits with

}  // namespace ch11
