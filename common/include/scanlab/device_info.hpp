// scanlab/device_info.hpp: which backend a program runs on, for reports and benchmark files.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

#include "scanlab/cuda_check.hpp"

namespace scanlab {

// True in the CPU emulator build (SCANLAB_EMU), false when built by nvcc for a GPU.
constexpr bool on_emulator() {
#if defined(SCANLAB_EMU)
  return true;
#else
  return false;
#endif
}

// The current device's properties (checked).
inline cudaDeviceProp current_device_properties() {
  int device = 0;
  SCANLAB_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  SCANLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop;
}

// "emulator", or the GPU's name ("NVIDIA H100 80GB HBM3").
inline std::string backend_name() {
  if (on_emulator()) return "emulator";
  return current_device_properties().name;
}

// One line for report headers: "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB, 48 KiB shared/block)", or
// the emulator's own description of itself.
inline std::string device_description() {
  const cudaDeviceProp prop = current_device_properties();
  if (on_emulator()) return prop.name;  // the emulator's name already says what it models
  const double gib = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
  char mem[32];
  std::snprintf(mem, sizeof mem, "%.1f", gib);
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs, " + mem + " GiB, " +
         std::to_string(prop.sharedMemPerBlock / 1024) + " KiB shared/block)";
}

// What the programs' "backend: ..." line names: "emulator (CPU SIMT emulator)", or the GPU as
// device_description() describes it.
inline std::string backend_description() {
  if (on_emulator()) return "emulator (CPU SIMT emulator)";
  return device_description();
}

}  // namespace scanlab
