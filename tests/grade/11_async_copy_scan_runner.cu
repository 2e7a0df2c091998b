// Chapter 11's grading runner: the student's staging (stage_tile and read_staged_chunk inside the
// given kernel), run on the inputs the checker (11_async_copy_scan.cu) sends. It decides nothing;
// see scanlab/grading/runner.hpp.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/device_buffer.hpp>
#include <scanlab/grading/runner.hpp>
#include <scanlab/verify.hpp>

#include "async_copy_scan_dispatch.cuh"

using namespace scanlab::grading;

namespace {

// The monoids the checker uses: the explicit instantiations of the student's templates.
template <class F>
void with_chapter_monoid(const Call& call, F&& fn) {
  with_monoid<Plus<std::int32_t>, Max<std::int32_t>, AffineCompose<std::uint32_t>, Plus<float>, Plus<std::int64_t>>(
      call, fn);
}

// The tile shapes the checker asks for by parameters block_threads x items x chunks (and stages,
// default 2): two warps x 4 in 2 chunks (many tiles on the emulator), the same with three stages,
// the same in 1 chunk, one warp x 4 in 3 chunks, and the chapter's default.
template <class F>
void with_policy(const Call& call, F&& fn) {
  const int threads = call.param<int>("block_threads");
  const int items = call.param<int>("items");
  const int chunks = call.param<int>("chunks");
  const int stages = call.param<int>("stages", 2);
  if (threads == 64 && items == 4 && chunks == 2 && stages == 2) fn(ch11::Policy<64, 4, 2>{});
  else if (threads == 64 && items == 4 && chunks == 2 && stages == 3) fn(ch11::Policy<64, 4, 2, 3>{});
  else if (threads == 64 && items == 4 && chunks == 1 && stages == 2) fn(ch11::Policy<64, 4, 1>{});
  else if (threads == 32 && items == 4 && chunks == 3 && stages == 2) fn(ch11::Policy<32, 4, 3>{});
  else if (threads == 128 && items == 16 && chunks == 4 && stages == 2) fn(ch11::DefaultPolicy{});
  else {
    throw std::runtime_error("this runner has no tile of " + std::to_string(threads) + " x " + std::to_string(items) +
                             " x " + std::to_string(chunks) + " chunks in " + std::to_string(stages) + " stages");
  }
}

// Which scans each (monoid, tile) pair is built for: exactly what the checker requests. Each
// combination is a kernel instantiation (two, with the two-tile kernel), and this runner is
// compiled with every submission, so an unused one would only cost grading time (the full product
// of monoids x tiles x kinds made this the slowest runner to compile). Anything else gets the
// runner's error below. Add a row here when the checker asks for a new combination.
struct Kinds {
  bool inclusive = false;
  bool exclusive = false;
};

template <class Op, class P>
constexpr Kinds built_kinds() {
  using Small = ch11::Policy<64, 4, 2>;
  if constexpr (std::is_same_v<Op, Plus<std::int32_t>>) return {true, true};  // every tile
  else if constexpr (std::is_same_v<Op, AffineCompose<std::uint32_t>>)
    return {std::is_same_v<P, Small>, std::is_same_v<P, Small>};
  else if constexpr (std::is_same_v<Op, Max<std::int32_t>>) return {false, std::is_same_v<P, Small>};
  else if constexpr (std::is_same_v<Op, Plus<std::int64_t>>) return {std::is_same_v<P, Small>, false};
  else if constexpr (std::is_same_v<Op, Plus<float>>) {
    return {false, std::is_same_v<P, Small> || std::is_same_v<P, ch11::DefaultPolicy>};
  } else return {};
}

[[noreturn]] void no_instance(const Call& call) {
  throw std::runtime_error(
      "this runner has no " + std::string(scanlab::to_string(call.kind())) + " scan for the monoid '" + call.monoid() +
      "' in a tile of " + std::to_string(call.param<int>("block_threads")) + " x " +
      std::to_string(call.param<int>("items")) + " x " + std::to_string(call.param<int>("chunks")) + " chunks in " +
      std::to_string(call.param<int>("stages", 2)) + " stages");
}

}  // namespace

// One scan of the input into a poisoned output. Parameters: kind; block_threads, items and chunks
// (the tile); in_place; offset (elements into the buffers, for unaligned pointers); n (the length
// the scan is told, default the input's length); two_tiles (the kernel with two tiles per block,
// default the one-tile kernel).
SCANLAB_GRADE_ENTRY(async_copy_scan) {
  with_chapter_monoid(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    with_policy(call, [&](auto policy) {
      using P = decltype(policy);
      using Op = decltype(op);
      constexpr Kinds built = built_kinds<Op, P>();
      const ScanKind kind = call.kind();
      if (!(kind == ScanKind::inclusive ? built.inclusive : built.exclusive)) no_instance(call);
      const std::vector<T> in = call.input<T>(0);
      const std::size_t n = call.length(in.size());
      call.info("tile_items", ch11::AsyncCopyScan<T, P>::kTileItems);  // for the checker's messages
      call.output(run_on_device(
          in,
          [&](T* d_in, T* d_out) {
            ch11::AsyncCopyScan<T, P> scan(n);
            // The student's staging at every size (by default the scan object would run chapter
            // 07's kernel below Options::staged_from).
            const ch11::Options o =
                call.param<bool>("two_tiles", false) ? ch11::kTwoTilesEverySize : ch11::kStageEverySize;
            if (kind == ScanKind::inclusive) {
              if constexpr (built_kinds<Op, P>().inclusive) scan.inclusive(d_in, d_out, n, op, 0, o);
            } else {
              if constexpr (built_kinds<Op, P>().exclusive) scan.exclusive(d_in, d_out, n, op, 0, o);
            }
          },
          call.param<bool>("in_place", false), call.param<std::size_t>("offset", 0)));
    });
  });
}

// The same scan object (its state made once) scans the input `rounds` times, each time into a
// freshly poisoned output; one output per round. Parameters as async_copy_scan, and rounds.
// Built only for what the checker asks of it: an int32 exclusive sum in two-warp tiles of 2 chunks.
SCANLAB_GRADE_ENTRY(async_copy_scan_reused) {
  with_monoid<Plus<std::int32_t>>(call, [&](auto op) {
    using T = typename decltype(op)::value_type;
    {
      using P = ch11::Policy<64, 4, 2>;
      const ScanKind kind = call.kind();
      if (kind != ScanKind::exclusive || call.param<int>("block_threads") != 64 || call.param<int>("items") != 4 ||
          call.param<int>("chunks") != 2 || call.param<int>("stages", 2) != 2) {
        no_instance(call);
      }
      const std::vector<T> in = call.input<T>(0);
      const int rounds = call.param<int>("rounds");
      call.info("tile_items", ch11::AsyncCopyScan<T, P>::kTileItems);
      ch11::AsyncCopyScan<T, P> scan(in.size());
      scanlab::DeviceBuffer<T> d_in(in.size()), d_out(in.size());
      d_in.upload(in);
      for (int round = 0; round < rounds; ++round) {
        d_out.fill_poison();
        scan.exclusive(d_in.data(), d_out.data(), in.size(), op, 0, ch11::kStageEverySize);
        SCANLAB_CHECK_SYNC();
        call.output(d_out.download());
      }
    }
  });
}
