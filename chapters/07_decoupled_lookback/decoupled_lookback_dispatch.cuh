// Chapter 07, given: the decoupled look-back scan's kernel and host side. Your code is in
// decoupled_lookback.cuh (the descriptors, the look-backs and publish_and_look_back); this file puts
// it to work: the kernel (steps 1, 2 and 6 of the protocol: the single-pass library's
// single_pass_scan_kernel, run around your publish_and_look_back, and launched by the library's
// launch_single_pass_scan_for), the descriptors' storage and the checks before a launch.
//
// The policy, the tile work, the ticket and the poll schedule are the single-pass library's
// (common/include/scanlab/single_pass/), which chapter 08 onwards uses too: there, the library's own
// copy of the descriptors and the look-back (lookback.cuh) stands in for yours.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/single_pass/descriptor_storage.cuh>
#include <scanlab/single_pass/policy.cuh>
#include <scanlab/single_pass/polls.cuh>
#include <scanlab/single_pass/protocol.cuh>
#include <scanlab/single_pass/tile.cuh>
#include <scanlab/warp_scan.cuh>

#include "../../common/include/scanlab/single_pass/scan_kernel.cuh"  // by path: it has a kernel (see there)
#include "decoupled_lookback.cuh"
#include "lookback_probe.cuh"

namespace ch07 {

// BLOCK_THREADS x ITEMS per tile, the descriptor kind, the look-back and the register cap; the
// default 128 x 32, fused where the value fits, warp look-back (scanlab/single_pass/policy.cuh).
using single_pass::DefaultPolicy;
using single_pass::Policy;
using single_pass::TileOrder;      // ticket | block_index (the deadlock demonstration)
using single_pass::kDefaultPolls;  // the poll schedule tuned on an H200 (book, "Step 4")

// ---------------------------------------------------------------------------------------------
// Device side
// ---------------------------------------------------------------------------------------------

// The kernel is the single-pass library's (scanlab/single_pass/scan_kernel.cuh: steps 1, 2 and 6);
// this is what it calls for steps 3 to 5: your publish_and_look_back, and the tracing probe.
// --8<-- [start:look_back]
template <Lookback L>
struct ChapterLookBack {
  template <class Desc>
  __device__ void on_ticket(Desc& desc, unsigned tile) const {
    desc.probe.on_ticket(tile);  // traced builds: the order in which tiles took their numbers
  }
  template <class Desc, class T, class Op>
  __device__ T operator()(Desc& desc, unsigned tile, const T& aggregate, Op op, PollSchedule polls) const {
    return publish_and_look_back<L>(desc, tile, aggregate, op, polls);
  }
};
// --8<-- [end:look_back]

// ---------------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------------

struct Options {
  TileOrder order = TileOrder::ticket;
  PollSchedule polls = kDefaultPolls;
  LookbackProbe probe = {};  // traced builds: where the protocol steps are recorded (and a script)
};

// The descriptors and the ticket for scans of up to max_n elements; reusable (not concurrently).
// One allocation, two sides of [ticket | status words or flags] used by scans in turn, then the
// aggregates and inclusive prefixes: each scan's blocks clear the side the scan before used, so no
// scan waits for a memset (scanlab/single_pass/descriptor_storage.cuh). Values need no reset: a
// value is read only after its flag says it is there.
template <class T, class P = DefaultPolicy>
class DecoupledLookbackScan {
 public:
  using Shape = typename P::template Shape<T>;
  static constexpr Descriptors kDescriptors = single_pass::resolve_descriptors<T>(P::kDescriptors);
  using Desc = TileDescriptors<T, kDescriptors>;
  static constexpr std::size_t kTileItems = Shape::TILE_ITEMS;

  explicit DecoupledLookbackScan(std::size_t max_n) : storage_(tiles_for(max_n)) {}

  static std::size_t tiles_for(std::size_t n) { return single_pass::tiles_for<Shape>(n); }

  // in == out is allowed (in-place): a tile reads all of its input before it writes.
  template <class Op>
  void exclusive(const T* in, T* out, std::size_t n, Op op, cudaStream_t s = 0, const Options& o = {}) {
    run<false>(in, out, n, op, s, o);
  }
  template <class Op>
  void inclusive(const T* in, T* out, std::size_t n, Op op, cudaStream_t s = 0, const Options& o = {}) {
    run<true>(in, out, n, op, s, o);
  }

  // Each tile's status after a scan of n elements, X (0), A (1) or P (2), read back from the
  // descriptors (wait for the scan to finish first). A finished scan leaves every tile at P: a tile
  // left at A still gives right results, but every later look-back walks past it, down to tile 0 at
  // worst. For tests and diagnosis only: no scan reads this back.
  std::vector<Status> tile_statuses(std::size_t n) {
    const std::size_t tiles = std::min(tiles_for(n), storage_.max_tiles());
    const Desc d = storage_.view();
    std::vector<Status> statuses(tiles, kInvalid);
    if constexpr (kDescriptors == Descriptors::fused) {
      std::vector<unsigned long long> words(tiles);
      SCANLAB_CUDA_CHECK(cudaMemcpy(words.data(), d.words, tiles * sizeof(words[0]), cudaMemcpyDeviceToHost));
      for (std::size_t t = 0; t < tiles; ++t) statuses[t] = static_cast<Status>(words[t] >> 32);  // the high half
    } else {
      std::vector<unsigned> flags(tiles);
      SCANLAB_CUDA_CHECK(cudaMemcpy(flags.data(), d.flags, tiles * sizeof(flags[0]), cudaMemcpyDeviceToHost));
      for (std::size_t t = 0; t < tiles; ++t) statuses[t] = static_cast<Status>(flags[t]);
    }
    return statuses;
  }

 private:
  template <bool INCLUSIVE, class Op>
  void run(const T* in, T* out, std::size_t n, Op op, cudaStream_t s, const Options& o) {
    if (n == 0) return;
    SCANLAB_NVTX_RANGE("ch07::decoupled_lookback_scan");
    // P's tile, or for the default policy on a GPU, just past one wave of its tiles, the one-wave
    // tile (the library's one-wave tile rule; the book, "Speed"). The descriptors carry this
    // launch's tracing probe (traced builds).
    single_pass::launch_single_pass_scan_for<P, INCLUSIVE>(storage_, in, out, n, op, ChapterLookBack<P::kLookback>{},
                                                           o.polls, o.order, s, "ch07::DecoupledLookbackScan",
                                                           [&](Desc d) {
                                                             d.probe = o.probe;
                                                             return d;
                                                           });
  }

  single_pass::DescriptorStorage<T, kDescriptors, Desc> storage_;
};

// One-shot forms: allocate the descriptors, scan, wait, free. Device pointers.
// --8<-- [start:launch]
template <class P = DefaultPolicy, class T, class Op>
void decoupled_lookback_exclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0,
                                       const Options& o = {}) {
  DecoupledLookbackScan<T, P> scan(n);
  scan.exclusive(d_in, d_out, n, op, s, o);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
}
// --8<-- [end:launch]

template <class P = DefaultPolicy, class T, class Op>
void decoupled_lookback_inclusive_scan(const T* d_in, T* d_out, std::size_t n, Op op, cudaStream_t s = 0,
                                       const Options& o = {}) {
  DecoupledLookbackScan<T, P> scan(n);
  scan.inclusive(d_in, d_out, n, op, s, o);
  SCANLAB_CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace ch07
