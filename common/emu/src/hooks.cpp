// How the emulator sees every memory access of a kernel without editing it: kernel translation
// units are compiled with GCC's thread-sanitizer instrumentation (-fsanitize=thread, volatile
// accesses distinguished), and instead of linking libtsan we define the hooks it calls (design.md §4).
// Outside a kernel the hooks return at once. Inside one, a store to global or shared memory is
// progress for the deadlock detector, and a volatile or atomic read is a polling step that may yield.
// The compiler's atomic builtins arrive here too and are performed for real.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "internal.hpp"

using scanlab_emu::detail::note_store;
using scanlab_emu::detail::on_own_stack;
using scanlab_emu::detail::poll;
using scanlab_emu::detail::running;
using scanlab_emu::detail::Thread;

namespace {

using scanlab_emu::detail::is_shared_address;
using scanlab_emu::detail::memcheck;
using scanlab_emu::detail::observe_loads;
using scanlab_emu::detail::observe_shared;
using scanlab_emu::detail::shared_access;
using scanlab_emu::detail::weak_memory;

// `pc` is the instrumented instruction's address (the hook's return address), for reports.
// These run on every load and store of a kernel: with the race checker, bank counter and weak memory
// off (the usual case) a read costs one test of a global flag, and a store the progress bookkeeping.
// `aligned`: the compiler's access of that size at a naturally aligned address (memcheck checks it).
inline void on_read(const void* addr, std::size_t bytes, const void* pc, bool aligned = false) {
  if (__builtin_expect(!observe_loads, 1)) return;
  Thread* t = running;
  if (!t) return;
  if (is_shared_address(addr)) {
    if (memcheck && aligned) scanlab_emu::detail::memcheck_shared_alignment(t, addr, bytes, false, pc);
    if (observe_shared) shared_access(t, addr, bytes, false, pc);
  } else if (!on_own_stack(t, addr)) {
    if (memcheck) scanlab_emu::detail::memcheck_access(t, addr, bytes, false, aligned, pc);
    if (weak_memory) scanlab_emu::detail::stale_plain_load(t, addr, bytes, pc);  // may return an older value
  }
}

inline void on_write(const void* addr, std::size_t bytes, const void* pc, bool aligned = false) {
  Thread* t = running;
  if (!t || on_own_stack(t, addr)) return;
  note_store(t);
  if (__builtin_expect(!observe_loads, 1)) return;
  if (is_shared_address(addr)) {
    if (memcheck && aligned) scanlab_emu::detail::memcheck_shared_alignment(t, addr, bytes, true, pc);
    if (observe_shared) shared_access(t, addr, bytes, true, pc);
  } else {
    if (memcheck) scanlab_emu::detail::memcheck_access(t, addr, bytes, true, aligned, pc);
    if (weak_memory) scanlab_emu::detail::weak_store(t, addr, bytes, pc);
  }
}

// A volatile or atomic load: a polling step, and in weak-memory mode a load of the newest committed
// value (taken after the poll, which may have let other blocks run), or of an older one when nothing
// orders it after the thread's last such load of another word (stale_loads.cpp). `done`: the load
// has happened already (a failed compare-and-swap), so only what it saw is noted.
inline void on_volatile_read(const void* addr, std::size_t bytes, const void* pc, bool aligned = false,
                             bool done = false) {
  Thread* t = running;
  if (!t || on_own_stack(t, addr)) return;
  if (memcheck && aligned && is_shared_address(addr))
    scanlab_emu::detail::memcheck_shared_alignment(t, addr, bytes, false, pc);
  if (observe_shared && is_shared_address(addr)) shared_access(t, addr, bytes, false, pc);
  if (memcheck && !is_shared_address(addr)) scanlab_emu::detail::memcheck_access(t, addr, bytes, false, aligned, pc);
  if (weak_memory) scanlab_emu::detail::stale_restore();
  poll(addr, bytes);
  if (weak_memory && !is_shared_address(addr)) {
    if (done) scanlab_emu::detail::stale_strong_load(t, addr, bytes, pc);
    else scanlab_emu::detail::stale_relaxed_load(t, addr, bytes, pc);
  }
}

// Memory orders as the instrumentation passes them (__ATOMIC_RELAXED = 0 ... __ATOMIC_SEQ_CST = 5).
inline bool acquires(int mo) { return mo == __ATOMIC_CONSUME || mo == __ATOMIC_ACQUIRE || mo >= __ATOMIC_ACQ_REL; }
inline bool releases(int mo) { return mo >= __ATOMIC_RELEASE; }

// In weak-memory mode a release makes the thread's earlier stores visible before its own store, and an
// acquire refreshes its block's view, as a device-scope fence after the load would.
inline void on_release(int mo) {
  if (Thread* t = running; t && weak_memory && releases(mo)) scanlab_emu::detail::weak_release(t);
}
inline void on_acquire(int mo) {
  if (Thread* t = running; t && weak_memory && acquires(mo)) scanlab_emu::detail::stale_refresh(t);
}

// A read-modify-write that changes memory is a store (progress); one that leaves it as it was (a
// failed compare-and-swap) is a load, a polling step. In weak-memory mode it works on the committed
// value (the block's pending stores there become visible first) and its result is visible at once.
struct Rmw {
  Thread* t;
  const void* addr;
  std::size_t bytes;
  const void* pc;
  bool is_cas;
  unsigned char before[8];
  Rmw(const volatile void* a, std::size_t n, const void* p, bool cas)
      : t(running), addr(const_cast<const void*>(a)), bytes(n), pc(p), is_cas(cas) {
    if (!t || on_own_stack(t, addr)) {
      t = nullptr;
      return;
    }
    // Atomics need natural alignment on a GPU, whatever the compiler knows.
    if (memcheck && !is_shared_address(addr)) scanlab_emu::detail::memcheck_access(t, addr, bytes, true, true, pc);
    if (memcheck && is_shared_address(addr)) scanlab_emu::detail::memcheck_shared_alignment(t, addr, bytes, true, pc);
    if (weak_memory && !is_shared_address(addr)) scanlab_emu::detail::weak_atomic_begin(t, addr, bytes);
    std::memcpy(before, addr, bytes);
  }
  ~Rmw() {
    if (!t) return;
    const bool changed = std::memcmp(before, addr, bytes) != 0;
    if (is_cas && !changed) {
      on_volatile_read(addr, bytes, pc, false, true);
      return;
    }
    note_store(t);
    if (observe_shared && is_shared_address(addr)) shared_access(t, addr, bytes, true, pc);
    if (!weak_memory || is_shared_address(addr)) return;
    if (changed)
      scanlab_emu::detail::stale_commit(addr, bytes, before, static_cast<const unsigned char*>(addr), pc,
                                        t->block->linear_id);
    scanlab_emu::detail::stale_strong_load(t, addr, bytes, pc);
  }
};
}  // namespace

#define PC __builtin_return_address(0)

extern "C" {

void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}
void __tsan_read_range(void* a, unsigned long n) { on_read(a, n, PC); }
void __tsan_write_range(void* a, unsigned long n) { on_write(a, n, PC); }

#define SCANLAB_EMU_HOOKS(N)                                                      \
  void __tsan_read##N(void* a) { on_read(a, N, PC, true); }                       \
  void __tsan_write##N(void* a) { on_write(a, N, PC, true); }                     \
  void __tsan_unaligned_read##N(void* a) { on_read(a, N, PC); }                   \
  void __tsan_unaligned_write##N(void* a) { on_write(a, N, PC); }                 \
  void __tsan_volatile_read##N(void* a) { on_volatile_read(a, N, PC, true); }     \
  void __tsan_volatile_write##N(void* a) { on_write(a, N, PC, true); }            \
  void __tsan_unaligned_volatile_read##N(void* a) { on_volatile_read(a, N, PC); } \
  void __tsan_unaligned_volatile_write##N(void* a) { on_write(a, N, PC); }
SCANLAB_EMU_HOOKS(1)
SCANLAB_EMU_HOOKS(2)
SCANLAB_EMU_HOOKS(4)
SCANLAB_EMU_HOOKS(8)
SCANLAB_EMU_HOOKS(16)
#undef SCANLAB_EMU_HOOKS

// Atomic builtins: `mo` is the memory order (0 relaxed ... 5 seq_cst), performed with the real
// builtins so host code in a kernel's translation unit stays correct even across OS threads.
#define SCANLAB_EMU_RMW_HOOK(BITS, T, NAME, BUILTIN)           \
  T __tsan_atomic##BITS##_##NAME(volatile T* a, T v, int mo) { \
    on_release(mo);                                            \
    T old;                                                     \
    {                                                          \
      Rmw rmw(a, sizeof(T), PC, false);                        \
      old = BUILTIN(a, v, __ATOMIC_SEQ_CST);                   \
    }                                                          \
    on_acquire(mo);                                            \
    return old;                                                \
  }
#define SCANLAB_EMU_ATOMIC_HOOKS(BITS, T)                                                        \
  T __tsan_atomic##BITS##_load(const volatile T* a, int mo) {                                    \
    on_volatile_read(const_cast<const T*>(a), sizeof(T), PC, true);                              \
    T v = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                  \
    on_acquire(mo);                                                                              \
    return v;                                                                                    \
  }                                                                                              \
  void __tsan_atomic##BITS##_store(volatile T* a, T v, int mo) {                                 \
    on_release(mo);                                                                              \
    on_write(const_cast<const T*>(a), sizeof(T), PC, true);                                      \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                    \
  }                                                                                              \
  SCANLAB_EMU_RMW_HOOK(BITS, T, exchange, __atomic_exchange_n)                                   \
  SCANLAB_EMU_RMW_HOOK(BITS, T, fetch_add, __atomic_fetch_add)                                   \
  SCANLAB_EMU_RMW_HOOK(BITS, T, fetch_sub, __atomic_fetch_sub)                                   \
  SCANLAB_EMU_RMW_HOOK(BITS, T, fetch_and, __atomic_fetch_and)                                   \
  SCANLAB_EMU_RMW_HOOK(BITS, T, fetch_or, __atomic_fetch_or)                                     \
  SCANLAB_EMU_RMW_HOOK(BITS, T, fetch_xor, __atomic_fetch_xor)                                   \
  SCANLAB_EMU_RMW_HOOK(BITS, T, fetch_nand, __atomic_fetch_nand)                                 \
  int __tsan_atomic##BITS##_compare_exchange_strong(volatile T* a, T* c, T v, int mo, int fmo) { \
    on_release(mo);                                                                              \
    bool ok;                                                                                     \
    {                                                                                            \
      Rmw rmw(a, sizeof(T), PC, true);                                                           \
      ok = __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
    }                                                                                            \
    on_acquire(ok ? mo : fmo);                                                                   \
    return ok;                                                                                   \
  }                                                                                              \
  int __tsan_atomic##BITS##_compare_exchange_weak(volatile T* a, T* c, T v, int mo, int fmo) {   \
    return __tsan_atomic##BITS##_compare_exchange_strong(a, c, v, mo, fmo);                      \
  }                                                                                              \
  T __tsan_atomic##BITS##_compare_exchange_val(volatile T* a, T c, T v, int mo, int fmo) {       \
    __tsan_atomic##BITS##_compare_exchange_strong(a, &c, v, mo, fmo);                            \
    return c;                                                                                    \
  }
SCANLAB_EMU_ATOMIC_HOOKS(8, std::int8_t)
SCANLAB_EMU_ATOMIC_HOOKS(16, std::int16_t)
SCANLAB_EMU_ATOMIC_HOOKS(32, std::int32_t)
SCANLAB_EMU_ATOMIC_HOOKS(64, std::int64_t)
#undef SCANLAB_EMU_ATOMIC_HOOKS
#undef SCANLAB_EMU_RMW_HOOK

void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) {}

}  // extern "C"
