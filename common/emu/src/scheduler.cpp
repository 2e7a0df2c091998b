// The emulator's scheduler: worker fibers, blocks, barriers, warp collectives, polling, residency,
// and deadlock detection (design.md §4). Builds on Boost.Context's raw fcontext switches; prior art:
// ROCm HIP-CPU (fibers per thread), cuda4cpu (thread-order policies), the Numba CUDA simulator.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "internal.hpp"

namespace scanlab_emu::detail {

__thread ThreadBuiltins* current_thread = nullptr;
__thread Thread* running = nullptr;
Launch* current_launch = nullptr;
std::uint64_t store_epoch = 0;
char* arena_base = nullptr;
bool observe_loads = false;

namespace {

constexpr unsigned kSpinPolls = 4;  // polls of one address before yielding
// A poll loop that also stores (a counter, a heartbeat) never spins kSpinPolls times in a row: its
// thread still yields after this many polls, so that the rest of its block moves too.
constexpr unsigned kPollsPerYield = 64;
// A block that progresses while one of its threads spins (its other threads are busy) gives the
// other blocks a turn after this many passes, so that the stores its spinner waits for can land
// even when the block never stalls.
constexpr unsigned kSpunPassesPerTurn = 16;

namespace fctx = boost::context::detail;
fctx::fcontext_t scheduler_context = nullptr;  // the scheduler, while a fiber runs
std::vector<Thread*> idle_threads;             // the worker pool, reused across blocks
std::atomic<std::uint64_t> progress_ticks{0};  // read by the watchdog thread
std::atomic<bool> launch_in_flight{false};
std::string last_report;

void run_thread_body(Thread* t);

// ---- Switching between fibers ---------------------------------------------------------------
// Within a pass a yielding thread switches straight to the next runnable thread of the pass, and
// only the last one switches back to the scheduler: one context switch per thread and pass. Every
// switch passes the switching thread (null: the scheduler) along, and adopt() stores the suspended
// context into that thread's record.
//
// Switches go through ontop_fcontext, which runs adopt() on the resumed stack and lets it `ret` to
// the resume point, rather than jump_fcontext, which resumes with an indirect jump. The `call` into
// the switch pushed a return-stack-buffer entry; with jump_fcontext nothing pops it, so every `ret`
// the resumed fiber makes afterwards (out of the barrier, back into the kernel) is mispredicted.
// With adopt's `ret` popping it, the return predictions stay paired: all fibers suspend at the same
// call sites, so the predicted return addresses are right.
fctx::transfer_t adopt(fctx::transfer_t from) {
  if (auto* t = static_cast<Thread*>(from.data)) t->context = from.fctx;
  else scheduler_context = from.fctx;
  return from;
}

// `me` (null: the scheduler) hands the OS thread to `to` (null: the scheduler) and returns when
// someone switches back to it.
void switch_to(Thread* me, Thread* to) { fctx::ontop_fcontext(to ? to->context : scheduler_context, me, &adopt); }

void enter(Thread* t) {
  running = t;
  current_thread = &t->builtins;
  t->spinning = false;
  // One writer: a relaxed load and store, not a locked read-modify-write, on this hot path.
  progress_ticks.store(progress_ticks.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// A new worker starts by switching straight back to make_worker() (ontop_fcontext cannot enter a
// context that never ran: its arguments would not reach this function). After that every switch
// into it resumes here, or at a later suspension point.
void fiber_main(fctx::transfer_t from) {
  Thread* t = static_cast<Thread*>(from.data);
  fctx::jump_fcontext(from.fctx, nullptr);
  for (;;) run_thread_body(t);
}

// Stacks are page-aligned and equally spaced; starting each one at a different multiple of 64 bytes
// below its top keeps the tops of all stacks from competing for the same cache sets.
Thread* make_worker() {
  static unsigned colour = 0;
  auto* t = new Thread;
  const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
  const std::size_t bytes = (options().stack_bytes + page - 1) / page * page;
  void* m = mmap(nullptr, bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                 -1, 0);
  if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) != 0) {
    std::fprintf(stderr, "scanlab emulator: cannot map a %zu-byte fiber stack\n", bytes);
    std::abort();
  }
  t->stack_mapping = m;
  t->stack_mapping_bytes = bytes + page;
  t->stack_lo = static_cast<char*>(m) + page;  // the guard page below catches an overflow
  t->stack_hi = t->stack_lo + bytes;
  const std::size_t offset = std::size_t((colour++ * 37u) % 64u) * 64u;
  t->context = fctx::jump_fcontext(fctx::make_fcontext(t->stack_hi - offset, bytes - offset, &fiber_main), t).fctx;
  return t;
}

Thread* acquire_worker() {
  if (idle_threads.empty()) return make_worker();
  Thread* t = idle_threads.back();
  idle_threads.pop_back();
  return t;
}

// A thread waiting at a barrier that has since been released (release_barrier bumps the block's
// generation rather than visiting every waiter).
inline bool released(const Block& b, const Thread* t) {
  return t->wait == Wait::barrier && t->barrier_gen != b.barrier_gen;
}

// The next thread of the block's current pass that can run, or null when the pass is over.
inline Thread* next_in_pass(Block& b) {
  while (b.pass_next != b.pass_end) {
    Thread* t = *b.pass_next++;
    if (t->wait == Wait::none) return t;
    if (released(b, t) || (t->wait == Wait::phase && phase_completed(b, t))) {
      t->wait = Wait::none;
      return t;
    }
  }
  return nullptr;
}

// From the scheduler: run the pass that starts with `t`; returns when the pass is over.
void run_pass_from(Thread* t) {
  enter(t);
  switch_to(nullptr, t);
  running = nullptr;
  current_thread = nullptr;
}

char* arena_for_slot(unsigned slot) {
  if (!arena_base) {
    void* p = mmap(nullptr, kArenaBytes * kMaxResident, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      std::fprintf(stderr, "scanlab emulator: cannot reserve shared-memory arenas\n");
      std::abort();
    }
    arena_base = static_cast<char*>(p);
  }
  return arena_base + std::size_t(slot) * kArenaBytes;
}

std::string dim_string(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

// ---- Barriers ---------------------------------------------------------------------------------

void release_barrier(Block& b) {
  int result = 0;
  switch (b.barrier_op) {
    case 1: result = b.barrier_count; break;
    case 2: result = b.barrier_count == int(b.at_barrier); break;
    case 3: result = b.barrier_count > 0; break;
    default: break;
  }
  b.barrier_result = result;
  ++b.barrier_gen;
  b.at_barrier = 0;
  diag_barrier_released(b);
}

// ---- Warp collectives -------------------------------------------------------------------------

unsigned source_lane(const Thread& t) {
  // As shfl.sync does, shuffles use the low five bits of the lane, offset or lane mask.
  const unsigned w = unsigned(t.width), lane = t.lane, arg = unsigned(t.arg) & 31u;
  const unsigned seg = lane & ~(w - 1), max_lane = seg | (w - 1);
  switch (t.op) {
    case WarpOp::shfl_idx: return seg | (arg & (w - 1));
    case WarpOp::shfl_up: return (lane & (w - 1)) < arg ? lane : lane - arg;
    case WarpOp::shfl_down: {
      unsigned j = lane + arg;
      return j > max_lane ? lane : j;
    }
    case WarpOp::shfl_xor: {
      unsigned j = lane ^ arg;
      return j > max_lane ? lane : j;
    }
    default: return lane;
  }
}

// All lanes of `group` have arrived: compute every lane's result, then let them all go on.
void complete_collective(Block& b, Warp& w, unsigned warp, unsigned group) {
  Thread** lanes = &b.threads[std::size_t(warp) * 32];
  unsigned ballot = 0;
  bool spinning = false, news = false;
  for (unsigned l = 0; l < 32; ++l) {
    if ((group >> l) & 1u) {
      ballot |= (lanes[l]->value != 0 ? 1u : 0u) << l;
      spinning |= lanes[l]->spin_sticky;
      news |= lanes[l]->saw_news;
    }
  }
  // A warp polls as one: when any lane saw something new since the last collective, the whole warp
  // may leave its poll loop now, so no lane counts as spinning until they have all polled unchanged
  // values kSpinPolls times again. (Otherwise lanes that had spun on finished predecessors would
  // make the warp's work after the loop, its shuffles, look like spinning, and the block stall.)
  if (news) {
    spinning = false;
    for (unsigned l = 0; l < 32; ++l) {
      if ((group >> l) & 1u) {
        lanes[l]->spin_sticky = false;
        lanes[l]->polls = 0;
        lanes[l]->saw_news = false;
      }
    }
  }
  w.spinning = spinning;
  for (unsigned l = 0; l < 32; ++l) {
    if (!((group >> l) & 1u)) continue;
    Thread& t = *lanes[l];
    switch (t.op) {
      case WarpOp::sync: t.result = 0; break;
      case WarpOp::ballot: t.result = ballot & t.mask; break;
      case WarpOp::any: t.result = (ballot & t.mask) != 0; break;
      case WarpOp::all: t.result = (ballot & t.mask) == (t.mask & group); break;
      default: {
        unsigned src = source_lane(t);
        if (src < 32 && ((group >> src) & 1u)) {
          t.result = lanes[src]->value;
        } else {
          // Undefined on a GPU: the source lane is inactive or outside the mask. It keeps its own value.
          t.result = t.value;
          report_misuse_once(t.site, "lane " + std::to_string(l) + " of warp " + std::to_string(warp) + " in block " +
                                         dim_string(b.idx) + " shuffles from lane " + std::to_string(src) +
                                         ", which is inactive or outside the mask, at " + symbolize(t.site) +
                                         " (the value is undefined in CUDA)");
        }
        break;
      }
    }
    t.wait = Wait::none;
  }
  w.arrived &= ~group;
  unsigned ordering = 0;
  for (unsigned l = 0; l < 32; ++l)
    if (((group >> l) & 1u) && lanes[l]->op == WarpOp::sync) ordering |= 1u << l;
  diag_warp_synced(b, warp, ordering);
}

// A collective can complete when every live lane of its mask has arrived (lanes that exited or do
// not exist in a partial warp are not waited for).
void try_complete(Block& b, unsigned warp, unsigned mask) {
  Warp& w = b.warps[warp];
  unsigned need = mask & w.live;
  if ((w.arrived & need) == need && need != 0) complete_collective(b, w, warp, need);
}

void resolve_activemask(Block& b) {
  b.activemask_pending = false;
  for (unsigned warp = 0; warp < b.warps.size(); ++warp) {
    Warp& w = b.warps[warp];
    while (w.activemask) {
      Thread** lanes = &b.threads[std::size_t(warp) * 32];
      const void* site = lanes[__builtin_ctz(w.activemask)]->site;
      unsigned group = 0;
      for (unsigned l = 0; l < 32; ++l)
        if (((w.activemask >> l) & 1u) && lanes[l]->site == site) group |= 1u << l;
      for (unsigned l = 0; l < 32; ++l)
        if ((group >> l) & 1u) {
          lanes[l]->result = group;
          lanes[l]->wait = Wait::none;
        }
      w.activemask &= ~group;
    }
  }
}

void thread_exited(Thread* t) {
  Block& b = *t->block;
  t->wait = Wait::exited;
  --b.live;
  Warp& w = b.warps[t->warp];
  w.live &= ~(1u << t->lane);
  if (b.at_barrier > 0) {
    report_misuse_once(b.barrier_site, "threads exited while others of block " + dim_string(b.idx) +
                                           " waited at __syncthreads at " + symbolize(b.barrier_site) +
                                           " (undefined in CUDA: every thread of the block must reach the barrier)");
    if (b.at_barrier == b.live) release_barrier(b);
  }
  // A collective that waited for this lane may now be complete.
  if (w.arrived) {
    Thread** lanes = &b.threads[std::size_t(t->warp) * 32];
    unsigned pending = w.arrived;
    while (pending) {
      unsigned l = __builtin_ctz(pending);
      pending &= pending - 1;
      if (lanes[l]->wait == Wait::warp) try_complete(b, t->warp, lanes[l]->mask);
    }
  }
}

void run_thread_body(Thread* t) {
  Launch& launch = *current_launch;
  // Weak memory: a thread's last volatile or atomic load is of its own block and launch (commit
  // numbers start again with every launch); the fiber may have run another block before.
  t->strong_load_pc = nullptr;
  t->strong_load_word = 0;
  t->strong_load_seq = 0;
  t->strong_load_writer = ~std::uint64_t(0);
  launch.body(launch.context);
  if (!t->pipeline.empty()) async_thread_exited(t);
  thread_exited(t);
  t->has_work = false;
  yield_to_scheduler();
}

// ---- Blocks -----------------------------------------------------------------------------------

Block* start_block(Launch& L, std::uint64_t linear_id, unsigned slot) {
  auto* b = new Block;
  const dim3 g = L.config.grid, bd = L.config.block;
  b->linear_id = linear_id;
  b->idx = uint3{unsigned(linear_id % g.x), unsigned((linear_id / g.x) % g.y),
                 unsigned(linear_id / (std::uint64_t(g.x) * g.y))};
  b->slot = slot;
  b->shared = arena_for_slot(slot);
  b->dynamic = b->shared;
  if (L.dynamic_bytes) std::memset(b->dynamic, kSharedFillByte, L.dynamic_bytes);  // shared memory starts undefined
  const unsigned n = L.threads_per_block;
  b->threads.resize(n);
  b->warps.assign((n + 31) / 32, Warp{});
  b->order.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    Thread* t = acquire_worker();
    t->block = b;
    t->linear = i;
    t->lane = i % 32;
    t->warp = i / 32;
    t->builtins.thread_idx = uint3{i % bd.x, (i / bd.x) % bd.y, i / (bd.x * bd.y)};
    t->builtins.block_idx = b->idx;
    t->builtins.block_dim = bd;
    t->builtins.grid_dim = g;
    t->wait = Wait::none;
    t->spinning = false;
    t->has_work = true;
    t->polls = 0;
    t->polls_unyielded = 0;
    t->spin_sticky = false;
    t->saw_news = false;
    t->poll_addr = t->poll_prev = nullptr;
    t->pipeline.clear();  // a worker abandoned mid-kernel may have left copies behind
    t->pipeline_groups = 0;
    t->bclock = 1;
    t->known.clear();
    b->threads[i] = t;
    b->warps[t->warp].live |= 1u << t->lane;
    b->order[i] = t;
  }
  b->live = n;
  diag_block_started(*b);
  return b;
}

void finish_block(Block* b) {
  diag_block_finished(*b);
  for (Thread* t : b->threads) {
    t->block = nullptr;
    idle_threads.push_back(t);
  }
  delete b;
}

// A block whose fibers are suspended mid-kernel (the launch failed): drop them with their stacks.
void abandon_block(Block* b) {
  for (Thread* t : b->threads) {
    if (t->has_work) {
      delete t;
    } else {
      t->block = nullptr;
      idle_threads.push_back(t);
    }
  }
  delete b;
}

// The order of the block's next pass: fixed for forward and reverse (set when the block starts),
// reshuffled before every pass for random.
void order_threads(Launch& L, Block& b, bool first_pass) {
  const unsigned n = unsigned(b.order.size());
  switch (options().thread_order) {
    case ThreadOrder::forward:
      if (first_pass)
        for (unsigned i = 0; i < n; ++i) b.order[i] = b.threads[i];
      break;
    case ThreadOrder::reverse:
      if (first_pass)
        for (unsigned i = 0; i < n; ++i) b.order[i] = b.threads[n - 1 - i];
      break;
    case ThreadOrder::random: std::shuffle(b.order.begin(), b.order.end(), L.rng); break;
  }
}

std::string describe_waits(const Block& b) {
  std::ostringstream os;
  unsigned at_barrier = 0, exited = 0;
  for (const Thread* t : b.threads) {
    if (t->wait == Wait::barrier && !released(b, t)) ++at_barrier;
    if (t->wait == Wait::exited) ++exited;
  }
  os << "    block " << dim_string(b.idx) << ": " << b.live << " live threads";
  if (at_barrier) os << ", " << at_barrier << " at __syncthreads";
  if (exited) os << ", " << exited << " exited";
  os << "\n";
  for (unsigned warp = 0; warp < b.warps.size(); ++warp) {
    const Warp& w = b.warps[warp];
    if (!w.arrived) continue;
    const Thread* first = b.threads[std::size_t(warp) * 32 + __builtin_ctz(w.arrived)];
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "      warp %u: lanes 0x%08x wait at a warp collective with mask 0x%08x; live lanes 0x%08x\n", warp,
                  w.arrived, first->mask, w.live);
    os << buf;
  }
  os << describe_mbarrier_waits(b);
  for (const Thread* t : b.threads) {
    if (t->wait == Wait::none && t->spinning) {
      os << "      thread " << dim_string(t->builtins.thread_idx) << " polls "
         << describe_address(const_cast<const void*>(t->poll_addr)) << "\n";
    }
  }
  return os.str();
}

enum class Outcome { finished, stalled, aborted, paused };

// Forget that the block's threads were spinning (see the deadlock check in run_launch).
void unstick(Block& b) {
  b.stalled = false;
  for (Thread* t : b.threads) {
    t->polls = 0;
    t->spin_sticky = false;
  }
  for (Warp& w : b.warps) w.spinning = false;
}

// Passes over the block's threads until it ends, fails, or stalls: a pass in which every thread
// that ran only polled and no store landed anywhere. With one_pass (interleaving), it pauses after
// any pass that made progress, so that the next resident block runs.
Outcome run_block(Launch& L, Block& b, bool one_pass) {
  for (bool first_pass = !b.ordered;; first_pass = false) {
    order_threads(L, b, first_pass);
    b.ordered = true;
    const std::uint64_t epoch0 = store_epoch;
    b.pass_next = b.order.data();
    b.pass_end = b.order.data() + b.order.size();
    b.pass_progressed = false;
    b.pass_spun = false;
    Thread* first = next_in_pass(b);
    const bool resumed = first != nullptr;
    if (first) run_pass_from(first);
    if (L.aborted) return Outcome::aborted;
    const bool progressed = b.pass_progressed;
    if (b.live == 0) return Outcome::finished;
    if (b.activemask_pending) {
      resolve_activemask(b);
      continue;
    }
    if (!resumed) {
      record_failure(cudaErrorLaunchFailure,
                     "deadlock inside a block: its threads wait for each other forever (a barrier, warp collective or "
                     "cuda::barrier phase that not every thread it waits for reaches):\n" +
                         describe_waits(b));
      return Outcome::aborted;
    }
    if (!progressed && store_epoch == epoch0) return Outcome::stalled;
    if (one_pass) return Outcome::paused;
    b.spun_passes = b.pass_spun ? b.spun_passes + 1 : 0;
    if (b.spun_passes >= kSpunPassesPerTurn) {
      b.spun_passes = 0;
      return Outcome::paused;
    }
  }
}

std::string block_list(const std::vector<std::uint64_t>& ids, const dim3& g) {
  std::ostringstream os;
  std::size_t shown = 0;
  for (std::uint64_t id : ids) {
    if (shown++ == 16) {
      os << " ... (" << ids.size() << " in all)";
      break;
    }
    os << " "
       << dim_string(uint3{unsigned(id % g.x), unsigned((id / g.x) % g.y), unsigned(id / (std::uint64_t(g.x) * g.y))});
  }
  return os.str();
}

// ---- The watchdog: ends a process whose launch makes no progress at all (a thread looping without
// touching memory cannot be interrupted by the cooperative scheduler). ----
std::once_flag watchdog_once;
void start_watchdog() {
  std::thread([] {
    std::uint64_t last_ticks = 0, last_epoch = 0;
    auto still_since = std::chrono::steady_clock::now();
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      const auto now = std::chrono::steady_clock::now();
      const std::uint64_t ticks = progress_ticks.load(std::memory_order_relaxed);
      const std::uint64_t epoch = __atomic_load_n(&store_epoch, __ATOMIC_RELAXED);
      if (!launch_in_flight.load() || ticks != last_ticks || epoch != last_epoch) {
        last_ticks = ticks;
        last_epoch = epoch;
        still_since = now;
        continue;
      }
      const double limit = options().watchdog_seconds;
      if (limit > 0 && std::chrono::duration<double>(now - still_since).count() > limit) {
        std::fprintf(stderr,
                     "scanlab emulator: deadlock or endless loop: kernel `%s` made no progress (no thread "
                     "switch, no store) for %g s; a thread is looping without touching memory.\n  %s\n",
                     current_launch ? current_launch->kernel : "?", limit, describe_options().c_str());
        std::fflush(stderr);
        _exit(124);
      }
    }
  }).detach();
}

}  // namespace

// ---- Called from inside fibers ----------------------------------------------------------------

namespace {
// Inlined into the barrier so that a __syncthreads is one call from the kernel and one switch.
inline __attribute__((always_inline)) void yield_from(Thread* t) {
  Block& b = *t->block;
  if (!t->spinning && !t->spin_sticky) b.pass_progressed = true;
  Thread* next = current_launch->aborted ? nullptr : next_in_pass(b);
  if (next) enter(next);
  switch_to(t, next);  // `t` runs again from here; whoever switched back entered it
}
}  // namespace

void yield_to_scheduler() { yield_from(running); }

void fail_launch(cudaError_t error, const std::string& report) {
  record_failure(error, report);
  yield_to_scheduler();
  std::abort();  // an aborted launch never resumes its threads
}

uint3 thread_idx() { return builtins("threadIdx").thread_idx; }
uint3 block_idx() { return builtins("blockIdx").block_idx; }
dim3 block_dim() { return builtins("blockDim").block_dim; }
dim3 grid_dim() { return builtins("gridDim").grid_dim; }

[[noreturn]] void outside_kernel(const char* what) {
  std::fprintf(stderr, "scanlab emulator: %s used outside a kernel\n", what);
  std::abort();
}

// Different addresses can be one source barrier (the compiler may duplicate a call); different
// source lines cannot. Kept out of line: the barrier's fast path runs on every fiber's stack, and a
// small frame there keeps the emulator's working set in cache.
__attribute__((noinline, cold)) void check_same_barrier(const Thread& t, const Block& b, const void* site) {
  if (source_line(site) == source_line(b.barrier_site)) return;
  const std::string msg = "barrier divergence: thread " + dim_string(t.builtins.thread_idx) +
                          " waits at __syncthreads at " + symbolize(site) + " while other threads of block " +
                          dim_string(b.idx) + " wait at " + symbolize(b.barrier_site) +
                          " (CUDA requires every thread of the block at the same barrier)";
  report_misuse(msg);
  fail_launch(cudaErrorLaunchFailure, msg);
}

namespace {
// A thread arrives at a barrier (op: 0 plain, 1 count, 2 and, 3 or) and yields; returns once the
// barrier is released. Inlined into each __syncthreads form: the plain one is the emulator's
// hottest path.
inline __attribute__((always_inline)) void arrive_at_barrier(Thread* t, int op, int predicate, const void* site) {
  Block& b = *t->block;
  if (b.at_barrier == 0) {
    b.barrier_site = site;
    b.barrier_op = op;
    b.barrier_count = 0;
  } else if (site != b.barrier_site) {
    check_same_barrier(*t, b, site);
  }
  ++b.at_barrier;
  b.barrier_count += predicate != 0;
  // The last thread to arrive releases the barrier and still yields, so that every thread starts the
  // next barrier interval in the pass order of the thread-order policy.
  if (b.at_barrier == b.live) {
    release_barrier(b);
  } else {
    t->wait = Wait::barrier;
    t->barrier_gen = b.barrier_gen;
  }
  yield_from(t);
}

inline __attribute__((always_inline)) Thread* kernel_thread(const char* what) {
  Thread* t = running;
  if (__builtin_expect(!t, 0)) outside_kernel(what);
  return t;
}
}  // namespace

// Each takes its call site from its own return address (kernel files are built without sibling-call
// optimisation, so the address is in the kernel).
__attribute__((noinline)) void sync_block() {
  arrive_at_barrier(kernel_thread("__syncthreads"), 0, 1, __builtin_return_address(0));
}
__attribute__((noinline)) int sync_block_count(int p) {
  Thread* t = kernel_thread("__syncthreads_count");
  arrive_at_barrier(t, 1, p, __builtin_return_address(0));
  return t->block->barrier_result;
}
__attribute__((noinline)) int sync_block_and(int p) {
  Thread* t = kernel_thread("__syncthreads_and");
  arrive_at_barrier(t, 2, p, __builtin_return_address(0));
  return t->block->barrier_result;
}
__attribute__((noinline)) int sync_block_or(int p) {
  Thread* t = kernel_thread("__syncthreads_or");
  arrive_at_barrier(t, 3, p, __builtin_return_address(0));
  return t->block->barrier_result;
}

std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int arg, int width, const void* site) {
  Thread* t = running;
  if (!t) outside_kernel("a warp intrinsic");
  const unsigned bit = 1u << t->lane;
  if (!(mask & bit)) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "thread %s (lane %u) called a warp collective with mask 0x%08x, which does not include it, at ",
                  dim_string(t->builtins.thread_idx).c_str(), t->lane, mask);
    report_misuse(buf + symbolize(site));
    fail_launch(cudaErrorLaunchFailure, buf + symbolize(site));
  }
  if (width < 1 || width > 32 || (width & (width - 1))) {
    fail_launch(cudaErrorLaunchFailure,
                "a shuffle's width must be a power of two from 1 to 32, got " + std::to_string(width));
  }
  t->op = op;
  t->mask = mask;
  t->value = value;
  t->arg = arg;
  t->width = width;
  t->site = site;
  t->wait = Wait::warp;
  Block& b = *t->block;
  b.warps[t->warp].arrived |= bit;
  try_complete(b, t->warp, mask);
  if (t->wait == Wait::warp) {
    // A lane that polls nothing itself but runs in a warp whose poll loop spins (a look-back in
    // which lanes past the first tile only vote) is spinning too: its yield is not progress, so the
    // block can stall and let other blocks, and their pending stores, move.
    if (b.warps[t->warp].spinning) t->spinning = true;
    yield_to_scheduler();
  }
  return t->result;
}

unsigned active_mask(const void* site) {
  Thread* t = running;
  if (!t) outside_kernel("__activemask");
  Block& b = *t->block;
  t->wait = Wait::activemask;
  t->site = site;
  b.warps[t->warp].activemask |= 1u << t->lane;
  b.activemask_pending = true;
  yield_to_scheduler();
  return unsigned(t->result);
}

void poll(const volatile void* addr, std::size_t bytes) {
  Thread* t = running;
  if (!t) return;
  if (addr != nullptr) {
    // The hook runs before the load: what is in memory now is what the thread is about to read.
    std::uint64_t value = 0;
    std::memcpy(&value, const_cast<const void*>(addr), std::min<std::size_t>(bytes, sizeof value));
    if (addr != t->poll_addr && addr != t->poll_prev) {
      // Another address: one more the block has polled (a spin on one address costs nothing here).
      if (!is_shared_address(const_cast<const void*>(addr)))
        t->block->polled.insert(reinterpret_cast<std::uintptr_t>(addr));
      t->poll_prev = t->poll_addr;
      t->poll_addr = addr;
      t->polls = 0;
      t->spin_sticky = false;
      t->saw_news = true;
    } else if (addr == t->poll_addr && value != t->poll_value) {
      t->polls = 0;  // the thread sees something new: not spinning
      t->spin_sticky = false;
      t->saw_news = true;
    }
    if (addr == t->poll_addr) t->poll_value = value;
  }
  if (++t->polls >= kSpinPolls) {
    t->polls = 0;
    t->polls_unyielded = 0;
    t->spinning = true;
    t->spin_sticky = true;
    t->block->pass_spun = true;
    yield_to_scheduler();
  } else if (++t->polls_unyielded >= kPollsPerYield) {
    t->polls_unyielded = 0;
    yield_to_scheduler();
  }
}

long long clock_ticks() {
  static long long ticks = 0;
  return ++ticks;
}

void* shared_static_impl(const void* key, std::size_t bytes, std::size_t align, const char* name) {
  Thread* t = running;
  if (!t) outside_kernel("a __shared__ variable");
  Block& b = *t->block;
  for (const SharedVar& v : b.vars)
    if (v.key == key) return v.ptr;
  Launch& L = *current_launch;
  if (align == 0) align = 1;
  std::size_t offset = (L.dynamic_bytes + b.shared_used + align - 1) / align * align;
  if (offset + bytes > L.shared_limit) {
    fail_launch(cudaErrorInvalidValue, "shared memory exceeds the block's limit: `" + std::string(name) + "` needs " +
                                           std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                                           ", limit " + std::to_string(L.shared_limit) + " bytes (dynamic " +
                                           std::to_string(L.dynamic_bytes) + ")");
  }
  char* p = b.shared + offset;
  std::memset(p, kSharedFillByte, bytes);
  b.shared_used = offset + bytes - L.dynamic_bytes;
  b.vars.push_back(SharedVar{key, p, bytes, name});
  return p;
}

char* shared_arena_base() { return arena_for_slot(0); }

// ---- Called from the host side ------------------------------------------------------------------

void record_failure(cudaError_t error, const std::string& report) {
  Launch& L = *current_launch;
  if (L.aborted) return;
  L.aborted = true;
  L.error = error;
  std::string text = "scanlab emulator: kernel `" + std::string(L.kernel) + "` launched at " + L.file + ":" +
                     std::to_string(L.line) + " failed: " + report;
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "  " + describe_options() + "\n";
  last_report = text;
  std::fputs(text.c_str(), stderr);
  std::fflush(stderr);
}

unsigned default_resident_blocks(unsigned threads_per_block, std::size_t shared_bytes) {
  const cudaDeviceProp& p = modelled_device();
  unsigned by_threads = unsigned(p.maxThreadsPerMultiProcessor) / std::max(1u, threads_per_block);
  unsigned by_blocks = unsigned(p.maxBlocksPerMultiProcessor);
  unsigned by_smem = shared_bytes ? unsigned(p.sharedMemPerMultiprocessor / shared_bytes) : by_blocks;
  unsigned per_sm = std::max(1u, std::min({by_threads, by_blocks, by_smem}));
  return std::min(kMaxResident, per_sm * unsigned(p.multiProcessorCount));
}

void run_launch(Launch& L) {
  std::call_once(watchdog_once, start_watchdog);
  diag_launch_started(L);
  weak_memory = options().memory == Memory::weak;
  if (weak_memory) weak_launch_started(options().seed);
  memcheck = options().memcheck;
  if (memcheck) memcheck_launch_started();
  async_launch_started(options().seed);
  install_fault_handler();
  observe_loads = observe_shared || weak_memory || memcheck;
  const dim3 g = L.config.grid;
  L.blocks_total = std::uint64_t(g.x) * g.y * g.z;
  const Options& opt = options();
  L.rng.seed(opt.seed);
  L.resident = opt.resident ? std::min(opt.resident, kMaxResident)
                            : default_resident_blocks(L.threads_per_block, L.dynamic_bytes);

  // Dispatch order: the order in which blocks are made resident.
  std::vector<std::uint64_t> random_order;
  if (opt.schedule == Schedule::random) {
    random_order.resize(L.blocks_total);
    for (std::uint64_t i = 0; i < L.blocks_total; ++i) random_order[i] = i;
    std::shuffle(random_order.begin(), random_order.end(), L.rng);
  }
  auto dispatch = [&](std::uint64_t k) -> std::uint64_t {
    switch (opt.schedule) {
      case Schedule::reverse: return L.blocks_total - 1 - k;
      case Schedule::random: return random_order[k];
      default: return k;
    }
  };

  std::vector<Block*> active;
  std::vector<unsigned> free_slots;
  for (unsigned s = L.resident; s-- > 0;) free_slots.push_back(s);
  std::uint64_t next = 0;
  std::size_t rr = 0;
  std::uint64_t confirmed_epoch = ~std::uint64_t(0);  // store_epoch when blocks last ran unstuck
  launch_in_flight = true;

  while (!L.aborted && (next < L.blocks_total || !active.empty())) {
    Block* pick = nullptr;
    // Interleaving: every free slot is filled at once, as a GPU starts blocks while it has room.
    if (opt.interleave && next < L.blocks_total && !free_slots.empty()) {
      unsigned slot = free_slots.back();
      free_slots.pop_back();
      pick = start_block(L, dispatch(next++), slot);
      active.push_back(pick);
    }
    // Otherwise, in turn, a resident block that can run: not stalled, or stalled before the latest
    // store.
    for (std::size_t k = 0; k < active.size() && !pick; ++k) {
      Block* b = active[(rr + k) % active.size()];
      if (!b->stalled || b->stall_epoch != store_epoch) {
        pick = b;
        rr = (rr + k + 1) % std::max<std::size_t>(1, active.size());
      }
    }
    if (!pick && next < L.blocks_total && !free_slots.empty()) {
      unsigned slot = free_slots.back();
      free_slots.pop_back();
      pick = start_block(L, dispatch(next++), slot);
      active.push_back(pick);
    }
    if (!pick && weak_memory && weak_commit_all(active)) continue;  // let pending stores land first
    // Before declaring a deadlock, every resident block runs once more with its threads' spin
    // counts cleared: a block whose threads had just left their poll loops (a warp that found its
    // predecessors and went on to its shuffles) gets to show that it moves. A block that is really
    // stuck spins kSpinPolls times per thread again and stalls with no store landing.
    if (!pick && confirmed_epoch != store_epoch) {
      confirmed_epoch = store_epoch;
      for (Block* b : active) unstick(*b);
      continue;
    }
    if (!pick) {
      std::ostringstream os;
      os << "deadlock: every resident block is waiting and no store has landed since they began to wait.\n"
         << "  resident blocks (" << active.size() << " of " << L.resident << " slots):\n";
      for (Block* b : active) os << describe_waits(*b);
      std::vector<std::uint64_t> never;
      for (std::uint64_t k = next; k < L.blocks_total; ++k) never.push_back(dispatch(k));
      if (!never.empty())
        os << "  never made resident (" << never.size() << " blocks):" << block_list(never, g) << "\n";
      record_failure(cudaErrorLaunchTimeout, os.str());
      break;
    }
    pick->stalled = false;
    if (weak_memory) weak_switch_in(*pick);
    Outcome outcome = run_block(L, *pick, opt.interleave);
    if (outcome == Outcome::stalled) {
      // Before the weak-memory commits below: a store that lands now is news to this block.
      pick->stalled = true;
      pick->stall_epoch = store_epoch;
    }
    if (weak_memory) {
      weak_switch_out(*pick, outcome == Outcome::finished);
      weak_drain_step();
    }
    if (outcome == Outcome::finished) {
      free_slots.push_back(pick->slot);
      active.erase(std::find(active.begin(), active.end(), pick));
      finish_block(pick);
      ++L.blocks_done;
    }
  }
  if (weak_memory) {
    weak_commit_all(active);  // the end of a kernel makes every store visible
    stale_launch_finished(L);
  }
  weak_memory = false;
  memcheck = false;
  observe_loads = false;
  for (Block* b : active) abandon_block(b);
  launch_in_flight = false;
  diag_launch_finished(L);
}

const std::string& last_failure_report() { return last_report; }

}  // namespace scanlab_emu::detail

namespace scanlab_emu {
void* static_shared(const void* key, std::size_t bytes, std::size_t align, const char* name) {
  return detail::shared_static_impl(key, bytes, align, name);
}
void* dynamic_shared(std::size_t, const char*) {
  detail::Thread* t = detail::running;
  if (!t) detail::outside_kernel("extern __shared__ memory");
  return t->block->dynamic;
}
}  // namespace scanlab_emu
