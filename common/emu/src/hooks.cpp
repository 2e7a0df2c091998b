// How the emulator sees every memory access of a kernel without editing it: kernel translation
// units are compiled with GCC's thread-sanitizer instrumentation (-fsanitize=thread, volatile
// accesses distinguished), and instead of linking libtsan we define the hooks it calls (design.md §4).
// Outside a kernel the hooks return at once. Inside one, a store to global or shared memory is
// progress for the deadlock detector, and a volatile or atomic read is a polling step that may yield.
// The compiler's atomic builtins arrive here too and are performed for real.
#include <cstddef>
#include <cstdint>

#include "internal.hpp"

using scanlab_emu::detail::note_store;
using scanlab_emu::detail::on_own_stack;
using scanlab_emu::detail::poll;
using scanlab_emu::detail::running;
using scanlab_emu::detail::Thread;

namespace {

using scanlab_emu::detail::is_shared_address;
using scanlab_emu::detail::observe_shared;
using scanlab_emu::detail::shared_access;
using scanlab_emu::detail::weak_memory;
using scanlab_emu::detail::weak_store;

// `pc` is the instrumented instruction's address (the hook's return address), for reports.
// These run on every load and store of a kernel: with the race checker and bank counter off (the
// usual case) a read costs one test of a global flag, and a store the progress bookkeeping only.
inline void on_read(const void* addr, std::size_t bytes, const void* pc) {
  if (__builtin_expect(!observe_shared, 1)) return;
  Thread* t = running;
  if (t && is_shared_address(addr)) shared_access(t, addr, bytes, false, pc);
}

inline void on_write(const void* addr, std::size_t bytes, const void* pc) {
  Thread* t = running;
  if (!t || on_own_stack(t, addr)) return;
  note_store(t);
  if (__builtin_expect(!observe_shared && !weak_memory, 1)) return;
  if (is_shared_address(addr)) {
    if (observe_shared) shared_access(t, addr, bytes, true, pc);
  } else if (weak_memory) {
    weak_store(t, addr, bytes);
  }
}

inline void on_volatile_read(const void* addr, std::size_t bytes, const void* pc) {
  Thread* t = running;
  if (!t || on_own_stack(t, addr)) return;
  if (observe_shared && is_shared_address(addr)) shared_access(t, addr, bytes, false, pc);
  poll(addr, bytes);
}
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

#define SCANLAB_EMU_HOOKS(N)                                                  \
  void __tsan_read##N(void* a) { on_read(a, N, PC); }                             \
  void __tsan_write##N(void* a) { on_write(a, N, PC); }                           \
  void __tsan_unaligned_read##N(void* a) { on_read(a, N, PC); }                   \
  void __tsan_unaligned_write##N(void* a) { on_write(a, N, PC); }                 \
  void __tsan_volatile_read##N(void* a) { on_volatile_read(a, N, PC); }           \
  void __tsan_volatile_write##N(void* a) { on_write(a, N, PC); }                  \
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
#define SCANLAB_EMU_ATOMIC_HOOKS(BITS, T)                                                               \
  T __tsan_atomic##BITS##_load(const volatile T* a, int) {                                             \
    on_volatile_read(const_cast<const T*>(a), sizeof(T), PC);                                              \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                       \
  }                                                                                                    \
  void __tsan_atomic##BITS##_store(volatile T* a, T v, int) {                                          \
    on_write(const_cast<const T*>(a), sizeof(T), PC);                                                      \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                          \
  }                                                                                                    \
  T __tsan_atomic##BITS##_exchange(volatile T* a, T v, int) {                                          \
    on_write(const_cast<const T*>(a), sizeof(T), PC);                                                      \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                                \
  }                                                                                                    \
  T __tsan_atomic##BITS##_fetch_add(volatile T* a, T v, int) {                                         \
    on_write(const_cast<const T*>(a), sizeof(T), PC);                                                      \
    return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                                 \
  }                                                                                                    \
  T __tsan_atomic##BITS##_fetch_sub(volatile T* a, T v, int) {                                         \
    on_write(const_cast<const T*>(a), sizeof(T), PC);                                                      \
    return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                                 \
  }                                                                                                    \
  T __tsan_atomic##BITS##_fetch_and(volatile T* a, T v, int) {                                         \
    on_write(const_cast<const T*>(a), sizeof(T), PC);                                                      \
    return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                                 \
  }                                                                                                    \
  T __tsan_atomic##BITS##_fetch_or(volatile T* a, T v, int) {                                          \
    on_write(const_cast<const T*>(a), sizeof(T), PC);                                                      \
    return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                                  \
  }                                                                                                    \
  T __tsan_atomic##BITS##_fetch_xor(volatile T* a, T v, int) {                                         \
    on_write(const_cast<const T*>(a), sizeof(T), PC);                                                      \
    return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                                 \
  }                                                                                                    \
  T __tsan_atomic##BITS##_fetch_nand(volatile T* a, T v, int) {                                        \
    on_write(const_cast<const T*>(a), sizeof(T), PC);                                                      \
    return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST);                                                \
  }                                                                                                    \
  int __tsan_atomic##BITS##_compare_exchange_strong(volatile T* a, T* c, T v, int, int) {              \
    bool ok = __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
    if (ok) on_write(const_cast<const T*>(a), sizeof(T), PC); else on_volatile_read(const_cast<const T*>(a), sizeof(T), PC); \
    return ok;                                                                                         \
  }                                                                                                    \
  int __tsan_atomic##BITS##_compare_exchange_weak(volatile T* a, T* c, T v, int mo, int fmo) {        \
    return __tsan_atomic##BITS##_compare_exchange_strong(a, c, v, mo, fmo);                            \
  }                                                                                                    \
  T __tsan_atomic##BITS##_compare_exchange_val(volatile T* a, T c, T v, int mo, int fmo) {            \
    __tsan_atomic##BITS##_compare_exchange_strong(a, &c, v, mo, fmo);                                  \
    return c;                                                                                          \
  }
SCANLAB_EMU_ATOMIC_HOOKS(8, std::int8_t)
SCANLAB_EMU_ATOMIC_HOOKS(16, std::int16_t)
SCANLAB_EMU_ATOMIC_HOOKS(32, std::int32_t)
SCANLAB_EMU_ATOMIC_HOOKS(64, std::int64_t)
#undef SCANLAB_EMU_ATOMIC_HOOKS

void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) {}

}  // extern "C"
