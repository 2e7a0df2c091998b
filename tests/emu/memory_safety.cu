// Memory mistakes of a kernel that the emulator names, as compute-sanitizer does on a GPU: run with
// one case name; each case prints the error its launch or allocation returned (ctest checks the
// emulator's message on stderr, see CMakeLists.txt). Emulator only: on a GPU most of these would
// corrupt memory or kill the context.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

namespace {

__global__ void write_at(int* a, long long index) {
  if (blockIdx.x == 1 && threadIdx.x == 3) a[index] = 1;
}

__global__ void read_int_at(const char* bytes, long long offset, int* out) {
  if (threadIdx.x == 0) *out = *reinterpret_cast<const int*>(bytes + offset);
}

// An 8-byte store into an array of 4-byte words, one word in: on a GPU a misaligned address (the
// array is 4-byte aligned, and the 8-byte word starts 4 bytes past its start). (A 16-byte vector
// type such as uint4 is copied as four 4-byte words on the CPU, so the emulator cannot see its
// alignment: see common/emu/src/memcheck.cpp.)
__global__ void store_wide_into_words(int* out) {
  __shared__ unsigned words[68];
  if (threadIdx.x == 0) *reinterpret_cast<unsigned long long*>(words + 1) = 0x200000001ull;
  __syncthreads();
  if (threadIdx.x == 0) *out = static_cast<int>(words[2]);
}

__device__ int recurse(int depth) {
  volatile int pad[256];
  pad[depth % 256] = depth;
  if (depth == 0) return pad[0];
  return recurse(depth - 1) + pad[depth % 256];
}

__global__ void deep(int* out, int depth) { *out = recurse(depth); }

int report(cudaError_t e) {
  std::printf("%s\n", cudaGetErrorName(e));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  const int n = 1000;  // 4000 bytes: the allocation ends 96 bytes before its pages do
  int* a = nullptr;
  if (cudaMalloc(&a, n * sizeof(int)) != cudaSuccess) return 1;
  if (!std::strcmp(which, "past-end")) {  // into the rounding after the end: caught by --memcheck
    write_at<<<2, 32>>>(a, n + 2);
    return report(cudaDeviceSynchronize());
  }
  if (!std::strcmp(which, "before-start")) {  // into the guard page before the start: a fault
    write_at<<<2, 32>>>(a, -2);
    return report(cudaDeviceSynchronize());
  }
  if (!std::strcmp(which, "far-past-end")) {  // into the guard page after the end: a fault
    write_at<<<2, 32>>>(a, n + 100);
    return report(cudaDeviceSynchronize());
  }
  if (!std::strcmp(which, "misaligned")) {  // a 4-byte load at an odd address: caught by --memcheck
    read_int_at<<<1, 32>>>(reinterpret_cast<const char*>(a), 2, a + 10);
    return report(cudaDeviceSynchronize());
  }
  if (!std::strcmp(which, "misaligned-shared")) {  // an 8-byte shared store at a 4-byte offset: --memcheck
    store_wide_into_words<<<1, 32>>>(a);
    return report(cudaDeviceSynchronize());
  }
  if (!std::strcmp(which, "stack-overflow")) {
    deep<<<1, 1>>>(a, 1 << 20);
    return report(cudaDeviceSynchronize());
  }
  if (!std::strcmp(which, "too-much-memory")) {  // run with --device-memory 16777216 (16 MiB)
    void* big = nullptr;
    std::printf("first: %s\n", cudaGetErrorName(cudaMalloc(&big, 10u << 20)));
    void* more = nullptr;
    return report(cudaMalloc(&more, 10u << 20));
  }
  std::fprintf(stderr,
               "usage: memory_safety "
               "past-end|before-start|far-past-end|misaligned|misaligned-shared|stack-overflow|too-much-memory\n");
  return 2;
}
