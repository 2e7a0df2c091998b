// scanlab/single_pass/zeroed_sides.hpp: the bookkeeping of status words that must be zero before a
// launch, kept in two sides that launches use in turn (DescriptorStorage's descriptors, and chapter
// 09's Onesweep workspace).
//
// A launch publishes into its side, so the side must read zero ("nothing published") when it starts.
// The launch two before it, on the same side, left it dirty. Rather than a cudaMemsetAsync before
// every launch (a separate operation on the stream, which the launch would wait for), each launch's
// blocks clear the other side: the one the launch just before it used, which no one reads any more.
// The next launch then finds its side zero. A memset is still needed on each side's first use, after
// a launch that did not report back (launched()), and after a launch too small to clear its
// predecessor's side: a launch clears at most as many words as it uses, since a small launch's few
// blocks would take longer over a large side than the memset that side gets instead on its next use.
//
// Host only: it counts words; the caller owns the memory, issues the memset and tells its kernel
// what to clear.
#pragma once

#include <cstddef>

namespace scanlab::single_pass {

class ZeroedSides {
 public:
  // Two sides of side_words words each, in an unknown state (so each side's first use is memset).
  explicit ZeroedSides(std::size_t side_words) : dirty_{side_words, side_words} {}

  // What the next launch is to do.
  struct Turn {
    int side;                  // the side it publishes into (0 or 1)
    std::size_t memset_words;  // words of that side to memset on the stream first (0: it is zero)
    std::size_t stale_words;   // words of the other side its blocks clear (0: none)
  };

  // The next launch, which will use the first `words` words of its side.
  Turn next(std::size_t words) {
    const int use = 1 - side_;
    const std::size_t memset_words = dirty_[use];
    dirty_[use] = words;
    side_ = use;
    return {use, memset_words, clears_other() ? dirty_[1 - use] : 0};
  }

  // The launch from next() went out without an error: its blocks clear the other side (if next()
  // gave them any to clear).
  void launched() {
    if (clears_other()) dirty_[1 - side_] = 0;
  }

  int side() const { return side_; }  // the side of the latest launch
  // How many of the first words of `side` may be non-zero (0: the side is zero).
  std::size_t dirty_words(int side) const { return dirty_[side]; }

 private:
  bool clears_other() const { return dirty_[1 - side_] <= dirty_[side_]; }

  int side_ = 1;          // the first launch uses side 0
  std::size_t dirty_[2];  // per side: how many of its first words may be non-zero
};

}  // namespace scanlab::single_pass
