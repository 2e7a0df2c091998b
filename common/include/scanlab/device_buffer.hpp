// scanlab/device_buffer.hpp: an owning, move-only array in device memory.
//
// Every transfer is checked (SCANLAB_CUDA_CHECK) and the sizes of host and device sides must agree,
// so a kernel never reads past an upload that was shorter than its buffer.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/verify.hpp"

namespace scanlab {

template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

 public:
  DeviceBuffer() = default;

  explicit DeviceBuffer(std::size_t n) : size_(n) {
    if (n > 0) SCANLAB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)));
  }

  // Allocates host.size() elements and uploads them.
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }

  ~DeviceBuffer() { release(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

  // Host -> device; host.size() must equal size().
  void upload(const std::vector<T>& host) {
    if (host.size() != size_) {
      throw std::length_error("DeviceBuffer::upload: " + std::to_string(host.size()) +
                              " host elements into a buffer of " + std::to_string(size_));
    }
    upload(host.data(), host.size());
  }

  // Host -> device into the first `count` elements.
  void upload(const T* host, std::size_t count) {
    check_count("upload", count);
    if (count > 0) {
      SCANLAB_CUDA_CHECK(cudaMemcpy(data_, host, count * sizeof(T), cudaMemcpyHostToDevice));
    }
  }

  // Device -> host, the whole buffer.
  std::vector<T> download() const {
    std::vector<T> host(size_);
    download(host.data(), size_);
    return host;
  }

  // Device -> host, the first `count` elements.
  void download(T* host, std::size_t count) const {
    check_count("download", count);
    if (count > 0) {
      SCANLAB_CUDA_CHECK(cudaMemcpy(host, data_, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
  }

  // Fills every element with poison<T>() (see verify.hpp), so unwritten outputs are caught.
  void fill_poison() {
    if (size_ > 0) SCANLAB_CUDA_CHECK(cudaMemset(data_, poison_byte<T>(), bytes()));
  }

  void fill_zero() {
    if (size_ > 0) SCANLAB_CUDA_CHECK(cudaMemset(data_, 0, bytes()));
  }

 private:
  void check_count(const char* what, std::size_t count) const {
    if (count > size_) {
      throw std::length_error(std::string("DeviceBuffer::") + what + ": " + std::to_string(count) +
                              " elements, buffer holds " + std::to_string(size_));
    }
  }

  void release() noexcept {
    if (data_ != nullptr) {
      // A destructor must not throw; a failing cudaFree (usually an earlier sticky error) is
      // reported instead of lost.
      const cudaError_t code = cudaFree(data_);
      if (code != cudaSuccess) {
        std::fprintf(stderr, "scanlab: cudaFree failed in ~DeviceBuffer: %s (%s)\n", cudaGetErrorName(code),
                     cudaGetErrorString(code));
      }
      data_ = nullptr;
    }
    size_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace scanlab
