// scanlab/hd.hpp: SCANLAB_HD marks functions that run on both the host and the device.
//
// One kernel source serves three compilers: nvcc (the GPU build), g++ on the emulator build (where
// SCANLAB_EMU is defined and <cuda_runtime.h> is the emulator's own header) and plain g++ for
// host-only code such as the oracle and its tests, where __host__/__device__ do not exist at all.
#pragma once

#if defined(__CUDACC__)
#define SCANLAB_HD __host__ __device__
#define SCANLAB_HD_INLINE __host__ __device__ __forceinline__
#else
// The emulator defines __host__ and __device__ as empty macros, so expanding to nothing here means
// the same thing there, and it keeps these headers independent of whether <cuda_runtime.h> has
// been included yet (on the emulator) or exists at all (plain host builds).
#define SCANLAB_HD
#define SCANLAB_HD_INLINE inline
#endif
