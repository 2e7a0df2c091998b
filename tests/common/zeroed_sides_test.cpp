// scanlab::single_pass::ZeroedSides, the bookkeeping of two sides of status words that launches
// use in turn (DescriptorStorage's, and chapter 09's Onesweep workspace's): which side a launch
// takes, what the host must memset first, and what the launch's blocks clear of the other side.
#include <doctest/doctest.h>

#include <cstddef>

#include "scanlab/single_pass/zeroed_sides.hpp"

using scanlab::single_pass::ZeroedSides;

TEST_CASE("ZeroedSides: each side is memset on its first use, then the launches clear each other's") {
  ZeroedSides sides(100);
  CHECK(sides.dirty_words(0) == 100);
  CHECK(sides.dirty_words(1) == 100);

  ZeroedSides::Turn t = sides.next(10);  // side 0: unknown, memset; side 1 too large to clear
  CHECK(t.side == 0);
  CHECK(t.memset_words == 100);
  CHECK(t.stale_words == 0);
  sides.launched();
  CHECK(sides.side() == 0);
  CHECK(sides.dirty_words(0) == 10);
  CHECK(sides.dirty_words(1) == 100);

  t = sides.next(10);  // side 1: still unknown, memset; it clears side 0's 10 words
  CHECK(t.side == 1);
  CHECK(t.memset_words == 100);
  CHECK(t.stale_words == 10);
  sides.launched();
  CHECK(sides.dirty_words(0) == 0);

  for (int k = 0; k < 4; ++k) {  // from now on, no memset at all
    CAPTURE(k);
    t = sides.next(10);
    CHECK(t.side == k % 2);
    CHECK(t.memset_words == 0);
    CHECK(t.stale_words == 10);
    sides.launched();
    CHECK(sides.dirty_words(1 - t.side) == 0);
  }
}

TEST_CASE("ZeroedSides: a launch smaller than the one before leaves that side to the host") {
  ZeroedSides sides(100);
  sides.next(10);
  sides.launched();
  sides.next(10);
  sides.launched();  // side 1 used (10 words), side 0 clean

  ZeroedSides::Turn t = sides.next(4);  // side 0; side 1's 10 words are more than its 4
  CHECK(t.side == 0);
  CHECK(t.memset_words == 0);
  CHECK(t.stale_words == 0);
  sides.launched();
  CHECK(sides.dirty_words(1) == 10);

  t = sides.next(10);  // side 1 is memset; this launch clears side 0's 4 words
  CHECK(t.side == 1);
  CHECK(t.memset_words == 10);
  CHECK(t.stale_words == 4);
  sides.launched();
  CHECK(sides.dirty_words(0) == 0);
}

TEST_CASE("ZeroedSides: after a launch that did not report back, its sides count as dirty") {
  ZeroedSides sides(100);
  sides.next(10);
  sides.launched();
  sides.next(10);
  sides.launched();

  ZeroedSides::Turn t = sides.next(10);  // side 0, told to clear side 1; never launched()
  CHECK(t.side == 0);
  CHECK(t.stale_words == 10);
  CHECK(sides.dirty_words(0) == 10);
  CHECK(sides.dirty_words(1) == 10);  // it may not have cleared it

  t = sides.next(10);  // side 1: memset, as its clearing is not known to have happened
  CHECK(t.side == 1);
  CHECK(t.memset_words == 10);
}
