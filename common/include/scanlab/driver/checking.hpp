// scanlab/driver/checking.hpp: one checked run of a scan: upload, run into a poisoned output,
// download, compare with the oracle, and the verdict line.
#pragma once

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/nvtx.hpp"
#include "scanlab/oracle.hpp"
#include "scanlab/verify.hpp"

namespace scanlab {

// One scan's output against the oracle: exactly, except float sums, which a parallel scan adds in
// another order than the sequential loop (float64 reference with a tolerance: see verify.hpp).
template <class T, class Op>
VerifyResult verify_scan(const T* in, const T* got, std::size_t n, ScanKind kind, Op op) {
  if constexpr (std::is_floating_point_v<T> && std::is_same_v<Op, Plus<T>>) {
    return verify_float_scan(in, got, n, kind);
  } else {
    std::vector<T> expected(n);
    if (kind == ScanKind::inclusive) inclusive_scan_oracle(in, expected.data(), n, op);
    else exclusive_scan_oracle(in, expected.data(), n, op);
    return verify_exact(expected.data(), got, n);
  }
}

template <class T, class Op>
VerifyResult verify_scan(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op) {
  return verify_scan(in.data(), got.data(), in.size(), kind, op);
}

// Tile by tile, for kernels whose every tile restarts its prefixes (tile == 0: the whole array as
// one scan). Reports the first failing tile, with indices into the whole array, and counts the
// wrong elements of all tiles.
template <class T, class Op>
VerifyResult verify_tiles(const std::vector<T>& in, const std::vector<T>& got, ScanKind kind, Op op, std::size_t tile) {
  if (tile == 0) return verify_scan(in, got, kind, op);
  VerifyResult total;
  total.n = in.size();
  for (std::size_t begin = 0; begin < in.size(); begin += tile) {
    const std::size_t len = in.size() - begin < tile ? in.size() - begin : tile;
    VerifyResult r = verify_scan(in.data() + begin, got.data() + begin, len, kind, op);
    if (!r.ok && total.ok) {
      total = r;
      total.first_index += begin;
      total.note = "in the tile starting at " + std::to_string(begin) + (r.note.empty() ? "" : "; " + r.note);
      total.mismatches = 0;
    }
    if (!r.ok) total.mismatches += r.mismatches;
  }
  total.n = in.size();
  return total;
}

// "verified: <what>" or "FAILED: <what>: <first mismatch>": the line tests and the book look for.
inline std::string verdict_line(const VerifyResult& r, const std::string& what) {
  return r.ok ? "verified: " + what : "FAILED: " + what + ": " + r.message();
}

// ---- one checked run -----------------------------------------------------------------------

// Uploads the input, poisons the output (so that an element the kernel never writes shows up as a
// mismatch), runs launch() once and downloads the result: one NVTX range each, so that a profile
// shows the phases. In place the output is the input buffer: nothing to poison, and the result is
// read back from d_in.
template <class In, class Out, class Launch>
std::vector<Out> upload_run_download(const std::vector<In>& in, DeviceBuffer<In>& d_in, DeviceBuffer<Out>& d_out,
                                     bool in_place, Launch&& launch) {
  {
    SCANLAB_NVTX_RANGE("upload");
    d_in.upload(in);
    if (!in_place) d_out.fill_poison();
  }
  {
    SCANLAB_NVTX_RANGE("scan");
    launch();
    SCANLAB_CHECK_SYNC();
  }
  SCANLAB_NVTX_RANGE("download");
  if constexpr (std::is_same_v<In, Out>) {
    if (in_place) return d_in.download();
  }
  return d_out.download();
}

}  // namespace scanlab
