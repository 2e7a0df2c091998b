// Weak-memory mode (`--memory weak`): a block's stores to global memory stay invisible to other
// blocks until a __threadfence of the storing thread, or the end of the kernel, commits them; in
// between, the emulator commits them one by one at random, out of program order. So a look-back that
// publishes its flag before its value, or with no fence between them, can be seen half-published and
// compute a wrong result, while one that fences before the flag never is. A thread (and its block)
// always sees its own stores.
//
// How: memory always holds the committed state plus the pending stores of the block that runs now.
// The store hook logs each pending store's address and old bytes before the store happens; when the
// block is switched out its pending stores are undone (newest first), and redone when it runs again.
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
  unsigned thread;                 // linear thread index in its block
  unsigned char old_bytes[16];     // memory before the store (refreshed whenever it is redone)
  unsigned char new_bytes[16];     // captured when the block is switched out
};

constexpr std::size_t kMaxPendingPerBlock = 4096;  // older stores drain in order beyond this

std::unordered_map<const Block*, std::vector<PendingStore>> pending;  // applied only while running
std::vector<PendingStore> draining;     // stores of blocks that ended, not yet visible
std::mt19937_64 coin;

void write_bytes(char* addr, const unsigned char* src, std::size_t n) { std::memcpy(addr, src, n); }

void committed() { __atomic_store_n(&store_epoch, store_epoch + 1, __ATOMIC_RELAXED); }

}  // namespace

bool weak_memory = false;

void weak_launch_started(std::uint64_t seed) {
  pending.clear();
  draining.clear();
  coin.seed(seed ^ 0x9e3779b97f4a7c15ull);
}

void weak_store(Thread* t, const void* addr, std::size_t bytes) {
  auto& list = pending[t->block];
  if (list.size() >= kMaxPendingPerBlock) list.erase(list.begin());  // the oldest becomes visible (it is applied)
  PendingStore p{};
  p.addr = static_cast<char*>(const_cast<void*>(addr));
  p.bytes = std::uint8_t(std::min<std::size_t>(bytes, 16));
  p.thread = t->linear;
  std::memcpy(p.old_bytes, addr, p.bytes);
  list.push_back(p);
}

// A fence makes the thread's earlier stores visible to every block: they are in memory already, since
// the block is running, so they simply stop being pending.
void weak_fence(Thread* t) {
  auto it = pending.find(t->block);
  if (it == pending.end()) return;
  auto& list = it->second;
  list.erase(std::remove_if(list.begin(), list.end(), [&](const PendingStore& p) { return p.thread == t->linear; }),
             list.end());
  committed();
}

void weak_switch_in(Block& b) {
  auto it = pending.find(&b);
  if (it == pending.end()) return;
  for (PendingStore& p : it->second) {
    std::memcpy(p.old_bytes, p.addr, p.bytes);  // what other blocks may have committed meanwhile
    write_bytes(p.addr, p.new_bytes, p.bytes);
  }
}

// Undo the block's pending stores (newest first), then let each one become visible with
// probability 1/2, independently of program order.
void weak_switch_out(Block& b, bool finished) {
  auto it = pending.find(&b);
  if (it == pending.end()) return;
  auto& list = it->second;
  for (auto p = list.rbegin(); p != list.rend(); ++p) {
    std::memcpy(p->new_bytes, p->addr, p->bytes);
    write_bytes(p->addr, p->old_bytes, p->bytes);
  }
  std::vector<PendingStore> keep;
  bool any = false;
  for (PendingStore& p : list) {
    if (coin() & 1) {
      write_bytes(p.addr, p.new_bytes, p.bytes);
      any = true;
    } else {
      keep.push_back(p);
    }
  }
  if (any) committed();
  if (finished) {
    draining.insert(draining.end(), keep.begin(), keep.end());
    pending.erase(it);
  } else {
    list = std::move(keep);
  }
}

// Between two blocks' turns, stores of blocks that ended drain at random.
void weak_drain_step() {
  if (draining.empty()) return;
  std::vector<PendingStore> keep;
  for (PendingStore& p : draining) {
    if (coin() & 1)
      write_bytes(p.addr, p.new_bytes, p.bytes);
    else
      keep.push_back(p);
  }
  if (keep.size() != draining.size()) committed();
  draining = std::move(keep);
}

// Everything becomes visible: at the end of the kernel, or before declaring a deadlock.
bool weak_commit_all(const std::vector<Block*>& not_running) {
  bool any = !draining.empty();
  for (PendingStore& p : draining) write_bytes(p.addr, p.new_bytes, p.bytes);
  draining.clear();
  for (Block* b : not_running) {
    auto it = pending.find(b);
    if (it == pending.end()) continue;
    any |= !it->second.empty();
    for (PendingStore& p : it->second) write_bytes(p.addr, p.new_bytes, p.bytes);
    pending.erase(it);
  }
  if (any) committed();
  return any;
}

}  // namespace scanlab_emu::detail
