// CUDA's built-in and runtime types as the emulator provides them: dim3, uint3, the vector types,
// cudaError_t (with CUDA's numeric codes), streams, events and cudaDeviceProp (the fields the lab uses).
#pragma once
#include <cstddef>
#include <cstdint>

struct uint3 {
  unsigned int x, y, z;
};
struct int3 {
  int x, y, z;
};

struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

// Vector types with CUDA's sizes and alignments (16-byte types are 16-byte aligned).
#define SCANLAB_EMU_VEC2(T, name, al) \
  struct alignas(al) name {           \
    T x, y;                           \
  };                                  \
  inline name make_##name(T x, T y) { return name{x, y}; }
#define SCANLAB_EMU_VEC4(T, name, al) \
  struct alignas(al) name {           \
    T x, y, z, w;                     \
  };                                  \
  inline name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }

SCANLAB_EMU_VEC2(char, char2, 2)
SCANLAB_EMU_VEC4(char, char4, 4)
SCANLAB_EMU_VEC2(unsigned char, uchar2, 2)
SCANLAB_EMU_VEC4(unsigned char, uchar4, 4)
SCANLAB_EMU_VEC2(short, short2, 4)
SCANLAB_EMU_VEC4(short, short4, 8)
SCANLAB_EMU_VEC2(unsigned short, ushort2, 4)
SCANLAB_EMU_VEC4(unsigned short, ushort4, 8)
SCANLAB_EMU_VEC2(int, int2, 8)
SCANLAB_EMU_VEC4(int, int4, 16)
SCANLAB_EMU_VEC2(unsigned int, uint2, 8)
SCANLAB_EMU_VEC4(unsigned int, uint4, 16)
SCANLAB_EMU_VEC2(float, float2, 8)
SCANLAB_EMU_VEC4(float, float4, 16)
SCANLAB_EMU_VEC2(long long, longlong2, 16)
SCANLAB_EMU_VEC2(unsigned long long, ulonglong2, 16)
SCANLAB_EMU_VEC2(double, double2, 16)
struct float3 {
  float x, y, z;
};
inline int3 make_int3(int x, int y, int z) { return int3{x, y, z}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
inline float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
#undef SCANLAB_EMU_VEC2
#undef SCANLAB_EMU_VEC4

// Error codes keep CUDA's numbers so that printed codes match a GPU's.
enum cudaError_t : int {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
};
using cudaError = cudaError_t;

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncAttribute : int {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

enum cudaDeviceAttr : int {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
};

struct CUstream_st;
struct CUevent_st;
using cudaStream_t = CUstream_st*;
using cudaEvent_t = CUevent_st*;
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02

// The fields of CUDA's cudaDeviceProp that describe the modelled GPU.
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  int memoryBusWidth;
  int concurrentKernels;
};
