// Litmus test MP (message passing). The writer stores the data, then the flag; the reader loads the
// flag, then the data:
//
//     writer (block A)            reader (block B)
//     data = 1;                   r0 = flag;
//     [fence]                     [fence]
//     flag = 1;                   r1 = data;
//
// "flag=1 data=0" is the weak outcome: the reader saw the message's flag but not its data. The
// PTX memory model forbids it only when both sides are ordered: a device-scope fence (or a release
// store) between the writer's two stores, AND a device-scope fence (or an acquire load) between the
// reader's two loads. Every other variant allows it:
//   none              no fence on either side
//   writer-fence      the writer fences; the reader's data load may still return an old value
//   reader-fence      the reader fences; the writer's stores may still become visible out of order
//   fences            both fence (forbidden)
//   block-fences      both use __threadfence_block(), whose scope does not reach the other block
//   release-acquire   cuda::atomic_ref: flag stored with release, loaded with acquire (forbidden)
//   warp-vote         the writer fences; the reader's whole warp loads the flag and votes with
//                     __any_sync, and the data loaded by lane 31 reaches lane 0 through __shfl_sync
//   warp-vote-fences  the same with the reader's fence after the vote (forbidden)
//   volatile-data     the writer fences; the reader loads the data with a volatile load too, and no
//                     fence: two relaxed loads of different locations are not ordered (allowed)
//   volatile-data-fences  the same with the reader's fence between its two loads (forbidden)
//   relaxed-data      release store of the flag; the reader loads flag and data with relaxed
//                     cuda::atomic_ref loads, no fence (allowed)
// The flag is stored and loaded as a volatile (or atomic) access, the data as a plain one unless
// the variant says otherwise.
#include <cuda/atomic>

#include "litmus.cuh"

namespace {
enum Variant {
  kNone,
  kWriterFence,
  kReaderFence,
  kFences,
  kBlockFences,
  kReleaseAcquire,
  kWarpVote,
  kWarpVoteFences,
  kVolatileData,
  kVolatileDataFences,
  kRelaxedData
};
const std::vector<std::string> kVariants = {"none",          "writer-fence",         "reader-fence", "fences",
                                            "block-fences",  "release-acquire",      "warp-vote",    "warp-vote-fences",
                                            "volatile-data", "volatile-data-fences", "relaxed-data"};
}  // namespace

__global__ void message_passing(int* mem, int* results, const int* rotations, int* scratch, int instances,
                                int variant) {
  const litmus::Instance in = litmus::begin(mem, rotations, scratch, instances);
  if (in.role < 0) return;
  const int k = in.index, role = in.role;
  int* data = in.x;
  int* flag = in.y;
  const bool writer_fence = variant == kWriterFence || variant == kFences || variant == kWarpVote ||
                            variant == kWarpVoteFences || variant == kVolatileData || variant == kVolatileDataFences;
  const bool reader_fence =
      variant == kReaderFence || variant == kFences || variant == kWarpVoteFences || variant == kVolatileDataFences;
  const bool warp = variant == kWarpVote || variant == kWarpVoteFences;
  if (role == 0) {
    if (threadIdx.x != 0) return;
    *data = 1;
    if (writer_fence) __threadfence();
    if (variant == kBlockFences) __threadfence_block();
    if (variant == kReleaseAcquire || variant == kRelaxedData)
      cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(1, cuda::memory_order_release);
    else *reinterpret_cast<volatile int*>(flag) = 1;
    return;
  }
  if (!warp && threadIdx.x != 0) return;
  int seen;
  if (variant == kReleaseAcquire)
    seen = cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
  else if (variant == kRelaxedData)
    seen = cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_relaxed);
  else if (warp) seen = __any_sync(0xffffffffu, *reinterpret_cast<volatile int*>(flag) != 0);
  else seen = *reinterpret_cast<volatile int*>(flag);
  if (reader_fence) __threadfence();
  if (variant == kBlockFences) __threadfence_block();
  int value;
  if (variant == kVolatileData || variant == kVolatileDataFences) value = *reinterpret_cast<volatile int*>(data);
  else if (variant == kRelaxedData)
    value = cuda::atomic_ref<int, cuda::thread_scope_device>(*data).load(cuda::memory_order_relaxed);
  else value = *data;
  if (warp) value = __shfl_sync(0xffffffffu, value, 31);
  if (threadIdx.x == 0) {
    results[2 * k] = seen;
    results[2 * k + 1] = value;
  }
}

int main(int argc, char** argv) {
  const litmus::Options o = litmus::parse(argc, argv, "litmus_mp", kVariants);
  const litmus::Counts counts =
      litmus::run(o, litmus::variant_index(o, kVariants), 2, message_passing, [](const int* r, const int*) {
        return "flag=" + std::to_string(r[0]) + " data=" + std::to_string(r[1]);
      });
  return litmus::report("MP", o, counts);
}
