// scanlab_bench: which measured row a row's "x CUB" ratio is taken against. Plain C++ (no CUDA), so
// that tests/bench checks it on the host.
#pragma once

#include <string>
#include <vector>

#include "bench_types.hpp"

namespace scanlab::bench {

struct Anchor {
  std::string name;  // empty: none of the candidates was measured and verified
  double ms = -1;
};

// The fastest verified measurement among the rows named in `candidates` (one (type, n)'s rows):
// a sort's CUB counterpart is timed with an int and with a size_t item count, and CUB takes
// another path for each, faster for keys with one and for pairs with the other; the row is
// compared with the faster. Ties go to the first candidate named.
inline Anchor fastest_anchor(const std::vector<Measurement>& measured, const std::vector<std::string>& candidates) {
  Anchor best;
  for (const std::string& name : candidates) {
    for (const Measurement& m : measured) {
      if (m.algorithm != name || m.status != Status::ok || m.median_ms <= 0) continue;
      if (best.ms < 0 || m.median_ms < best.ms) best = {name, m.median_ms};
    }
  }
  return best;
}

}  // namespace scanlab::bench
