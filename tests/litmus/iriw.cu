// Litmus test IRIW (independent reads of independent writes). Two writers store to two locations,
// two readers load both, in opposite orders:
//
//     writer 0      writer 1      reader 2            reader 3
//     x = 1;        y = 1;        r0 = x;             r2 = y;
//                                 [fence]             [fence]
//                                 r1 = y;             r3 = x;
//
// "r0=1 r1=0 r2=1 r3=0" is the weak outcome: the readers saw the two writes in opposite orders.
// The PTX memory model forbids it when each reader has a device-scope fence between its loads
// (__threadfence() is fence.sc); without fences it is allowed. Variants:
//   plain       plain loads, no fence (allowed; on the emulator each block's view of memory may lag
//               behind on a different location)
//   volatile    volatile loads, no fence (allowed by the model: two relaxed loads of different
//               locations are not ordered without a fence; the emulator shows it under --memory weak)
//   fences      plain loads with __threadfence() between them (forbidden)
// The writers' stores are volatile.
#include "litmus.cuh"

namespace {
enum Variant { kPlain, kVolatile, kFences };
const std::vector<std::string> kVariants = {"plain", "volatile", "fences"};
}  // namespace

__global__ void iriw(int* mem, int* results, const int* rotations, int* scratch, int instances, int variant) {
  const litmus::Instance in = litmus::begin(mem, rotations, scratch, instances, 4);
  if (in.role < 0 || threadIdx.x != 0) return;
  if (in.role < 2) {
    *reinterpret_cast<volatile int*>(in.role == 0 ? in.x : in.y) = 1;
    return;
  }
  // Reader 2 loads x then y, reader 3 loads y then x.
  int* first = in.role == 2 ? in.x : in.y;
  int* second = in.role == 2 ? in.y : in.x;
  int r_first, r_second;
  if (variant == kVolatile) {
    r_first = *reinterpret_cast<volatile int*>(first);
    r_second = *reinterpret_cast<volatile int*>(second);
  } else {
    r_first = *first;
    if (variant == kFences) __threadfence();
    r_second = *second;
  }
  const int slot = 4 * in.index + 2 * (in.role - 2);
  results[slot] = r_first;
  results[slot + 1] = r_second;
}

int main(int argc, char** argv) {
  const litmus::Options o = litmus::parse(argc, argv, "litmus_iriw", kVariants);
  const litmus::Counts counts = litmus::run(
      o, litmus::variant_index(o, kVariants), 4, iriw,
      [](const int* r, const int*) {
        return "r0=" + std::to_string(r[0]) + " r1=" + std::to_string(r[1]) + " r2=" + std::to_string(r[2]) +
               " r3=" + std::to_string(r[3]);
      },
      4);
  return litmus::report("IRIW", o, counts);
}
