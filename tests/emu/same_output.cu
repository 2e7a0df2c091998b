// A plain CUDA program that uses what students' programs use — <<<>>> launches, extern __shared__,
// the four shuffles, a ballot, __syncthreads_count and atomics — and prints only values that CUDA
// defines. tests/emu/same_output.expected is its output on an H200 (recorded with tests/gpu/check.sh);
// ctest runs it on the emulator and compares byte for byte.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void warp_and_block_intrinsics(const int* in, int* out, unsigned* counters) {
  extern __shared__ int scratch[];
  const int t = threadIdx.x, lane = t & 31;
  const int v = in[blockIdx.x * blockDim.x + t];
  int inclusive = v;  // Kogge-Stone warp scan
  for (int d = 1; d < 32; d *= 2) {
    const int y = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (lane >= d) inclusive += y;
  }
  const int from_next = __shfl_down_sync(0xffffffffu, v, 1);
  const int mirrored = __shfl_xor_sync(0xffffffffu, v, 31);
  const int broadcast = __shfl_sync(0xffffffffu, v, 5, 16);
  const unsigned odd = __ballot_sync(0xffffffffu, v & 1);
  scratch[t] = inclusive;
  const int big = __syncthreads_count(v > 50);
  const int warp_total = scratch[(t | 31)];  // the last lane of this warp's inclusive scan
  const int i = blockIdx.x * blockDim.x + t;
  out[5 * i + 0] = inclusive;
  out[5 * i + 1] = from_next + mirrored;
  out[5 * i + 2] = broadcast;
  out[5 * i + 3] = __popc(odd) + 100 * big;
  out[5 * i + 4] = warp_total;
  atomicAdd(&counters[0], unsigned(v));
  atomicMax(&counters[1], unsigned(v * 7 % 101));
  if (t == 0) atomicAdd(&counters[2], 1u);
}

int main() {
  const int blocks = 3, threads = 96, n = blocks * threads;
  std::vector<int> in(n);
  unsigned x = 2024;
  for (int& v : in) v = int((x = x * 1664525u + 1013904223u) >> 25);  // 0..127
  int *d_in, *d_out;
  unsigned* d_counters;
  if (cudaMalloc(&d_in, n * sizeof(int)) != cudaSuccess || cudaMalloc(&d_out, 5 * n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&d_counters, 3 * sizeof(unsigned)) != cudaSuccess)
    return 1;
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_counters, 0, 3 * sizeof(unsigned));
  warp_and_block_intrinsics<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_out, d_counters);
  if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
    std::printf("launch failed\n");
    return 1;
  }
  std::vector<int> out(5 * n);
  unsigned counters[3];
  cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(counters, d_counters, sizeof counters, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    std::printf("%d: %d %d %d %d %d\n", i, out[5 * i], out[5 * i + 1], out[5 * i + 2], out[5 * i + 3], out[5 * i + 4]);
  std::printf("sum %u max %u blocks %u\n", counters[0], counters[1], counters[2]);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_counters);
  return 0;
}
