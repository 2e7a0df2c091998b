// scanlab_bench: one block of rows per chapter, each calling that chapter's reference solution
// through its launch wrapper (the solutions/NN_* folders are include directories of this
// program, see bench/CMakeLists.txt). A new chapter adds its header, a register_chNN function
// and one line in register_chapter_rows.
#include <cstddef>
#include <type_traits>

#include <scanlab/monoid.hpp>

#include "bank_conflicts.cuh"   // solutions/03_bank_conflicts
#include "blelloch.cuh"         // solutions/02_blelloch
#include "hillis_steele.cuh"    // solutions/01_hillis_steele
#include "registry.hpp"
#include "sequential_scan.cuh"  // solutions/00_sequential

namespace scanlab::bench {
namespace {

template <class P>
using elem_t = std::remove_const_t<std::remove_pointer_t<P>>;

void register_ch00(Registry& reg) {
  Row& r = reg.add({"ch00_one_thread", "chapter 00: one GPU thread walks the array (exclusive)",
                    Check::exclusive});
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

}  // namespace

void register_chapter_rows(Registry& reg) {
  register_ch00(reg);
  register_ch01(reg);
  register_ch02(reg);
  register_ch03(reg);
}

}  // namespace scanlab::bench
