// Chapter 04's grading runner: the student's warp, block and items-per-thread scans, run through
// the chapter's given tile kernels on the inputs the checker (04_warp_and_registers.cu) sends. It
// decides nothing; see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>

#include "warp_and_registers_dispatch.cuh"

using namespace scanlab::grading;

// Independent 32-element tiles, one warp each (warp_scan_tiles), into a poisoned output.
// Parameters: kind.
SCANLAB_GRADE_ENTRY(warp_tiles) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const bool inclusive = call.kind() == ScanKind::inclusive;
    call.output(run_on_device(in, [&](T* d_in, T* d_out) {
      ch04::warp_scan_tiles(d_in, d_out, in.size(), inclusive, op);
    }));
  });
}

// Independent tiles of `threads` elements, one value per thread (block_scan_tiles). Parameters:
// kind, threads (default 1024), in_place (default false). Outputs: the scan, then the block_total
// every thread received (tiles * threads values, poisoned first).
SCANLAB_GRADE_ENTRY(block_tiles) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const bool inclusive = call.kind() == ScanKind::inclusive;
    const int threads = call.param<int>("threads", ch04::kBlockScanThreads);
    if (threads < 32 || threads > 1024) throw std::invalid_argument("threads must be 32 to 1024");
    const std::size_t tiles = (in.size() + threads - 1) / threads;
    scanlab::DeviceBuffer<T> d_totals(tiles * threads);
    d_totals.fill_poison();
    call.output(run_on_device(
        in,
        [&](T* d_in, T* d_out) {
          ch04::block_scan_tiles(d_in, d_out, in.size(), inclusive, op, 0, threads, d_totals.data());
        },
        call.param<bool>("in_place", false)));
    call.output(d_totals.download());
  });
}

// Independent tiles of `tile` elements, items per thread (items_scan_tiles). Parameters: kind,
// tile, in_place (default false), offset (default 0: both pointers that many elements into their
// buffers, so not 16-byte aligned). Outputs: the scan, then every thread's block_total
// (tiles * items_threads_for_tile(tile) values, poisoned first).
SCANLAB_GRADE_ENTRY(items_tiles) {
  with_scan_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const bool inclusive = call.kind() == ScanKind::inclusive;
    const int tile = call.param<int>("tile");
    const std::size_t threads = tile > 0 ? static_cast<std::size_t>(ch04::items_threads_for_tile(tile)) : 1;
    const std::size_t tiles = tile > 0 ? (in.size() + tile - 1) / tile : 0;
    scanlab::DeviceBuffer<T> d_totals(tiles * threads);
    d_totals.fill_poison();
    call.output(run_on_device(
        in,
        [&](T* d_in, T* d_out) {
          ch04::items_scan_tiles(d_in, d_out, in.size(), tile, inclusive, op, 0, d_totals.data());
        },
        call.param<bool>("in_place", false), call.param<std::size_t>("offset", 0)));
    call.output(d_totals.download());
  });
}
