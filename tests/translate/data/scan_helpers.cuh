// Helpers for the translator's compile check (tests/translate): a warp-level inclusive scan with
// shuffles and a block-level one through shared memory, written the way chapter code is.
#pragma once

template <class T>
struct PlusOp {
  __host__ __device__ T operator()(T a, T b) const { return a + b; }
};

template <class T, class Op>
__device__ T warp_inclusive_scan(T x, Op op) {
  const unsigned lane = threadIdx.x & 31u;
  for (int d = 1; d < 32; d <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= static_cast<unsigned>(d)) x = op(y, x);
  }
  return x;
}

// One value per thread; at most 32 warps per block.
template <class T, class Op>
__device__ T block_inclusive_scan(T x, Op op) {
  __shared__ T warp_totals[32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  x = warp_inclusive_scan(x, op);
  if (lane == 31) warp_totals[warp] = x;
  __syncthreads();
  if (warp == 0) {
    T t = lane < (blockDim.x + 31) / 32 ? warp_totals[lane] : T{};
    warp_totals[lane] = warp_inclusive_scan(t, op);
  }
  __syncthreads();
  return warp > 0 ? op(warp_totals[warp - 1], x) : x;
}
