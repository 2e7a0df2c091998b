// Weak-memory mode (`--memory weak`), the load side: a plain load of global memory may return an
// older value than the newest one other blocks have made visible, as a load served from an SM's L1
// may on a GPU, and as the PTX memory model allows for a load that nothing orders after the store.
//
// The model. Every commit of a global store (weak_memory.cpp, atomics) gets the next number of one
// commit sequence, and each 4-byte word written in the launch keeps its last few committed values
// with their numbers. A block may read a word as of any commit number from its "floor" on:
//   - the number at the block's last device-scope fence (__threadfence) or acquire of any of its
//     threads: whatever was visible then, and so whatever happens-before it, is never hidden again;
//   - for each word, the newest value the block has read or written there: a volatile, relaxed or
//     atomic access of the word, or the block's own store, moves it up (coherence: a block never
//     reads a value of a word older than one it has already seen).
// A plain load picks one of the allowed numbers at random (seeded), so a reader that sees a flag
// with a volatile load and then reads the value with a plain load and no fence can get the value
// from before the flag. A __threadfence_block() refreshes nothing: its scope does not reach other
// blocks. A volatile or relaxed atomic load reads the newest committed value (the L2), except when
// its thread made such a load of another word since its last fence or acquire: the PTX memory model
// leaves two relaxed loads of different locations unordered without a fence or an acquire between
// them, so the second may be served as if it came first, and it is served as a plain load is (any
// value from the floor on). That is the reader's side of a message: a flag loaded with a volatile
// load, then the value with another and no fence, may get the value from before the writer's fence.
// A thread polling one word reads it fresh each time. Not modelled: loads returning values from
// stores that come later (load buffering), shared memory (per block, always coherent).
//
// How a load returns an old value: the load hook runs just before the load, so it writes the old
// bytes into memory, lets the load read them, and puts the real bytes back at the emulator's next
// entry (stale_restore), before any other access can see them.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include "internal.hpp"

namespace scanlab_emu::detail {

bool stale_patched = false;

namespace {

struct Version {
  std::uint64_t seq;  // commit number (0: the value before this launch's first commit)
  std::uint32_t value;
  const void* pc;       // the store that committed it
  std::uint64_t block;  // its block's linear id
};
constexpr std::size_t kVersionsKept = 8;  // older values drop out; reading a newer one is always allowed
constexpr std::uint64_t kNoBlock = ~std::uint64_t(0);
// Words followed per launch, about 100 bytes each: a launch that writes more (a scan of millions of
// elements) follows the first ones written and serves the others fresh, rather than grow without bound.
constexpr std::size_t kWordsFollowed = std::size_t(1) << 20;

std::unordered_map<std::uintptr_t, std::vector<Version>> history;  // by word (address >> 2)
std::uint64_t commits = 0;                                         // the commit sequence
std::mt19937_64 dice;

// Which 4 KiB pages may hold a word with a history: a bit per hash of the page, set when a word of
// the page gets one. Most plain loads read memory that no block writes in the launch (a scan's
// input), and a clear bit answers them without a look-up in `history`.
constexpr std::size_t kPageFilterBits = std::size_t(1) << 16;
std::vector<std::uint64_t> page_filter(kPageFilterBits / 64);

inline std::size_t page_bit(std::uintptr_t word) {
  const std::uintptr_t page = word >> 10;  // word = address >> 2, page = address >> 12
  return std::size_t((page * 0x9e3779b97f4a7c15ull) >> 48) & (kPageFilterBits - 1);
}
inline bool page_may_have_history(std::uintptr_t word) {
  const std::size_t b = page_bit(word);
  return (page_filter[b / 64] >> (b % 64)) & 1u;
}
inline void note_page_history(std::uintptr_t word) {
  const std::size_t b = page_bit(word);
  page_filter[b / 64] |= std::uint64_t(1) << (b % 64);
}

struct Patch {
  char* addr;
  std::size_t bytes;
  unsigned char real[16];
};
Patch patch{};

// One line of the report per distinct (load, store it missed, flag load before it).
struct StaleKey {
  const void* load_pc;
  const void* store_pc;
  const void* flag_pc;
  bool relaxed;  // the load was volatile or atomic (else plain)
  bool operator<(const StaleKey& o) const {
    return std::tie(load_pc, store_pc, flag_pc, relaxed) < std::tie(o.load_pc, o.store_pc, o.flag_pc, o.relaxed);
  }
};
struct StaleRecord {
  std::uint64_t count = 0;
  uint3 block{}, thread{};
  std::uint64_t writer = kNoBlock;
  const void* addr = nullptr;
  std::uint32_t returned = 0, newest = 0;
};
std::map<StaleKey, StaleRecord> stale_reads;

const Version& at(const std::vector<Version>& v, std::uint64_t seq) {
  auto it = std::upper_bound(v.begin(), v.end(), seq, [](std::uint64_t s, const Version& x) {
    return s < x.seq;
  });
  return it == v.begin() ? v.front() : *(it - 1);
}

std::uint32_t word_in_memory(std::uintptr_t w) {
  std::uint32_t v;
  std::memcpy(&v, reinterpret_cast<const void*>(w << 2), 4);
  return v;
}

std::string coords(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

std::string block_coords(std::uint64_t id, const dim3& g) {
  return coords(uint3{unsigned(id % g.x), unsigned((id / g.x) % g.y), unsigned(id / (std::uint64_t(g.x) * g.y))});
}

}  // namespace

void stale_restore_slow() {
  std::memcpy(patch.addr, patch.real, patch.bytes);
  stale_patched = false;
}

void stale_launch_started(std::uint64_t seed) {
  history.clear();
  std::fill(page_filter.begin(), page_filter.end(), 0);
  stale_reads.clear();
  commits = 0;
  stale_patched = false;
  dice.seed(seed ^ 0xc2b2ae3d27d4eb4full);
}

void stale_commit(const void* addr, std::size_t bytes, const unsigned char* before, const unsigned char* after,
                  const void* pc, std::uint64_t writer_block) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(addr);
  ++commits;
  // Whole words only: a word partly written keeps its history, which then no longer matches memory,
  // and loads of it are served fresh (see stale_plain_load).
  for (std::uintptr_t off = (4 - a % 4) % 4; off + 4 <= bytes; off += 4) {
    const std::uintptr_t word = (a + off) >> 2;
    const bool full = history.size() >= kWordsFollowed;
    if (full && !page_may_have_history(word)) continue;  // not followed, and never will be
    auto h = history.find(word);
    if (h == history.end()) {
      if (full) continue;
      h = history.emplace(word, std::vector<Version>{}).first;
      h->second.reserve(2);
      note_page_history(word);
    }
    auto& v = h->second;
    std::uint32_t value;
    if (v.empty()) {
      std::memcpy(&value, before + off, 4);
      v.push_back(Version{0, value, nullptr, kNoBlock});
    }
    std::memcpy(&value, after + off, 4);
    v.push_back(Version{commits, value, pc, writer_block});
    if (v.size() > kVersionsKept) v.erase(v.begin());
  }
}

void stale_refresh(Thread* t) {
  stale_restore();
  t->block->view_refreshed = commits;
  t->strong_load_pc = nullptr;
}

namespace {
bool serve_load(Thread* t, const void* addr, std::size_t bytes, const void* pc, bool relaxed);
}

void stale_relaxed_load(Thread* t, const void* addr, std::size_t bytes, const void* pc) {
  // The poll before this load may have let other threads run, and one of them leave a plain load's
  // old bytes in memory: put the real ones back before patching anew (one patch at a time).
  stale_restore();
  const std::uintptr_t word = reinterpret_cast<std::uintptr_t>(addr) >> 2;
  const bool unordered = t->strong_load_pc && t->strong_load_word != word;
  if (!(unordered && serve_load(t, addr, bytes, pc, true))) {
    stale_strong_load(t, addr, bytes, pc);
    return;
  }
  t->strong_load_pc = pc;
  t->strong_load_word = word;
}

void stale_strong_load(Thread* t, const void* addr, std::size_t bytes, const void* pc) {
  t->strong_load_pc = pc;
  t->strong_load_word = reinterpret_cast<std::uintptr_t>(addr) >> 2;
  t->strong_load_seq = 0;
  t->strong_load_writer = kNoBlock;
  if (history.empty()) return;
  if (auto h = history.find(t->strong_load_word); h != history.end()) {
    t->strong_load_seq = h->second.back().seq;
    t->strong_load_writer = h->second.back().block;
  }
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(addr);
  for (std::uintptr_t w = a >> 2; w <= (a + bytes - 1) >> 2; ++w)
    if (page_may_have_history(w) && history.count(w)) t->block->view_floor[w] = commits;
}

void stale_plain_load(Thread* t, const void* addr, std::size_t bytes, const void* pc) {
  stale_restore();
  serve_load(t, addr, bytes, pc, false);
}

namespace {
// What a volatile or relaxed load returned (its first word's version), for the next one's report.
void note_observed(Thread* t, const Version* v) {
  t->strong_load_seq = v ? v->seq : 0;
  t->strong_load_writer = v ? v->block : kNoBlock;
}

// Serves a load of [addr, addr+bytes) as of a commit number the block may still read as of (see the
// model above); true when that returned an older value than the newest (the bytes are patched in).
bool serve_load(Thread* t, const void* addr, std::size_t bytes, const void* pc, bool relaxed) {
  if (history.empty() || bytes == 0 || bytes > 16) return false;
  Block& b = *t->block;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(addr);
  const std::uintptr_t first = a >> 2, last = (a + bytes - 1) >> 2;
  if (!page_may_have_history(first) && !page_may_have_history(last)) return false;  // pages no commit followed
  const std::vector<Version>* hist[5] = {};
  std::uint64_t floor = b.view_refreshed;
  bool any = false;
  for (std::uintptr_t w = first; w <= last; ++w) {
    auto h = history.find(w);
    if (h == history.end()) continue;
    const std::vector<Version>& v = h->second;
    // Memory differs from the newest committed value: the block's own pending store is there, or
    // a partial store the history does not follow. Either way the block reads memory.
    if (word_in_memory(w) != v.back().value) return false;
    hist[w - first] = &v;
    any = true;
    if (auto f = b.view_floor.find(w); f != b.view_floor.end()) floor = std::max(floor, f->second);
    for (const Version& x : v)
      if (x.block == b.linear_id) floor = std::max(floor, x.seq);  // a block sees its own stores
  }
  if (!any) return false;
  // The numbers the load may read as of: its floor, and each later commit to one of its words.
  std::uint64_t times[1 + 5 * kVersionsKept];
  std::size_t n = 0;
  times[n++] = floor;
  for (const auto* v : hist)
    if (v)
      for (const Version& x : *v)
        if (x.seq > floor) times[n++] = x.seq;
  const std::uint64_t seq = n == 1 ? floor : times[dice() % n];
  for (std::uintptr_t w = first; w <= last; ++w)
    if (hist[w - first]) b.view_floor[w] = seq;
  // The bytes as of `seq`.
  unsigned char old_bytes[16];
  std::memcpy(old_bytes, addr, bytes);
  const Version* missed = nullptr;
  std::uint32_t returned = 0, newest = 0;
  for (std::uintptr_t w = first; w <= last; ++w) {
    const std::vector<Version>* v = hist[w - first];
    if (!v) continue;
    const Version& then = at(*v, seq);
    if (then.value == v->back().value) continue;
    if (!missed) {
      missed = &v->back();
      returned = then.value;
      newest = v->back().value;
    }
    for (std::uintptr_t k = 0; k < 4; ++k) {
      const std::uintptr_t byte = (w << 2) + k;
      if (byte >= a && byte < a + bytes) old_bytes[byte - a] = reinterpret_cast<const unsigned char*>(&then.value)[k];
    }
  }
  if (!missed) return false;
  patch.addr = static_cast<char*>(const_cast<void*>(addr));
  patch.bytes = bytes;
  std::memcpy(patch.real, addr, bytes);
  std::memcpy(patch.addr, old_bytes, bytes);
  stale_patched = true;
  // A plain load's old value is always reported. A volatile or relaxed one only when it misses a
  // store that its thread's previous such load (the flag's) saw the consequence of: a later commit
  // by the same block (the writer's flag after its value). An old value of another block's word
  // (a look-back reading one predecessor's descriptor after another's) is allowed and harmless.
  const std::uint64_t flag_seq = t->strong_load_seq, flag_writer = t->strong_load_writer;
  if (relaxed) note_observed(t, hist[0] ? &at(*hist[0], seq) : nullptr);
  if (relaxed && !(missed->block == flag_writer && missed->seq < flag_seq)) return true;
  StaleRecord& r = stale_reads[StaleKey{pc, missed->pc, t->strong_load_pc, relaxed}];
  if (r.count++ == 0) {
    r.block = b.idx;
    r.thread = t->builtins.thread_idx;
    r.writer = missed->block;
    r.addr = addr;
    r.returned = returned;
    r.newest = newest;
  }
  return true;
}
}  // namespace

// The old values a launch's plain loads returned, one line per (load, store, flag load): the
// loads whose order the kernel left open. A kernel whose result is still right has a benign race.
void stale_launch_finished(const Launch& L) {
  stale_restore();
  if (stale_reads.empty()) return;
  std::size_t shown = 0;
  for (const auto& [key, r] : stale_reads) {
    if (shown++ == 8) {
      std::fprintf(stderr, "weak memory: ... (%zu load/store pairs in all)\n", stale_reads.size());
      break;
    }
    std::string text = std::string(key.relaxed ? "the volatile or relaxed load at " : "the plain load at ") +
                       symbolize(key.load_pc) + " (block " + coords(r.block) + ", thread " + coords(r.thread) +
                       ") returned an older value of " + describe_address(r.addr);
    char values[80];
    std::snprintf(values, sizeof values, " (0x%08" PRIx32 " instead of 0x%08" PRIx32 ")", r.returned, r.newest);
    text += values;
    text += " than the store at " + symbolize(key.store_pc);
    if (r.writer != kNoBlock) text += " (block " + block_coords(r.writer, L.config.grid) + ")";
    text += " had made visible";
    if (key.flag_pc)
      text += ", after its thread's volatile or atomic load at " + symbolize(key.flag_pc) +
              " with no __threadfence() or acquire between the two loads" +
              (key.relaxed ? " (the reader's fence is missing: two such loads of different words are not ordered "
                             "without one)"
                           : "");
    else text += "; no __threadfence() or acquire of its block ordered the load after that store";
    text += " (" + std::to_string(r.count) + (r.count == 1 ? " time)" : " times)");
    std::fprintf(stderr, "weak memory: kernel `%s`: %s\n", L.kernel, text.c_str());
    // Also among the launch's findings (they name the kernel), which a grading runner reports.
    if (shown <= 2) report_misuse(text);
  }
  std::fprintf(stderr, "weak memory: %s\n", describe_options().c_str());
  stale_reads.clear();
  history.clear();
}

}  // namespace scanlab_emu::detail
