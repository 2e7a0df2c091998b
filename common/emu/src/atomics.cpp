// Atomics and fences. Emulated threads of a launch run on one OS thread, one at a time, so a
// read-modify-write needs no hardware atomic; what matters is what the scheduler learns from it:
// an atomic that changes memory is a store (progress), one that leaves memory as it was (a failed
// CAS, an add of 0) is a polling step, after which the thread may yield to the others.
#include <cstring>

#include "internal.hpp"

namespace scanlab_emu::detail {
namespace {

template <class T, class F>
T rmw(T* address, F&& update, const void* pc) {
  Thread* t = running;
  const bool weak = t && weak_memory && !is_shared_address(address) && !on_own_stack(t, address);
  if (weak) weak_atomic_begin(t, address, sizeof(T));  // it works on the committed value
  T old = *address;
  T desired = update(old);
  if (t) {
    if (std::memcmp(&old, &desired, sizeof(T)) != 0) {
      *address = desired;
      note_store(t);
      if (weak) {  // visible at once, and what the block sees there from now on
        stale_commit(address, sizeof(T), reinterpret_cast<const unsigned char*>(&old),
                     reinterpret_cast<const unsigned char*>(&desired), pc, t->block->linear_id);
        stale_strong_load(t, address, sizeof(T), pc);
      }
    } else {
      poll(address, sizeof(T));
      if (weak) stale_strong_load(t, address, sizeof(T), pc);
    }
  } else {
    *address = desired;
  }
  return old;
}

}  // namespace

// In the default (sequentially consistent) mode every store is visible at once and a fence has
// nothing to order; in weak-memory mode a device- or system-scope fence commits the thread's stores
// and refreshes its block's view of memory (stale_loads.cpp). A block-scope fence does neither: it
// orders nothing for other blocks.
void fence(int scope) {
  if (Thread* t = running; t && weak_memory && scope >= 1) {
    weak_fence(t);
    stale_refresh(t);
  }
}

void volatile_access(const void* addr, std::size_t bytes, bool is_write) {
  Thread* t = running;
  if (!t || on_own_stack(t, addr)) return;
  if (weak_memory) stale_restore();
  if (is_write) {
    note_store(t);
  } else {
    poll(addr, bytes);
    if (weak_memory && !is_shared_address(addr)) stale_relaxed_load(t, addr, bytes, __builtin_return_address(0));
  }
}

}  // namespace scanlab_emu::detail

using scanlab_emu::detail::rmw;

#define SCANLAB_EMU_ATOMIC(ret, name, T, expr) \
  ret name(T* address, T val) {                \
    return rmw(                                \
        address,                               \
        [&](T old) -> T {                      \
          (void)old;                           \
          return expr;                         \
        },                                     \
        __builtin_return_address(0));          \
  }

SCANLAB_EMU_ATOMIC(int, atomicAdd, int, int(unsigned(old) + unsigned(val)))
SCANLAB_EMU_ATOMIC(unsigned int, atomicAdd, unsigned int, old + val)
SCANLAB_EMU_ATOMIC(unsigned long long, atomicAdd, unsigned long long, old + val)
SCANLAB_EMU_ATOMIC(float, atomicAdd, float, old + val)
SCANLAB_EMU_ATOMIC(double, atomicAdd, double, old + val)
SCANLAB_EMU_ATOMIC(int, atomicSub, int, int(unsigned(old) - unsigned(val)))
SCANLAB_EMU_ATOMIC(unsigned int, atomicSub, unsigned int, old - val)
SCANLAB_EMU_ATOMIC(int, atomicExch, int, val)
SCANLAB_EMU_ATOMIC(unsigned int, atomicExch, unsigned int, val)
SCANLAB_EMU_ATOMIC(unsigned long long, atomicExch, unsigned long long, val)
SCANLAB_EMU_ATOMIC(float, atomicExch, float, val)
SCANLAB_EMU_ATOMIC(int, atomicMin, int, val < old ? val : old)
SCANLAB_EMU_ATOMIC(unsigned int, atomicMin, unsigned int, val < old ? val : old)
SCANLAB_EMU_ATOMIC(long long, atomicMin, long long, val < old ? val : old)
SCANLAB_EMU_ATOMIC(unsigned long long, atomicMin, unsigned long long, val < old ? val : old)
SCANLAB_EMU_ATOMIC(int, atomicMax, int, val > old ? val : old)
SCANLAB_EMU_ATOMIC(unsigned int, atomicMax, unsigned int, val > old ? val : old)
SCANLAB_EMU_ATOMIC(long long, atomicMax, long long, val > old ? val : old)
SCANLAB_EMU_ATOMIC(unsigned long long, atomicMax, unsigned long long, val > old ? val : old)
// CUDA's definitions: inc wraps to 0 past val, dec wraps to val at 0 or above val.
SCANLAB_EMU_ATOMIC(unsigned int, atomicInc, unsigned int, old >= val ? 0u : old + 1)
SCANLAB_EMU_ATOMIC(unsigned int, atomicDec, unsigned int, (old == 0 || old > val) ? val : old - 1)
SCANLAB_EMU_ATOMIC(int, atomicAnd, int, old& val)
SCANLAB_EMU_ATOMIC(unsigned int, atomicAnd, unsigned int, old& val)
SCANLAB_EMU_ATOMIC(unsigned long long, atomicAnd, unsigned long long, old& val)
SCANLAB_EMU_ATOMIC(int, atomicOr, int, old | val)
SCANLAB_EMU_ATOMIC(unsigned int, atomicOr, unsigned int, old | val)
SCANLAB_EMU_ATOMIC(unsigned long long, atomicOr, unsigned long long, old | val)
SCANLAB_EMU_ATOMIC(int, atomicXor, int, old ^ val)
SCANLAB_EMU_ATOMIC(unsigned int, atomicXor, unsigned int, old ^ val)
SCANLAB_EMU_ATOMIC(unsigned long long, atomicXor, unsigned long long, old ^ val)
#undef SCANLAB_EMU_ATOMIC

#define SCANLAB_EMU_CAS(T)                    \
  T atomicCAS(T* address, T compare, T val) { \
    return rmw(                               \
        address,                              \
        [&](T old) -> T {                     \
          return old == compare ? val : old;  \
        },                                    \
        __builtin_return_address(0));         \
  }
SCANLAB_EMU_CAS(int)
SCANLAB_EMU_CAS(unsigned int)
SCANLAB_EMU_CAS(unsigned long long)
SCANLAB_EMU_CAS(unsigned short)
#undef SCANLAB_EMU_CAS
