// The host side shared by the litmus programs: options, outcome counts, and the checks a test asks
// for. A litmus test is a tiny concurrent program (two blocks, a few loads and stores) run many
// times; the interesting result is which outcomes occur at all, and how often. The shapes and their
// names follow the litmus-testing literature (Alglave et al., "GPU concurrency: weak behaviours and
// programming assumptions", ASPLOS 2015; GPUHarbor, ISSTA 2023).
//
// Every program takes the same options:
//   --variant NAME        which form of the test (fences or not, which loads)
//   --iterations N        kernel launches (default 100)
//   --instances K         independent copies of the test per launch, each on its own memory (default 64)
//   --stress B            extra blocks that hammer a scratch buffer while the test runs (default 0;
//                         on a GPU, stress makes weak outcomes show: tests/litmus/run_gpu.sh uses it)
//   --seed S              which instances swap their two roles, per launch (default 1)
//   --require-seen TEXT   fail (exit 1) unless an outcome containing TEXT occurred at least once
//   --forbid TEXT         fail (exit 1) if an outcome containing TEXT occurred
// On the emulator the memory model, schedule and seed come from SCANLAB_EMU_* as for any program.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#ifdef SCANLAB_EMU
#include "scanlab_emu/options.hpp"
#endif

#define LITMUS_CHECK(call)                                                                                            \
  do {                                                                                                                \
    cudaError_t e_ = (call);                                                                                          \
    if (e_ != cudaSuccess) {                                                                                          \
      std::printf("CUDA error %s (%s) at %s:%d\n", cudaGetErrorName(e_), cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(1);                                                                                                   \
    }                                                                                                                 \
  } while (0)

namespace litmus {

constexpr int kThreads = 32;  // one warp per block: thread 0 plays the role, or the whole warp votes
constexpr int kStride = 64;   // ints between two instances' locations, and between x and y: 256 bytes,
                              // so no two locations share a 128-byte line on a GPU

struct Options {
  std::string variant;
  int iterations = 100;
  int instances = 64;
  int stress = 0;
  unsigned seed = 1;
  std::vector<std::string> seen, forbidden;
};

inline Options parse(int argc, char** argv, const char* name, const std::vector<std::string>& variants) {
  Options o;
  o.variant = variants.front();
  auto usage = [&] {
    std::fprintf(stderr,
                 "usage: %s [--variant V] [--iterations N] [--instances K] [--stress B] [--seed S] "
                 "[--require-seen OUTCOME]... [--forbid OUTCOME]...\n  variants:",
                 name);
    for (const std::string& v : variants) std::fprintf(stderr, " %s", v.c_str());
    std::fprintf(stderr, "\n");
    std::exit(2);
  };
  for (int a = 1; a < argc; ++a) {
    const bool has_value = a + 1 < argc;
    if (!std::strcmp(argv[a], "--variant") && has_value) o.variant = argv[++a];
    else if (!std::strcmp(argv[a], "--iterations") && has_value) o.iterations = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--instances") && has_value) o.instances = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--stress") && has_value) o.stress = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--seed") && has_value) o.seed = unsigned(std::strtoul(argv[++a], nullptr, 10));
    else if (!std::strcmp(argv[a], "--require-seen") && has_value) o.seen.push_back(argv[++a]);
    else if (!std::strcmp(argv[a], "--forbid") && has_value) o.forbidden.push_back(argv[++a]);
    else usage();
  }
  bool known = false;
  for (const std::string& v : variants) known = known || v == o.variant;
  if (!known || o.iterations < 1 || o.instances < 1 || o.stress < 0) usage();
  return o;
}

// How far each instance rotates its roles in launch `iteration` (0 .. roles-1): on the emulator,
// where one block runs until it ends or waits, the block that starts first sees none of the others'
// stores, so each role must go first in some instances.
inline std::vector<int> role_rotations(const Options& o, int iteration, int roles) {
  std::vector<int> rotation(o.instances);
  unsigned x = o.seed * 2654435761u + unsigned(iteration) * 40503u + 1u;
  for (int& r : rotation) {
    x = x * 1103515245u + 12345u;
    r = int((x >> 16) % unsigned(roles));
  }
  return rotation;
}

// Other blocks' traffic while the test runs: stores and loads all over a scratch buffer.
__device__ inline void stress(volatile int* scratch, int words, int block) {
  for (int i = 0; i < 256; ++i) {
    const int k = int((unsigned(block) * 2654435761u + unsigned(i) * 40503u) % unsigned(words));
    scratch[k] = scratch[(k + 97) % words] + 1;
  }
}

using Counts = std::map<std::string, long long>;

inline const char* backend() {
#ifdef SCANLAB_EMU
  return "the emulator";
#else
  return "the GPU";
#endif
}

// Where an instance's two locations are: x at mem[base], y at mem[base + kStride].
__host__ __device__ inline int base_of(int instance) { return instance * 2 * kStride; }
constexpr int kScratchWords = 1 << 16;

// The launch that every program makes: `kernel` runs with roles * instances + stress blocks of
// kThreads threads and gets (mem, results, rotations, scratch, instances, variant); it starts with
// litmus::begin. Each launch starts from zeroed memory; `classify(results of one instance, its
// memory)` names the outcome.
template <class Kernel, class Classify>
Counts run(const Options& o, int variant, int results_per_instance, Kernel kernel, Classify classify, int roles = 2) {
  const std::size_t mem_words = std::size_t(o.instances) * 2 * kStride;
  const std::size_t result_words = std::size_t(o.instances) * results_per_instance;
  int *mem, *results, *swaps, *scratch;
  LITMUS_CHECK(cudaMalloc(&mem, mem_words * sizeof(int)));
  LITMUS_CHECK(cudaMalloc(&results, result_words * sizeof(int)));
  LITMUS_CHECK(cudaMalloc(&swaps, std::size_t(o.instances) * sizeof(int)));
  LITMUS_CHECK(cudaMalloc(&scratch, kScratchWords * sizeof(int)));
  LITMUS_CHECK(cudaMemset(scratch, 0, kScratchWords * sizeof(int)));
  std::vector<int> host_results(result_words), host_mem(mem_words);
  Counts counts;
  for (int it = 0; it < o.iterations; ++it) {
    const std::vector<int> swap = role_rotations(o, it, roles);
    LITMUS_CHECK(cudaMemset(mem, 0, mem_words * sizeof(int)));
    LITMUS_CHECK(cudaMemset(results, 0xff, result_words * sizeof(int)));  // -1: a result never written
    LITMUS_CHECK(cudaMemcpy(swaps, swap.data(), swap.size() * sizeof(int), cudaMemcpyHostToDevice));
    kernel<<<roles * o.instances + o.stress, kThreads>>>(mem, results, swaps, scratch, o.instances, variant);
    LITMUS_CHECK(cudaGetLastError());
    LITMUS_CHECK(cudaDeviceSynchronize());
    LITMUS_CHECK(cudaMemcpy(host_results.data(), results, result_words * sizeof(int), cudaMemcpyDeviceToHost));
    LITMUS_CHECK(cudaMemcpy(host_mem.data(), mem, mem_words * sizeof(int), cudaMemcpyDeviceToHost));
    for (int k = 0; k < o.instances; ++k)
      ++counts[classify(&host_results[std::size_t(k) * results_per_instance], &host_mem[std::size_t(base_of(k))])];
  }
  cudaFree(mem);
  cudaFree(results);
  cudaFree(swaps);
  cudaFree(scratch);
  return counts;
}

// What block `blockIdx.x` does in a launch: its role (0 .. roles-1) in its instance of the test, and
// that instance's two locations x and y (kStride ints apart), or role -1 for a stress block, which
// has already done its stress when this returns.
struct Instance {
  int role;
  int index;
  int* x;
  int* y;
};

__device__ inline Instance begin(int* mem, const int* rotations, int* scratch, int instances, int roles = 2) {
  const int b = int(blockIdx.x);
  if (b >= roles * instances) {
    if (threadIdx.x == 0) stress(scratch, kScratchWords, b);
    return Instance{-1, -1, nullptr, nullptr};
  }
  const int k = b / roles;
  int* x = &mem[base_of(k)];
  return Instance{(b % roles + rotations[k]) % roles, k, x, x + kStride};
}

inline int variant_index(const Options& o, const std::vector<std::string>& variants) {
  for (std::size_t i = 0; i < variants.size(); ++i)
    if (variants[i] == o.variant) return int(i);
  return 0;
}

// Prints every outcome's count, then checks the required and forbidden outcomes. Returns the exit code.
inline int report(const char* test, const Options& o, const Counts& counts) {
  long long total = 0;
  for (const auto& [outcome, n] : counts) total += n;
  std::printf("litmus %s, variant %s, on %s: %d launches x %d instances = %lld runs, stress %d\n", test,
              o.variant.c_str(), backend(), o.iterations, o.instances, total, o.stress);
  for (const auto& [outcome, n] : counts) std::printf("  %-28s %lld\n", outcome.c_str(), n);
  int failures = 0;
  auto occurrences = [&](const std::string& text) {
    long long n = 0;
    for (const auto& [outcome, c] : counts)
      if (outcome.find(text) != std::string::npos) n += c;
    return n;
  };
  for (const std::string& s : o.seen) {
    if (occurrences(s) == 0) {
      std::printf("FAIL: no outcome \"%s\" occurred\n", s.c_str());
      ++failures;
    }
  }
  for (const std::string& f : o.forbidden) {
    if (const long long n = occurrences(f)) {
      std::printf("FAIL: forbidden outcome \"%s\" occurred %lld times\n", f.c_str(), n);
      ++failures;
    }
  }
  if (failures) {
#ifdef SCANLAB_EMU
    std::printf("  %s\n", scanlab_emu::describe_options().c_str());
#endif
    std::printf("  (program seed %u)\n", o.seed);
    return 1;
  }
  if (!o.seen.empty() || !o.forbidden.empty()) std::printf("checks passed\n");
  return 0;
}

}  // namespace litmus
