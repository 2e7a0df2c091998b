// A realistic kernel file for the translator's compile check: templates, static and dynamic shared
// memory (with padding, alignment, several declarators), launches with templates, streams and macros.
// The static_asserts check that translation kept every line where it was; the layout (launches over
// several lines, odd spacing) is part of the test, so clang-format leaves the file as written.
// clang-format off
#include "scan_helpers.cuh"
#include <cstdio>
#include <vector>

#define CHECK_CUDA(expr)                                                          \
  do {                                                                            \
    cudaError_t err_ = (expr);                                                    \
    if (err_ != cudaSuccess) std::printf("%s\n", cudaGetErrorString(err_));       \
  } while (0)

extern __shared__ unsigned char file_scope_smem[];

constexpr int kBlock = 256;
#define PAD(i) ((i) + ((i) >> 5))

template <class T, int BLOCK>
__global__ void blelloch_exclusive(const T* __restrict__ in, T* __restrict__ out, int n) {
  __shared__ __align__(16) T tile[PAD(2 * BLOCK)], spare[4];
  __shared__ volatile int flag;
  static __shared__ unsigned long long
      counters[2][BLOCK / 32];
  const int tid = threadIdx.x;
  const int base = 2 * BLOCK * blockIdx.x;
  tile[PAD(2 * tid)] = base + 2 * tid < n ? in[base + 2 * tid] : T{};
  tile[PAD(2 * tid + 1)] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : T{};
  int offset = 1;
  for (int d = BLOCK; d > 0; d >>= 1, offset <<= 1) {  // up-sweep
    __syncthreads();
    if (tid < d) {
      const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      tile[PAD(b)] += tile[PAD(a)];
    }
  }
  if (tid == 0) { tile[PAD(2 * BLOCK - 1)] = T{}; flag = 1; spare[0] = T{}; counters[0][0] = 0; }
  for (int d = 1; d <= BLOCK; d <<= 1) {  // down-sweep
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int a = offset * (2 * tid + 1) - 1, b = offset * (2 * tid + 2) - 1;
      const T t = tile[PAD(a)];
      tile[PAD(a)] = tile[PAD(b)];
      tile[PAD(b)] += t;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = tile[PAD(2 * tid)];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = tile[PAD(2 * tid + 1)];
  static_assert(__LINE__ == 53, "line numbers must survive translation");
}

template <class T>
__global__ void dynamic_scan(const T* in, T* out, int n) {
  extern __shared__ __align__(sizeof(double)) unsigned char raw[];
  T* buf = reinterpret_cast<T*>(raw);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : T{};
  (void)file_scope_smem[0];
  T x = block_inclusive_scan(buf[threadIdx.x], PlusOp<T>{});
  if (i < n) out[i] = x;
}

namespace lab {
struct Launcher {
  template <class T>
  static void run(const T* in, T* out, int n, cudaStream_t s) {
    const int blocks = (n + 2 * kBlock - 1) / (2 * kBlock);
    blelloch_exclusive<T, kBlock><<<blocks, kBlock, 0, s>>>(in, out, n);
    dynamic_scan<T><<<dim3((n + kBlock - 1) / kBlock, 1),
                      dim3(kBlock),
                      kBlock * sizeof(T),
                      s>>>   
        (in,
         out, n);
    static_assert(__LINE__ == 79, "line numbers must survive translation");
  }
};
}  // namespace lab

int main() {
  const int n = 1000;
  std::vector<int> host(n, 1);
  int *d_in = nullptr, *d_out = nullptr;
  CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(d_in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  lab::Launcher::run<int>(d_in, d_out, n, stream);
  lab::Launcher::run<float>(reinterpret_cast<float*>(d_in), reinterpret_cast<float*>(d_out), n, stream);
  CHECK_CUDA((blelloch_exclusive<long long, 128><<<1, 128>>>(nullptr, nullptr, 0), cudaGetLastError()));
  const char* note = "k<<<1, 1>>>() and __shared__ in a string stay as they are";
  std::printf("%s\n", note);  // k<<<1,1>>>(x) __shared__ int z;
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFree(d_out));
  static_assert(__LINE__ == 101, "line numbers must survive translation");
  return 0;
}
