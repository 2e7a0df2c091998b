// Memory safety on the CPU, as compute-sanitizer's memcheck gives it on a GPU.
//
// Every cudaMalloc allocation sits on pages of its own between two guard pages (runtime_api.cpp),
// so an access just past either end faults; the fault handler below turns that fault, and any other
// fault of a kernel (a wild pointer, a fiber's stack overflow), into a report that names the kernel,
// the block, the thread, the address, the nearest allocation and the source line. With --memcheck
// the emulator also checks each global access before it happens: one that leaves its allocation
// (into the rounding slack next to it, which does not fault) or that is misaligned for its size
// fails the launch with cudaErrorIllegalAddress or cudaErrorMisalignedAddress, as on a GPU.
// Accesses to memory that is no allocation's (a __device__ variable, host memory) are not checked;
// shared-memory accesses are checked for alignment only (the arena places arrays at the alignment
// their type asks for, so an 8-byte access into an array of 4-byte words may land anywhere). Not
// seen: the alignment of 16-byte vector types (uint4, float4): GCC copies them as four 4-byte
// words, so no 16-byte access reaches the hooks, while a GPU's 16-byte load or store needs a
// 16-byte aligned address. (GCC's -fsanitize=alignment sees it, through a handler the emulator
// could define beside the hooks; tried, it made kernel units compile 70% slower, chapter 09's
// driver 21 s against 12.5 s, for a mistake no exercise can make, so it is not used.)
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "internal.hpp"

namespace scanlab_emu::detail {

bool memcheck = false;

namespace {

// The allocation of the last access that was inside one: most accesses hit the same few arrays.
AllocationInfo last{};
bool last_valid = false;

std::string coords(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string who(const Thread* t) {
  return "thread " + coords(t->builtins.thread_idx) + " of block " + coords(t->builtins.block_idx);
}

// Where p lies with respect to allocation a, e.g. "8 bytes past the end of allocation #2 (1024
// bytes at 0x...)".
std::string relative_to(const AllocationInfo& a, const char* p, std::size_t bytes) {
  char buf[200];
  const char* end = a.start + a.bytes;
  if (p < a.start) std::snprintf(buf, sizeof buf, "%zu bytes before the start of", std::size_t(a.start - p));
  else if (p >= end) std::snprintf(buf, sizeof buf, "%zu bytes past the end of", std::size_t(p - end));
  else
    std::snprintf(buf, sizeof buf, "at byte offset %zu of (its last %zu bytes past the end)", std::size_t(p - a.start),
                  std::size_t(p + bytes - end));
  std::string s = buf;
  std::snprintf(buf, sizeof buf, " allocation #%zu (%zu bytes at %p)", a.id, a.bytes,
                static_cast<const void*>(a.start));
  return s + buf;
}

[[noreturn]] void fail_access(cudaError_t error, const std::string& what) {
  report_misuse(what);
  fail_launch(error, what);
}

}  // namespace

void memcheck_launch_started() { last_valid = false; }

void memcheck_access(Thread* t, const void* addr, std::size_t bytes, bool is_write, bool aligned, const void* pc) {
  const char* p = static_cast<const char*>(addr);
  if (!(last_valid && p >= last.start && p + bytes <= last.start + last.bytes)) {
    AllocationInfo a{};
    if (!allocation_around(addr, a, false)) return;  // not an allocation's pages: not checked
    if (p < a.start || p + bytes > a.start + a.bytes) {
      char head[120];
      std::snprintf(head, sizeof head, "invalid global %s of %zu bytes at %p", is_write ? "write" : "read", bytes,
                    addr);
      fail_access(cudaErrorIllegalAddress, std::string(head) + " by " + who(t) + " at " + symbolize(pc) +
                                               ": the address is " + relative_to(a, p, bytes) + " (out of bounds)");
    }
    last = a;
    last_valid = true;
  }
  if (aligned && bytes > 1 && (bytes & (bytes - 1)) == 0 && reinterpret_cast<std::uintptr_t>(p) % bytes != 0) {
    char head[160];
    std::snprintf(head, sizeof head, "misaligned global %s of %zu bytes at %p (byte offset %zu of allocation #%zu)",
                  is_write ? "write" : "read", bytes, addr, std::size_t(p - last.start), last.id);
    fail_access(cudaErrorMisalignedAddress,
                std::string(head) + " by " + who(t) + " at " + symbolize(pc) + ": an access of " +
                    std::to_string(bytes) + " bytes needs an address that is a multiple of " + std::to_string(bytes));
  }
}

void memcheck_shared_alignment(Thread* t, const void* addr, std::size_t bytes, bool is_write, const void* pc) {
  if (bytes <= 1 || (bytes & (bytes - 1)) != 0 || reinterpret_cast<std::uintptr_t>(addr) % bytes == 0) return;
  const std::size_t offset = static_cast<std::size_t>(static_cast<const char*>(addr) - t->block->shared);
  char head[160];
  std::snprintf(head, sizeof head, "misaligned shared %s of %zu bytes at byte %zu of the block's shared memory",
                is_write ? "write" : "read", bytes, offset);
  fail_access(cudaErrorMisalignedAddress,
              std::string(head) + " by " + who(t) + " at " + symbolize(pc) + ": an access of " + std::to_string(bytes) +
                  " bytes needs an address that is a multiple of " + std::to_string(bytes) +
                  " (declare the array alignas(" + std::to_string(bytes) + "), or as an array of the wider type)");
}

// ---- Faults inside a kernel ------------------------------------------------------------------

namespace {

struct sigaction previous_segv {
}, previous_bus{};
thread_local bool alt_stack_set = false;

void fault_handler(int sig, siginfo_t* info, void* context) {
  Thread* t = running;
  Launch* L = current_launch;
  const struct sigaction& previous = sig == SIGBUS ? previous_bus : previous_segv;
  if (t && L && t->block) {
    stale_restore();
    const char* addr = static_cast<const char*>(info->si_addr);
    const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
    const void* pc = reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
    const char* sp = reinterpret_cast<const char*>(uc->uc_mcontext.gregs[REG_RSP]);
#else
    const void* pc = nullptr;
    const char* sp = nullptr;
    (void)uc;
#endif
    const char* guard_lo = static_cast<const char*>(t->stack_mapping);
    const bool in_guard = addr >= guard_lo - (std::size_t(1) << 20) && addr < t->stack_lo;
    const bool sp_below = sp && sp < t->stack_lo + 256 && sp >= guard_lo - (std::size_t(1) << 20);
    std::string what;
    if (in_guard || sp_below) {
      what = "stack overflow: " + who(t) + " used more than its " +
             std::to_string(std::size_t(t->stack_hi - t->stack_lo)) + "-byte stack (at " + symbolize(pc) +
             "). Each emulated thread has a stack of its own: deep recursion or large local arrays overflow it. "
             "A larger one: --stack BYTES (SCANLAB_EMU_STACK).";
    } else {
      char head[120];
      std::snprintf(head, sizeof head, "illegal address: %p, accessed by ", static_cast<const void*>(addr));
      what = head + who(t) + " at " + symbolize(pc);
      AllocationInfo a{};
      if (allocation_around(addr, a, true)) {
        what += ", is " + relative_to(a, addr, 1) + ", the nearest allocation";
      } else {
        what += ", is no device allocation's";
      }
      if (reinterpret_cast<std::uintptr_t>(addr) < 65536) what += " (a null or nearly null pointer)";
    }
    std::string text = "scanlab emulator: kernel `" + std::string(L->kernel) + "` launched at " + L->file + ":" +
                       std::to_string(L->line) + " failed: " + what + "\n  " + describe_options() + "\n";
    const ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
    (void)ignored;
  }
  // Hand the fault on (to a test framework's handler, or the default: the process dies of SIGSEGV).
  sigaction(sig, &previous, nullptr);
}

}  // namespace

// At every launch: a test framework may have put its own handler in place since the last one (the
// one it replaced is restored when it is done), so the emulator's goes in front of it again.
void install_fault_handler() {
  if (!alt_stack_set) {
    alt_stack_set = true;
    // The handler runs on a stack of its own: after a fiber's stack overflow there is none left.
    const std::size_t alt_bytes = 256 * 1024;
    stack_t ss{};
    ss.ss_sp = new char[alt_bytes];
    ss.ss_size = alt_bytes;
    sigaltstack(&ss, nullptr);
  }
  struct sigaction now {};
  sigaction(SIGSEGV, nullptr, &now);
  if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == &fault_handler) return;
  struct sigaction sa {};
  sa.sa_sigaction = &fault_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous_segv);
  sigaction(SIGBUS, &sa, &previous_bus);
}

}  // namespace scanlab_emu::detail
