// The emulator's checkers for shared memory (design.md §4):
//  - the race checker: read-after-write, write-after-read and write-after-write between two threads
//    of a block with no barrier between them; lanes of one warp count as ordered once a
//    __syncwarp that both took part in (or a chain of them) completed between their accesses, and
//    threads once a cuda::barrier phase orders them (see "ordering through cuda::barrier phases").
//    Shuffles and votes order nothing: the CUDA programming guide says they do not imply a memory
//    barrier, and only __syncwarp "guarantees memory ordering among threads participating". These
//    are the hazard classes compute-sanitizer's racecheck reports. An asynchronous copy is its
//    issuing thread's write at the issue, and its bytes are pending until it completes: any access
//    to them before that is reported as the copy's hazard.
//  - the bank-conflict counter: the accesses of a warp's lanes between two synchronisation points
//    are grouped into warp-wide instructions (the k-th execution of one instruction by each lane);
//    an instruction's degree is the largest number of distinct 4-byte words that fall in one of the
//    32 banks (lanes reading the same word are served by one broadcast).
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "internal.hpp"

namespace scanlab_emu::detail {

bool observe_shared = false;

namespace {

Diagnostics found;
std::uint32_t global_epoch = 0;
PollRecord launch_polls;  // the launch under way's polled addresses

// ---- shadow memory for the race checker: one record per 4-byte word of every slot's arena ----
struct WordShadow {
  std::uint32_t write_epoch = 0, read_epoch = 0;
  std::uint32_t write_sync = 0, read_sync = 0;  // the accessing lane's own warp clock at the access
  std::uint16_t writer = 0, reader = 0;         // linear thread index + 1 (0 = none)
  bool many_readers = false;
  const void* write_pc = nullptr;
  const void* read_pc = nullptr;
  std::uint32_t async_serial = 0;                 // an asynchronous copy into this word, if still pending
  std::uint32_t write_clock = 0, read_clock = 0;  // the accessing thread's barrier clock (below)
  // The last bulk copy into this word: its block (Block::diag_id), cuda::barrier (index + 1),
  // issuing thread and site (a copy of another barrier into it is a stage overlap).
  std::uint32_t copy_block = 0, copy_barrier = 0;
  std::uint16_t copy_thread = 0;
  const void* copy_pc = nullptr;
};

// ---- ordering through cuda::barrier phases (blocks that use one) ----
// A thread's barrier clock counts its arrivals on cuda::barriers (from 1); an access made at clock
// c comes before the thread's c-th arrival. Thread::known[j] = c says that thread j's accesses at
// clocks up to c happened before this thread's current point, through phases it waited for (the
// arrivals of a phase carry what their threads knew, and a wait for the phase takes it all). Two
// accesses in one barrier interval are ordered when the later thread knows the earlier access.
// A word read by several threads keeps every reader (a write must be ordered after each). In blocks
// without cuda::barriers a reader of another warp than the writer's is never ordered before the
// write, so once the readers span two warps any write of the interval races with one of them and
// the list grows no further (at most 33 readers: cheap to scan on every read).
struct ExtraReader {
  std::uint16_t thread;
  std::uint32_t clock, sync;
  const void* pc;
};
struct ExtraReads {
  std::uint32_t epoch = 0;
  bool two_warps = false;  // the readers kept span two warps (blocks without cuda::barriers)
  std::vector<ExtraReader> readers;
};
std::unordered_map<std::size_t, ExtraReads> extra_reads;  // by slot * words per arena + word

bool barrier_ordered(const Thread* t, unsigned other, std::uint32_t other_clock) {
  return other < t->known.size() && t->known[other] >= other_clock;
}

// Another reader of a word in barrier interval `epoch` (its latest read counts); `first` is the
// interval's first reader (kept in the word's shadow).
void note_extra_reader(std::size_t key, std::uint32_t epoch, unsigned first, unsigned reader, std::uint32_t clock,
                       std::uint32_t sync, const void* pc, bool all_readers) {
  ExtraReads& x = extra_reads[key];
  if (x.epoch != epoch) {
    x.epoch = epoch;
    x.two_warps = false;
    x.readers.clear();
  }
  for (ExtraReader& r : x.readers) {
    if (r.thread == reader) {
      r.clock = clock;
      r.sync = sync;
      r.pc = pc;
      return;
    }
  }
  if (!all_readers && x.two_warps) return;
  x.two_warps |= reader / 32 != first / 32;
  x.readers.push_back(ExtraReader{std::uint16_t(reader), clock, sync, pc});
}
std::vector<std::unique_ptr<WordShadow[]>> shadows;  // by slot, allocated on first use

// The asynchronous copies whose destination bytes are pending, by serial (WordShadow::async_serial).
// A serial no longer here (the copy completed, or its block ended) marks nothing.
struct PendingCopy {
  const Block* block;
  unsigned thread;  // the issuing thread's linear index
  const void* pc;   // where it was issued
  bool bulk;
};
std::unordered_map<std::uint32_t, PendingCopy> pending_copies;
std::uint32_t last_serial = 0;

// The shadow of the shared-memory word range [first, last] that [addr, addr+bytes) covers.
WordShadow* shadow_words(const char* addr, std::size_t bytes, std::size_t& first, std::size_t& last,
                         std::size_t* slot_out = nullptr) {
  const std::size_t off = std::size_t(addr - shared_arena_base());
  const std::size_t slot = off / kArenaBytes;
  if (slot_out) *slot_out = slot;
  if (shadows.size() <= slot) shadows.resize(slot + 1);
  if (!shadows[slot]) shadows[slot].reset(new WordShadow[kArenaBytes / 4]);
  first = (off % kArenaBytes) / 4;
  last = std::min((off % kArenaBytes + bytes - 1) / 4, kArenaBytes / 4 - 1);
  return shadows[slot].get();
}

struct HazardKey {
  Hazard kind;
  const void* first_pc;
  const void* second_pc;
  bool operator<(const HazardKey& o) const {
    return std::tie(kind, first_pc, second_pc) < std::tie(o.kind, o.first_pc, o.second_pc);
  }
};
std::map<HazardKey, std::size_t> hazard_index;  // into launch_hazards
std::vector<HazardReport> launch_hazards;

struct BankKey {
  const void* pc;
  unsigned phase;
  bool operator<(const BankKey& o) const { return std::tie(pc, phase) < std::tie(o.pc, o.phase); }
};
std::map<BankKey, BankRecord> launch_banks;
std::size_t launch_misuse_start = 0;
std::vector<const void*> misuse_sites;  // sites already reported in this launch

Launch* launch_now = nullptr;

uint3 thread_coords(const Block& b, unsigned linear) { return b.threads[linear]->builtins.thread_idx; }

void set3(unsigned out[3], uint3 v) {
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
}

std::string coords(const unsigned v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," + std::to_string(v[2]) + ")";
}

void find_variable(const Block& b, const char* addr, std::string& name, std::size_t& offset) {
  for (const SharedVar& v : b.vars) {
    if (addr >= v.ptr && addr < v.ptr + v.bytes) {
      name = v.name;
      offset = std::size_t(addr - v.ptr);
      return;
    }
  }
  if (launch_now && addr >= b.dynamic && addr < b.dynamic + launch_now->dynamic_bytes) {
    name = "extern __shared__";
    offset = std::size_t(addr - b.dynamic);
    return;
  }
  name = "";
  offset = std::size_t(addr - b.shared);
}

void record_hazard(Hazard kind, const Block& b, unsigned first, const void* first_pc, unsigned second,
                   const void* second_pc, const char* addr, std::size_t bytes, bool second_writes = false) {
  // A thread's own accesses are ordered by program order; only a copy's hazard may name its issuer twice.
  if (first == second && (kind == Hazard::raw || kind == Hazard::war || kind == Hazard::waw)) return;
  HazardKey key{kind, first_pc, second_pc};
  auto it = hazard_index.find(key);
  if (it != hazard_index.end()) {
    ++launch_hazards[it->second].occurrences;
    return;
  }
  HazardReport r{};
  r.kind = kind;
  r.kernel = launch_now ? launch_now->kernel : "";
  find_variable(b, addr, r.variable, r.byte_offset);
  r.index = r.byte_offset / std::max<std::size_t>(bytes, 1);
  set3(r.block, b.idx);
  set3(r.first_thread, thread_coords(b, first));
  set3(r.second_thread, thread_coords(b, second));
  r.first_site = symbolize(first_pc);
  r.second_site = symbolize(second_pc);
  r.occurrences = 1;
  r.second_writes = second_writes;
  hazard_index.emplace(key, launch_hazards.size());
  launch_hazards.push_back(std::move(r));
}

// A lane's own warp clock (Warp::lane_known), recorded with each of its accesses.
std::uint32_t lane_clock(const Block& b, unsigned linear) {
  const Warp& w = b.warps[linear / 32];
  return w.lane_known.empty() ? 0 : w.lane_known[(linear % 32) * 33];
}

// Lanes of one warp are ordered when a __syncwarp that both took part in (directly or through a
// chain of them) completed after the other's access, made at its clock other_sync.
bool warp_ordered(const Block& b, unsigned me, unsigned other, std::uint32_t other_sync) {
  if (me / 32 != other / 32) return false;
  const Warp& w = b.warps[me / 32];
  return !w.lane_known.empty() && w.lane_known[(me % 32) * 32 + other % 32] > other_sync;
}

// An access to a word that an asynchronous copy has not finished writing: reported as that copy's
// hazard (and not checked further). True when it was one.
bool pending_copy_hazard(WordShadow& s, const Block& b, unsigned me, const char* addr, std::size_t bytes, bool is_write,
                         const void* pc) {
  auto it = pending_copies.find(s.async_serial);
  if (it == pending_copies.end() || it->second.block != &b) {
    s.async_serial = 0;
    return false;
  }
  const PendingCopy& c = it->second;
  record_hazard(c.bulk ? Hazard::bulk_copy : Hazard::async_copy, b, c.thread, c.pc, me, pc, addr, bytes, is_write);
  return true;
}

void check_race(Thread* t, const char* addr, std::size_t bytes, bool is_write, const void* pc) {
  Block& b = *t->block;
  std::size_t first_word, last_word, slot;
  WordShadow* shadow = shadow_words(addr, bytes, first_word, last_word, &slot);
  const unsigned me = t->linear;
  const std::uint16_t me1 = std::uint16_t(me + 1);
  const std::uint32_t E = b.epoch, sync = lane_clock(b, me), clock = t->bclock;
  const bool barriers = !b.mbarriers.empty();
  for (std::size_t w = first_word; w <= last_word; ++w) {
    WordShadow& s = shadow[w];
    if (__builtin_expect(s.async_serial != 0, 0) && pending_copy_hazard(s, b, me, addr, bytes, is_write, pc)) continue;
    const auto ordered_after = [&](unsigned other, std::uint32_t other_sync, std::uint32_t other_clock) {
      return warp_ordered(b, me, other, other_sync) || (barriers && barrier_ordered(t, other, other_clock));
    };
    if (!is_write) {
      if (s.writer && s.write_epoch == E && s.writer != me1 &&
          !ordered_after(s.writer - 1u, s.write_sync, s.write_clock))
        record_hazard(Hazard::raw, b, s.writer - 1u, s.write_pc, me, pc, addr, bytes);
      if (s.read_epoch != E) {
        s.read_epoch = E;
        s.reader = me1;
        s.read_pc = pc;
        s.read_sync = sync;
        s.read_clock = clock;
        s.many_readers = false;
      } else if (s.reader == me1) {
        s.read_clock = clock;  // a later read of the same reader: a write must come after this one
        s.read_sync = sync;
        s.read_pc = pc;
      } else {
        note_extra_reader(slot * (kArenaBytes / 4) + w, E, s.reader - 1u, me, clock, sync, pc, barriers);
        s.many_readers = true;
      }
    } else {
      if (s.writer && s.write_epoch == E && s.writer != me1 &&
          !ordered_after(s.writer - 1u, s.write_sync, s.write_clock))
        record_hazard(Hazard::waw, b, s.writer - 1u, s.write_pc, me, pc, addr, bytes);
      if (s.read_epoch == E && s.reader && (s.reader != me1 || s.many_readers)) {
        // Every reader of this interval but the writer must be ordered before the write.
        long other = -1;
        const void* other_pc = s.read_pc;
        if (s.reader != me1 && !ordered_after(s.reader - 1u, s.read_sync, s.read_clock)) other = s.reader - 1u;
        if (other < 0 && s.many_readers) {
          auto it = extra_reads.find(slot * (kArenaBytes / 4) + w);
          if (it != extra_reads.end() && it->second.epoch == E) {
            for (const ExtraReader& r : it->second.readers) {
              if (r.thread != me && !ordered_after(r.thread, r.sync, r.clock)) {
                other = r.thread;
                other_pc = r.pc;
                break;
              }
            }
          }
        }
        if (other >= 0) record_hazard(Hazard::war, b, unsigned(other), other_pc, me, pc, addr, bytes);
      }
      s.writer = me1;
      s.write_epoch = E;
      s.write_pc = pc;
      s.write_sync = sync;
      s.write_clock = clock;
    }
  }
}

// Groups the logged accesses of one warp into warp-wide instructions and counts their conflicts.
void flush_banks(Block& b, unsigned warp) {
  Thread** lanes = &b.threads[std::size_t(warp) * 32];
  const unsigned nlanes = std::min<unsigned>(32, unsigned(b.threads.size()) - warp * 32);
  bool any = false;
  for (unsigned l = 0; l < nlanes; ++l) any |= !lanes[l]->bank_log.empty();
  if (!any) return;
  // instruction (pc, k-th execution) -> the words its lanes touched
  std::map<std::pair<const void*, unsigned>, std::vector<std::uintptr_t>> instructions;
  std::unordered_map<const void*, unsigned> seen;
  for (unsigned l = 0; l < nlanes; ++l) {
    seen.clear();
    for (const BankAccess& a : lanes[l]->bank_log) {
      auto& words = instructions[{a.pc, seen[a.pc]++}];
      for (std::uint32_t k = 0; k < a.words; ++k) words.push_back(a.word + k);
    }
    lanes[l]->bank_log.clear();
  }
  for (auto& [key, words] : instructions) {
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    unsigned per_bank[32] = {};
    for (std::uintptr_t w : words) ++per_bank[w & 31];
    const unsigned degree = *std::max_element(per_bank, per_bank + 32);
    const unsigned ideal = unsigned((words.size() + 31) / 32);  // wide accesses need several wavefronts anyway
    BankRecord& r = launch_banks[BankKey{key.first, b.phase}];
    if (r.warp_accesses == 0) {
      r.kernel = launch_now ? launch_now->kernel : "";
      r.site = symbolize(key.first);
      r.phase = b.phase;
      r.degree_count.fill(0);
    }
    ++r.warp_accesses;
    ++r.degree_count[std::min(degree, 32u)];
    r.extra_wavefronts += degree > ideal ? degree - ideal : 0;
  }
}

// e.g. "racecheck: async-copy hazard in kernel `k`, block (0,0,0): thread (5,0,0) at k.cu:20: shared
// `tile`[5] (byte 80) read before the asynchronous copy into it completed: wait with
// __pipeline_wait_prior ...; the copy was issued by thread (5,0,0) at k.cu:17 (1 time)"
void print_copy_hazard(const HazardReport& h) {
  const bool bulk = h.kind == Hazard::bulk_copy;
  const char* what =
      h.second_writes
          ? (bulk ? "written while the bulk copy into it was pending, before the barrier phase completed"
                  : "written while the asynchronous copy into it was pending")
          : (bulk ? "read before the barrier phase completed" : "read before the asynchronous copy into it completed");
  const char* fix = bulk ? "wait on the cuda::barrier that the memcpy_async_tx completes on"
                         : "wait with __pipeline_wait_prior (and __syncthreads() before other threads read it)";
  std::fprintf(stderr,
               "racecheck: %s hazard in kernel `%s`, block %s: thread %s at %s: shared %s%s[%zu] (byte %zu) %s: %s; "
               "the copy was issued by thread %s at %s (%" PRIu64 " time%s)\n",
               to_string(h.kind), h.kernel.c_str(), coords(h.block).c_str(), coords(h.second_thread).c_str(),
               h.second_site.c_str(), h.variable.empty() ? "memory" : "`",
               (h.variable.empty() ? std::string() : h.variable + "`").c_str(), h.index, h.byte_offset, what, fix,
               coords(h.first_thread).c_str(), h.first_site.c_str(), h.occurrences, h.occurrences == 1 ? "" : "s");
}

// e.g. "racecheck: copy-overlap hazard in kernel `k`, block (0,0,0): the copy issued by thread (0,0,0)
// at k.cu:30 writes shared `stage`[64] (byte 256) while the copy issued by thread (0,0,0) at k.cu:30
// into the same bytes is still in flight: ..."
void print_overlap_hazard(const HazardReport& h) {
  const char* what = h.kind == Hazard::copy_overlap
                         ? "while the copy issued by thread %s at %s into the same bytes is still in flight: each copy "
                           "in flight needs bytes of its own (check the destination offset of each stage), or the "
                           "later copy must wait until the earlier one's bytes were waited for and read"
                         : "which the copy issued by thread %s at %s filled for another cuda::barrier (another stage): "
                           "each stage's copies must land in that stage's own bytes (check the destination offset of "
                           "each stage)";
  char tail[512];
  std::snprintf(tail, sizeof tail, what, coords(h.first_thread).c_str(), h.first_site.c_str());
  std::fprintf(stderr,
               "racecheck: %s hazard in kernel `%s`, block %s: the copy issued by thread %s at %s writes shared "
               "%s%s[%zu] (byte %zu) %s (%" PRIu64 " time%s)\n",
               to_string(h.kind), h.kernel.c_str(), coords(h.block).c_str(), coords(h.second_thread).c_str(),
               h.second_site.c_str(), h.variable.empty() ? "memory" : "`",
               (h.variable.empty() ? std::string() : h.variable + "`").c_str(), h.index, h.byte_offset, tail,
               h.occurrences, h.occurrences == 1 ? "" : "s");
}

void print_launch_reports(const Launch& L) {
  const Options& opt = options();
  if (opt.racecheck) {
    for (const HazardReport& h : launch_hazards) {
      if (h.kind == Hazard::copy_overlap || h.kind == Hazard::stage_overlap) {
        print_overlap_hazard(h);
        continue;
      }
      if (h.kind == Hazard::async_copy || h.kind == Hazard::bulk_copy) {
        print_copy_hazard(h);
        continue;
      }
      std::fprintf(stderr,
                   "racecheck: %s hazard in kernel `%s`, block %s: thread %s at %s and thread %s at %s access shared "
                   "%s%s[%zu] (byte %zu) with no barrier between them (%" PRIu64 " time%s)\n",
                   to_string(h.kind), h.kernel.c_str(), coords(h.block).c_str(), coords(h.first_thread).c_str(),
                   h.first_site.c_str(), coords(h.second_thread).c_str(), h.second_site.c_str(),
                   h.variable.empty() ? "memory" : "`", (h.variable.empty() ? std::string() : h.variable + "`").c_str(),
                   h.index, h.byte_offset, h.occurrences, h.occurrences == 1 ? "" : "s");
    }
    if (!launch_hazards.empty()) std::fprintf(stderr, "racecheck: %s\n", describe_options().c_str());
    std::fprintf(stderr, "racecheck: kernel `%s`: %zu hazard%s\n", L.kernel, launch_hazards.size(),
                 launch_hazards.size() == 1 ? "" : "s");
  }
  if (opt.banks) {
    // Per source line, summed over phases.
    std::map<std::string, BankRecord> by_site;
    std::uint64_t extra = 0;
    for (auto& [key, r] : launch_banks) {
      BankRecord& s = by_site[r.site];
      if (s.warp_accesses == 0) {
        s = r;
      } else {
        s.warp_accesses += r.warp_accesses;
        s.extra_wavefronts += r.extra_wavefronts;
        for (int d = 0; d <= 32; ++d) s.degree_count[d] += r.degree_count[d];
      }
      extra += r.extra_wavefronts;
    }
    std::fprintf(stderr, "banks: kernel `%s` (32 banks of 4 bytes; degree = most distinct words in one bank)\n",
                 L.kernel);
    for (auto& [site, r] : by_site) {
      std::string hist;
      for (int d = 32; d >= 1; --d)
        if (r.degree_count[d]) hist += "  " + std::to_string(d) + "-way x " + std::to_string(r.degree_count[d]);
      std::fprintf(stderr, "  %s:%s  (extra wavefronts %" PRIu64 ")\n", site.c_str(), hist.c_str(), r.extra_wavefronts);
    }
    std::fprintf(stderr, "banks: kernel `%s`: %" PRIu64 " extra wavefronts in all\n", L.kernel, extra);
  }
  for (std::size_t i = launch_misuse_start; i < found.misuse.size(); ++i)
    std::fprintf(stderr, "scanlab emulator: kernel `%s`: %s\n", found.misuse[i].kernel.c_str(),
                 found.misuse[i].message.c_str());
}

}  // namespace

std::uint32_t race_async_issued(Thread* t, const void* dst, std::size_t bytes, bool bulk, const void* pc,
                                unsigned barrier) {
  const char* addr = static_cast<const char*>(dst);
  const Block& b = *t->block;
  std::size_t first, last;
  WordShadow* shadow = shadow_words(addr, bytes, first, last);
  const char* word0 = addr - std::size_t(addr - shared_arena_base()) % 4;
  // Bytes another copy still writes, or that another stage's copies filled: reported as that (the
  // fix is the destination), not as an access before a wait.
  for (std::size_t w = first; w <= last; ++w) {
    WordShadow& s = shadow[w];
    const char* word = word0 + (w - first) * 4;
    if (s.async_serial) {
      auto it = pending_copies.find(s.async_serial);
      if (it != pending_copies.end() && it->second.block == &b) {
        HazardReport* h = nullptr;
        const std::size_t before = launch_hazards.size();
        record_hazard(Hazard::copy_overlap, b, it->second.thread, it->second.pc, t->linear, pc, word, 4, true);
        if (launch_hazards.size() > before) h = &launch_hazards.back();
        if (h) h->bulk = bulk;
        s.async_serial = 0;  // the new copy's bytes from now on
        continue;
      }
    }
    if (bulk && barrier && s.copy_block == b.diag_id && s.copy_barrier && s.copy_barrier != barrier)
      record_hazard(Hazard::stage_overlap, b, s.copy_thread, s.copy_pc, t->linear, pc, word, 4, true);
  }
  check_race(t, addr, bytes, true, pc);
  if (++last_serial == 0) ++last_serial;
  const std::uint32_t serial = last_serial;
  pending_copies[serial] = PendingCopy{t->block, t->linear, pc, bulk};
  for (std::size_t w = first; w <= last; ++w) {
    WordShadow& s = shadow[w];
    s.async_serial = serial;
    if (bulk && barrier) {
      s.copy_block = b.diag_id;
      s.copy_barrier = barrier;
      s.copy_thread = std::uint16_t(t->linear);
      s.copy_pc = pc;
    }
  }
  return serial;
}

void race_async_completed(std::uint32_t serial, const void* dst, std::size_t bytes, Thread* writer) {
  auto it = pending_copies.find(serial);
  if (it == pending_copies.end()) return;
  const void* pc = it->second.pc;
  pending_copies.erase(it);
  std::size_t first, last;
  WordShadow* shadow = shadow_words(static_cast<const char*>(dst), bytes, first, last);
  for (std::size_t w = first; w <= last; ++w) {
    WordShadow& s = shadow[w];
    if (s.async_serial == serial) s.async_serial = 0;
    // A bulk copy's bytes were written by the copy engine, before every thread that waited for the
    // phase: no thread is their writer any more.
    if (!writer && s.write_pc == pc) s.writer = 0;
    if (writer) {
      const Block& b = *writer->block;
      s.writer = std::uint16_t(writer->linear + 1);
      s.write_epoch = b.epoch;
      s.write_pc = pc;
      s.write_sync = lane_clock(b, writer->linear);
      s.write_clock = writer->bclock;
    }
  }
}

void race_barrier_arrive(Thread* t, MBarrier& m) {
  const std::size_t n = t->block->threads.size();
  if (m.arrived_known.size() < n) m.arrived_known.resize(n, 0);
  m.arrived_known[t->linear] = std::max(m.arrived_known[t->linear], t->bclock);
  for (std::size_t j = 0; j < t->known.size(); ++j) m.arrived_known[j] = std::max(m.arrived_known[j], t->known[j]);
  ++t->bclock;
}

void race_barrier_completed(MBarrier& m) {
  m.completed_known.swap(m.arrived_known);
  m.arrived_known.assign(m.completed_known.size(), 0);
}

void race_barrier_acquire(Thread* t, const MBarrier& m) {
  if (t->known.size() < m.completed_known.size()) t->known.resize(m.completed_known.size(), 0);
  for (std::size_t j = 0; j < m.completed_known.size(); ++j) t->known[j] = std::max(t->known[j], m.completed_known[j]);
}

void shared_access(Thread* t, const void* addr, std::size_t bytes, bool is_write, const void* pc) {
  const Options& opt = options();
  if (opt.racecheck) check_race(t, static_cast<const char*>(addr), bytes, is_write, pc);
  if (opt.banks) {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(addr);
    t->bank_log.push_back(BankAccess{pc, a >> 2, std::uint32_t(((a + bytes - 1) >> 2) - (a >> 2) + 1)});
  }
}

void diag_block_started(Block& b) {
  b.epoch = ++global_epoch;
  b.diag_id = ++global_epoch;
  b.phase = 0;
  const bool clocks = observe_shared && options().racecheck;
  const std::uint32_t start = ++global_epoch;
  for (Warp& w : b.warps) {
    if (clocks) w.lane_known.assign(32 * 32, start);
    else w.lane_known.clear();
  }
}

void diag_barrier_released(Block& b) {
  if (!observe_shared) return;
  if (options().banks)
    for (unsigned w = 0; w < b.warps.size(); ++w) flush_banks(b, w);
  b.epoch = ++global_epoch;
  ++b.phase;
}

void diag_warp_synced(Block& b, unsigned warp, unsigned ordering) {
  if (!observe_shared) return;
  if (options().banks) flush_banks(b, warp);
  Warp& w = b.warps[warp];
  if (!ordering || w.lane_known.empty()) return;
  // Join the clocks of the lanes that met at this __syncwarp, then give each of them a new clock
  // that all of them know.
  std::uint32_t joined[32] = {};
  for (unsigned l = 0; l < 32; ++l)
    if ((ordering >> l) & 1u)
      for (unsigned i = 0; i < 32; ++i) joined[i] = std::max(joined[i], w.lane_known[l * 32 + i]);
  const std::uint32_t now = ++global_epoch;
  for (unsigned i = 0; i < 32; ++i)
    if ((ordering >> i) & 1u) joined[i] = now;
  for (unsigned l = 0; l < 32; ++l)
    if ((ordering >> l) & 1u) std::copy(joined, joined + 32, &w.lane_known[l * 32]);
}

void diag_block_finished(Block& b) {
  // Copies of this block that never completed (nobody waited): their bytes mark nothing any more.
  for (auto it = pending_copies.begin(); it != pending_copies.end();)
    it = it->second.block == &b ? pending_copies.erase(it) : std::next(it);
  ++launch_polls.blocks;
  launch_polls.addresses += b.polled.size();
  launch_polls.max_addresses = std::max<std::uint64_t>(launch_polls.max_addresses, b.polled.size());
  if (!observe_shared) return;
  if (options().banks)
    for (unsigned w = 0; w < b.warps.size(); ++w) flush_banks(b, w);
}

void diag_launch_started(Launch& L) {
  launch_now = &L;
  const Options& opt = options();
  observe_shared = opt.racecheck || opt.banks;
  hazard_index.clear();
  launch_hazards.clear();
  launch_banks.clear();
  pending_copies.clear();
  extra_reads.clear();
  launch_misuse_start = found.misuse.size();
  misuse_sites.clear();
  launch_polls = PollRecord{L.kernel, 0, 0, 0};
}

void diag_launch_finished(Launch& L) {
  print_launch_reports(L);
  for (HazardReport& h : launch_hazards) found.hazards.push_back(std::move(h));
  for (auto& [key, r] : launch_banks) found.banks.push_back(std::move(r));
  launch_hazards.clear();
  launch_banks.clear();
  if (launch_polls.addresses > 0) found.polls.push_back(std::move(launch_polls));
  observe_shared = false;
  launch_now = nullptr;
}

void report_misuse(const std::string& message) {
  found.misuse.push_back(MisuseReport{launch_now ? launch_now->kernel : "", message});
}

void report_misuse_once(const void* site, const std::string& message) {
  if (std::find(misuse_sites.begin(), misuse_sites.end(), site) != misuse_sites.end()) return;
  misuse_sites.push_back(site);
  report_misuse(message);
}

// A long-lived `addr2line -e FILE` (binutils) per executable or library: it answers one address per
// line on its standard input and flushes after each, so every lookup costs a pipe round trip, not a
// process start.
namespace {
struct Addr2line {
  FILE* to = nullptr;
  FILE* from = nullptr;
};

Addr2line* addr2line_for(const std::string& file) {
  static std::unordered_map<std::string, Addr2line> servers;
  auto it = servers.find(file);
  if (it != servers.end()) return it->second.to ? &it->second : nullptr;
  Addr2line& a = servers[file];
  int in[2], out[2];
  if (pipe(in) != 0) return nullptr;
  if (pipe(out) != 0) {
    close(in[0]);
    close(in[1]);
    return nullptr;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);
    close(in[1]);
    close(out[0]);
    execlp("addr2line", "addr2line", "-i", "-e", file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  if (pid < 0) {
    close(in[1]);
    close(out[0]);
    return nullptr;
  }
  a.to = fdopen(in[1], "w");
  a.from = fdopen(out[0], "r");
  return &a;
}
}  // namespace

namespace {
// Symbolizing runs on a kernel thread's fiber (a report made where it happens). The standard
// library code it calls may be the copy instantiated in a kernel's translation unit, which is
// instrumented: with no running thread, its loads and stores are not the kernel's (in weak-memory
// mode a store would otherwise be delayed like a kernel's, and the emulator's own heap corrupted).
struct NotAKernelAccess {
  Thread* saved = running;
  NotAKernelAccess() { running = nullptr; }
  ~NotAKernelAccess() { running = saved; }
  NotAKernelAccess(const NotAKernelAccess&) = delete;
  NotAKernelAccess& operator=(const NotAKernelAccess&) = delete;
};

// "file:line" with the file's `..` resolved. A test program's files are named relative to the
// build folder (scanlab-emu-translate --relative-to), which addr2line puts in front:
// "<build>/../../tests/x.cu:12" is "<checkout>/tests/x.cu:12".
std::string real_file_of(const std::string& frame) {
  const auto colon = frame.rfind(':');
  if (colon == std::string::npos || frame.find("/../") > colon) return frame;
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::weakly_canonical(frame.substr(0, colon), ec);
  return ec ? frame : real.string() + frame.substr(colon);
}

// The source lines of a code address, innermost first, then each function it was inlined into
// (`addr2line -i`); empty when unknown. Each query is followed by address 0, whose "??" line ends
// the answer. Cached.
const std::vector<std::string>& source_frames(const void* pc) {
  static std::unordered_map<const void*, std::vector<std::string>> cache;
  auto it = cache.find(pc);
  if (it != cache.end()) return it->second;
  std::vector<std::string> frames;
  Dl_info info{};
  if (pc && dladdr(pc, &info) && info.dli_fname) {
    const auto offset = reinterpret_cast<std::uintptr_t>(pc) - reinterpret_cast<std::uintptr_t>(info.dli_fbase) - 1;
    if (Addr2line* a = addr2line_for(info.dli_fname)) {
      std::fprintf(a->to, "0x%" PRIxPTR "\n0\n", offset);
      std::fflush(a->to);
      char line[1024];
      for (bool first = true; std::fgets(line, sizeof line, a->from); first = false) {
        std::string s = line;
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
        if (s.rfind("??", 0) == 0) {
          // The sentinel's line; or, first, the address itself unknown, and the sentinel's follows.
          if (first && std::fgets(line, sizeof line, a->from) == nullptr) break;
          break;
        }
        if (auto paren = s.find(" (discriminator"); paren != std::string::npos) s.erase(paren);
        frames.push_back(real_file_of(s));
      }
    }
  }
  return cache.emplace(pc, std::move(frames)).first->second;
}

// Given code, not the student's: the lab's library and the emulator's headers, and the system's.
bool library_file(const std::string& frame) {
  return frame.find("/common/include/scanlab/") != std::string::npos ||
         frame.find("/common/emu/include/") != std::string::npos || frame.rfind("/usr/", 0) == 0;
}
}  // namespace

std::string source_line(const void* pc) {
  NotAKernelAccess quiet;
  const auto& frames = source_frames(pc);
  if (!frames.empty()) return frames.front();
  char fallback[32];
  std::snprintf(fallback, sizeof fallback, "%p", pc);
  return fallback;
}

// file:line for a code address. When it lies in the library's code, inlined into a function of
// the student's (or the chapter's), that function's line comes first: "the caller's line (in
// tile.cuh:120)", so that a report points at the code that called the library wrongly.
std::string symbolize(const void* pc) {
  NotAKernelAccess quiet;
  static std::unordered_map<const void*, std::string> cache;
  auto it = cache.find(pc);
  if (it != cache.end()) return it->second;
  const auto& frames = source_frames(pc);
  std::string result = source_line(pc);
  if (frames.size() > 1 && library_file(frames.front())) {
    for (std::size_t k = 1; k < frames.size(); ++k) {
      if (!library_file(frames[k])) {
        result = frames[k] + " (in " + frames.front() + ")";
        break;
      }
    }
  }
  cache.emplace(pc, result);
  return result;
}

}  // namespace scanlab_emu::detail

namespace scanlab_emu {
const Diagnostics& diagnostics() { return detail::found; }
void reset_diagnostics() { detail::found = Diagnostics{}; }
std::string last_failure_report() { return detail::last_failure_report(); }
const char* to_string(Hazard h) {
  switch (h) {
    case Hazard::raw: return "read-after-write";
    case Hazard::war: return "write-after-read";
    case Hazard::async_copy: return "async-copy";
    case Hazard::bulk_copy: return "bulk-copy";
    case Hazard::copy_overlap: return "copy-overlap";
    case Hazard::stage_overlap: return "stage-overlap";
    default: return "write-after-write";
  }
}
}  // namespace scanlab_emu
