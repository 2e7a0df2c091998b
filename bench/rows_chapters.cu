// scanlab_bench: one block of rows per chapter, each calling that chapter's reference solution
// through its launch wrapper (the solutions/NN_* folders are include directories of this
// program, see bench/CMakeLists.txt). A new chapter adds its header, a register_chNN function
// and one line in register_chapter_rows.
#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/monoid.hpp>

#include "bank_conflicts_dispatch.cuh"      // chapters/ and solutions/03_bank_conflicts
#include "blelloch_dispatch.cuh"            // chapters/ and solutions/02_blelloch
#include "chained_scan_dispatch.cuh"        // chapters/ and solutions/06_chained_scan
#include "decoupled_lookback_dispatch.cuh"  // chapters/ and solutions/07_decoupled_lookback
#include "hillis_steele_dispatch.cuh"       // chapters/ and solutions/01_hillis_steele
#include "multi_block_scan_dispatch.cuh"    // chapters/ and solutions/05_multi_block
#include "registry.hpp"
#include "sequential_scan_dispatch.cuh"  // chapters/ and solutions/00_sequential
#include "tune.hpp"
#include "decoupled_lookback_tuned.cuh"     // chapters/07_decoupled_lookback
#include "warp_and_registers_dispatch.cuh"  // chapters/ and solutions/04_warp_and_registers

namespace scanlab::bench {
namespace {

template <class P>
using elem_t = std::remove_const_t<std::remove_pointer_t<P>>;

void register_ch00(Registry& reg) {
  Row& r = reg.add({"ch00_one_thread", "chapter 00: one GPU thread walks the array (exclusive)", Check::exclusive});
  // One thread does n dependent steps at memory latency: ~tens of ms at 2^20 already, so larger
  // sizes would only make the run long without teaching anything new.
  r.max_n = size_t(1) << 20;
  r.limit_note = "one thread: capped at 2^20";
  set_stateless(r, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
    using T = elem_t<decltype(in)>;
    ch00::one_thread_exclusive_scan(in, out, n, Plus<T>{}, s);
  });
}

void register_ch01(Registry& reg) {
  constexpr int kTile = 1024;
  Row& r = reg.add({"ch01_hillis_steele_tiles",
                    "chapter 01: Hillis-Steele, one block per independent 1024-element tile (inclusive)",
                    Check::inclusive_tiles});
  r.tile = kTile;
  r.limit_note = "tile-wise, not one scan of n: x CUB is a speed reference only";
  set_stateless(r, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
    using T = elem_t<decltype(in)>;
    ch01::hillis_steele_inclusive_scan_tiles(in, out, n, kTile, Plus<T>{}, s);
  });
}

// Chapters 02 and 03 scan one block's tile; a single block says nothing about bandwidth, so their
// rows scan many independent 1024-element tiles (512 threads each), like chapter 01's row.
void register_ch02(Registry& reg) {
  constexpr int kTile = 1024;
  Row& r = reg.add({"ch02_blelloch_tiles",
                    "chapter 02: Blelloch up/down-sweep, one block per independent 1024-element tile (inclusive)",
                    Check::inclusive_tiles});
  r.tile = kTile;
  r.limit_note = "tile-wise, not one scan of n: x CUB is a speed reference only";
  set_stateless(r, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
    using T = elem_t<decltype(in)>;
    ch02::blelloch_inclusive_scan_tiles(in, out, n, kTile, Plus<T>{}, s);
  });
}

void register_ch03(Registry& reg) {
  constexpr int kTile = 1024;
  Row& r = reg.add({"ch03_blelloch_padded_tiles",
                    "chapter 03: Blelloch with conflict-free padding, one block per independent 1024-element "
                    "tile (inclusive)",
                    Check::inclusive_tiles});
  r.tile = kTile;
  r.limit_note = "tile-wise, not one scan of n: x CUB is a speed reference only";
  set_stateless(r, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
    using T = elem_t<decltype(in)>;
    ch03::blelloch_layout_inclusive_scan_tiles<ch03::Padded>(in, out, n, kTile, Plus<T>{}, s);
  });
}

// Chapter 04 scans independent 4096-element tiles (256 threads x 16 items, warp-shuffle block
// scan, 16-byte loads), like the rows of chapters 01 to 03.
void register_ch04(Registry& reg) {
  constexpr int kTile = 4096;
  Row& r = reg.add({"ch04_items_tiles",
                    "chapter 04: warp-shuffle block scan, 256 threads x 16 items, one block per independent "
                    "4096-element tile (inclusive)",
                    Check::inclusive_tiles});
  r.tile = kTile;
  r.limit_note = "tile-wise, not one scan of n: x CUB is a speed reference only";
  set_stateless(r, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
    using T = elem_t<decltype(in)>;
    ch04::items_scan_tiles(in, out, n, kTile, /*inclusive=*/true, Plus<T>{}, s);
  });
}

// Chapter 05: whole-array exclusive scans. The scratch (block sums, partials) is allocated once per
// (type, n), outside the timing; the kernels' launches are all that is timed.
template <class Policy>
void add_ch05_reduce_then_scan(Registry& reg, const char* name, const char* what) {
  Row& r = reg.add({name, what, Check::exclusive});
  set_stateful(r, [](auto tag, size_t n) {
    using T = typename decltype(tag)::type;
    auto scratch = std::make_shared<ch05::Scratch<T>>();
    scratch->reserve(ch05::reduce_then_scan_blocks<Policy, T, Plus<T>>(n));
    return [scratch](const T* in, T* out, size_t count, cudaStream_t s) {
      ch05::reduce_then_scan<Policy>(in, out, count, /*inclusive=*/false, Plus<T>{}, *scratch, s);
    };
  });
}

void register_ch05(Registry& reg) {
  {
    Row& r = reg.add({"ch05_scan_then_propagate",
                      "chapter 05: scan tiles + recursive scan of block sums + uniform add (~4n traffic), "
                      "4096-element tiles (exclusive)",
                      Check::exclusive});
    set_stateful(r, [](auto tag, size_t n) {
      using T = typename decltype(tag)::type;
      auto scratch = std::make_shared<ch05::Scratch<T>>();
      scratch->reserve(ch05::detail::scan_then_propagate_scratch_elems<ch05::LargeTiles>(n));
      return [scratch](const T* in, T* out, size_t count, cudaStream_t s) {
        ch05::scan_then_propagate<ch05::LargeTiles>(in, out, count, /*inclusive=*/false, Plus<T>{}, *scratch, s);
      };
    });
  }
  add_ch05_reduce_then_scan<ch05::LargeTiles>(
      reg, "ch05_reduce_then_scan",
      "chapter 05: reduce ranges + spine scan + scan ranges (~3n traffic), 256 x 16 tiles through a "
      "shared-memory transpose (exclusive)");
  add_ch05_reduce_then_scan<ch05::Policy<256, 16, scanlab::TileIo::direct>>(
      reg, "ch05_reduce_then_scan_direct",
      "chapter 05: reduce-then-scan as above, each thread loading its 16 items directly (no "
      "transpose) (exclusive)");
  add_ch05_reduce_then_scan<ch05::Policy<512, 16>>(
      reg, "ch05_reduce_then_scan_8k", "chapter 05: reduce-then-scan with 8192-element tiles, 512 x 16 (exclusive)");
}

// Chapter 06: the chained scan. Its throughput is capped by one inter-SM message latency per tile,
// whatever the memory can do; the row shows that cap next to chapter 07 in the same table.
void register_ch06(Registry& reg) {
  Row& r = reg.add(
      {"ch06_chained", "chapter 06: chained scan, 256 threads x 16 items per tile (exclusive)", Check::exclusive});
  set_stateful(r, [](auto tag, size_t n) {
    using T = typename decltype(tag)::type;
    auto scan = std::make_shared<ch06::ChainedScan<T>>(n);
    return [scan](const T* in, T* out, size_t count, cudaStream_t s) {
      scan->exclusive(in, out, count, Plus<T>{}, s);
    };
  });
}

// Chapter 07: decoupled look-back. One row per configuration, so that one run sweeps tile shapes,
// polling schedules and the book's steps side by side (--algorithms picks a subset). The descriptor
// and ticket reset (one cudaMemsetAsync) is inside the timed operation, as CUB's init kernel is in
// CUB's time.
template <class P>
void add_ch07_row(Registry& reg, const std::string& name, const std::string& what,
                  ch07::PollSchedule polls = ch07::kDefaultPolls) {
  Row& r = reg.add({name, what, Check::exclusive});
  set_stateful(r, [polls](auto tag, size_t n) {
    using T = typename decltype(tag)::type;
    auto scan = std::make_shared<ch07::DecoupledLookbackScan<T, P>>(n);
    ch07::Options o;
    o.polls = polls;
    return [scan, o](const T* in, T* out, size_t count, cudaStream_t s) {
      scan->exclusive(in, out, count, Plus<T>{}, s, o);
    };
  });
}

void register_ch07(Registry& reg) {
  using ch07::Descriptors;
  using ch07::Lookback;
  using ch07::Policy;
  // The default: warp look-back, fused descriptors (fenced for 8-byte values), 128 x 32, polls
  // after 2.8 us and then every 0.9 us.
  add_ch07_row<ch07::DefaultPolicy>(reg, "ch07_lookback",
                                    "chapter 07: decoupled look-back, warp window, fused words, 128x32");
  // The default tile at every size: without the one-wave tile just past one wave (the library
  // applies that rule to the default policy type only; naming the fused descriptors makes another
  // type with the same kernel for 4-byte values).
  add_ch07_row<Policy<128, 32, Descriptors::fused>>(reg, "ch07_128x32_every_size",
                                                    "chapter 07, 128x32 at every size (no one-wave tile)");
  // Tile shapes (default polling).
  add_ch07_row<Policy<128, 24>>(reg, "ch07_128x24", "chapter 07, 128 threads x 24 items");
  add_ch07_row<Policy<256, 16>>(reg, "ch07_256x16", "chapter 07, 256 threads x 16 items");
  add_ch07_row<Policy<256, 24>>(reg, "ch07_256x24", "chapter 07, 256 threads x 24 items");
  add_ch07_row<Policy<256, 32, Descriptors::automatic, Lookback::warp, 4>>(
      reg, "ch07_256x32", "chapter 07, 256 threads x 32 items, registers capped for 4 blocks per SM");
  add_ch07_row<Policy<512, 16>>(reg, "ch07_512x16", "chapter 07, 512 threads x 16 items");
  // Polling schedules (128 x 32): the eager polling chapter 07 started with, and spinning.
  add_ch07_row<ch07::DefaultPolicy>(reg, "ch07_poll_at_once",
                                    "chapter 07, 128x32, first read at once, then every 0.9 us", {0, 900});
  add_ch07_row<ch07::DefaultPolicy>(reg, "ch07_spin", "chapter 07, 128x32, reads back to back, no __nanosleep", {0, 0});
  add_ch07_row<ch07::DefaultPolicy>(reg, "ch07_poll_late",
                                    "chapter 07, 128x32, first read after 5 us, then every 0.9 us", {5000, 900});
  // The book's steps (128 x 32).
  add_ch07_row<Policy<128, 32, Descriptors::fenced, Lookback::serial>>(
      reg, "ch07_serial_fenced", "chapter 07 step 1: one thread looks back, value-fence-flag descriptors");
  add_ch07_row<Policy<128, 32, Descriptors::fused, Lookback::serial>>(
      reg, "ch07_serial_fused", "chapter 07 step 2: one thread looks back, fused 64-bit descriptors");
  add_ch07_row<Policy<128, 32, Descriptors::fenced, Lookback::warp>>(
      reg, "ch07_warp_fenced", "chapter 07 step 3 with fenced descriptors: a warp looks back over 32 tiles");
}

}  // namespace

void register_ch07_tune_rows(Registry& reg, std::vector<TuneCandidate>& out) {
  for (const std::string& shape : ch07::tuned_shapes()) {
    for (const PollPair p : tune_poll_grid()) {
      TuneCandidate c{"07_decoupled_lookback", shape, p.first_ns, p.every_ns, false, "", {}};
      c.sizes = {size_t(1) << 24, size_t(1) << 26};  // many waves of tiles, where the polls matter; 2^28 only adds time
      c.is_default = shape == ch07::tuned_shapes().front() && p.first_ns == ch07::kDefaultPolls.first_ns &&
                     p.every_ns == ch07::kDefaultPolls.every_ns;
      c.row = "ch07 " + shape + " " + std::to_string(p.first_ns) + "/" + std::to_string(p.every_ns);
      ch07::with_tuned_policy(shape, [&](auto policy) {
        add_ch07_row<decltype(policy)>(reg, c.row, "chapter 07 tuning candidate", {p.first_ns, p.every_ns});
      });
      out.push_back(c);
    }
  }
}

void register_application_rows(Registry& reg);  // rows_applications.cu: chapters 08-10
void register_ch11_rows(Registry& reg);         // rows_ch11.cu

void register_chapter_rows(Registry& reg) {
  register_ch00(reg);
  register_ch01(reg);
  register_ch02(reg);
  register_ch03(reg);
  register_ch04(reg);
  register_ch05(reg);
  register_ch06(reg);
  register_ch07(reg);
  register_application_rows(reg);
  register_ch11_rows(reg);
}

}  // namespace scanlab::bench
