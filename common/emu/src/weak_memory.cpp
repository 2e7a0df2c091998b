// Weak-memory mode (`--memory weak`), the store side: a block's stores to global memory stay
// invisible to other blocks until a __threadfence of the storing thread, a release, or the end of
// the kernel, commits them; in between, the emulator commits them one by one at random, out of
// program order. So a look-back that publishes its flag before its value, or with no fence between
// them, can be seen half-published and compute a wrong result, while one that fences before the flag
// never is. A thread (and its block) always sees its own stores. The load side (a plain load that
// returns an older value) is stale_loads.cpp; every commit here is reported to it.
//
// How: memory always holds the committed state plus the pending stores of the block that runs now.
// The store hook logs each pending store's address and old bytes before the store happens; when the
// block is switched out its pending stores are undone (newest first), and redone when it runs again.
// Two pending stores of one block to one address commit in program order (coherence): when the
// newer one commits first, the older one is dropped, never written over it.
#include <algorithm>
#include <cstring>
#include <random>
#include <unordered_map>

#include "internal.hpp"

namespace scanlab_emu::detail {
namespace {

struct PendingStore {
  char* addr;
  std::uint8_t bytes;
  unsigned thread;              // linear thread index in its block
  std::uint64_t block;          // linear id of its block (blocks end; ids stay unique)
  const void* pc;               // the store instruction, for reports
  unsigned char old_bytes[16];  // memory before the store (refreshed whenever it is redone)
  unsigned char new_bytes[16];  // captured when the block is switched out
};

constexpr std::size_t kMaxPendingPerBlock = 4096;  // older stores drain in order beyond this

std::unordered_map<const Block*, std::vector<PendingStore>> pending;  // applied only while running
std::vector<PendingStore> draining;                                   // stores of blocks that ended, not yet visible
std::mt19937_64 coin;

void bump_epoch() { __atomic_store_n(&store_epoch, store_epoch + 1, __ATOMIC_RELAXED); }

// Makes `p` visible while its block is switched out (memory holds the committed state).
void commit_switched_out(const PendingStore& p) {
  stale_commit(p.addr, p.bytes, reinterpret_cast<const unsigned char*>(p.addr), p.new_bytes, p.pc, p.block);
  std::memcpy(p.addr, p.new_bytes, p.bytes);
}

// Makes list[k] visible while its block runs (memory holds the block's newest value of the address).
// Its own value is the old bytes of the next pending store to the same address, if any; the
// committed value before it is the old bytes of the oldest pending store there.
void commit_running(const std::vector<PendingStore>& list, std::size_t k) {
  const PendingStore& p = list[k];
  const unsigned char* after = reinterpret_cast<const unsigned char*>(p.addr);
  for (std::size_t j = k + 1; j < list.size(); ++j) {
    if (list[j].addr == p.addr && list[j].bytes == p.bytes) {
      after = list[j].old_bytes;
      break;
    }
  }
  const unsigned char* before = p.old_bytes;
  for (std::size_t j = 0; j < k; ++j) {
    if (list[j].addr == p.addr && list[j].bytes == p.bytes) {
      before = list[j].old_bytes;
      break;
    }
  }
  stale_commit(p.addr, p.bytes, before, after, p.pc, p.block);
}

// Commits each store of `list` with probability 1/2 (memory holds the committed state), keeping the
// others in order in `list`. A store older than a committed one to the same address is dropped: it
// would otherwise land later and undo the newer value. (Runs at every switch of a block: its scratch
// space is kept from call to call.)
void commit_some(std::vector<PendingStore>& list, bool& any) {
  static std::vector<std::uint8_t> fate;      // 0 keep, 1 commit, 2 drop
  static std::vector<const char*> committed;  // open addressing: addresses with a committed store
  const std::size_t n = list.size();
  if (n == 0) return;
  fate.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) fate[i] = std::uint8_t(coin() & 1);
  std::size_t slots = 16;
  while (slots < 2 * n) slots *= 2;
  committed.assign(slots, nullptr);
  auto slot_of = [&](const char* a) {
    std::size_t h = std::size_t((reinterpret_cast<std::uintptr_t>(a) * 0x9e3779b97f4a7c15ull) >> 32) & (slots - 1);
    while (committed[h] && committed[h] != a) h = (h + 1) & (slots - 1);
    return h;
  };
  for (std::size_t i = n; i-- > 0;) {
    const std::size_t h = slot_of(list[i].addr);
    if (committed[h]) fate[i] = 2;
    else if (fate[i] == 1) committed[h] = list[i].addr;
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (fate[i] == 2) continue;
    if (fate[i] == 1) {
      commit_switched_out(list[i]);
      any = true;
    } else {
      if (kept != i) list[kept] = list[i];
      ++kept;
    }
  }
  list.resize(kept);
}

}  // namespace

bool weak_memory = false;

void weak_launch_started(std::uint64_t seed) {
  pending.clear();
  draining.clear();
  coin.seed(seed ^ 0x9e3779b97f4a7c15ull);
  stale_launch_started(seed);
}

void weak_store(Thread* t, const void* addr, std::size_t bytes, const void* pc) {
  stale_restore();
  auto& list = pending[t->block];
  if (list.size() >= kMaxPendingPerBlock) {  // the oldest becomes visible (it is applied already)
    commit_running(list, 0);
    list.erase(list.begin());
  }
  PendingStore p{};
  p.addr = static_cast<char*>(const_cast<void*>(addr));
  p.bytes = std::uint8_t(std::min<std::size_t>(bytes, 16));
  p.thread = t->linear;
  p.block = t->block->linear_id;
  p.pc = pc;
  std::memcpy(p.old_bytes, addr, p.bytes);
  list.push_back(p);
}

// A fence makes the thread's earlier stores visible to every block: they are in memory already, since
// the block is running, so they simply stop being pending. Only a fence that commits something is
// news to polling blocks (a reader's fence with nothing pending must not look like progress, or a
// warp that fences while it polls would keep the scheduler on its block forever).
void weak_fence(Thread* t) {
  stale_restore();
  auto it = pending.find(t->block);
  if (it == pending.end()) return;
  auto& list = it->second;
  bool any = false;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (list[k].thread == t->linear) {
      commit_running(list, k);
      any = true;
    }
  }
  if (!any) return;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const PendingStore& p) {
                              return p.thread == t->linear;
                            }),
             list.end());
  bump_epoch();
}

void weak_release(Thread* t) { weak_fence(t); }

void weak_atomic_begin(Thread* t, const void* addr, std::size_t bytes) {
  stale_restore();
  auto it = pending.find(t->block);
  if (it == pending.end()) return;
  auto& list = it->second;
  const char* lo = static_cast<const char*>(addr);
  const char* hi = lo + bytes;
  auto overlaps = [&](const PendingStore& p) {
    return p.addr < hi && lo < p.addr + p.bytes;
  };
  bool any = false;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (overlaps(list[k])) {
      commit_running(list, k);
      any = true;
    }
  }
  if (!any) return;
  list.erase(std::remove_if(list.begin(), list.end(), overlaps), list.end());
  bump_epoch();
}

void weak_switch_in(Block& b) {
  auto it = pending.find(&b);
  if (it == pending.end()) return;
  for (PendingStore& p : it->second) {
    std::memcpy(p.old_bytes, p.addr, p.bytes);  // what other blocks may have committed meanwhile
    std::memcpy(p.addr, p.new_bytes, p.bytes);
  }
}

// Undo the block's pending stores (newest first), then let each one become visible with
// probability 1/2, independently of program order.
void weak_switch_out(Block& b, bool finished) {
  stale_restore();
  auto it = pending.find(&b);
  if (it == pending.end()) return;
  auto& list = it->second;
  for (auto p = list.rbegin(); p != list.rend(); ++p) {
    std::memcpy(p->new_bytes, p->addr, p->bytes);
    std::memcpy(p->addr, p->old_bytes, p->bytes);
  }
  bool any = false;
  commit_some(list, any);
  if (any) bump_epoch();
  if (finished) {
    draining.insert(draining.end(), list.begin(), list.end());
    pending.erase(it);
  }
}

// Between two blocks' turns, stores of blocks that ended drain at random.
void weak_drain_step() {
  if (draining.empty()) return;
  bool any = false;
  commit_some(draining, any);
  if (any) bump_epoch();
}

// Everything becomes visible: at the end of the kernel, or before declaring a deadlock.
bool weak_commit_all(const std::vector<Block*>& not_running) {
  stale_restore();
  bool any = !draining.empty();
  for (PendingStore& p : draining) commit_switched_out(p);
  draining.clear();
  for (Block* b : not_running) {
    auto it = pending.find(b);
    if (it == pending.end()) continue;
    any |= !it->second.empty();
    for (PendingStore& p : it->second) commit_switched_out(p);
    pending.erase(it);
  }
  if (any) bump_epoch();
  return any;
}

}  // namespace scanlab_emu::detail
