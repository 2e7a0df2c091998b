// scanlab/oracle.hpp: the sequential scans every parallel scan in the lab is checked against.
//
// Deliberately the plainest loop there is (one running total, left to right), so that it is
// obviously right; it is the definition of inclusive and exclusive scan that chapter 00 teaches,
// not a backend. Works in place (in == out).
#pragma once

#include <cstddef>
#include <vector>

#include "scanlab/monoid.hpp"

namespace scanlab {

// out[i] = in[0] op in[1] op ... op in[i].
template <class T, class Op = Plus<T>>
void inclusive_scan_oracle(const T* in, T* out, std::size_t n, Op op = Op{}) {
  if (n == 0) return;
  T running = in[0];
  out[0] = running;
  for (std::size_t i = 1; i < n; ++i) {
    running = op(running, in[i]);
    out[i] = running;
  }
}

// out[0] = identity, out[i] = in[0] op ... op in[i-1].
template <class T, class Op = Plus<T>>
void exclusive_scan_oracle(const T* in, T* out, std::size_t n, Op op = Op{}) {
  T running = Op::identity();
  for (std::size_t i = 0; i < n; ++i) {
    const T x = in[i];  // read before the write: in and out may alias
    out[i] = running;
    running = op(running, x);
  }
}

// in[0] op ... op in[n-1] (the identity for n == 0): the total a scan's last tile must carry.
template <class T, class Op = Plus<T>>
T reduce_oracle(const T* in, std::size_t n, Op op = Op{}) {
  T running = Op::identity();
  for (std::size_t i = 0; i < n; ++i) running = op(running, in[i]);
  return running;
}

template <class T, class Op = Plus<T>>
std::vector<T> inclusive_scan_oracle(const std::vector<T>& in, Op op = Op{}) {
  std::vector<T> out(in.size());
  inclusive_scan_oracle(in.data(), out.data(), in.size(), op);
  return out;
}

template <class T, class Op = Plus<T>>
std::vector<T> exclusive_scan_oracle(const std::vector<T>& in, Op op = Op{}) {
  std::vector<T> out(in.size());
  exclusive_scan_oracle(in.data(), out.data(), in.size(), op);
  return out;
}

template <class T, class Op = Plus<T>>
T reduce_oracle(const std::vector<T>& in, Op op = Op{}) {
  return reduce_oracle(in.data(), in.size(), op);
}

}  // namespace scanlab
