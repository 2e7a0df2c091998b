// Chapter 06, given: the state the tiles of the chained scan share. chained_scan.cuh, where your
// code is, includes this file; chained_scan_dispatch.cuh allocates and clears the arrays.
#pragma once

namespace ch06 {

// What the tiles publish. flags[t] = 0 until tile t's inclusive prefix is in inclusive[t], then 1.
// ticket = the next tile number. All zero before a launch.
template <class T>
struct ChainState {
  unsigned* flags;
  T* inclusive;
  unsigned* ticket;
};

}  // namespace ch06
