// Chapter 06's grading runner: the student's chained scan (chained_tile_index and
// chained_wait_and_publish inside the given kernel), run on the inputs the checker
// (06_chained_scan.cu) sends. It decides nothing; see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>
#include <scanlab/verify.hpp>

#include "chained_scan_dispatch.cuh"

using namespace scanlab::grading;

namespace {

// The monoids the checker uses: the explicit instantiations of the student's templates.
template <class F>
void with_chapter_monoid(const Call& call, F&& fn) {
  with_monoid<Plus<std::int32_t>, Max<std::int32_t>, AffineCompose<std::uint32_t>, Plus<float>, Plus<std::int64_t>>(
      call, fn);
}

// The tile shapes the checker asks for by parameters block_threads x items: two warps x 4 (many
// tiles on the emulator), one warp x 2 (many tiles resident at once) and the chapter's default.
template <class F>
void with_policy(const Call& call, F&& fn) {
  const int threads = call.param<int>("block_threads");
  const int items = call.param<int>("items");
  if (threads == 64 && items == 4) fn(ch06::Policy<64, 4>{});
  else if (threads == 32 && items == 2) fn(ch06::Policy<32, 2>{});
  else if (threads == 256 && items == 16) fn(ch06::DefaultPolicy{});
  else
    throw std::runtime_error("this runner has no tile of " + std::to_string(threads) + " x " + std::to_string(items));
}

ch06::TileOrder tile_order(const Call& call) {
  const std::string order = call.param<std::string>("order", "ticket");
  if (order != "ticket" && order != "block_index")
    throw std::runtime_error("order '" + order + "' is not a tile order");
  return order == "ticket" ? ch06::TileOrder::ticket : ch06::TileOrder::block_index;
}

}  // namespace

// One chained scan of the input into a poisoned output. Parameters: kind; block_threads and items
// (the tile); in_place; offset (elements into the buffers, for unaligned pointers); order ("ticket"
// or "block_index"); n (the length the scan is told, default the input's length).
SCANLAB_GRADE_ENTRY(chained_scan) {
  with_chapter_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    with_policy(call, [&](auto policy) {
      using P = decltype(policy);
      const std::vector<T> in = call.input<T>(0);
      const std::size_t n = call.length(in.size());
      const ScanKind kind = call.kind();
      const ch06::TileOrder order = tile_order(call);
      call.info("tile_items", ch06::ChainedScan<T, P>::kTileItems);  // for the checker's messages
      call.output(run_on_device(
          in,
          [&](T* d_in, T* d_out) {
            ch06::ChainedScan<T, P> chained(n);
            if (kind == ScanKind::inclusive) chained.inclusive(d_in, d_out, n, op, 0, order);
            else chained.exclusive(d_in, d_out, n, op, 0, order);
          },
          call.param<bool>("in_place", false), call.param<std::size_t>("offset", 0)));
    });
  });
}

// The same scan object (its state made once) scans the input `rounds` times, each time into a
// freshly poisoned output; one output per round. Parameters as chained_scan, and rounds.
SCANLAB_GRADE_ENTRY(chained_scan_reused) {
  with_chapter_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    with_policy(call, [&](auto policy) {
      using P = decltype(policy);
      const std::vector<T> in = call.input<T>(0);
      const ScanKind kind = call.kind();
      const int rounds = call.param<int>("rounds");
      call.info("tile_items", ch06::ChainedScan<T, P>::kTileItems);
      ch06::ChainedScan<T, P> chained(in.size());
      scanlab::DeviceBuffer<T> d_in(in.size()), d_out(in.size());
      d_in.upload(in);
      for (int round = 0; round < rounds; ++round) {
        d_out.fill_poison();
        if (kind == ScanKind::inclusive) chained.inclusive(d_in.data(), d_out.data(), in.size(), op);
        else chained.exclusive(d_in.data(), d_out.data(), in.size(), op);
        SCANLAB_CHECK_SYNC();
        call.output(d_out.download());
      }
    });
  });
}
