// Chapter 08's given stores of a chunk packed in output order (tile_exchange.cuh, store_run): a run
// of slots to a run of the output that starts anywhere, as whole 16-byte vectors where the run
// covers them (the slots read at any offset by load_vector_at: one aligned load, or two and a shift
// by whole words) and element by element at the ends. Checked for every start of the slots and of
// the output within a vector, run lengths around a vector's and a chunk's, with vector stores and
// without, and for elements of 4 bytes (int), 8 (double: a shift of two words) and 2 (int16, which
// stores element by element). Every element outside the output run must keep its poison. The
// grading tests reach these stores only through whole kernels, on int and float.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/single_pass/tile.cuh"
#include "scanlab/testing.hpp"
#include "tile_exchange.cuh"

namespace {

// One chunk's threads store slots[first, first + len) to out[o, o + len), starting at vector u0.
template <class Shape, class T>
__global__ void store_run_kernel(const T* slots, int first, T* out, std::size_t o, int len, int u0, bool vectors) {
  ch08::store_run<Shape>(slots, first, out, o, len, (static_cast<int>(threadIdx.x) + u0) % Shape::BLOCK_THREADS,
                         vectors);
}

// The first element whose bytes differ, or -1 (bytes: the poison of a double is a NaN, which equals
// nothing, itself included).
template <class T>
long first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return static_cast<long>(i);
  return -1;
}

template <class T>
void check_store_run(const char* type) {
  // 16 elements a thread, as in the two-tile kernel's chunks. Their width (compact_two_tile.cuh:
  // 128 threads for 8-byte elements, 256 or 384 for smaller ones) only sets how the vectors are dealt
  // out, which starts at any thread here (u0); this file does not include the kernel, which needs
  // the student's look-back.
  using Shape = scanlab::single_pass::TileShape<T, 128, 16>;
  constexpr int V = Shape::VEC;
  constexpr int kSlots = Shape::TILE_ITEMS;
  std::vector<T> slots(kSlots);
  for (int i = 0; i < kSlots; ++i) slots[i] = static_cast<T>(1 + i % 1000);  // no slot equals the poison
  const scanlab::DeviceBuffer<T> d_slots(slots);
  const std::size_t out_size = Shape::TILE_ITEMS + 4 * V;
  scanlab::DeviceBuffer<T> d_out(out_size);
  // -1: up to the chunk's last slot. The slots end where a chunk's do in a stage, so a load past
  // them is out of bounds (the emulator's memcheck and compute-sanitizer stop it).
  const std::vector<int> lengths = {0, 1, V - 1, V, V + 1, 3 * V + 2, Shape::TILE_ITEMS - 2 * V - 1, -1};
  const std::string element = type;  // (a const char* would be shown as an address)
  for (const bool vectors : {true, false})
    for (int first = 0; first < 2 * V; ++first)
      for (int o = 0; o < 2 * V; ++o)
        for (int len : lengths) {
          if (len < 0) len = Shape::TILE_ITEMS - first;  // to the chunk's last slot: the loads' furthest reach
          if (first + len > Shape::TILE_ITEMS) continue;
          d_out.fill_poison();
          const std::vector<T> poison = d_out.download();
          store_run_kernel<Shape><<<1, Shape::BLOCK_THREADS>>>(d_slots.data(), first, d_out.data(),
                                                               static_cast<std::size_t>(o), len, o + len, vectors);
          SCANLAB_CHECK_LAUNCH();
          SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
          const std::vector<T> got = d_out.download();
          std::vector<T> want = poison;
          for (int j = 0; j < len; ++j) want[o + j] = slots[first + j];
          CAPTURE(element);
          CAPTURE(vectors);
          CAPTURE(first);
          CAPTURE(o);
          CAPTURE(len);
          REQUIRE(got.size() == want.size());
          REQUIRE(first_difference(got, want) == -1);
        }
}

}  // namespace

TEST_CASE("ch08 store_run: slots at any offset to an output run at any offset") {
  check_store_run<int>("int (4 bytes, vectors of 4)");
  check_store_run<double>("double (8 bytes, vectors of 2)");
  check_store_run<std::int16_t>("int16 (element by element)");
}
