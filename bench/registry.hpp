// scanlab_bench: the row registry. A row is one algorithm the benchmark times: a name, what its
// output is checked against, the sizes it makes sense for, and a factory that (outside timing)
// allocates whatever the row needs for one (type, n) and hands back the operation to time.
//
// Adding a row for a new chapter (in rows_chapters.cu, plus the chapter's solution folder in
// bench/CMakeLists.txt INCLUDE_DIRS):
//
//   Row& r = reg.add({"ch05_reduce_then_scan", "three kernels: reduce, scan sums, scan", Check::exclusive});
//   set_stateless(r, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
//     using T = std::remove_const_t<std::remove_pointer_t<decltype(in)>>;
//     ch05::reduce_then_scan_exclusive(in, out, n, scanlab::Plus<T>{}, s);
//   });
//
// A row that needs device state (flags, partials, temp storage) uses set_stateful: the make
// function runs once per (type, n) before timing; anything that must be reset on every run
// (look-back flags, tile counters) is reset inside the returned operation, so it is timed.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace scanlab::bench {

// What a row's output is compared with (all sums: scanlab::Plus<T>).
enum class Check {
  copy,             // out == in, bit for bit
  exclusive,        // exclusive prefix sum of the whole array
  inclusive,        // inclusive prefix sum of the whole array
  inclusive_tiles,  // independent inclusive sums of consecutive Row::tile-element tiles
  sorted,           // the input sorted as uint32 bit patterns (int32 only; sorted once per input), then
                    // Row::verify_int32 where set (a key-value sort's values)
  custom,           // Row::verify_int32 / verify_float decide (applications: compaction, ...)
};

// Check::custom: returns "" when `got` is the right output for `in`, else what is wrong.
template <class T>
using Verifier = std::function<std::string(const std::vector<T>& in, const std::vector<T>& got)>;

// The timed operation: reads n elements at d_in, writes n at d_out, on stream s. It must not
// synchronize the host; the harness records CUDA events around it on s.
template <class T>
using Runner = std::function<void(const T* d_in, T* d_out, size_t n, cudaStream_t s)>;

// Called once per (type, n) before warm-up; its allocations are not timed.
template <class T>
using Factory = std::function<Runner<T>(size_t n)>;

// How many elements a row writes for an input, when not all n (a select-if writes only the k
// elements it keeps): the harness counts the bytes a row moves as (n read + written) * sizeof(T).
template <class T>
using WrittenCount = std::function<size_t(const std::vector<T>& in)>;

// The harness's input for a row, drawn once per (type, n, input) from the run's seed.
enum class Input {
  narrow,    // int32 uniform in [-100, 100], float in [-1, 1): sums stay exact, x > 0 keeps half
  all_bits,  // int32 uniform over all 2^32 bit patterns: the sorts' keys (int32 rows only)
};

template <class T>
struct TypeTag {
  using type = T;
};

struct Row {
  Row() = default;
  Row(std::string row_name, std::string row_what, Check row_check)
      : name(std::move(row_name)), what(std::move(row_what)), check(row_check) {}

  std::string name;  // --algorithms name and the table's first column
  std::string what;  // one-line description, printed by --list and in the JSON
  Check check = Check::exclusive;
  Input input = Input::narrow;
  size_t tile = 0;          // tile length for Check::inclusive_tiles
  size_t min_n = 1;         // sizes outside [min_n, max_n] are reported as skipped,
  size_t max_n = SIZE_MAX;  // with limit_note saying why
  std::string limit_note;
  Factory<int32_t> make_int32;  // empty: the row does not support that type
  Factory<float> make_float;
  Verifier<int32_t> verify_int32;  // Check::custom only
  Verifier<float> verify_float;
  WrittenCount<int32_t> written_int32;  // empty: the row writes n elements
  WrittenCount<float> written_float;
  // Arrays the row reads and writes alongside each other: 2 for a key-value sort (the values move
  // with the keys), so its GB/s counts both.
  size_t arrays = 1;
  // Non-empty: the "x CUB" ratio divides by the fastest of these rows' times instead of cub's (an
  // application's CUB counterpart, e.g. cub_select_if, or a sort's with an int and a size_t item
  // count, whose paths differ in speed); the harness measures them too, at every size.
  std::vector<std::string> baselines;

  template <class T>
  const Verifier<T>& verifier() const {
    if constexpr (std::is_same_v<T, int32_t>) {
      return verify_int32;
    } else {
      return verify_float;
    }
  }

  template <class T>
  const WrittenCount<T>& written() const {
    if constexpr (std::is_same_v<T, int32_t>) {
      return written_int32;
    } else {
      return written_float;
    }
  }

  template <class T>
  const Factory<T>& factory() const {
    if constexpr (std::is_same_v<T, int32_t>) {
      return make_int32;
    } else {
      static_assert(std::is_same_v<T, float>, "scanlab_bench rows cover int32 and float");
      return make_float;
    }
  }
};

// fn(const T* d_in, T* d_out, size_t n, cudaStream_t s), generic over T (a generic lambda).
template <class F>
void set_stateless(Row& row, F fn) {
  row.make_int32 = [fn](size_t) {
    return Runner<int32_t>(fn);
  };
  row.make_float = [fn](size_t) {
    return Runner<float>(fn);
  };
}

// count(const std::vector<T>& in) -> size_t, generic over T: the elements the row writes.
template <class F>
void set_written(Row& row, F count) {
  row.written_int32 = count;
  row.written_float = count;
}

// make(TypeTag<T>{}, size_t n) returns a callable usable as Runner<T>; it captures its device
// state by value (shared_ptr), since Runner is a copyable std::function.
template <class F>
void set_stateful(Row& row, F make) {
  row.make_int32 = [make](size_t n) {
    return Runner<int32_t>(make(TypeTag<int32_t>{}, n));
  };
  row.make_float = [make](size_t n) {
    return Runner<float>(make(TypeTag<float>{}, n));
  };
}

class Registry {
 public:
  Row& add(Row row) {
    rows_.push_back(std::make_unique<Row>(std::move(row)));
    return *rows_.back();
  }
  const Row* find(const std::string& name) const {
    for (const auto& r : rows_) {
      if (r->name == name) return r.get();
    }
    return nullptr;
  }
  std::vector<const Row*> all() const {
    std::vector<const Row*> out;
    for (const auto& r : rows_) out.push_back(r.get());
    return out;
  }

 private:
  std::vector<std::unique_ptr<Row>> rows_;  // stable addresses: add() returns a reference
};

// The baselines the ratios are taken against; the harness looks them up by these names.
inline constexpr const char* kCopyRow = "copy";
inline constexpr const char* kCubRow = "cub";
// Copy kernels with chapter 11's tile, the ceilings of its two ways of moving bytes (copy_kernels.cuh):
// ordinary rows, timed when asked for.
inline constexpr const char* kCopyRegistersRow = "copy_registers";
inline constexpr const char* kCopyStagedRow = "copy_staged";

void register_baseline_rows(Registry& reg);  // rows_baselines.cu: copy, cub, copy_registers, copy_staged
void register_chapter_rows(Registry& reg);   // rows_chapters.cu: one block per chapter

}  // namespace scanlab::bench
