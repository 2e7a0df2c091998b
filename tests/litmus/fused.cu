// Litmus test of chapter 07's fused descriptor: a flag and its value published in one 64-bit word.
//
//     writer (block A)                        reader (block B)
//     word = (flag 1, value 42);              r = word;   (one 64-bit volatile load)
//
// A 64-bit aligned store and load are single-copy atomic: a reader sees the whole old word or the
// whole new one, so "flag=1 value=0" (the flag without its value) is forbidden, with no fence at all.
// Variants:
//   fused    one 64-bit volatile store (forbidden: flag=1 value=0)
//   split    the same word written as two 32-bit volatile stores, value then flag, no fence: two
//            stores that may become visible in either order (allowed: flag=1 value=0)
#include "litmus.cuh"

namespace {
enum Variant { kFused, kSplit };
const std::vector<std::string> kVariants = {"fused", "split"};
constexpr unsigned kValue = 42;
}  // namespace

__global__ void fused_word(int* mem, int* results, const int* rotations, int* scratch, int instances, int variant) {
  const litmus::Instance in = litmus::begin(mem, rotations, scratch, instances);
  if (in.role < 0 || threadIdx.x != 0) return;
  // The word: value in the low half, flag in the high half (as chapter 07 packs status and value).
  auto* word = reinterpret_cast<volatile unsigned long long*>(in.x);
  if (in.role == 0) {
    if (variant == kFused) {
      *word = (1ull << 32) | kValue;
    } else {
      auto* halves = reinterpret_cast<volatile unsigned*>(in.x);
      halves[0] = kValue;
      halves[1] = 1u;
    }
    return;
  }
  const unsigned long long w = *word;
  results[2 * in.index] = int(w >> 32);
  results[2 * in.index + 1] = int(unsigned(w));
}

int main(int argc, char** argv) {
  const litmus::Options o = litmus::parse(argc, argv, "litmus_fused", kVariants);
  const litmus::Counts counts =
      litmus::run(o, litmus::variant_index(o, kVariants), 2, fused_word, [](const int* r, const int*) {
        return "flag=" + std::to_string(r[0]) + " value=" + std::to_string(r[1]);
      });
  return litmus::report("fused word", o, counts);
}
