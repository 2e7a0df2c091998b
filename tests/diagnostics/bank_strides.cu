// One warp reads shared memory with stride 1, 2 and 32 words: 1-way, 2-way and 32-way bank
// conflicts on 32 banks of 4 bytes (the GPU counts them as l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld).
//   bank_strides [STRIDE...]   (default: 1 2 32)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void read_shared_with_stride(int* out, int stride) {
  __shared__ int s[32 * 32];
  for (int i = threadIdx.x; i < 32 * 32; i += 32) s[i] = i;  // stride-1 stores: conflict-free
  __syncwarp();
  out[threadIdx.x] = s[(threadIdx.x * stride) % (32 * 32)];
}

int main(int argc, char** argv) {
  std::vector<int> strides;
  for (int a = 1; a < argc; ++a) strides.push_back(std::atoi(argv[a]));
  if (strides.empty()) strides = {1, 2, 32};
  int* d = nullptr;
  if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) return 1;
  for (int stride : strides) {
    read_shared_with_stride<<<1, 32>>>(d, stride);
    cudaError_t e = cudaDeviceSynchronize();
    std::vector<int> out(32);
    cudaMemcpy(out.data(), d, sizeof(int) * 32, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 32; ++t)
      if (e != cudaSuccess || out[t] != (t * stride) % 1024) {
        std::printf("stride %d: wrong result\n", stride);
        return 1;
      }
    std::printf("stride %d: read verified\n", stride);
  }
  cudaFree(d);
  return 0;
}
