// Pins the emulator's warp intrinsics to CUDA's documented behaviour (CUDA Programming Guide, "Warp
// Shuffle Functions", "Warp Vote Functions", "Integer intrinsics"; PTX ISA `shfl.sync` for lane
// offsets): __shfl_sync/_up/_down/_xor for five value types and every width, out-of-range lanes and
// offsets, partial masks and partial warps; __ballot_sync/__any_sync/__all_sync; __activemask in
// divergent branches; and the bit-counting intrinsics on edge values. Expected values come from host
// reference functions written from those definitions. The same file runs on a GPU.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/testing.hpp"

namespace {

enum ShuffleOp : int { kIdx = 0, kUp = 1, kDown = 2, kXor = 3 };
std::string op_name(int op) {
  static const char* names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"};
  return names[op];
}

// The Programming Guide's definitions, for one lane of a warp whose values are `warp[0..31]`.
// idx: source = srcLane modulo width inside the lane's own width-wide segment.
// up/down: source = lane -/+ delta; a source outside the segment leaves the lane's own value.
// xor: source = lane ^ laneMask; a lane may read an earlier segment, but reading a later one gives
//      its own value.
template <class T>
T shuffle_reference(int op, const T* warp, int lane, int arg, int width) {
  const int seg = lane & ~(width - 1), last = seg + width - 1;
  switch (op) {
    case kIdx: {
      const int m = ((arg % width) + width) % width;
      return warp[seg + m];
    }
    case kUp: {
      const int j = lane - arg;
      return j < seg ? warp[lane] : warp[j];
    }
    case kDown: {
      const int j = lane + arg;
      return j > last ? warp[lane] : warp[j];
    }
    default: {
      const int j = lane ^ arg;
      return j > last ? warp[lane] : warp[j];
    }
  }
}

template <class T>
__device__ T do_shuffle(int op, unsigned mask, T v, int arg, int width) {
  switch (op) {
    case kIdx: return __shfl_sync(mask, v, arg, width);
    case kUp: return __shfl_up_sync(mask, v, unsigned(arg), width);
    case kDown: return __shfl_down_sync(mask, v, unsigned(arg), width);
    default: return __shfl_xor_sync(mask, v, arg, width);
  }
}

// For each of `nargs` arguments (a srcLane, delta or laneMask, the same in every lane), every thread
// shuffles its value with the full mask and stores the result at out[a * blockDim + t].
template <class T>
__global__ void shuffle_sweep(const T* in, T* out, const int* args, int nargs, int op, int width) {
  const unsigned t = threadIdx.x;
  const T v = in[t];
  for (int a = 0; a < nargs; ++a) out[std::size_t(a) * blockDim.x + t] = do_shuffle(op, 0xffffffffu, v, args[a], width);
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string show(const T& v) {
  return std::to_string(v);
}

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t stream) {
  scanlab::Rng rng = scanlab::test_rng(stream);
  std::vector<T> v(n);
  for (T& x : v) {
    if constexpr (std::is_floating_point_v<T>) {
      x = T(double(std::int64_t(rng.next_u64() >> 20) - (std::int64_t(1) << 43)) / 1024.0);
    } else {
      const std::uint64_t bits = rng.next_u64();
      std::memcpy(&x, &bits, sizeof(T));  // every bit random, so both halves of 64-bit types move
    }
  }
  return v;
}

// Runs every op x width for one block size, comparing each lane with the reference. In a partial
// last warp only widths that keep every source lane inside the warp are defined.
template <class T>
void check_shuffles(unsigned block, std::uint64_t stream) {
  const std::vector<T> in = random_values<T>(block, stream);
  scanlab::DeviceBuffer<T> d_in(in);
  for (int op = kIdx; op <= kXor; ++op) {
    std::vector<int> args;
    if (op == kIdx) {
      // srcLane in and out of range, negative too (modulo width).
      for (int s = -70; s <= 70; s += 3) args.push_back(s);
      args.push_back(-1);
      args.push_back(31);
      args.push_back(32);
    } else {
      for (int d = 0; d < 32; ++d) args.push_back(d);  // includes 0 and >= width
    }
    scanlab::DeviceBuffer<int> d_args(args);
    scanlab::DeviceBuffer<T> d_out(args.size() * block);
    for (int width = 1; width <= 32; width *= 2) {
      if (block % 32 != 0 && width > int(block % 32)) continue;
      d_out.fill_poison();
      shuffle_sweep<T><<<1, block>>>(d_in.data(), d_out.data(), d_args.data(), int(args.size()), op, width);
      SCANLAB_CHECK_LAUNCH();
      SCANLAB_CHECK_SYNC();
      const std::vector<T> got = d_out.download();
      std::size_t wrong = 0;
      for (std::size_t a = 0; a < args.size(); ++a)
        for (unsigned t = 0; t < block; ++t) {
          const unsigned base = t & ~31u;
          const T expected = shuffle_reference(op, &in[base], int(t - base), args[a], width);
          const T g = got[a * block + t];
          if (!same_bits(expected, g) && wrong++ == 0)
            MESSAGE(op_name(op), " width ", width, " arg ", args[a], " thread ", t, ": got ", show(g), ", expected ",
                    show(expected));
        }
      INFO(op_name(op), " width ", width, " block ", block);
      CHECK(wrong == 0);
    }
  }
}

}  // namespace

TEST_CASE_TEMPLATE("shuffles: every op and width, out-of-range lanes and offsets", T, int, unsigned, float, double,
                   long long) {
  check_shuffles<T>(64, 400 + sizeof(T));
}

TEST_CASE_TEMPLATE("shuffles in a partial last warp (block of 48) with the full mask", T, int, double) {
  check_shuffles<T>(48, 500 + sizeof(T));
}

// ---- Partial masks: only the lanes named in the mask call ---------------------------------------

// Lanes 0-15 shuffle among themselves with mask 0xffff, lanes 16-31 among themselves with
// 0xffff0000, each half with a different op; in the second kernel the upper half has exited.
__global__ void split_halves(const int* in, int* out, int xor_mask, int down, int src) {
  const unsigned t = threadIdx.x, lane = t % 32;
  const int v = in[t];
  if (lane < 16) {
    const int a = __shfl_xor_sync(0x0000ffffu, v, xor_mask, 16);
    const int b = __shfl_sync(0x0000ffffu, v, src);  // width 32: srcLane must name a lane in the mask
    out[t] = a * 7 + b;
  } else {
    out[t] = __shfl_down_sync(0xffff0000u, v, unsigned(down), 16);
  }
}

__global__ void lower_half_after_exit(const int* in, int* out, int up) {
  const unsigned t = threadIdx.x, lane = t % 32;
  if (lane >= 16) return;
  out[t] = __shfl_up_sync(0x0000ffffu, in[t], unsigned(up), 16);
}

TEST_CASE("shuffles with partial masks: only the named lanes call") {
  const unsigned block = 64;
  std::vector<int> in = random_values<int>(block, 600);
  scanlab::DeviceBuffer<int> d_in(in), d_out(block);
  scanlab::Rng rng = scanlab::test_rng(601);
  for (int trial = 0; trial < 8; ++trial) {
    const int xor_mask = int(rng.below(32)), down = int(rng.below(20)), src = int(rng.below(16)),
              up = int(rng.below(20));
    d_out.fill_poison();
    split_halves<<<1, block>>>(d_in.data(), d_out.data(), xor_mask, down, src);
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    std::vector<int> got = d_out.download();
    for (unsigned t = 0; t < block; ++t) {
      const unsigned base = t & ~31u;
      const int lane = int(t - base);
      int expected;
      if (lane < 16) {
        const int a = shuffle_reference(kXor, &in[base], lane, xor_mask, 16);
        const int b = shuffle_reference(kIdx, &in[base], lane, src, 32);
        expected = int(unsigned(a) * 7u + unsigned(b));
      } else {
        expected = shuffle_reference(kDown, &in[base], lane, down, 16);
      }
      INFO("split halves: thread ", t, " xor ", xor_mask, " down ", down, " src ", src);
      CHECK(got[t] == expected);
    }
    d_out.fill_poison();
    lower_half_after_exit<<<1, block>>>(d_in.data(), d_out.data(), up);
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    got = d_out.download();
    for (unsigned t = 0; t < block; ++t) {
      const unsigned base = t & ~31u;
      const int lane = int(t - base);
      if (lane >= 16) continue;  // exited: output left as poisoned
      INFO("after exit: thread ", t, " up ", up);
      CHECK(got[t] == shuffle_reference(kUp, &in[base], lane, up, 16));
    }
  }
}

// PTX ISA, shfl.sync: the lane offset operand is used modulo 32 (bval = b[4:0]), so an offset of 32
// or more is not "out of range" but wraps: __shfl_down_sync(m, v, 33) moves values by one lane.
// CUDA's __shfl_*_sync pass delta/laneMask to that operand unchanged.
__global__ void large_offsets(const int* in, int* out, int offset) {
  const unsigned t = threadIdx.x;
  const int v = in[t];
  out[t * 3 + 0] = __shfl_up_sync(0xffffffffu, v, unsigned(offset));
  out[t * 3 + 1] = __shfl_down_sync(0xffffffffu, v, unsigned(offset));
  out[t * 3 + 2] = __shfl_xor_sync(0xffffffffu, v, offset);
}

TEST_CASE("shuffles: offsets of 32 or more use their low 5 bits (PTX shfl.sync)") {
  std::vector<int> in = random_values<int>(32, 650);
  scanlab::DeviceBuffer<int> d_in(in), d_out(96);
  for (int offset : {32, 33, 37, 63, 64 + 5}) {
    d_out.fill_poison();
    large_offsets<<<1, 32>>>(d_in.data(), d_out.data(), offset);
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    const std::vector<int> got = d_out.download();
    for (int k = 0; k < 3; ++k) {
      const int op = k == 0 ? kUp : k == 1 ? kDown : kXor;
      int wrong = 0;
      for (int lane = 0; lane < 32; ++lane) {
        const int expected = shuffle_reference(op, in.data(), lane, offset & 31, 32);
        if (got[lane * 3 + k] != expected && wrong++ == 0)
          MESSAGE(op_name(op), " offset ", offset, " lane ", lane, ": got ", got[lane * 3 + k], ", expected ", expected,
                  " (lane ", lane, "'s own value is ", in[std::size_t(lane)], ")");
      }
      INFO(op_name(op), " offset ", offset, ": lanes wrong");
      CHECK(wrong == 0);
    }
  }
}

// ---- Votes --------------------------------------------------------------------------------------

// Lanes in `split` vote with mask split, the others with ~split (in a partial warp that mask also
// names lanes that do not exist, which CUDA allows: only non-exited lanes of the mask take part).
__global__ void votes(const int* pred, unsigned split, unsigned* ballot, int* any, int* all) {
  const unsigned t = threadIdx.x, lane = t % 32;
  const int p = pred[t];
  const unsigned mask = (split >> lane) & 1u ? split : ~split;
  ballot[t] = __ballot_sync(mask, p);
  any[t] = __any_sync(mask, p);
  all[t] = __all_sync(mask, p);
}

TEST_CASE("__ballot_sync/__any_sync/__all_sync with random predicates and partial masks") {
  scanlab::Rng rng = scanlab::test_rng(700);
  for (unsigned block : {64u, 48u, 20u}) {
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<int> pred(block);
      const unsigned density = unsigned(trial % 5);  // none ... all, so every vote outcome occurs
      for (int& p : pred) p = (density == 4 || (density > 0 && rng.below(4) < density)) ? int(1 + rng.below(9)) : 0;
      unsigned split = trial < 4 ? 0xffffffffu : unsigned(rng.next_u32());
      if (trial == 4) split = 0x0000ffffu;
      scanlab::DeviceBuffer<int> d_pred(pred), d_any(block), d_all(block);
      scanlab::DeviceBuffer<unsigned> d_ballot(block);
      d_ballot.fill_poison();
      d_any.fill_poison();
      d_all.fill_poison();
      votes<<<1, block>>>(d_pred.data(), split, d_ballot.data(), d_any.data(), d_all.data());
      SCANLAB_CHECK_LAUNCH();
      SCANLAB_CHECK_SYNC();
      const auto ballot = d_ballot.download();
      const auto any = d_any.download();
      const auto all = d_all.download();
      for (unsigned t = 0; t < block; ++t) {
        const unsigned base = t & ~31u, lane = t - base;
        const unsigned mask = (split >> lane) & 1u ? split : ~split;
        unsigned expected_ballot = 0, members = 0;
        for (unsigned l = 0; l < 32; ++l) {
          if (!((mask >> l) & 1u) || base + l >= block) continue;
          members |= 1u << l;
          if (pred[base + l]) expected_ballot |= 1u << l;
        }
        INFO("block ", block, " split 0x", std::to_string(split), " thread ", t);
        CHECK(ballot[t] == expected_ballot);
        CHECK((any[t] != 0) == (expected_ballot != 0));
        CHECK((all[t] != 0) == (expected_ballot == members));
      }
    }
  }
}

// Lanes that took the same side of a branch see the same __activemask: exactly that side's lanes.
__global__ void activemask_branches(const int* pred, unsigned* top, unsigned* in_branch, int* side) {
  const unsigned t = threadIdx.x;
  top[t] = __activemask();
  if (pred[t]) {
    side[t] = 1;
    in_branch[t] = __activemask();
  } else {
    in_branch[t] = __activemask() ^ 0x5a5a5a5au;  // keeps the two calls apart in the compiled code
    side[t] = 2;
  }
}

TEST_CASE("__activemask: all lanes at the top, the branch's lanes inside divergent branches") {
  scanlab::Rng rng = scanlab::test_rng(800);
  for (unsigned block : {64u, 40u}) {
    for (int trial = 0; trial < 6; ++trial) {
      std::vector<int> pred(block);
      for (int& p : pred) p = int(rng.below(2));
      if (trial == 0)
        for (int& p : pred) p = 1;
      scanlab::DeviceBuffer<int> d_pred(pred), d_side(block);
      scanlab::DeviceBuffer<unsigned> d_top(block), d_branch(block);
      d_top.fill_poison();
      d_branch.fill_poison();
      activemask_branches<<<1, block>>>(d_pred.data(), d_top.data(), d_branch.data(), d_side.data());
      SCANLAB_CHECK_LAUNCH();
      SCANLAB_CHECK_SYNC();
      const auto top = d_top.download(), branch = d_branch.download();
      for (unsigned t = 0; t < block; ++t) {
        const unsigned base = t & ~31u;
        unsigned present = 0, same = 0;
        for (unsigned l = 0; l < 32 && base + l < block; ++l) {
          present |= 1u << l;
          if ((pred[base + l] != 0) == (pred[t] != 0)) same |= 1u << l;
        }
        const unsigned got = pred[t] ? branch[t] : branch[t] ^ 0x5a5a5a5au;
        INFO("block ", block, " trial ", trial, " thread ", t);
        CHECK(top[t] == present);
        CHECK(got == same);
      }
    }
  }
}

// ---- Bit intrinsics -----------------------------------------------------------------------------

__global__ void bits32(const unsigned* in, int* popc, int* ffs, int* clz, unsigned* brev, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = in[i];
  popc[i] = __popc(x);
  ffs[i] = __ffs(int(x));
  clz[i] = __clz(int(x));
  brev[i] = __brev(x);
}

__global__ void bits64(const unsigned long long* in, int* popc, int* ffs, int* clz, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned long long x = in[i];
  popc[i] = __popcll(x);
  ffs[i] = __ffsll((long long)x);
  clz[i] = __clzll((long long)x);
}

// References by bit loops, from the definitions: number of set bits; 1-based position of the least
// significant set bit (0 for 0); number of leading zero bits (the width for 0); bit reversal.
template <class U>
int ref_popc(U x) {
  int c = 0;
  for (int b = 0; b < int(sizeof(U) * 8); ++b) c += int((x >> b) & 1u);
  return c;
}
template <class U>
int ref_ffs(U x) {
  for (int b = 0; b < int(sizeof(U) * 8); ++b)
    if ((x >> b) & 1u) return b + 1;
  return 0;
}
template <class U>
int ref_clz(U x) {
  const int bits = int(sizeof(U) * 8);
  for (int b = bits - 1; b >= 0; --b)
    if ((x >> b) & 1u) return bits - 1 - b;
  return bits;
}
unsigned ref_brev(unsigned x) {
  unsigned r = 0;
  for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
  return r;
}

TEST_CASE("__popc/__ffs/__clz/__brev and the 64-bit forms on edge and random values") {
  scanlab::Rng rng = scanlab::test_rng(900);
  std::vector<unsigned> v32 = {0u,          1u,          2u,          3u,          0x80000000u,
                               0x7fffffffu, 0xffffffffu, 0x00010000u, 0xfffffffeu, 0x55555555u};
  for (int b = 0; b < 32; ++b) v32.push_back(1u << b);
  for (int k = 0; k < 200; ++k) v32.push_back(rng.next_u32() >> rng.below(32));
  std::vector<unsigned long long> v64 = {0ull,
                                         1ull,
                                         0x8000000000000000ull,
                                         0xffffffffffffffffull,
                                         0x00000000ffffffffull,
                                         0xffffffff00000000ull,
                                         0x0000000100000000ull,
                                         0x7fffffffffffffffull};
  for (int b = 0; b < 64; ++b) v64.push_back(1ull << b);
  for (int k = 0; k < 200; ++k) v64.push_back(rng.next_u64() >> rng.below(64));

  const int n32 = int(v32.size()), n64 = int(v64.size());
  scanlab::DeviceBuffer<unsigned> d32(v32), d_brev(v32.size());
  scanlab::DeviceBuffer<int> d_popc(v32.size()), d_ffs(v32.size()), d_clz(v32.size());
  d_brev.fill_poison();
  d_popc.fill_poison();
  d_ffs.fill_poison();
  d_clz.fill_poison();
  bits32<<<(n32 + 127) / 128, 128>>>(d32.data(), d_popc.data(), d_ffs.data(), d_clz.data(), d_brev.data(), n32);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  auto popc = d_popc.download(), ffs = d_ffs.download(), clz = d_clz.download();
  const auto brev = d_brev.download();
  for (int i = 0; i < n32; ++i) {
    INFO("x = ", v32[std::size_t(i)]);
    CHECK(popc[std::size_t(i)] == ref_popc(v32[std::size_t(i)]));
    CHECK(ffs[std::size_t(i)] == ref_ffs(v32[std::size_t(i)]));
    CHECK(clz[std::size_t(i)] == ref_clz(v32[std::size_t(i)]));
    CHECK(brev[std::size_t(i)] == ref_brev(v32[std::size_t(i)]));
  }

  scanlab::DeviceBuffer<unsigned long long> d64(v64);
  scanlab::DeviceBuffer<int> e_popc(v64.size()), e_ffs(v64.size()), e_clz(v64.size());
  e_popc.fill_poison();
  e_ffs.fill_poison();
  e_clz.fill_poison();
  bits64<<<(n64 + 127) / 128, 128>>>(d64.data(), e_popc.data(), e_ffs.data(), e_clz.data(), n64);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  popc = e_popc.download();
  ffs = e_ffs.download();
  clz = e_clz.download();
  for (int i = 0; i < n64; ++i) {
    INFO("x = ", v64[std::size_t(i)]);
    CHECK(popc[std::size_t(i)] == ref_popc(v64[std::size_t(i)]));
    CHECK(ffs[std::size_t(i)] == ref_ffs(v64[std::size_t(i)]));
    CHECK(clz[std::size_t(i)] == ref_clz(v64[std::size_t(i)]));
  }
}
