// Pins the emulator's atomic functions to the CUDA Programming Guide ("Atomic Functions"): each is
// one read-modify-write returning the old value, for every 32- and 64-bit type CUDA defines it on,
// with many threads of many blocks hitting one address. Checks: the final value equals the host
// reduction, and the returned old values are consistent with *some* serial order: the multiset
// {old_i} + {final} equals {op(old_i, v_i)} + {initial} (every value the word held was read once and
// written once). atomicInc/atomicDec wrap as documented. The same file runs on a GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/testing.hpp"

namespace {

// One struct per operation: the device call and the Programming Guide's definition on the host.
// clang-format off
struct Add {
  static std::string name() { return "atomicAdd"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicAdd(a, v); }
  template <class T> static T host(T old, T v) {
    if constexpr (std::is_same_v<T, int>) return int(unsigned(old) + unsigned(v));  // wraps like the GPU
    else return T(old + v);
  }
};
struct Sub {
  static std::string name() { return "atomicSub"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicSub(a, v); }
  template <class T> static T host(T old, T v) {
    if constexpr (std::is_same_v<T, int>) return int(unsigned(old) - unsigned(v));
    else return T(old - v);
  }
};
struct Min {
  static std::string name() { return "atomicMin"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicMin(a, v); }
  template <class T> static T host(T old, T v) { return v < old ? v : old; }
};
struct Max {
  static std::string name() { return "atomicMax"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicMax(a, v); }
  template <class T> static T host(T old, T v) { return v > old ? v : old; }
};
struct And {
  static std::string name() { return "atomicAnd"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicAnd(a, v); }
  template <class T> static T host(T old, T v) { return T(old & v); }
};
struct Or {
  static std::string name() { return "atomicOr"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicOr(a, v); }
  template <class T> static T host(T old, T v) { return T(old | v); }
};
struct Xor {
  static std::string name() { return "atomicXor"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicXor(a, v); }
  template <class T> static T host(T old, T v) { return T(old ^ v); }
};
struct Exch {
  static std::string name() { return "atomicExch"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicExch(a, v); }
  template <class T> static T host(T, T v) { return v; }
};
// ((old >= val) ? 0 : (old+1)) and (((old == 0) || (old > val)) ? val : (old-1)).
struct Inc {
  static std::string name() { return "atomicInc"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicInc(a, v); }
  template <class T> static T host(T old, T v) { return old >= v ? 0u : old + 1u; }
};
struct Dec {
  static std::string name() { return "atomicDec"; }
  template <class T> __device__ static T apply(T* a, T v) { return atomicDec(a, v); }
  template <class T> static T host(T old, T v) { return (old == 0u || old > v) ? v : old - 1u; }
};
// clang-format on

// Every thread applies Op once to target[0] (global) with its own operand.
template <class Op, class T>
__global__ void one_address(T* target, const T* vals, T* olds, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) olds[i] = Op::apply(target, vals[i]);
}

// The same on a __shared__ word per block, which thread 0 seeds and publishes.
template <class Op, class T>
__global__ void one_shared_address(const T* init, const T* vals, T* olds, T* finals) {
  __shared__ T word;
  if (threadIdx.x == 0) word = init[blockIdx.x];
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  olds[i] = Op::apply(&word, vals[i]);
  __syncthreads();
  if (threadIdx.x == 0) finals[blockIdx.x] = word;
}

template <class T>
std::string show(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", double(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

// The serial-order check described at the top of the file; bit-exact, so float results must be
// exact (the float inputs are chosen so that every partial sum is representable).
template <class Op, class T>
std::string consistency_error(T init, const std::vector<T>& vals, const std::vector<T>& olds, std::size_t begin,
                              std::size_t count, T final_value) {
  std::vector<T> read(olds.begin() + std::ptrdiff_t(begin), olds.begin() + std::ptrdiff_t(begin + count));
  std::vector<T> written;
  written.reserve(count + 1);
  for (std::size_t k = 0; k < count; ++k) written.push_back(Op::host(olds[begin + k], vals[begin + k]));
  read.push_back(final_value);
  written.push_back(init);
  std::sort(read.begin(), read.end());
  std::sort(written.begin(), written.end());
  for (std::size_t k = 0; k < read.size(); ++k)
    if (std::memcmp(&read[k], &written[k], sizeof(T)) != 0)
      return std::string("the old values do not chain into one serial order: sorted element ") + std::to_string(k) +
             " is " + show(read[k]) + " among {olds, final} but " + show(written[k]) + " among {op(old, v), initial}";
  return "";
}

// `order_free`: the final value is the same in every order (true for everything but atomicExch and
// atomicInc/atomicDec with differing limits); otherwise only the serial-order check applies.
template <class Op, class T>
void check_one_address(const std::vector<T>& vals, T init, bool order_free = true) {
  const int n = int(vals.size());
  T expected = init;
  for (T v : vals) expected = Op::host(expected, v);

  scanlab::DeviceBuffer<T> d_target(1), d_vals(vals), d_olds(vals.size());
  d_target.upload(&init, 1);
  d_olds.fill_poison();
  const int block = 256;
  one_address<Op, T><<<(n + block - 1) / block, block>>>(d_target.data(), d_vals.data(), d_olds.data(), n);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  T final_value;
  d_target.download(&final_value, 1);
  const std::vector<T> olds = d_olds.download();
  INFO(Op::name(), " on one global ", sizeof(T) * 8, "-bit word, ", n, " threads");
  if (order_free)
    CHECK_MESSAGE(std::memcmp(&final_value, &expected, sizeof(T)) == 0, "final ", show(final_value), ", expected ",
                  show(expected));
  const std::string chain = consistency_error<Op>(init, vals, olds, 0, vals.size(), final_value);
  CHECK_MESSAGE(chain.empty(), chain);
}

template <class Op, class T>
void check_shared_address(const std::vector<T>& vals, const std::vector<T>& init, bool order_free = true) {
  const int blocks = int(init.size()), block = int(vals.size()) / blocks;
  scanlab::DeviceBuffer<T> d_init(init), d_vals(vals), d_olds(vals.size()), d_finals(init.size());
  d_olds.fill_poison();
  d_finals.fill_poison();
  one_shared_address<Op, T><<<blocks, block>>>(d_init.data(), d_vals.data(), d_olds.data(), d_finals.data());
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  const std::vector<T> olds = d_olds.download(), finals = d_finals.download();
  for (int b = 0; b < blocks; ++b) {
    T expected = init[std::size_t(b)];
    for (int k = 0; k < block; ++k) expected = Op::host(expected, vals[std::size_t(b * block + k)]);
    INFO(Op::name(), " on a __shared__ ", sizeof(T) * 8, "-bit word, block ", b);
    if (order_free)
      CHECK_MESSAGE(std::memcmp(&finals[std::size_t(b)], &expected, sizeof(T)) == 0, "final ",
                    show(finals[std::size_t(b)]), ", expected ", show(expected));
    const std::string chain =
        consistency_error<Op>(init[std::size_t(b)], vals, olds, std::size_t(b) * std::size_t(block), std::size_t(block),
                              finals[std::size_t(b)]);
    CHECK_MESSAGE(chain.empty(), chain);
  }
}

constexpr int kThreads = 64 * 256;  // many threads of many blocks on one word

template <class T>
std::vector<T> random_operands(std::size_t n, std::uint64_t stream, int bits_kept = 64) {
  scanlab::Rng rng = scanlab::test_rng(stream);
  std::vector<T> v(n);
  for (T& x : v) {
    std::uint64_t bits = rng.next_u64();
    if (bits_kept < 64) bits &= (std::uint64_t(1) << bits_kept) - 1;
    std::memcpy(&x, &bits, sizeof(T));
  }
  return v;
}

// Bitwise operands with few set (or clear) bits, so And/Or do not saturate after a few threads and
// the intermediate values stay distinct enough for the chain check to mean something.
template <class T>
std::vector<T> sparse_bits(std::size_t n, std::uint64_t stream, bool mostly_ones) {
  scanlab::Rng rng = scanlab::test_rng(stream);
  std::vector<T> v(n);
  for (T& x : v) {
    std::uint64_t bits = std::uint64_t(1) << rng.below(sizeof(T) * 8);
    if (rng.below(3) == 0) bits |= std::uint64_t(1) << rng.below(sizeof(T) * 8);
    bits = mostly_ones ? ~bits : bits;
    std::memcpy(&x, &bits, sizeof(T));
  }
  return v;
}

}  // namespace

TEST_CASE("atomicAdd(1) returns each of 0..N-1 exactly once") {
  std::vector<unsigned> ones(kThreads, 1u);
  scanlab::DeviceBuffer<unsigned> d_target(1), d_vals(ones), d_olds(ones.size());
  SCANLAB_CUDA_CHECK(cudaMemset(d_target.data(), 0, sizeof(unsigned)));
  d_olds.fill_poison();
  one_address<Add, unsigned><<<kThreads / 256, 256>>>(d_target.data(), d_vals.data(), d_olds.data(), kThreads);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  unsigned final_value = 0;
  d_target.download(&final_value, 1);
  std::vector<unsigned> olds = d_olds.download();
  std::sort(olds.begin(), olds.end());
  CHECK(final_value == unsigned(kThreads));
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < olds.size(); ++k) wrong += olds[k] != unsigned(k);
  CHECK(wrong == 0);
}

TEST_CASE("atomicAdd/atomicSub on int, unsigned, unsigned long long, float, double") {
  check_one_address<Add>(random_operands<int>(kThreads, 1), int(12345));
  check_one_address<Add>(random_operands<unsigned>(kThreads, 2), 7u);  // wraps past 2^32 many times
  check_one_address<Add>(random_operands<unsigned long long>(kThreads, 3), 99ull);
  check_one_address<Sub>(random_operands<int>(kThreads, 4), int(-5));
  check_one_address<Sub>(random_operands<unsigned>(kThreads, 5), 3u);
  // Floats: quarter-integers in [-200, 200], so every partial sum is exact (no rounding and no
  // subnormals, which the GPU's float atomics flush), whatever order the threads run in.
  scanlab::Rng rng = scanlab::test_rng(6);
  std::vector<float> f(kThreads);
  std::vector<double> d(kThreads);
  for (float& x : f) x = float(int(rng.below(1601)) - 800) * 0.25f;
  for (double& x : d) x = double(std::int64_t(rng.below(1u << 30)) - (1 << 29)) * 0.125;
  check_one_address<Add>(f, 0.5f);
  check_one_address<Add>(d, -3.25);
}

TEST_CASE("atomicMin/atomicMax on int, unsigned, long long, unsigned long long") {
  check_one_address<Min>(random_operands<int>(kThreads, 10), int(0x7fffffff));
  check_one_address<Max>(random_operands<int>(kThreads, 11), int(0x80000000));
  check_one_address<Min>(random_operands<unsigned>(kThreads, 12), 0xfffffff0u);
  check_one_address<Max>(random_operands<unsigned>(kThreads, 13), 5u);
  check_one_address<Min>(random_operands<long long>(kThreads, 14), 0LL);
  check_one_address<Max>(random_operands<long long>(kThreads, 15), 0LL);
  check_one_address<Min>(random_operands<unsigned long long>(kThreads, 16), ~0ull);
  check_one_address<Max>(random_operands<unsigned long long>(kThreads, 17), 1ull);
}

TEST_CASE("atomicAnd/atomicOr/atomicXor on int, unsigned, unsigned long long") {
  const std::size_t few = 40;  // And/Or reach a fixed point quickly; a short run keeps the chain informative
  check_one_address<And>(sparse_bits<int>(few, 20, true), int(-1));
  check_one_address<And>(sparse_bits<unsigned>(few, 21, true), 0xffffffffu);
  check_one_address<And>(sparse_bits<unsigned long long>(few, 22, true), ~0ull);
  check_one_address<Or>(sparse_bits<int>(few, 23, false), 0);
  check_one_address<Or>(sparse_bits<unsigned>(few, 24, false), 0u);
  check_one_address<Or>(sparse_bits<unsigned long long>(few, 25, false), 0ull);
  check_one_address<And>(random_operands<unsigned>(kThreads, 26), 0xffffffffu);
  check_one_address<Or>(random_operands<unsigned long long>(kThreads, 27), 0ull);
  check_one_address<Xor>(random_operands<int>(kThreads, 28), int(0x1234567));
  check_one_address<Xor>(random_operands<unsigned>(kThreads, 29), 0u);
  check_one_address<Xor>(random_operands<unsigned long long>(kThreads, 30), 0xdeadbeefcafef00dull);
}

TEST_CASE("atomicExch on int, unsigned, unsigned long long, float") {
  // Distinct operands: the chain check then proves every value was stored and read exactly once.
  std::vector<int> vi(kThreads);
  std::vector<unsigned> vu(kThreads);
  std::vector<unsigned long long> vl(kThreads);
  std::vector<float> vf(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    vi[std::size_t(i)] = -i - 1;
    vu[std::size_t(i)] = 0x9e3779b9u * unsigned(i + 1);
    vl[std::size_t(i)] = 0x9e3779b97f4a7c15ull * unsigned(i + 1);
    vf[std::size_t(i)] = float(i) * 0.5f + 1.0f;
  }
  check_one_address<Exch>(vi, 1000000, false);
  check_one_address<Exch>(vu, 0u, false);
  check_one_address<Exch>(vl, 0ull, false);
  check_one_address<Exch>(vf, -1.0f, false);
}

TEST_CASE("atomicInc/atomicDec wrap as documented") {
  // Limit 1000 with 16384 increments from 0: wraps to 0 sixteen times.
  std::vector<unsigned> limit(kThreads, 1000u);
  check_one_address<Inc>(limit, 0u);
  check_one_address<Dec>(limit, 0u);     // 0 -> val, then counts down
  check_one_address<Dec>(limit, 5000u);  // above val: -> val
  check_one_address<Inc>(limit, 5000u);  // above val: -> 0
  // Random limits (still one serial order); limit 0 and the largest unsigned too.
  std::vector<unsigned> mixed = random_operands<unsigned>(kThreads, 40, 6);
  mixed[0] = 0u;
  mixed[1] = 0xffffffffu;
  check_one_address<Inc>(mixed, 3u, false);
  check_one_address<Dec>(mixed, 3u, false);

  // Single-thread edge cases of the definitions.
  struct Edge {
    unsigned old, val;
  };
  for (Edge e : {Edge{0, 0}, Edge{5, 5}, Edge{6, 5}, Edge{4, 5}, Edge{0xffffffffu, 0xffffffffu}, Edge{0, 0xffffffffu},
                 Edge{0xfffffffeu, 0xffffffffu}}) {
    check_one_address<Inc>(std::vector<unsigned>{e.val}, e.old);
    check_one_address<Dec>(std::vector<unsigned>{e.val}, e.old);
  }
}

TEST_CASE("atomics on a __shared__ word, per block") {
  const int blocks = 8, block = 256;
  std::vector<int> init_i(blocks);
  std::vector<unsigned> init_u(blocks);
  for (int b = 0; b < blocks; ++b) {
    init_i[std::size_t(b)] = b * 1000 - 3000;
    init_u[std::size_t(b)] = unsigned(b) * 77u;
  }
  check_shared_address<Add>(random_operands<int>(std::size_t(blocks) * block, 50, 12), init_i);
  check_shared_address<Max>(random_operands<int>(std::size_t(blocks) * block, 51), init_i);
  check_shared_address<Min>(random_operands<unsigned>(std::size_t(blocks) * block, 52), init_u);
  check_shared_address<Inc>(std::vector<unsigned>(std::size_t(blocks) * block, 100u), init_u);
  check_shared_address<Exch>(random_operands<unsigned>(std::size_t(blocks) * block, 53), init_u, false);
  std::vector<float> f(std::size_t(blocks) * block);
  scanlab::Rng rng = scanlab::test_rng(54);
  for (float& x : f) x = float(int(rng.below(2001)) - 1000) * 0.5f;
  check_shared_address<Add>(f, std::vector<float>(std::size_t(blocks), 0.25f));
}

// ---- atomicCAS ------------------------------------------------------------------------------------

// Everyone tries to swap 0 -> own id + 1 once: exactly one wins, everyone else reads the winner's id.
template <class T>
__global__ void cas_race(T* word, T* olds, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) olds[i] = atomicCAS(word, T(0), T(i + 1));
}

// A CAS loop that adds the thread's value: the classic way to build any atomic from CAS.
template <class T>
__global__ void cas_add_loop(T* word, const T* vals, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T seen = *word, assumed;
  do {
    assumed = seen;
    seen = atomicCAS(word, assumed, T(assumed + vals[i]));
  } while (seen != assumed);
}

template <class T>
void check_cas(int n) {
  scanlab::DeviceBuffer<T> d_word(1), d_olds{std::size_t(n)};
  SCANLAB_CUDA_CHECK(cudaMemset(d_word.data(), 0, sizeof(T)));
  d_olds.fill_poison();
  cas_race<T><<<(n + 255) / 256, 256>>>(d_word.data(), d_olds.data(), n);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  T winner_id;
  d_word.download(&winner_id, 1);
  const std::vector<T> olds = d_olds.download();
  int zeros = 0, wrong = 0;
  for (int i = 0; i < n; ++i) {
    if (olds[std::size_t(i)] == T(0)) {
      ++zeros;
      if (winner_id != T(i + 1)) ++wrong;  // the thread that read 0 must be the one whose id stuck
    } else if (olds[std::size_t(i)] != winner_id) {
      ++wrong;
    }
  }
  INFO("atomicCAS race on a ", sizeof(T) * 8, "-bit word, ", n, " threads");
  CHECK(zeros == 1);
  CHECK(wrong == 0);

  scanlab::Rng rng = scanlab::test_rng(60 + sizeof(T));
  std::vector<T> vals(static_cast<std::size_t>(n));
  T expected = T(7);
  for (T& v : vals) {
    v = T(rng.below(1000));
    expected = T(expected + v);
  }
  scanlab::DeviceBuffer<T> d_vals(vals);
  const T seven = T(7);
  d_word.upload(&seven, 1);
  cas_add_loop<T><<<(n + 255) / 256, 256>>>(d_word.data(), d_vals.data(), n);
  SCANLAB_CHECK_LAUNCH();
  SCANLAB_CHECK_SYNC();
  T got;
  d_word.download(&got, 1);
  INFO("atomicCAS loop adding ", n, " values on a ", sizeof(T) * 8, "-bit word");
  CHECK(got == expected);
}

TEST_CASE("atomicCAS on int, unsigned, unsigned long long, unsigned short") {
  check_cas<int>(4096);
  check_cas<unsigned>(4096);
  check_cas<unsigned long long>(4096);
  check_cas<unsigned short>(2000);  // ids fit in 16 bits
}
