// scanlab_bench rows of chapter 11, the asynchronous-copy scan, in a translation unit of their own:
// chapter 11 uses the single-pass library's look-back (scanlab/single_pass/lookback.cuh), whose
// names chapter 07's student file (in rows_chapters.cu) repeats.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <scanlab/monoid.hpp>

#include "async_copy_scan_dispatch.cuh"  // chapters/ and solutions/11_async_copy_scan
#include "copy_kernels.cuh"
#include "registry.hpp"
#include "tune.hpp"
#include "async_copy_scan_tuned.cuh"  // chapters/11_async_copy_scan

namespace scanlab::bench {

// copy_registers and copy_staged (rows_baselines.cu) are ceilings of chapter 11 only while they copy
// its default tile: a new default shape moves them too.
static_assert(copy_kernels::kThreads == ch11::DefaultPolicy::kBlockThreads &&
                  copy_kernels::kItems == ch11::DefaultPolicy::kItems &&
                  copy_kernels::kChunks == ch11::DefaultPolicy::kChunks,
              "bench/copy_kernels.cuh copies chapter 11's default tile (ch11::DefaultPolicy)");

namespace {

template <class P>
void add_ch11_row(Registry& reg, const std::string& name, const std::string& what, ch11::Options o = {}) {
  Row& r = reg.add({name, what, Check::exclusive});
  set_stateful(r, [o](auto tag, size_t n) {
    using T = typename decltype(tag)::type;
    auto scan = std::make_shared<ch11::AsyncCopyScan<T, P>>(n);
    return [scan, o](const T* in, T* out, size_t count, cudaStream_t s) {
      scan->exclusive(in, out, count, Plus<T>{}, s, o);
    };
  });
}

}  // namespace

// Chapter 11: one row per tile shape, the default first. The descriptor and ticket reset is inside
// the timed operation, as in chapter 07's rows.
void register_ch11_rows(Registry& reg) {
  add_ch11_row<ch11::DefaultPolicy>(reg, "ch11_async_copy",
                                    "chapter 11: bulk copies into shared memory, 128 threads x 16 items x 4 chunks per "
                                    "tile, two tiles per block; chapter 07's kernel below 2^23 elements");
  const ch11::Options two = ch11::kTwoTilesEverySize;
  add_ch11_row<ch11::DefaultPolicy>(
      reg, "ch11_two_tiles", "chapter 11's two-tile kernel at every size (128 x 16 x 4, two stages per block)", two);
  const ch11::Options staged = ch11::kStageEverySize;
  add_ch11_row<ch11::DefaultPolicy>(reg, "ch11_staged",
                                    "chapter 11's one-tile staged kernel at every size (128 x 16 x 4)", staged);
  add_ch11_row<ch11::Policy<128, 16, 3, 3>>(
      reg, "ch11_two_tiles_128x16x3s3",
      "chapter 11's two-tile kernel with three stages per block (128 x 16 x 3): one more tile in flight", two);
  add_ch11_row<ch11::Policy<128, 16, 8>>(reg, "ch11_128x16x8", "chapter 11, 128 threads x 16 items x 8 chunks", staged);
  add_ch11_row<ch11::Policy<128, 32, 2>>(reg, "ch11_128x32x2", "chapter 11, 128 threads x 32 items x 2 chunks", staged);
  add_ch11_row<ch11::Policy<128, 16, 1>>(reg, "ch11_128x16x1", "chapter 11, 128 threads x 16 items x 1 chunk", staged);
}

void register_ch11_tune_rows(Registry& reg, std::vector<TuneCandidate>& out) {
  const single_pass::PollSchedule built_in = ch11::kTwoTilePolls;
  for (const std::string& shape : ch11::tuned_shapes()) {
    for (const PollPair p : tune_poll_grid()) {
      TuneCandidate c{"11_async_copy_scan", shape, p.first_ns, p.every_ns, false, "", {}};
      // Where the scan object stages (from ch11::kStagedFrom = 2^23 up): below, it runs chapter 07's kernel.
      static_assert(ch11::kStagedFrom <= (size_t(1) << 26), "chapter 11 is tuned where it stages");
      c.sizes = {size_t(1) << 26, size_t(1) << 28};
      c.is_default =
          shape == ch11::tuned_shapes().front() && p.first_ns == built_in.first_ns && p.every_ns == built_in.every_ns;
      c.row = "ch11 " + shape + " " + std::to_string(p.first_ns) + "/" + std::to_string(p.every_ns);
      ch11::Options o = ch11::kTwoTilesEverySize;  // the kernel the scan object stages with, at every size tuned
      o.polls = {p.first_ns, p.every_ns};
      ch11::with_tuned_policy(shape, [&](auto policy) {
        add_ch11_row<decltype(policy)>(reg, c.row, "chapter 11 tuning candidate", o);
      });
      out.push_back(c);
    }
  }
}

}  // namespace scanlab::bench
