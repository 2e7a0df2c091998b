// A one-block kernel with two planted mistakes that a plain run on the emulator (its default thread
// order, no checker) does not show, for the tests of `lab sim --check`: each thread adds its
// element to its left neighbour's, staged in shared memory.
//   --no-barrier  the barrier between the writes to shared memory and the reads of a neighbour's
//                 element is left out: right when lower threads run first, a race all the same
//   --past-end    threads load while i <= n, one element past the input (out of bounds)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

__global__ void pair_sums(const int* in, int* out, int n, bool barrier, bool past_end) {
  __shared__ int staged[256];
  int i = threadIdx.x;
  if (i < n || (past_end && i == n)) staged[i] = in[i];
  if (barrier) __syncthreads();
  if (i < n) out[i] = staged[i] + (i > 0 ? staged[i - 1] : 0);
}

int main(int argc, char** argv) {
  bool barrier = true, past_end = false;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--no-barrier")) barrier = false;
    if (!std::strcmp(argv[a], "--past-end")) past_end = true;
  }
  const int n = 200;
  std::vector<int> h(n), got(n, -1);
  for (int i = 0; i < n; ++i) h[i] = (i * 7) % 11 - 3;
  int *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(int)) != cudaSuccess || cudaMalloc(&out, n * sizeof(int)) != cudaSuccess ||
      cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice) != cudaSuccess) {
    std::printf("set-up failed\n");
    return 3;
  }
  pair_sums<<<1, 256>>>(in, out, n, barrier, past_end);
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::printf("kernel failed: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    int want = h[i] + (i > 0 ? h[i - 1] : 0);
    if (got[i] != want) {
      std::printf("mismatch at %d: %d, expected %d\n", i, got[i], want);
      return 1;
    }
  }
  std::printf("verified\n");
  return 0;
}
