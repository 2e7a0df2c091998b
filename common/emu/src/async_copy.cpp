// Asynchronous copies into shared memory and cuda::barrier<thread_scope_block>.
//
//  - __pipeline_memcpy_async (cp.async): a copy is pending from its issue until a
//    __pipeline_wait_prior of its thread covers its commit group.
//  - cuda::barrier (mbarrier): a phase completes when its expected arrivals have all arrived and its
//    transaction count (bytes announced by barrier_arrive_tx, less bytes landed) is zero. A waiting
//    thread sleeps in the scheduler (Wait::phase) until the phase of its token completes, as one at
//    __syncthreads does, so a missing arrival leaves a block with no thread to run: a deadlock
//    report that names the barrier, never a hang.
//  - memcpy_async_tx (cp.async.bulk): a copy completes its bytes as transactions on its barrier
//    and is pending until that barrier's phase completes.
//
// When the bytes land. A GPU may write them at any point between the issue and the wait; each copy
// lands either at once or as late as it can (at the covering wait; for a bulk copy when its
// phase's last arrival comes), one or the other by a generator seeded with the launch's seed. A
// kernel that reads a stage before waiting then reads the old bytes of some copies, and one that
// refills a stage while others still read it may overwrite some of them: wrong results, and the
// same ones under the same seed. The race checker (diagnostics.cpp) reports every access to
// pending bytes, and a copy issued after reads that no barrier orders before it.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>

#include "internal.hpp"

namespace scanlab_emu::detail {

namespace {

constexpr std::uint32_t kTag = 0x5ca1ba77u;        // the high half of an initialized barrier's 8 bytes
constexpr std::int64_t kMaxCount = (1 << 20) - 1;  // an mbarrier's arrival and transaction limits
std::mt19937_64 landing;

Thread* kernel_thread(const char* what) {
  Thread* t = running;
  if (!t) outside_kernel(what);
  stale_restore();  // global memory holds its real bytes again before a copy reads it
  return t;
}

std::string coords(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string who(const Thread* t) {
  return "thread " + coords(t->builtins.thread_idx) + " of block " + coords(t->builtins.block_idx);
}

[[noreturn]] void fail(cudaError_t error, const std::string& what) {
  report_misuse(what);
  fail_launch(error, what);
}

// `ring`[1], `bar`, or the shared byte offset when no variable holds it.
std::string barrier_name(const Block& b, const void* addr) {
  const char* a = static_cast<const char*>(addr);
  for (const SharedVar& v : b.vars) {
    if (a >= v.ptr && a < v.ptr + v.bytes) {
      std::string s = "`" + std::string(v.name) + "`";
      if (v.bytes > 8) s += "[" + std::to_string((a - v.ptr) / 8) + "]";
      return s;
    }
  }
  return "at shared byte " + std::to_string(a - b.shared);
}

void land(AsyncCopy& c) {
  std::memcpy(c.dst, c.src, c.src_bytes);
  std::memset(c.dst + c.src_bytes, 0, c.bytes - c.src_bytes);
  c.landed = true;
}

bool lands_at_issue() { return (landing() >> 17) & 1u; }

bool racecheck_on() { return observe_shared && options().racecheck; }

// A copy's destination must be its block's shared memory and its source global memory, both
// aligned to `align`.
void check_copy(Thread* t, const char* api, const void* dst, const void* src, std::size_t bytes, std::size_t src_bytes,
                std::size_t align, const void* site) {
  const Block& b = *t->block;
  const char* d = static_cast<const char*>(dst);
  const char* shared_end = b.shared + current_launch->dynamic_bytes + b.shared_used;
  const std::string call = who(t) + " calls " + api + " at " + symbolize(site);
  char buf[64];
  if (!(d >= b.shared && d + bytes <= shared_end)) {
    std::snprintf(buf, sizeof buf, "%p", dst);
    fail(cudaErrorIllegalAddress, call + " with destination " + buf + ", which is not in its block's shared memory");
  }
  if (is_shared_address(src) || on_own_stack(t, src)) {
    std::snprintf(buf, sizeof buf, "%p", src);
    fail(cudaErrorIllegalAddress, call + " with source " + buf + ", which is not global memory");
  }
  const auto misaligned = [&](const char* which, std::uintptr_t a) {
    if (a % align == 0) return;
    std::snprintf(buf, sizeof buf, "%#zx", std::size_t(a));
    fail(cudaErrorMisalignedAddress, call + " with a misaligned " + which + " (" +
                                         (which[0] == 'd' ? "shared byte " + std::to_string(d - b.shared) : buf) +
                                         "): the destination and the source must be multiples of " +
                                         std::to_string(align) + " bytes");
  };
  misaligned("destination", reinterpret_cast<std::uintptr_t>(dst));
  misaligned("source", reinterpret_cast<std::uintptr_t>(src));
  if (memcheck && src_bytes) memcheck_access(t, src, src_bytes, false, false, site);
}

// The barrier whose object is at `bar`, or a failed launch when init() did not make it one.
unsigned lookup(Thread* t, void* bar, const char* api, const void* site) {
  Block& b = *t->block;
  const char* p = static_cast<const char*>(bar);
  if (!(p >= b.shared && p + 8 <= b.shared + kArenaBytes))
    fail(cudaErrorLaunchFailure, who(t) + " calls " + api + " at " + symbolize(site) +
                                     " on a cuda::barrier that is not in its block's __shared__ memory (the emulator "
                                     "has cuda::barrier<cuda::thread_scope_block> in shared memory only)");
  std::uint64_t handle;
  std::memcpy(&handle, bar, 8);
  const auto index = std::uint32_t(handle);
  if (std::uint32_t(handle >> 32) != kTag || index >= b.mbarriers.size() || b.mbarriers[index].addr != bar)
    fail(cudaErrorLaunchFailure, who(t) + " calls " + api + " at " + symbolize(site) + " on cuda::barrier " +
                                     barrier_name(b, bar) +
                                     " before init() (or after its bytes were overwritten): one thread calls "
                                     "init(&bar, count), then __syncthreads(), before any thread uses it");
  return index;
}

// A thread's arrival on m. A second one in the same phase counts as another thread's: the phase
// completes one arrival early, and a thread whose arrival was taken waits in the next phase,
// which then misses it. Reported where it happens, naming both arrivals.
void note_arrival(const Thread* t, const Block& b, MBarrier& m, const void* site) {
  if (m.arrival_phase.size() < b.threads.size()) {
    m.arrival_phase.resize(b.threads.size(), 0);
    m.arrival_count.resize(b.threads.size(), 0);
    m.arrival_site.resize(b.threads.size(), nullptr);
    m.arrival_before.resize(b.threads.size(), nullptr);
  }
  const unsigned me = t->linear;
  if (m.arrival_phase[me] == m.phase + 1) {
    const std::string msg =
        who(t) + " arrives on cuda::barrier " + barrier_name(b, m.addr) + " twice in one phase: at " +
        symbolize(m.arrival_site[me]) + ", then again at " + symbolize(site) +
        " before the phase completed. The second arrival counts for another thread, so the phase completes "
        "without that thread and its own arrival lands in the next phase: a thread arrives once per phase, "
        "and waits for the phase before it arrives again";
    report_misuse_once(site, msg);
    if (m.second_arrival.empty()) m.second_arrival = msg;
  }
  m.arrival_phase[me] = m.phase + 1;
  ++m.arrival_count[me];
  m.arrival_before[me] = m.arrival_site[me];
  m.arrival_site[me] = site;
}

// The phase's last arrival came: deferred bulk copies land, and when they brought every announced
// byte the phase completes and its waiters may run.
void try_complete(Thread* t, Block& b, MBarrier& m) {
  for (AsyncCopy& c : m.copies) {
    if (!c.landed) {
      land(c);
      m.tx -= c.bytes;
    }
  }
  if (m.tx < 0)
    fail(cudaErrorLaunchFailure, "cuda::barrier " + barrier_name(b, m.addr) + " of block " + coords(b.idx) +
                                     ": phase " + std::to_string(m.phase) + " got " + std::to_string(-m.tx) +
                                     " bytes from memcpy_async_tx more than barrier_arrive_tx announced (found at " +
                                     who(t) + "'s arrival); every byte a copy brings must be announced");
  if (m.tx > 0) return;  // announced bytes still to come: a later memcpy_async_tx completes the phase
  for (AsyncCopy& c : m.copies)
    if (c.serial) race_async_completed(c.serial, c.dst, c.bytes, nullptr);
  m.copies.clear();
  if (racecheck_on()) race_barrier_completed(m);
  ++m.phase;
  m.pending = m.expected;
  note_store(t);
}

}  // namespace

void async_launch_started(std::uint64_t seed) { landing.seed(seed * 0x9e3779b97f4a7c15ull + 0x5ca1ab1eull); }

// ---- cp.async ---------------------------------------------------------------------------------

void pipeline_memcpy_async(void* dst, const void* src, std::size_t size, std::size_t zfill, const void* site) {
  Thread* t = kernel_thread("__pipeline_memcpy_async");
  if (size != 4 && size != 8 && size != 16)
    fail(cudaErrorLaunchFailure, who(t) + " calls __pipeline_memcpy_async at " + symbolize(site) +
                                     " with size_and_align " + std::to_string(size) + ": it must be 4, 8 or 16");
  if (zfill > size)
    fail(cudaErrorLaunchFailure, who(t) + " calls __pipeline_memcpy_async at " + symbolize(site) + " with zfill " +
                                     std::to_string(zfill) + ", more than its size " + std::to_string(size));
  check_copy(t, "__pipeline_memcpy_async", dst, src, size, size - zfill, size, site);
  AsyncCopy c{static_cast<char*>(dst),
              static_cast<const char*>(src),
              std::uint32_t(size),
              std::uint32_t(size - zfill),
              t->pipeline_groups,
              0,
              false};
  if (racecheck_on()) c.serial = race_async_issued(t, dst, size, false, site);
  note_store(t);
  if (lands_at_issue()) land(c);
  t->pipeline.push_back(c);
}

void pipeline_commit() { ++kernel_thread("__pipeline_commit")->pipeline_groups; }

void pipeline_wait_prior(std::size_t prior, const void* /*site*/) {
  Thread* t = kernel_thread("__pipeline_wait_prior");
  prior = std::min<std::size_t>(prior, 8);  // as CUDA's header does: a larger count waits as for 8
  const std::uint32_t covered = t->pipeline_groups > prior ? t->pipeline_groups - std::uint32_t(prior) : 0;
  bool landed = false;
  for (AsyncCopy& c : t->pipeline) {
    if (c.group >= covered) continue;
    if (!c.landed) {
      land(c);
      landed = true;
    }
    if (c.serial) race_async_completed(c.serial, c.dst, c.bytes, t);
  }
  t->pipeline.erase(std::remove_if(t->pipeline.begin(), t->pipeline.end(),
                                   [covered](const AsyncCopy& c) {
                                     return c.group < covered;
                                   }),
                    t->pipeline.end());
  if (landed) note_store(t);
}

// A thread that ends without waiting: its copies still land (as on a GPU), but stay pending for the
// race checker, since no wait ordered them before anyone's reads.
void async_thread_exited(Thread* t) {
  for (AsyncCopy& c : t->pipeline)
    if (!c.landed) land(c);
  t->pipeline.clear();
}

// ---- cuda::barrier ------------------------------------------------------------------------------

void mbarrier_init(void* bar, std::ptrdiff_t expected, const void* site) {
  Thread* t = kernel_thread("init(cuda::barrier)");
  Block& b = *t->block;
  const char* p = static_cast<const char*>(bar);
  if (!(p >= b.shared && p + 8 <= b.shared + kArenaBytes))
    fail(cudaErrorLaunchFailure, who(t) + " calls init() at " + symbolize(site) +
                                     " on a cuda::barrier that is not in its block's __shared__ memory");
  if (expected < 1 || expected > kMaxCount)
    fail(cudaErrorLaunchFailure, who(t) + " calls init() at " + symbolize(site) + " on cuda::barrier " +
                                     barrier_name(b, bar) + " with expected count " + std::to_string(expected) +
                                     ": it must be from 1 to 2^20-1");
  unsigned index = 0;
  while (index < b.mbarriers.size() && b.mbarriers[index].addr != bar) ++index;
  if (index == b.mbarriers.size()) {
    b.mbarriers.emplace_back();
    b.mbarriers.back().addr = bar;
  }
  for (const Thread* w : b.threads)
    if (w->wait == Wait::phase && w->wait_mbarrier == index && !phase_completed(b, w))
      report_misuse_once(site, who(t) + " calls init() at " + symbolize(site) + " on cuda::barrier " +
                                   barrier_name(b, bar) + " while threads wait on it (undefined in CUDA)");
  MBarrier& m = b.mbarriers[index];
  m.expected = m.pending = expected;
  m.tx = 0;
  m.copies.clear();
  m.arrival_phase.clear();
  m.arrival_count.clear();
  m.arrival_site.clear();
  m.arrival_before.clear();
  m.second_arrival.clear();
  ++m.phase;  // a wait on a token from before the init() returns
  const std::uint64_t handle = (std::uint64_t(kTag) << 32) | index;
  std::memcpy(bar, &handle, 8);
  note_store(t);
}

std::uint64_t mbarrier_arrive(void* bar, std::ptrdiff_t count, std::ptrdiff_t tx, bool drop, const void* site) {
  Thread* t = kernel_thread("cuda::barrier arrive");
  Block& b = *t->block;
  const unsigned index = lookup(t, bar, drop ? "arrive_and_drop" : tx ? "barrier_arrive_tx" : "arrive", site);
  MBarrier& m = b.mbarriers[index];
  if (count < 1 || count > m.pending)
    fail(cudaErrorLaunchFailure, who(t) + " arrives " + std::to_string(count) + " time(s) on cuda::barrier " +
                                     barrier_name(b, bar) + " at " + symbolize(site) + ", but its phase has " +
                                     std::to_string(m.pending) + " of " + std::to_string(m.expected) +
                                     " arrivals left (more arrivals than init() expects are undefined in CUDA)");
  if (tx < 0 || tx > kMaxCount)
    fail(cudaErrorLaunchFailure, who(t) + " calls barrier_arrive_tx at " + symbolize(site) +
                                     " with transaction count " + std::to_string(tx) + ": it must be from 0 to 2^20-1");
  note_arrival(t, b, m, site);
  const std::uint64_t token = (std::uint64_t(index + 1) << 32) | m.phase;
  m.tx += tx;
  m.pending -= count;
  if (drop) --m.expected;
  if (racecheck_on()) race_barrier_arrive(t, m);
  note_store(t);
  if (m.pending == 0) try_complete(t, b, m);
  return token;
}

void mbarrier_wait(void* bar, std::uint64_t token, const void* site) {
  Thread* t = kernel_thread("cuda::barrier wait");
  Block& b = *t->block;
  const unsigned index = lookup(t, bar, "wait", site);
  if ((token >> 32) != index + 1)
    fail(cudaErrorLaunchFailure, who(t) + " waits on cuda::barrier " + barrier_name(b, bar) + " at " + symbolize(site) +
                                     " with a token that no arrival on this barrier returned");
  if (std::uint32_t(token) == b.mbarriers[index].phase) {  // else that phase completed already
    t->wait = Wait::phase;
    t->wait_mbarrier = index;
    t->wait_phase = std::uint32_t(token);
    t->site = site;
    yield_to_scheduler();
  }
  if (racecheck_on()) race_barrier_acquire(t, b.mbarriers[index]);  // not a reference held across the yield
}

void bulk_copy(void* dst, const void* src, std::size_t bytes, void* bar, const void* site) {
  Thread* t = kernel_thread("cuda::device::memcpy_async_tx");
  Block& b = *t->block;
  const unsigned index = lookup(t, bar, "memcpy_async_tx", site);
  if (bytes == 0 || bytes % 16 != 0 || bytes > std::size_t(kMaxCount))
    fail(cudaErrorMisalignedAddress, who(t) + " calls memcpy_async_tx at " + symbolize(site) + " with a size of " +
                                         std::to_string(bytes) +
                                         " bytes: it must be a multiple of 16 (and below 2^20)");
  check_copy(t, "memcpy_async_tx", dst, src, bytes, bytes, 16, site);
  AsyncCopy c{
      static_cast<char*>(dst), static_cast<const char*>(src), std::uint32_t(bytes), std::uint32_t(bytes), 0, 0, false};
  if (racecheck_on()) c.serial = race_async_issued(t, dst, bytes, true, site, index + 1);
  note_store(t);
  MBarrier& m = b.mbarriers[index];
  // After the phase's last arrival nothing later could land it: it lands now.
  if (m.pending == 0 || lands_at_issue()) {
    land(c);
    m.tx -= c.bytes;
  }
  m.copies.push_back(c);
  if (m.pending == 0) try_complete(t, b, m);
}

// ---- Deadlock reports ---------------------------------------------------------------------------

std::string describe_mbarrier_waits(const Block& b) {
  std::ostringstream os;
  for (unsigned index = 0; index < b.mbarriers.size(); ++index) {
    unsigned waiting = 0;
    const Thread* first = nullptr;
    for (const Thread* t : b.threads) {
      if (t->wait == Wait::phase && t->wait_mbarrier == index && !phase_completed(b, t)) {
        if (!first) first = t;
        ++waiting;
      }
    }
    if (!waiting) continue;
    const MBarrier& m = b.mbarriers[index];
    os << "      " << waiting << (waiting == 1 ? " thread waits" : " threads wait") << " on cuda::barrier "
       << barrier_name(b, m.addr) << " (first thread " << coords(first->builtins.thread_idx) << " at "
       << symbolize(first->site) << "): " << m.pending << " of " << m.expected << " arrivals missing";
    // Bytes of copies issued but not landed (they land with the last arrival) are not missing.
    std::int64_t unbrought = m.tx;
    for (const AsyncCopy& c : m.copies)
      if (!c.landed) unbrought -= c.bytes;
    if (unbrought > 0) os << ", " << unbrought << " announced bytes that no memcpy_async_tx brings";
    os << "\n";
    if (!m.second_arrival.empty()) {
      os << "      before that, " << m.second_arrival << "\n";
    } else {
      // The arrivals may have fallen in two phases (the first completed one): a thread that arrived
      // more often than another still shows it.
      unsigned most = 0, fewest = 0;
      for (unsigned j = 1; j < m.arrival_count.size(); ++j) {
        if (m.arrival_count[j] > m.arrival_count[most]) most = j;
        if (m.arrival_count[j] < m.arrival_count[fewest]) fewest = j;
      }
      if (!m.arrival_count.empty() && m.arrival_count[most] > m.arrival_count[fewest] && m.arrival_before[most] &&
          m.arrival_count[fewest] > 0)
        os << "      thread " << coords(b.threads[most]->builtins.thread_idx) << " arrived on it "
           << m.arrival_count[most] << " times (the last two at " << symbolize(m.arrival_before[most]) << " and "
           << symbolize(m.arrival_site[most]) << "), thread " << coords(b.threads[fewest]->builtins.thread_idx) << " "
           << m.arrival_count[fewest]
           << " time(s): an extra arrival completes a phase without another thread's, whose own arrival then "
              "waits in the next phase: a thread arrives once per phase\n";
    }
  }
  return os.str();
}

}  // namespace scanlab_emu::detail
