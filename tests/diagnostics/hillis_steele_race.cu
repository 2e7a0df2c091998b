// Hillis-Steele inclusive scan of one block, in place (racy: a thread reads s[t - offset] in the same
// step in which that element's owner overwrites it) or double-buffered (correct). The program the
// race checker and the thread-order policies are shown and tested on (GPU Gems 3, ch. 39.2.1).
//   hillis_steele_race [--double-buffered]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

constexpr int kN = 256;

__global__ void hillis_steele_inplace_inclusive(int* data) {
  __shared__ int s[kN];
  const int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  // --8<-- [start:inplace]
  for (int offset = 1; offset < kN; offset *= 2) {
    if (t >= offset) s[t] += s[t - offset];  // reads a neighbour that may already have added
    __syncthreads();
  }
  // --8<-- [end:inplace]
  data[t] = s[t];
}

__global__ void hillis_steele_double_buffered_inclusive(int* data) {
  __shared__ int s[2][kN];
  const int t = threadIdx.x;
  int from = 0;
  s[from][t] = data[t];
  __syncthreads();
  for (int offset = 1; offset < kN; offset *= 2) {
    s[1 - from][t] = t >= offset ? s[from][t] + s[from][t - offset] : s[from][t];
    from = 1 - from;
    __syncthreads();
  }
  data[t] = s[from][t];
}

int main(int argc, char** argv) {
  const bool double_buffered = argc > 1 && !std::strcmp(argv[1], "--double-buffered");
  std::vector<int> h(kN);
  for (int i = 0; i < kN; ++i) h[i] = (i * 37) % 11 + 1;
  int* d = nullptr;
  if (cudaMalloc(&d, kN * sizeof(int)) != cudaSuccess) return 1;
  cudaMemcpy(d, h.data(), kN * sizeof(int), cudaMemcpyHostToDevice);
  if (double_buffered) hillis_steele_double_buffered_inclusive<<<1, kN>>>(d);
  else hillis_steele_inplace_inclusive<<<1, kN>>>(d);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::vector<int> out(kN);
  cudaMemcpy(out.data(), d, kN * sizeof(int), cudaMemcpyDeviceToHost);
  int sum = 0;
  for (int i = 0; i < kN; ++i) {
    sum += h[i];
    if (out[i] != sum) {
      std::printf("%s scan: mismatch at %d: expected %d, got %d\n", double_buffered ? "double-buffered" : "in-place", i,
                  sum, out[i]);
      return 1;
    }
  }
  std::printf("%s scan of %d ints: verified\n", double_buffered ? "double-buffered" : "in-place", kN);
  cudaFree(d);
  return 0;
}
