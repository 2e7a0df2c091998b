// scanlab_bench: the check of a key-value sort's values. Plain C++ (no CUDA), so that tests/bench
// checks it on the host. The values the bench sorts are each key's index in the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace scanlab::bench {

// "" when values[j] is the input index of the key got[j] for every j, increasing among equal keys:
// with got the input's keys in order, that is what a stable sort writes (and every index once).
inline std::string sorted_values_problem(const std::vector<int32_t>& in, const std::vector<int32_t>& got,
                                         const std::vector<uint32_t>& values) {
  if (values.size() != got.size()) return "the values are not as many as the keys";
  for (size_t j = 0; j < got.size(); ++j) {
    if (values[j] >= in.size() || in[values[j]] != got[j]) {
      return "value " + std::to_string(j) + ": " + std::to_string(values[j]) + " is not the input index of key " +
             std::to_string(static_cast<uint32_t>(got[j]));
    }
    if (j > 0 && got[j] == got[j - 1] && values[j] <= values[j - 1]) {
      return "values " + std::to_string(j - 1) + ", " + std::to_string(j) + ": equal keys out of input order (" +
             std::to_string(values[j - 1]) + ", " + std::to_string(values[j]) + "): not stable";
    }
  }
  return "";
}

}  // namespace scanlab::bench
