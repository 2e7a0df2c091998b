// scanlab's CPU SIMT emulator stands in for the CUDA runtime: a .cu file that includes
// <cuda_runtime.h> gets the emulator's types, runtime API and device intrinsics instead.
#pragma once
#ifndef SCANLAB_EMU
#define SCANLAB_EMU 1
#endif
#include "scanlab_emu/types.hpp"
#include "scanlab_emu/runtime_api.hpp"
#include "scanlab_emu/device.hpp"
#include "scanlab_emu/launch.hpp"
#include "scanlab_emu/options.hpp"
#include "scanlab_emu/diagnostics.hpp"
