// The emulator's private state: emulated threads (fibers), warps, blocks and the running launch.
//
// Execution model (design.md §4). A launch runs on the calling OS thread. Blocks are made resident
// in the dispatch order of the schedule policy, one at a time and only when every resident block is
// waiting (so a plain kernel has one block in flight), up to `resident` slots; a block keeps its slot
// until it ends. Inside a block the scheduler makes passes over the threads in the thread-order
// policy; a thread runs until it reaches a barrier, a warp collective, a polling step or a wait for
// a cuda::barrier phase, then its fiber switches back to the scheduler. One pass over the threads
// is one barrier epoch.
#pragma once
#include <sys/mman.h>

#include <boost/context/detail/fcontext.hpp>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include "cuda_runtime.h"

namespace scanlab_emu::detail {

struct Block;
struct Launch;

// One shared-memory access of one lane, kept until its warp's accesses are grouped into warp-wide
// instructions for the bank-conflict count.
struct BankAccess {
  const void* pc;
  std::uintptr_t word;  // address >> 2
  std::uint32_t words;  // 4-byte words touched
};

// phase: waiting on a cuda::barrier until the phase of its arrival token completes (async_copy.cpp).
enum class Wait : std::uint8_t { none, barrier, warp, activemask, exited, phase };

// One asynchronous copy into shared memory (__pipeline_memcpy_async, or the bulk copy of
// cuda::device::memcpy_async_tx) from issue until it completes. Its bytes land at a point the
// launch's seed decides, between issue and the wait that covers it (async_copy.cpp).
struct AsyncCopy {
  char* dst;
  const char* src;
  std::uint32_t bytes;      // into dst
  std::uint32_t src_bytes;  // read from src; the rest of dst is zero-filled
  std::uint32_t group;      // pipeline copies: the commit group (the thread's commits before it)
  std::uint32_t serial;     // the race checker's id of its pending bytes (0: not tracked)
  bool landed;
};

// A cuda::barrier<thread_scope_block> (an mbarrier on Hopper). The 8 bytes of the object in shared
// memory hold a tag and the index of this record in its block's table, so the object keeps the
// GPU's size and a barrier used before init() is told from one that was initialized.
struct MBarrier {
  const void* addr = nullptr;
  std::uint32_t phase = 0;        // completed phases
  std::int64_t expected = 0;      // arrivals each phase needs (arrive_and_drop lowers it)
  std::int64_t pending = 0;       // arrivals still missing in the current phase
  std::int64_t tx = 0;            // transaction bytes announced and not yet landed (may dip below 0)
  std::vector<AsyncCopy> copies;  // bulk copies that complete on the current phase
  // Race checker: what the arrivals of the current phase knew, and of the last completed phase
  // (diagnostics.cpp, "ordering through cuda::barrier phases").
  std::vector<std::uint32_t> arrived_known, completed_known;
  // For each thread of the block, the phase (+ 1) of its last arrival and where it arrived: a
  // second arrival in one phase is reported (async_copy.cpp), and the first such report is kept
  // for a deadlock report on this barrier.
  std::vector<std::uint32_t> arrival_phase, arrival_count;
  std::vector<const void*> arrival_site, arrival_before;  // its last arrival's site, and the one before
  std::string second_arrival;
};

// The fields that every barrier pass touches come first, in one cache line: a pass visits every
// thread of the block, so keeping its per-thread footprint small keeps the emulator in cache.
struct alignas(64) Thread {
  // A persistent worker fiber (Boost.Context's fcontext layer) that runs one emulated thread after
  // another; `context` is its suspended state while another fiber or the scheduler runs.
  boost::context::detail::fcontext_t context = nullptr;
  Block* block = nullptr;
  char* stack_lo = nullptr;  // this fiber's stack, to tell locals from shared/global memory
  char* stack_hi = nullptr;
  Wait wait = Wait::none;
  bool spinning = false;  // yielded from a polling loop
  // Set once the thread has polled one address kSpinPolls times, until it stores or polls elsewhere:
  // a spinning thread's yields, at warp collectives too, are not progress.
  bool spin_sticky = false;
  // Set when a poll of this thread saw something new (another value, another address) since its
  // warp's last collective: the warp's poll loop is not spinning (see complete_collective).
  bool saw_news = false;
  bool has_work = false;
  unsigned polls = 0;
  unsigned polls_unyielded = 0;  // polls since the thread last yielded (see poll())
  // With wait == barrier: the block's barrier generation it waits in (the barrier is released, and
  // the thread runnable, once the block's generation has moved on; see next_in_pass).
  std::uint32_t barrier_gen = 0;
  ThreadBuiltins builtins{};      // what threadIdx & co. read
  void* stack_mapping = nullptr;  // the stack and the guard page below it
  std::size_t stack_mapping_bytes = 0;
  unsigned linear = 0;  // linear thread index in the block
  unsigned lane = 0, warp = 0;
  const void* site = nullptr;  // call site of the warp collective / __activemask it waits at
  // warp-collective operands and results
  unsigned mask = 0;
  WarpOp op = WarpOp::sync;
  int arg = 0;
  int width = 32;
  std::uint64_t value = 0;
  std::uint64_t result = 0;
  // polling
  const volatile void* poll_addr = nullptr;
  const volatile void* poll_prev = nullptr;
  std::uint64_t poll_value = 0;  // what the last poll of poll_addr found there
  // weak-memory mode: the thread's last volatile or atomic load since its last device-scope fence,
  // named when a plain load after it returns an old value (the flag load of a message-passing bug)
  const void* strong_load_pc = nullptr;
  std::uintptr_t strong_load_word = 0;  // its word (address >> 2)
  // the commit it returned (number, writer block; 0 and ~0 when the word has no history)
  std::uint64_t strong_load_seq = 0, strong_load_writer = ~std::uint64_t(0);
  std::vector<BankAccess> bank_log;
  // Asynchronous copies (async_copy.cpp): this thread's __pipeline_memcpy_async copies not yet
  // covered by a __pipeline_wait_prior, the groups it committed, and with wait == phase the
  // cuda::barrier (index in the block's table) and the phase it waits for.
  std::vector<AsyncCopy> pipeline;
  std::uint32_t pipeline_groups = 0;
  unsigned wait_mbarrier = 0;
  std::uint32_t wait_phase = 0;
  // Race checker, in blocks that use cuda::barrier: this thread's arrivals so far + 1, and for
  // each thread of the block the clock up to which its accesses happened before this thread's
  // current point through barrier phases (diagnostics.cpp).
  std::uint32_t bclock = 1;
  std::vector<std::uint32_t> known;

  Thread() = default;
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  // A worker is freed with its stack; a suspended kernel frame on it is simply dropped (the launch
  // failed), which is why emulated kernels must not own resources that need destructors.
  ~Thread() {
    if (stack_mapping) munmap(stack_mapping, stack_mapping_bytes);
  }
};

struct Warp {
  // Race checker: lane_known[j * 32 + i] is the latest __syncwarp that lanes i and j both took part
  // in, directly or through other lanes (a vector clock per lane, joined at each __syncwarp; the
  // entries are global epochs, so they only grow). lane_known[i * 32 + i] is lane i's own clock: an
  // access of lane i made at clock c is ordered before lane j once lane_known[j * 32 + i] > c.
  std::vector<std::uint32_t> lane_known;
  unsigned live = 0;        // lanes not exited
  unsigned arrived = 0;     // lanes waiting at a collective
  unsigned activemask = 0;  // lanes waiting in __activemask
  bool spinning = false;    // a lane of its last collective was spinning on a poll
};

struct SharedVar {
  const void* key;
  char* ptr;
  std::size_t bytes;
  const char* name;
};

struct Block {
  uint3 idx{};
  std::uint64_t linear_id = 0;
  unsigned slot = 0;
  std::vector<Thread*> threads;
  std::vector<Warp> warps;
  std::vector<Thread*> order;    // thread order of the current pass
  bool ordered = false;          // order holds the policy's order
  Thread** pass_next = nullptr;  // next position in `order` of the pass under way
  Thread** pass_end = nullptr;
  bool pass_progressed = false;  // a thread of this pass did more than poll
  bool pass_spun = false;        // a thread of this pass yielded from a spinning poll
  unsigned spun_passes = 0;      // passes in a row that progressed while a thread spun
  unsigned live = 0;             // threads not exited
  unsigned at_barrier = 0;
  const void* barrier_site = nullptr;
  int barrier_op = 0;
  int barrier_count = 0;
  // Releasing a barrier bumps the generation instead of visiting every waiting thread; the result
  // (of __syncthreads_count/_and/_or) is the same for all of them and stays here until the next
  // release, which needs every waiter to have resumed and arrived again.
  std::uint32_t barrier_gen = 0;
  int barrier_result = 0;
  bool activemask_pending = false;
  char* shared = nullptr;       // this slot's shared-memory arena
  std::size_t shared_used = 0;  // static shared bytes handed out so far
  std::vector<SharedVar> vars;
  char* dynamic = nullptr;
  bool stalled = false;
  std::uint64_t stall_epoch = 0;
  std::uint32_t epoch = 0;    // barrier interval, unique across all blocks (race checker)
  std::uint32_t diag_id = 0;  // unique per block run (race checker: tells a slot's blocks apart)
  unsigned phase = 0;         // barriers this block has passed
  // Weak-memory mode (stale_loads.cpp): the block's view of global memory, as an SM's L1 holds it.
  // Its plain loads may return any committed value of a word that is not older than the commit
  // sequence number of its last device-scope fence or acquire, nor than the word's floor (the newest
  // value the block has read or written there).
  std::uint64_t view_refreshed = 0;
  std::unordered_map<std::uintptr_t, std::uint64_t> view_floor;  // by word (address >> 2)
  std::vector<MBarrier> mbarriers;                               // the block's initialized cuda::barrier objects
  // The distinct global addresses its threads have read with polling loads (volatile or atomic):
  // how far a look-back reached (Diagnostics::polls).
  std::unordered_set<std::uintptr_t> polled;
};

struct Launch {
  LaunchConfig config{};
  const char* kernel = "";
  const char* file = "";
  int line = 0;
  KernelBody body = nullptr;
  void* context = nullptr;
  unsigned threads_per_block = 0;
  std::size_t dynamic_bytes = 0;
  std::size_t shared_limit = 0;  // static + dynamic bytes a block may use
  std::uint64_t blocks_total = 0;
  std::uint64_t blocks_done = 0;
  unsigned resident = 1;
  std::mt19937_64 rng;
  bool aborted = false;
  cudaError_t error = cudaSuccess;
};

// ---- shared by the emulator's source files ----
extern __thread Thread* running;  // the emulated thread whose fiber runs now (null on the host)
extern Launch* current_launch;
extern std::uint64_t store_epoch;  // bumped by every store to global or shared memory

void yield_to_scheduler();                                                    // from inside a fiber
[[noreturn]] void fail_launch(cudaError_t error, const std::string& report);  // from inside a fiber
void record_failure(cudaError_t error, const std::string& report);            // from the scheduler
std::string describe_address(const void* addr);
void run_launch(Launch& launch);
void* shared_static_impl(const void* key, std::size_t bytes, std::size_t align, const char* name);
const std::string& last_failure_report();

constexpr std::size_t kArenaBytes = 256 * 1024;  // shared memory per resident slot
constexpr unsigned kMaxResident = 1024;
extern char* arena_base;  // kMaxResident shared-memory arenas, one per slot (null until the first block)

// Inline: the memory hooks ask this on every store.
inline bool is_shared_address(const void* addr) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(addr), base = reinterpret_cast<std::uintptr_t>(arena_base);
  return arena_base && a - base < kArenaBytes * kMaxResident;
}

inline bool on_own_stack(const Thread* t, const void* addr) {
  const char* a = static_cast<const char*>(addr);
  return a >= t->stack_lo && a < t->stack_hi;
}

// Called on every store to memory that is not the thread's own stack.
// The watchdog thread reads store_epoch too, hence the relaxed atomic store (a plain move on x86).
inline void note_store(Thread* t) {
  __atomic_store_n(&store_epoch, store_epoch + 1, __ATOMIC_RELAXED);
  t->polls = 0;
  t->spin_sticky = false;
  t->saw_news = true;
}

// ---- diagnostics (diagnostics.cpp) ----
extern bool observe_shared;  // race checker or bank counter on for this launch
void shared_access(Thread* t, const void* addr, std::size_t bytes, bool is_write, const void* pc);
void diag_block_started(Block& b);
void diag_barrier_released(Block& b);
// A collective of a warp completed; `ordering` holds its lanes that reached a __syncwarp, which
// orders their memory accesses (shuffles and votes do not: CUDA programming guide).
void diag_warp_synced(Block& b, unsigned warp, unsigned ordering);
void diag_block_finished(Block& b);  // also records how many addresses the block polled
void diag_launch_started(Launch& L);
void diag_launch_finished(Launch& L);
void report_misuse(const std::string& message);
void report_misuse_once(const void* site, const std::string& message);  // once per launch and site
std::string symbolize(const void* pc);    // the student's line first when pc is in inlined library code
std::string source_line(const void* pc);  // the innermost file:line only
char* shared_arena_base();

// ---- weak-memory mode (weak_memory.cpp) ----
extern bool weak_memory;    // this launch runs in weak-memory mode
extern bool observe_loads;  // observe_shared || weak_memory: the plain-load hook has work
void weak_launch_started(std::uint64_t seed);
void weak_store(Thread* t, const void* addr, std::size_t bytes, const void* pc);
void weak_fence(Thread* t);
void weak_switch_in(Block& b);
void weak_switch_out(Block& b, bool finished);
void weak_drain_step();
bool weak_commit_all(const std::vector<Block*>& not_running);
void weak_release(Thread* t);  // a release: the thread's earlier stores become visible first
// An atomic read-modify-write works on the committed value, in place: the block's pending stores to
// that address become visible first (weak_atomic_begin), and its result is visible at once.
void weak_atomic_begin(Thread* t, const void* addr, std::size_t bytes);

// ---- stale loads (stale_loads.cpp): the load side of weak-memory mode ----
// A plain load of global memory may return an older committed value (see Block::view_*). It does
// so by writing the old bytes into memory just before the load and putting the real ones back at
// the emulator's next entry (every hook, fence, atomic and block switch calls stale_restore first).
extern bool stale_patched;
void stale_restore_slow();
inline void stale_restore() {
  if (__builtin_expect(stale_patched, 0)) stale_restore_slow();
}
void stale_launch_started(std::uint64_t seed);
void stale_launch_finished(const Launch& L);  // prints the report of old values returned
void stale_plain_load(Thread* t, const void* addr, std::size_t bytes, const void* pc);
void stale_strong_load(Thread* t, const void* addr, std::size_t bytes, const void* pc);  // volatile, atomic
// Just before a volatile or relaxed atomic load of global memory (after its poll): when the thread
// loaded another word with such a load since its last fence or acquire, nothing orders the two, and
// this one may return an older value (PTX: relaxed loads of different locations are unordered).
void stale_relaxed_load(Thread* t, const void* addr, std::size_t bytes, const void* pc);
void stale_refresh(Thread* t);  // a device-scope fence or acquire of thread t
// A store becomes visible to every block: `before` is what the bytes held until now (the committed
// value), `after` what they hold from now on.
void stale_commit(const void* addr, std::size_t bytes, const unsigned char* before, const unsigned char* after,
                  const void* pc, std::uint64_t writer_block);

// ---- asynchronous copies and cuda::barrier (async_copy.cpp) ----
void async_launch_started(std::uint64_t seed);
void async_thread_exited(Thread* t);                  // its pending pipeline copies land (nobody waited for them)
std::string describe_mbarrier_waits(const Block& b);  // for deadlock reports
inline bool phase_completed(const Block& b, const Thread* t) {
  return b.mbarriers[t->wait_mbarrier].phase != t->wait_phase;
}
// Race checker (diagnostics.cpp): the copy is t's write at its issue (at pc), and the bytes
// [dst, dst+bytes) are pending from now on. Returns the copy's serial.
// `barrier`: a bulk copy's cuda::barrier (its index in the block's table + 1; 0 for a pipeline
// copy): a copy into bytes that another copy still in flight writes, or into bytes that copies of
// another barrier (another stage) filled, is reported as such.
std::uint32_t race_async_issued(Thread* t, const void* dst, std::size_t bytes, bool bulk, const void* pc,
                                unsigned barrier = 0);
// The copy completed: its bytes are no longer pending; `writer` (a pipeline copy's thread, at its
// wait) becomes their last writer, so that other threads' reads need a barrier after that wait; a
// bulk copy's (writer null) have none, its barrier phase having ordered them before every waiter.
void race_async_completed(std::uint32_t serial, const void* dst, std::size_t bytes, Thread* writer);
// Race checker: an arrival on m (what t knew so far goes with it), the completion of m's phase, and
// a wait of t that saw the phase complete (t now knows what the phase's arrivals knew).
void race_barrier_arrive(Thread* t, MBarrier& m);
void race_barrier_completed(MBarrier& m);
void race_barrier_acquire(Thread* t, const MBarrier& m);

// ---- memory safety (memcheck.cpp) ----
struct AllocationInfo {
  const char* start;
  std::size_t bytes;
  std::size_t id;
  const char* pages_lo;  // its pages, guard pages included
  const char* pages_hi;
};
bool allocation_around(const void* p, AllocationInfo& out, bool nearest);  // runtime_api.cpp
extern bool memcheck;  // this launch checks its global accesses (--memcheck)
// An access of `bytes` at addr (neither shared memory nor the thread's own stack); `aligned`: the
// instruction needs natural alignment (the compiler's aligned load or store of that size).
void memcheck_access(Thread* t, const void* addr, std::size_t bytes, bool is_write, bool aligned, const void* pc);
// A shared-memory access the compiler made at a naturally aligned address of its size (a 16-byte
// vector, say) that is not aligned: fails the launch with cudaErrorMisalignedAddress, as on a GPU,
// where the shared arena's own placement would otherwise hide it (memcheck only).
void memcheck_shared_alignment(Thread* t, const void* addr, std::size_t bytes, bool is_write, const void* pc);
void memcheck_launch_started();
void install_fault_handler();  // reports a fault inside a kernel (illegal address, stack overflow)

// Device properties of the modelled GPU.
const cudaDeviceProp& modelled_device();
unsigned default_resident_blocks(unsigned threads_per_block, std::size_t shared_bytes);

}  // namespace scanlab_emu::detail
