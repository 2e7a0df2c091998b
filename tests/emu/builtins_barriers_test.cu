// Pins the emulator's built-in variables and block barriers to the CUDA Programming Guide:
// threadIdx/blockIdx/blockDim/gridDim in 1-D, 2-D and 3-D launches (thread ID = x + y*Dx + z*Dx*Dy,
// warps made of consecutive thread IDs), every thread running exactly once, __syncthreads and its
// _count/_and/_or reductions, and __syncwarp. The same file runs on a GPU, where it checks the tests.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/testing.hpp"

namespace {

// What one thread saw, stored at its global linear index.
struct Seen {
  unsigned tx, ty, tz, bx, by, bz;
  unsigned bdx, bdy, bdz, gdx, gdy, gdz;
  unsigned warp_first;  // thread ID of lane 0 of this thread's warp, from a shuffle
};

__global__ void record_builtins(Seen* seen, unsigned* runs) {
  const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned block = blockIdx.x + blockIdx.y * gridDim.x + blockIdx.z * gridDim.x * gridDim.y;
  const unsigned global = block * threads + tid;
  atomicAdd(&runs[global], 1u);
  Seen s;
  s.tx = threadIdx.x;
  s.ty = threadIdx.y;
  s.tz = threadIdx.z;
  s.bx = blockIdx.x;
  s.by = blockIdx.y;
  s.bz = blockIdx.z;
  s.bdx = blockDim.x;
  s.bdy = blockDim.y;
  s.bdz = blockDim.z;
  s.gdx = gridDim.x;
  s.gdy = gridDim.y;
  s.gdz = gridDim.z;
  // Lanes are consecutive thread IDs: every lane of a warp must see lane 0's ID as tid & ~31. (The
  // full mask is valid in a partial last warp: lanes that do not exist count as exited.)
  s.warp_first = __shfl_sync(0xffffffffu, tid, 0);
  seen[global] = s;
}

void check_launch_shape(dim3 grid, dim3 block) {
  const unsigned threads = block.x * block.y * block.z;
  const unsigned blocks = grid.x * grid.y * grid.z;
  const std::size_t n = std::size_t(threads) * blocks;
  scanlab::DeviceBuffer<Seen> seen(n);
  scanlab::DeviceBuffer<unsigned> runs(n);
  SCANLAB_CUDA_CHECK(cudaMemset(seen.data(), 0xEE, seen.bytes()));
  SCANLAB_CUDA_CHECK(cudaMemset(runs.data(), 0, runs.bytes()));
  record_builtins<<<grid, block>>>(seen.data(), runs.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const std::vector<Seen> got = seen.download();
  const std::vector<unsigned> count = runs.download();
  std::size_t bad_runs = 0, bad_seen = 0;
  std::string first;
  // Host reference: walk the launch in the Programming Guide's index order.
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              const unsigned tid = tx + ty * block.x + tz * block.x * block.y;
              const unsigned b = bx + by * grid.x + bz * grid.x * grid.y;
              const std::size_t g = std::size_t(b) * threads + tid;
              if (count[g] != 1) {
                if (bad_runs++ == 0 && first.empty())
                  first = "thread " + std::to_string(g) + " ran " + std::to_string(count[g]) + " times";
              }
              const Seen& s = got[g];
              const bool ok = s.tx == tx && s.ty == ty && s.tz == tz && s.bx == bx && s.by == by && s.bz == bz &&
                              s.bdx == block.x && s.bdy == block.y && s.bdz == block.z && s.gdx == grid.x &&
                              s.gdy == grid.y && s.gdz == grid.z && s.warp_first == (tid & ~31u);
              if (!ok && bad_seen++ == 0 && first.empty())
                first = "thread " + std::to_string(g) + " saw threadIdx (" + std::to_string(s.tx) + "," +
                        std::to_string(s.ty) + "," + std::to_string(s.tz) + ") blockIdx (" + std::to_string(s.bx) +
                        "," + std::to_string(s.by) + "," + std::to_string(s.bz) +
                        ") warp lane 0 = " + std::to_string(s.warp_first) + "; expected (" + std::to_string(tx) + "," +
                        std::to_string(ty) + "," + std::to_string(tz) + ") (" + std::to_string(bx) + "," +
                        std::to_string(by) + "," + std::to_string(bz) + ") lane 0 = " + std::to_string(tid & ~31u);
            }
  INFO("grid (", grid.x, ",", grid.y, ",", grid.z, ") block (", block.x, ",", block.y, ",", block.z, "): ", first);
  CHECK(bad_runs == 0);
  CHECK(bad_seen == 0);
}

}  // namespace

TEST_CASE("built-ins: 1-D, 2-D and 3-D launches; every thread runs exactly once") {
  check_launch_shape(dim3(1), dim3(1));
  check_launch_shape(dim3(7), dim3(33));    // a partial last warp
  check_launch_shape(dim3(3), dim3(1024));  // the largest block
  check_launch_shape(dim3(5, 3), dim3(16, 4));
  check_launch_shape(dim3(2, 3, 4), dim3(4, 3, 5));  // 60 threads: warps straddle y and z rows
  check_launch_shape(dim3(1, 1, 3), dim3(1, 1, 64));
  check_launch_shape(dim3(1, 70), dim3(3, 1, 2));
}

// ---- __syncthreads ----------------------------------------------------------------------------

// Every thread writes its slot, then reads its mirror's: correct only if the barrier separates them
// (in the forward thread order, thread 0 reads slot n-1 before its owner has written it otherwise).
__global__ void reverse_through_shared(const int* in, int* out) {
  extern __shared__ int tile[];
  const unsigned t = threadIdx.x, n = blockDim.x;
  const unsigned base = blockIdx.x * n;
  tile[t] = in[base + t];
  __syncthreads();
  int v = tile[n - 1 - t];
  __syncthreads();  // the second phase overwrites the tile: all reads must be done
  tile[t] = v * 3;
  __syncthreads();
  out[base + t] = tile[(t + 1) % n] + v;
}

TEST_CASE("__syncthreads orders shared-memory writes before reads across the block") {
  for (unsigned n : {32u, 48u, 256u, 1024u}) {
    const unsigned blocks = 3;
    scanlab::Rng rng = scanlab::test_rng(100 + n);
    std::vector<int> in(std::size_t(n) * blocks);
    for (int& x : in) x = int(rng.below(2000001)) - 1000000;
    scanlab::DeviceBuffer<int> d_in(in);
    scanlab::DeviceBuffer<int> d_out(in.size());
    d_out.fill_poison();
    reverse_through_shared<<<blocks, n, n * sizeof(int)>>>(d_in.data(), d_out.data());
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    const std::vector<int> got = d_out.download();
    std::size_t wrong = 0;
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < n; ++t) {
        const int* blk = &in[std::size_t(b) * n];
        const int v = blk[n - 1 - t];
        const unsigned u = (t + 1) % n;
        const int expected = blk[n - 1 - u] * 3 + v;
        if (got[std::size_t(b) * n + t] != expected) ++wrong;
      }
    INFO("block size ", n);
    CHECK(wrong == 0);
  }
}

// Several rounds of each reduction barrier with a fresh random predicate per thread and round, so a
// barrier that kept state from the previous round would be caught.
constexpr int kRounds = 4;
__global__ void barrier_reductions(const int* pred, int* count, int* all, int* any) {
  const unsigned t = threadIdx.x + threadIdx.y * blockDim.x;
  const unsigned n = blockDim.x * blockDim.y;
  const unsigned b = blockIdx.x;
  for (int r = 0; r < kRounds; ++r) {
    const int p = pred[(std::size_t(b) * kRounds + r) * n + t];
    const int c = __syncthreads_count(p);
    const int a = __syncthreads_and(p);
    const int o = __syncthreads_or(p);
    const std::size_t at = (std::size_t(b) * kRounds + r) * n + t;
    count[at] = c;
    all[at] = a;
    any[at] = o;
  }
}

TEST_CASE("__syncthreads_count/_and/_or reduce random predicates over the whole block") {
  struct Shape {
    dim3 block;
    unsigned blocks;
  };
  for (Shape s : {Shape{dim3(64), 6}, Shape{dim3(48), 5}, Shape{dim3(16, 20), 4}, Shape{dim3(1), 3}}) {
    const unsigned n = s.block.x * s.block.y;
    const std::size_t total = std::size_t(n) * kRounds * s.blocks;
    scanlab::Rng rng = scanlab::test_rng(200 + n);
    std::vector<int> pred(total);
    for (unsigned b = 0; b < s.blocks; ++b)
      for (int r = 0; r < kRounds; ++r) {
        // Densities from "none" to "all" so that every outcome of _and and _or occurs.
        const unsigned density = (b * kRounds + unsigned(r)) % 5;  // 0, 25, 50, 75, 100 %
        for (unsigned t = 0; t < n; ++t) {
          const bool on = density == 4 || (density > 0 && rng.below(4) < density);
          // Non-zero predicates other than 1 count as true.
          pred[(std::size_t(b) * kRounds + unsigned(r)) * n + t] =
              on ? int(1 + rng.below(1000)) * (rng.below(2) ? 1 : -1) : 0;
        }
      }
    scanlab::DeviceBuffer<int> d_pred(pred), d_count(total), d_all(total), d_any(total);
    d_count.fill_poison();
    d_all.fill_poison();
    d_any.fill_poison();
    barrier_reductions<<<s.blocks, s.block>>>(d_pred.data(), d_count.data(), d_all.data(), d_any.data());
    SCANLAB_CHECK_LAUNCH();
    SCANLAB_CHECK_SYNC();
    const auto count = d_count.download(), all = d_all.download(), any = d_any.download();
    std::size_t wrong = 0;
    for (unsigned b = 0; b < s.blocks; ++b)
      for (int r = 0; r < kRounds; ++r) {
        const std::size_t base = (std::size_t(b) * kRounds + unsigned(r)) * n;
        int c = 0;
        for (unsigned t = 0; t < n; ++t) c += pred[base + t] != 0;
        const int a = c == int(n) ? 1 : 0, o = c > 0 ? 1 : 0;
        for (unsigned t = 0; t < n; ++t) {
          // CUDA documents _and/_or as "non-zero if": accept any non-zero for true.
          if (count[base + t] != c || (all[base + t] != 0) != (a != 0) || (any[base + t] != 0) != (o != 0)) {
            if (wrong++ == 0)
              MESSAGE("block ", b, " round ", r, " thread ", t, ": count/and/or = ", count[base + t], "/",
                      all[base + t], "/", any[base + t], ", expected ", c, "/", a, "/", o);
          }
        }
      }
    INFO("block (", s.block.x, ",", s.block.y, ")");
    CHECK(wrong == 0);
  }
}

// ---- __syncwarp ---------------------------------------------------------------------------------

// Each lane publishes a value, then reads its neighbour's: needs __syncwarp between the two. The
// second half runs only in the lower 16 lanes with the matching partial mask.
__global__ void warp_neighbours(const int* in, int* out_full, int* out_half) {
  __shared__ int slot[64];
  const unsigned t = threadIdx.x, lane = t % 32, warp_base = t - lane;
  slot[t] = in[t];
  __syncwarp();
  out_full[t] = slot[warp_base + (lane + 1) % 32];
  __syncwarp();
  if (lane < 16) {
    slot[t] = in[t] * 2 + 1;
    __syncwarp(0xffffu);
    out_half[t] = slot[warp_base + (lane + 5) % 16];
  } else {
    out_half[t] = -1;
  }
}

TEST_CASE("__syncwarp makes lane writes visible to the warp, with a full and a partial mask") {
  scanlab::Rng rng = scanlab::test_rng(300);
  std::vector<int> in(64);
  for (int& x : in) x = int(rng.below(1u << 30));
  scanlab::DeviceBuffer<int> d_in(in), d_full(64), d_half(64);
  d_full.fill_poison();
  d_half.fill_poison();
  warp_neighbours<<<1, 64>>>(d_in.data(), d_full.data(), d_half.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const auto full = d_full.download(), half = d_half.download();
  for (unsigned t = 0; t < 64; ++t) {
    const unsigned lane = t % 32, base = t - lane;
    CHECK(full[t] == in[base + (lane + 1) % 32]);
    CHECK(half[t] == (lane < 16 ? in[base + (lane + 5) % 16] * 2 + 1 : -1));
  }
}

// CUDA: the lanes named in the mask must each execute "a corresponding __syncwarp()" with the same
// mask; the calls may be at different places, e.g. in the two sides of a branch.
__global__ void syncwarp_in_divergent_branches(const int* in, int* out) {
  __shared__ int slot[32];
  const unsigned lane = threadIdx.x;
  if (lane % 2 == 0) {
    slot[lane] = in[lane] + 1;
    __syncwarp();
    out[lane] = slot[(lane + 1) % 32];
  } else {
    slot[lane] = in[lane] * 2;
    __syncwarp();
    out[lane] = slot[(lane + 31) % 32] - 5;
  }
}

TEST_CASE("__syncwarp: the two sides of a branch synchronise with each other") {
  scanlab::Rng rng = scanlab::test_rng(310);
  std::vector<int> in(32);
  for (int& x : in) x = int(rng.below(1u << 20));
  scanlab::DeviceBuffer<int> d_in(in), d_out(32);
  d_out.fill_poison();
  syncwarp_in_divergent_branches<<<1, 32>>>(d_in.data(), d_out.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const auto got = d_out.download();
  auto written = [&](unsigned l) {
    return l % 2 == 0 ? in[l] + 1 : in[l] * 2;
  };
  for (unsigned l = 0; l < 32; ++l) {
    INFO("lane ", l);
    CHECK(got[l] == (l % 2 == 0 ? written((l + 1) % 32) : written((l + 31) % 32) - 5));
  }
}
