// scanlab_bench: the check of a key-value sort's values. Plain C++ (no CUDA), so that tests/bench
// checks it on the host. The values the bench sorts are each key's index in the input.
// The uint64 rows' keys check is here too.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace scanlab::bench {

// "" when values[j] is the input index of the key got[j] for every j, increasing among equal keys:
// with got the input's keys in order, that is what a stable sort writes (and every index once).
template <class Key>
std::string sorted_values_problem_of(const std::vector<Key>& in, const std::vector<Key>& got,
                                     const std::vector<uint32_t>& values) {
  if (values.size() != got.size()) return "the values are not as many as the keys";
  for (size_t j = 0; j < got.size(); ++j) {
    if (values[j] >= in.size() || in[values[j]] != got[j]) {
      return "value " + std::to_string(j) + ": " + std::to_string(values[j]) + " is not the input index of key " +
             std::to_string(static_cast<std::make_unsigned_t<Key>>(got[j]));
    }
    if (j > 0 && got[j] == got[j - 1] && values[j] <= values[j - 1]) {
      return "values " + std::to_string(j - 1) + ", " + std::to_string(j) + ": equal keys out of input order (" +
             std::to_string(values[j - 1]) + ", " + std::to_string(values[j]) + "): not stable";
    }
  }
  return "";
}

// The int32 rows' keys (the harness's input as uint32 bit patterns).
inline std::string sorted_values_problem(const std::vector<int32_t>& in, const std::vector<int32_t>& got,
                                         const std::vector<uint32_t>& values) {
  return sorted_values_problem_of(in, got, values);
}

// The uint64 rows' reference: their input sorted by std::sort, made once per input. Every uint64
// row of one n sorts the same keys (rows_sort_u64.cuh makes them from n alone), and a host sort of
// 2^28 keys takes tens of seconds: once a size instead of once a row. A different input (compared
// in full, which costs one pass) is sorted anew.
class SortedU64Reference {
 public:
  const std::vector<uint64_t>& sorted(const std::vector<uint64_t>& in) {
    if (!made_ || in != input_) {
      input_ = in;
      sorted_ = in;
      std::sort(sorted_.begin(), sorted_.end());
      made_ = true;
    }
    return sorted_;
  }

 private:
  bool made_ = false;
  std::vector<uint64_t> input_, sorted_;
};

// The uint64 rows (rows_sort_u64.cuh), whose keys are not the harness's int32 input: "" when got is
// in sorted (the reference's std::sort), else the first key that differs; then, where values are
// given, the values' check above.
inline std::string sorted_u64_problem(const std::vector<uint64_t>& in, const std::vector<uint64_t>& got,
                                      const std::vector<uint32_t>* values, SortedU64Reference& reference) {
  if (got.size() != in.size()) return "the output keys are not as many as the input's";
  const std::vector<uint64_t>& want = reference.sorted(in);
  const auto [w, g] = std::mismatch(want.begin(), want.end(), got.begin());
  if (w != want.end()) {
    return "key " + std::to_string(w - want.begin()) + " is " + std::to_string(*g) + ", the sorted input's is " +
           std::to_string(*w);
  }
  return values ? sorted_values_problem_of(in, got, *values) : std::string();
}

// The same with a reference of its own (sorted for this call alone).
inline std::string sorted_u64_problem(const std::vector<uint64_t>& in, const std::vector<uint64_t>& got,
                                      const std::vector<uint32_t>* values) {
  SortedU64Reference reference;
  return sorted_u64_problem(in, got, values, reference);
}

}  // namespace scanlab::bench
