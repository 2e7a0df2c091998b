// What a kernel sees on the emulator: the built-in variables, the CUDA function qualifiers, the
// barrier, warp, atomic and fence intrinsics, and the small integer and memory helpers. The
// intrinsics that make an emulated thread wait (barriers, warp collectives, polling) are
// implemented by the scheduler (common/emu/src/); the pure ones are inline here.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "scanlab_emu/types.hpp"

// Qualifiers: a kernel is an ordinary function on the emulator.
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __forceinline__ inline
// __noinline__ is not defined: libstdc++ spells GCC's attribute __attribute__((__noinline__)).
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
#ifndef __restrict__
#define __restrict__ __restrict
#endif
// A __shared__ that reaches the compiler was not rewritten by scanlab-emu-translate (for example in
// a header included with <...>): say so instead of silently sharing one variable between blocks.
// clang-format off
#define __shared__ static_assert(false, "scanlab emulator: __shared__ must be rewritten by scanlab-emu-translate; include kernel headers with \"...\"");
// clang-format on

namespace scanlab_emu::detail {

// The part of an emulated thread's state that kernels read directly; the scheduler points
// `current_thread` at the running thread before every switch into its fiber.
struct ThreadBuiltins {
  uint3 thread_idx;
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};
extern __thread ThreadBuiltins* current_thread;

[[noreturn]] void outside_kernel(const char* what);
inline ThreadBuiltins& builtins(const char* what) {
  ThreadBuiltins* t = current_thread;
  if (!t) outside_kernel(what);
  return *t;
}

// Warp collectives move up to 8 bytes per lane.
enum class WarpOp : std::uint8_t { sync, shfl_idx, shfl_up, shfl_down, shfl_xor, ballot, any, all };
std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width, const void* site);

template <class T>
std::uint64_t to_bits(const T& v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8,
                "warp shuffles move trivially copyable values of at most 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <class T>
T from_bits(std::uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

unsigned active_mask(const void* site);
// A spin-loop step (a volatile or atomic read of `bytes` at `addr`, or __nanosleep with no address):
// may yield to other threads and blocks.
void poll(const volatile void* addr, std::size_t bytes = 0);
void fence(int scope);                                                     // 0 block, 1 device, 2 system
void volatile_access(const void* addr, std::size_t bytes, bool is_write);  // as a volatile load/store
long long clock_ticks();

// The built-ins come from a call into the (uninstrumented) runtime, by value: reading them through a
// pointer would cost two instrumented loads each, in every kernel.
uint3 thread_idx();
uint3 block_idx();
dim3 block_dim();
dim3 grid_dim();

}  // namespace scanlab_emu::detail

#define threadIdx (::scanlab_emu::detail::thread_idx())
#define blockIdx (::scanlab_emu::detail::block_idx())
#define blockDim (::scanlab_emu::detail::block_dim())
#define gridDim (::scanlab_emu::detail::grid_dim())
constexpr int warpSize = 32;

// ---- Barriers -------------------------------------------------------------------------------
// Each takes its call site from its own return address (kernel files are built without
// sibling-call optimisation), so a barrier is one call.
namespace scanlab_emu::detail {
void sync_block();
int sync_block_count(int predicate);
int sync_block_and(int predicate);
int sync_block_or(int predicate);
}  // namespace scanlab_emu::detail
#define __syncthreads() ::scanlab_emu::detail::sync_block()
#define __syncthreads_count(p) ::scanlab_emu::detail::sync_block_count(p)
#define __syncthreads_and(p) ::scanlab_emu::detail::sync_block_and(p)
#define __syncthreads_or(p) ::scanlab_emu::detail::sync_block_or(p)

#define SCANLAB_EMU_SITE __builtin_return_address(0)
// ---- Warp collectives -----------------------------------------------------------------------
__attribute__((noinline)) inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::scanlab_emu::detail::warp_collective(::scanlab_emu::detail::WarpOp::sync, mask, 0, 0, 32, SCANLAB_EMU_SITE);
}
__attribute__((noinline)) inline unsigned __activemask() {
  return ::scanlab_emu::detail::active_mask(SCANLAB_EMU_SITE);
}
__attribute__((noinline)) inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return static_cast<unsigned>(::scanlab_emu::detail::warp_collective(::scanlab_emu::detail::WarpOp::ballot, mask,
                                                                      predicate != 0, 0, 32, SCANLAB_EMU_SITE));
}
__attribute__((noinline)) inline int __any_sync(unsigned mask, int predicate) {
  return static_cast<int>(::scanlab_emu::detail::warp_collective(::scanlab_emu::detail::WarpOp::any, mask,
                                                                 predicate != 0, 0, 32, SCANLAB_EMU_SITE));
}
__attribute__((noinline)) inline int __all_sync(unsigned mask, int predicate) {
  return static_cast<int>(::scanlab_emu::detail::warp_collective(::scanlab_emu::detail::WarpOp::all, mask,
                                                                 predicate != 0, 0, 32, SCANLAB_EMU_SITE));
}
template <class T>
__attribute__((noinline)) T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32) {
  using namespace ::scanlab_emu::detail;
  return from_bits<T>(warp_collective(WarpOp::shfl_idx, mask, to_bits(var), src_lane, width, SCANLAB_EMU_SITE));
}
template <class T>
__attribute__((noinline)) T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  using namespace ::scanlab_emu::detail;
  return from_bits<T>(
      warp_collective(WarpOp::shfl_up, mask, to_bits(var), static_cast<int>(delta), width, SCANLAB_EMU_SITE));
}
template <class T>
__attribute__((noinline)) T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  using namespace ::scanlab_emu::detail;
  return from_bits<T>(
      warp_collective(WarpOp::shfl_down, mask, to_bits(var), static_cast<int>(delta), width, SCANLAB_EMU_SITE));
}
template <class T>
__attribute__((noinline)) T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  using namespace ::scanlab_emu::detail;
  return from_bits<T>(warp_collective(WarpOp::shfl_xor, mask, to_bits(var), lane_mask, width, SCANLAB_EMU_SITE));
}

// ---- Fences, sleeping, clocks ---------------------------------------------------------------
inline void __threadfence_block() { ::scanlab_emu::detail::fence(0); }
inline void __threadfence() { ::scanlab_emu::detail::fence(1); }
inline void __threadfence_system() { ::scanlab_emu::detail::fence(2); }
inline void __nanosleep(unsigned) { ::scanlab_emu::detail::poll(nullptr); }
inline long long clock64() { return ::scanlab_emu::detail::clock_ticks(); }

// ---- Atomics (common/emu/src/atomics.cpp): one read-modify-write each, returning the old value.
int atomicAdd(int* address, int val);
unsigned int atomicAdd(unsigned int* address, unsigned int val);
unsigned long long atomicAdd(unsigned long long* address, unsigned long long val);
float atomicAdd(float* address, float val);
double atomicAdd(double* address, double val);
int atomicSub(int* address, int val);
unsigned int atomicSub(unsigned int* address, unsigned int val);
int atomicExch(int* address, int val);
unsigned int atomicExch(unsigned int* address, unsigned int val);
unsigned long long atomicExch(unsigned long long* address, unsigned long long val);
float atomicExch(float* address, float val);
int atomicMin(int* address, int val);
unsigned int atomicMin(unsigned int* address, unsigned int val);
long long atomicMin(long long* address, long long val);
unsigned long long atomicMin(unsigned long long* address, unsigned long long val);
int atomicMax(int* address, int val);
unsigned int atomicMax(unsigned int* address, unsigned int val);
long long atomicMax(long long* address, long long val);
unsigned long long atomicMax(unsigned long long* address, unsigned long long val);
unsigned int atomicInc(unsigned int* address, unsigned int val);
unsigned int atomicDec(unsigned int* address, unsigned int val);
int atomicCAS(int* address, int compare, int val);
unsigned int atomicCAS(unsigned int* address, unsigned int compare, unsigned int val);
unsigned long long atomicCAS(unsigned long long* address, unsigned long long compare, unsigned long long val);
unsigned short atomicCAS(unsigned short* address, unsigned short compare, unsigned short val);
int atomicAnd(int* address, int val);
unsigned int atomicAnd(unsigned int* address, unsigned int val);
unsigned long long atomicAnd(unsigned long long* address, unsigned long long val);
int atomicOr(int* address, int val);
unsigned int atomicOr(unsigned int* address, unsigned int val);
unsigned long long atomicOr(unsigned long long* address, unsigned long long val);
int atomicXor(int* address, int val);
unsigned int atomicXor(unsigned int* address, unsigned int val);
unsigned long long atomicXor(unsigned long long* address, unsigned long long val);

// ---- Bit manipulation -----------------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return static_cast<unsigned int>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
// One line per intrinsic, a table to read down.
// clang-format off
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, 4); return i; }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned int i) { float f; std::memcpy(&f, &i, 4); return f; }
// clang-format on

// CUDA's global min/max overloads.
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
inline float min(float a, float b) { return a < b ? a : b; }
inline float max(float a, float b) { return a > b ? a : b; }
inline double min(double a, double b) { return a < b ? a : b; }
inline double max(double a, double b) { return a > b ? a : b; }

// ---- Cache-hinted loads and stores: plain accesses here; the "volatile" (cv) forms are polled reads.
// clang-format off
template <class T> T __ldg(const T* p) { return *p; }
template <class T> T __ldca(const T* p) { return *p; }
template <class T> T __ldcg(const T* p) { return *p; }
template <class T> T __ldcs(const T* p) { return *p; }
template <class T> T __ldlu(const T* p) { return *p; }
template <class T> T __ldcv(const T* p) {
  ::scanlab_emu::detail::volatile_access(p, sizeof(T), false);
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T> void __stwb(T* p, T v) { *p = v; }
template <class T> void __stcg(T* p, T v) { *p = v; }
template <class T> void __stcs(T* p, T v) { *p = v; }
template <class T> void __stwt(T* p, T v) {
  ::scanlab_emu::detail::volatile_access(p, sizeof(T), true);
  std::memcpy(p, &v, sizeof(T));
}
// clang-format on
