// What the emulator's checkers found, for tests and tools (printed reports go to stderr).
// The race checker and the bank-conflict counter see every shared-memory access of a kernel
// through the thread-sanitizer hooks (common/emu/src/hooks.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace scanlab_emu {

// The byte the emulator fills a block's shared memory with when the block starts (shared memory
// starts undefined on a GPU). Not the byte the lab's drivers poison output buffers with (0xCD,
// scanlab/verify.hpp), so a value copied from shared memory nothing wrote is told apart from an
// output element never written.
constexpr unsigned char kSharedFillByte = 0xCB;

// async_copy: a shared-memory access to bytes that a __pipeline_memcpy_async is still copying (its
// thread has not waited for it); bulk_copy: the same for a memcpy_async_tx whose cuda::barrier
// phase has not completed. Their first thread and site are the copy's.
// copy_overlap: an asynchronous copy issued into bytes that another copy still in flight writes;
// stage_overlap: a memcpy_async_tx into bytes that copies completing on another cuda::barrier (another
// stage of a ring) filled. Their first thread and site are the earlier copy's, the second the new one's.
enum class Hazard { raw, war, waw, async_copy, bulk_copy, copy_overlap, stage_overlap };

struct HazardReport {
  Hazard kind;
  std::string kernel;
  std::string variable;     // the shared variable, or "" when unknown
  std::size_t byte_offset;  // within the variable (or the arena)
  std::size_t index;        // byte_offset / access size
  unsigned block[3];
  unsigned first_thread[3], second_thread[3];  // first = the earlier access in the emulator's order
  std::string first_site, second_site;         // file:line (or an address when no line is known)
  std::uint64_t occurrences;
  bool second_writes = false;  // async_copy, bulk_copy: the access is a write (else a read)
  bool bulk = false;           // copy_overlap: the new copy is a memcpy_async_tx (else a cp.async)
};

// One shared-memory instruction of one kernel, at one barrier interval of its blocks
// ("phase" = barriers the block had passed), summed over blocks and warps.
struct BankRecord {
  std::string kernel;
  std::string site;  // file:line
  unsigned phase;
  std::uint64_t warp_accesses;
  std::uint64_t extra_wavefronts;              // wavefronts beyond the conflict-free count
  std::array<std::uint64_t, 33> degree_count;  // [d] = warp accesses whose worst bank held d words
};

struct MisuseReport {
  std::string kernel;
  std::string message;
};

// How far one launch's blocks reached with polling loads (volatile or atomic reads of global
// memory, the reads a look-back inspects its predecessors' descriptors with): per block, the number
// of distinct addresses its threads polled, summed over the blocks that finished and at most. A
// spin on one address counts once; a fenced descriptor read (flag, then value) counts two.
struct PollRecord {
  std::string kernel;
  std::uint64_t blocks = 0;         // blocks that finished
  std::uint64_t addresses = 0;      // sum over those blocks of their distinct polled addresses
  std::uint64_t max_addresses = 0;  // the most one block polled
};

struct Diagnostics {
  std::vector<HazardReport> hazards;  // distinct hazards (by kind and the two sites)
  std::vector<BankRecord> banks;
  std::vector<MisuseReport> misuse;  // barrier/warp misuse, differing outputs across orders
  std::vector<PollRecord> polls;     // one per launch that polled global memory
};

// Everything found since the last reset (all launches).
const Diagnostics& diagnostics();
void reset_diagnostics();

// The text of the last failed launch's report ("" if none failed).
std::string last_failure_report();

const char* to_string(Hazard);

}  // namespace scanlab_emu
