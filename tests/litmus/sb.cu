// Litmus test SB (store buffering). Each side stores to its own location, then loads the other's:
//
//     block A                     block B
//     x = 1;                      y = 1;
//     [fence]                     [fence]
//     r0 = y;                     r1 = x;
//
// "r0=0 r1=0" is the weak outcome: each load ran before the other side's store became visible, as
// if both stores waited in a buffer. Without fences the PTX memory model allows it; with a
// __threadfence() (a sequentially consistent fence at device scope) on both sides it is forbidden.
//   none     no fences
//   fences   __threadfence() between the store and the load on both sides (forbidden)
// All four accesses are volatile (relaxed), so only the order of stores and loads is tested.
#include "litmus.cuh"

namespace {
enum Variant { kNone, kFences };
const std::vector<std::string> kVariants = {"none", "fences"};
}  // namespace

__global__ void store_buffering(int* mem, int* results, const int* rotations, int* scratch, int instances,
                                int variant) {
  const litmus::Instance in = litmus::begin(mem, rotations, scratch, instances);
  if (in.role < 0) return;
  const int k = in.index, role = in.role;
  if (threadIdx.x != 0) return;
  volatile int* x = in.x;
  volatile int* y = in.y;
  volatile int* mine = role == 0 ? x : y;
  volatile int* other = role == 0 ? y : x;
  *mine = 1;
  if (variant == kFences) __threadfence();
  results[2 * k + role] = *other;
}

int main(int argc, char** argv) {
  const litmus::Options o = litmus::parse(argc, argv, "litmus_sb", kVariants);
  const litmus::Counts counts =
      litmus::run(o, litmus::variant_index(o, kVariants), 2, store_buffering, [](const int* r, const int*) {
        return "r0=" + std::to_string(r[0]) + " r1=" + std::to_string(r[1]);
      });
  return litmus::report("SB", o, counts);
}
