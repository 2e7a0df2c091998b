// scanlab_bench: the two baselines every other row is compared with. `copy` is the memory
// system's ceiling for an operation that reads n elements and writes n; `cub` is the
// production scan (CUB's decoupled look-back, Merrill & Garland) that ships with the CUDA
// Toolkit. CUB appears only here: chapter code is written without it. `copy_registers` and
// `copy_staged` are the ceilings of the two ways chapter 11 moves a tile (copy_kernels.cuh).
#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <limits>
#include <memory>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>

#include "copy_kernels.cuh"
#include "registry.hpp"

namespace scanlab::bench {
namespace {

// CUB picks its offset type from num_items' type: 32-bit counts where they fit (what most
// callers pass, and CUB's fastest path), 64-bit beyond.
template <class T, class Count>
cudaError_t cub_exclusive_sum(void* temp, size_t& temp_bytes, const T* in, T* out, Count n, cudaStream_t s) {
  return cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, n, s);
}

template <class T>
cudaError_t cub_exclusive_sum_any(void* temp, size_t& temp_bytes, const T* in, T* out, size_t n, cudaStream_t s) {
  if (n <= std::numeric_limits<uint32_t>::max()) {
    return cub_exclusive_sum(temp, temp_bytes, in, out, static_cast<uint32_t>(n), s);
  }
  return cub_exclusive_sum(temp, temp_bytes, in, out, static_cast<uint64_t>(n), s);
}

}  // namespace

void register_baseline_rows(Registry& reg) {
  Row& copy = reg.add({kCopyRow, "cudaMemcpyAsync device-to-device of the same n elements", Check::copy});
  set_stateless(copy, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
    SCANLAB_CUDA_CHECK(cudaMemcpyAsync(out, in, n * sizeof(*in), cudaMemcpyDeviceToDevice, s));
  });

  // Measuring sticks for chapter 11 (issue 41): the same bytes moved each way its tiles move them,
  // with its default tile, and nothing else. Their "x copy" is the ceiling of a scan that way.
  Row& registers = reg.add({kCopyRegistersRow,
                            "copy kernel, chapter 11's tile (128 threads x 16 items x 4 chunks, one per block) "
                            "through registers: 16-byte loads of the whole tile, then 16-byte stores",
                            Check::copy});
  set_stateless(registers, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
    copy_kernels::copy_registers(in, out, n, s);
  });
  Row& staged = reg.add({kCopyStagedRow,
                         "copy kernel, chapter 11's tile (128 x 16 x 4, one per block) staged as chapter 11 "
                         "stages it: bulk copies into shared memory (memcpy_async_tx, a barrier per chunk), "
                         "then 16-byte stores; the register path for a partial last tile and before sm_90",
                         Check::copy});
  set_stateless(staged, [](const auto* in, auto* out, size_t n, cudaStream_t s) {
    copy_kernels::copy_staged(in, out, n, s);
  });

  // The CUB the bench was built against: the toolkit's, or SCANLAB_CCCL_INCLUDE_DIR's (bench/CMakeLists.txt).
  const std::string cub_version = std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) + "." +
                                  std::to_string(CUB_SUBMINOR_VERSION);
  Row& cub_row = reg.add({kCubRow, "cub::DeviceScan::ExclusiveSum (CUB " + cub_version + ")", Check::exclusive});
  set_stateful(cub_row, [](auto tag, size_t n) {
    using T = typename decltype(tag)::type;
    size_t temp_bytes = 0;
    SCANLAB_CUDA_CHECK(cub_exclusive_sum_any<T>(nullptr, temp_bytes, nullptr, nullptr, n, 0));
    auto temp = std::make_shared<DeviceBuffer<unsigned char>>(temp_bytes > 0 ? temp_bytes : 1);
    return [temp, temp_bytes](const T* in, T* out, size_t count, cudaStream_t s) {
      size_t bytes = temp_bytes;
      SCANLAB_CUDA_CHECK(cub_exclusive_sum_any<T>(temp->data(), bytes, in, out, count, s));
    };
  });
}

}  // namespace scanlab::bench
