// Litmus test LB (load buffering). Each side loads the other's location, then stores to its own:
//
//     block A                     block B
//     r0 = x;                     r1 = y;
//     [fence]                     [fence]
//     y = 1;                      x = 1;
//
// "r0=1 r1=1" is the weak outcome: each load returned the value of a store that comes after the
// other side's load in program order, as if the loads were delayed past the stores. The PTX memory
// model allows it without fences, and some GPUs have shown it; with fences it is forbidden.
//   none     no fences
//   fences   __threadfence() between the load and the store on both sides (forbidden)
// The emulator never shows "r0=1 r1=1", not even without fences: a load there returns a value that
// is already stored (or an older one), never a later one. Its tests check the other three outcomes.
// All four accesses are volatile (relaxed).
#include "litmus.cuh"

namespace {
enum Variant { kNone, kFences };
const std::vector<std::string> kVariants = {"none", "fences"};
}  // namespace

__global__ void load_buffering(int* mem, int* results, const int* rotations, int* scratch, int instances, int variant) {
  const litmus::Instance in = litmus::begin(mem, rotations, scratch, instances);
  if (in.role < 0) return;
  const int k = in.index, role = in.role;
  if (threadIdx.x != 0) return;
  volatile int* x = in.x;
  volatile int* y = in.y;
  volatile int* load_from = role == 0 ? x : y;
  volatile int* store_to = role == 0 ? y : x;
  const int r = *load_from;
  if (variant == kFences) __threadfence();
  *store_to = 1;
  results[2 * k + role] = r;
}

int main(int argc, char** argv) {
  const litmus::Options o = litmus::parse(argc, argv, "litmus_lb", kVariants);
  const litmus::Counts counts =
      litmus::run(o, litmus::variant_index(o, kVariants), 2, load_buffering, [](const int* r, const int*) {
        return "r0=" + std::to_string(r[0]) + " r1=" + std::to_string(r[1]);
      });
  return litmus::report("LB", o, counts);
}
