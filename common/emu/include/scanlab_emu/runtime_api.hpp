// The part of the CUDA runtime API that the lab uses, implemented by the emulator
// (common/emu/src/runtime_api.cpp). Kernel launches run synchronously on the calling thread, so
// streams and events only order host work; a failed kernel reports its error at the next
// synchronizing call (cudaDeviceSynchronize, cudaMemcpy, ...) and through cudaGetLastError.
// Unlike a GPU's, the emulator's launch errors are not sticky: after they are read, the next launch runs.
#pragma once
#include <cstddef>
#include "scanlab_emu/types.hpp"

const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);

cudaError_t cudaMalloc(void** ptr, size_t bytes);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, size_t bytes);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream = nullptr);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);

cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// As in CUDA's cuda_runtime.h: typed overloads so `cudaMalloc(&int_ptr, bytes)` compiles.
template <class T>
cudaError_t cudaMalloc(T** ptr, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
template <class T>
cudaError_t cudaMallocHost(T** ptr, size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}

namespace scanlab_emu::detail {
cudaError_t func_set_attribute(const void* func, cudaFuncAttribute attr, int value);
cudaError_t occupancy_max_active_blocks(int* blocks, const void* func, int block_size, size_t dynamic_smem);
}  // namespace scanlab_emu::detail

// Kernels are ordinary functions on the emulator; these take any function pointer.
template <class F>
cudaError_t cudaFuncSetAttribute(F* func, cudaFuncAttribute attr, int value) {
  return scanlab_emu::detail::func_set_attribute(reinterpret_cast<const void*>(func), attr, value);
}
template <class F>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, F* func, int block_size, size_t dynamic_smem) {
  return scanlab_emu::detail::occupancy_max_active_blocks(blocks, reinterpret_cast<const void*>(func), block_size,
                                                          dynamic_smem);
}

// __device__ globals are ordinary globals on the emulator.
template <class T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, size_t bytes, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  if (offset + bytes > sizeof(T)) return cudaErrorInvalidValue;
  return cudaMemcpy(reinterpret_cast<char*>(&symbol) + offset, src, bytes, kind);
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t bytes, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  if (offset + bytes > sizeof(T)) return cudaErrorInvalidValue;
  return cudaMemcpy(dst, reinterpret_cast<const char*>(&symbol) + offset, bytes, kind);
}
