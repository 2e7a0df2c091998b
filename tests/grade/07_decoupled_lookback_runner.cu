// Chapter 07's grading runner: the student's descriptors, look-backs and publish_and_look_back
// inside the given kernel, run on the inputs the checker (07_decoupled_lookback.cu) sends. It
// decides nothing; see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>
#include <scanlab/verify.hpp>

#include "decoupled_lookback_dispatch.cuh"

using namespace scanlab::grading;

namespace {

using ch07::Descriptors;
using ch07::Lookback;

template <Descriptors D = Descriptors::automatic, Lookback L = Lookback::warp>
using Small = ch07::Policy<64, 4, D, L>;  // 256 elements per tile, two warps
template <Descriptors D, Lookback L = Lookback::serial>
using Tiny = ch07::Policy<32, 2, D, L>;  // 64 elements per tile, one warp

// The policies the checker asks for, by the parameters block_threads, items, descriptors
// ("automatic", "fenced" or "fused") and lookback ("warp" or "serial"), each with the monoids the
// checker scans with it: these lists are the explicit instantiations of the student's templates.
// Fused descriptors hold values of at most 32 bits, so no 64-bit monoid goes with them.
template <class F>
void with_policy_and_monoid(const Call& call, F&& fn) {
  const int threads = call.param<int>("block_threads");
  const int items = call.param<int>("items");
  const std::string descriptors = call.param<std::string>("descriptors", "automatic");
  const std::string lookback = call.param<std::string>("lookback", "warp");
  const auto is = [&](int t, int i, const char* d, const char* l) {
    return threads == t && items == i && descriptors == d && lookback == l;
  };
  using I = std::int32_t;
  if (is(64, 4, "automatic", "warp")) {
    with_monoid<Plus<I>, Max<I>, AffineCompose<std::uint32_t>, Plus<float>, Plus<std::int64_t>>(call, [&](auto op) {
      fn(Small<>{}, op);
    });
  } else if (is(128, 32, "automatic", "warp")) {
    with_monoid<Plus<I>>(call, [&](auto op) {
      fn(ch07::DefaultPolicy{}, op);
    });
  } else if (is(64, 4, "fenced", "serial")) {
    with_monoid<Plus<I>, AffineCompose<std::uint32_t>>(call, [&](auto op) {
      fn(Small<Descriptors::fenced, Lookback::serial>{}, op);
    });
  } else if (is(64, 4, "fused", "serial")) {
    with_monoid<Plus<I>>(call, [&](auto op) {
      fn(Small<Descriptors::fused, Lookback::serial>{}, op);
    });
  } else if (is(64, 4, "fenced", "warp")) {
    with_monoid<Plus<I>>(call, [&](auto op) {
      fn(Small<Descriptors::fenced, Lookback::warp>{}, op);
    });
  } else if (is(32, 2, "fenced", "serial")) {
    with_monoid<Plus<I>, AffineCompose<std::uint32_t>>(call, [&](auto op) {
      fn(Tiny<Descriptors::fenced>{}, op);
    });
  } else if (is(32, 2, "fused", "serial")) {
    with_monoid<Plus<I>>(call, [&](auto op) {
      fn(Tiny<Descriptors::fused>{}, op);
    });
  } else if (is(32, 2, "fenced", "warp")) {
    with_monoid<Plus<I>>(call, [&](auto op) {
      fn(Tiny<Descriptors::fenced, Lookback::warp>{}, op);
    });
  } else if (is(32, 2, "fused", "warp")) {
    with_monoid<Plus<I>>(call, [&](auto op) {
      fn(Tiny<Descriptors::fused, Lookback::warp>{}, op);
    });
  } else {
    throw std::runtime_error("this runner has no policy " + std::to_string(threads) + " x " + std::to_string(items) +
                             ", " + descriptors + " descriptors, " + lookback + " look-back");
  }
}

ch07::TileOrder tile_order(const Call& call) {
  const std::string order = call.param<std::string>("order", "ticket");
  if (order != "ticket" && order != "block_index")
    throw std::runtime_error("order '" + order + "' is not a tile order");
  return order == "ticket" ? ch07::TileOrder::ticket : ch07::TileOrder::block_index;
}

std::vector<std::uint32_t> as_words(const std::vector<ch07::Status>& statuses) {
  return std::vector<std::uint32_t>(statuses.begin(), statuses.end());
}

}  // namespace

// One decoupled look-back scan of the input into a poisoned output. Parameters: kind; the policy
// (see with_policy_and_monoid); in_place; offset (elements into the buffers, for unaligned
// pointers); order ("ticket" or "block_index"); n (the length the scan is told, default the
// input's length). Output 0: the scan. Output 1: each tile's status after the scan (u32: 0 X,
// 1 A, 2 P), read back from the descriptors. Info lookback_reads: how far the look-backs reached
// (Call::info_lookback_reads in scanlab/grading/runner.hpp).
SCANLAB_GRADE_ENTRY(decoupled_lookback_scan) {
  with_policy_and_monoid(call, [&](auto policy, auto op) {
    using P = decltype(policy);
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const std::size_t n = call.length(in.size());
    const ScanKind kind = call.kind();
    ch07::Options options;
    options.order = tile_order(call);
    call.info("tile_items", ch07::DecoupledLookbackScan<T, P>::kTileItems);  // for the checker's messages
    ch07::DecoupledLookbackScan<T, P> scan(n);
    call.output(run_on_device(
        in,
        [&](T* d_in, T* d_out) {
          if (kind == ScanKind::inclusive) scan.inclusive(d_in, d_out, n, op, 0, options);
          else scan.exclusive(d_in, d_out, n, op, 0, options);
        },
        call.param<bool>("in_place", false), call.param<std::size_t>("offset", 0)));
    call.output(as_words(scan.tile_statuses(n)));
    call.info_lookback_reads();
  });
}

// The same scan object (its descriptors made once) scans the input `rounds` times, each time into
// a freshly poisoned output; one output per round. Parameters as decoupled_lookback_scan (but not
// n, in_place, offset or order), and rounds.
SCANLAB_GRADE_ENTRY(decoupled_lookback_scan_reused) {
  with_policy_and_monoid(call, [&](auto policy, auto op) {
    using P = decltype(policy);
    using T = typename decltype(op)::value_type;
    const std::vector<T> in = call.input<T>(0);
    const ScanKind kind = call.kind();
    const int rounds = call.param<int>("rounds");
    call.info("tile_items", ch07::DecoupledLookbackScan<T, P>::kTileItems);
    ch07::DecoupledLookbackScan<T, P> scan(in.size());
    scanlab::DeviceBuffer<T> d_in(in.size()), d_out(in.size());
    d_in.upload(in);
    for (int round = 0; round < rounds; ++round) {
      d_out.fill_poison();
      if (kind == ScanKind::inclusive) scan.inclusive(d_in.data(), d_out.data(), in.size(), op);
      else scan.exclusive(d_in.data(), d_out.data(), in.size(), op);
      SCANLAB_CHECK_SYNC();
      call.output(d_out.download());
    }
  });
}
