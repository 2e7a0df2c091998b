// Litmus tests of coherence: every thread sees the values of one location in one order, the order
// its stores were made in.
//
//   CoRR (read-read):            writer: x = 1;          reader: r0 = x; r1 = x;
//   CoWW (write-write):          writer: x = 1; x = 2;   reader: r0 = x; r1 = x;   then x after the kernel
//
// An outcome in which the reader's second load returns an older value than its first (x=1 then
// x=0), or in which the location ends with the first store's value, breaks coherence; it is tagged
// "(incoherent)". Variants:
//   corr-plain      CoRR with plain loads. The PTX memory model guarantees coherence only to
//                   volatile, relaxed and atomic accesses; GPUs with L1-cached loads have shown CoRR
//                   violations with plain ones. The emulator keeps a block's plain loads of a location
//                   in order, so there it is never incoherent; its loads can return an old value,
//                   so "x=0 then x=1" occurs, which needs no interleaving inside the reader.
//   corr-volatile   CoRR with volatile loads (incoherent outcomes forbidden)
//   coww            CoWW: two volatile stores, volatile loads (incoherent outcomes forbidden)
#include "litmus.cuh"

namespace {
enum Variant { kCorrPlain, kCorrVolatile, kCoww };
const std::vector<std::string> kVariants = {"corr-plain", "corr-volatile", "coww"};
}  // namespace

__global__ void coherence(int* mem, int* results, const int* rotations, int* scratch, int instances, int variant) {
  const litmus::Instance in = litmus::begin(mem, rotations, scratch, instances);
  if (in.role < 0) return;
  const int k = in.index, role = in.role;
  if (threadIdx.x != 0) return;
  int* x = in.x;
  if (role == 0) {
    *reinterpret_cast<volatile int*>(x) = 1;
    if (variant == kCoww) *reinterpret_cast<volatile int*>(x) = 2;
    return;
  }
  int r0, r1;
  if (variant == kCorrPlain) {
    // Two plain loads of x that the compiler cannot merge into one: the second goes through an index
    // it cannot know is 0 (a word of the instance's memory that nobody writes).
    const int zero = x[litmus::kStride - 1];
    r0 = x[0];
    r1 = x[zero];
  } else {
    r0 = *reinterpret_cast<volatile int*>(x);
    r1 = *reinterpret_cast<volatile int*>(x);
  }
  results[2 * k] = r0;
  results[2 * k + 1] = r1;
}

int main(int argc, char** argv) {
  const litmus::Options o = litmus::parse(argc, argv, "litmus_coherence", kVariants);
  const int variant = litmus::variant_index(o, kVariants);
  const int last = variant == kCoww ? 2 : 1;  // the writer's last store
  const litmus::Counts counts = litmus::run(o, variant, 2, coherence, [&](const int* r, const int* mem) {
    std::string s = "x=" + std::to_string(r[0]) + " then x=" + std::to_string(r[1]);
    if (variant == kCoww) s += ", finally x=" + std::to_string(mem[0]);
    if (r[1] < r[0] || mem[0] != last) s += " (incoherent)";
    return s;
  });
  return litmus::report(variant == kCoww ? "CoWW" : "CoRR", o, counts);
}
