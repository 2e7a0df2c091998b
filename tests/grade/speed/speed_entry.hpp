// The speed runner's two sides: a chapter's entry (tests/grade/speed/NN_slug.cu) is compiled twice,
// once with the student's files (in the sandbox: SCANLAB_SPEED_SIDE=student) and once by the
// grader with solutions/ (SCANLAB_SPEED_SIDE=reference, and the lab's namespaces renamed with -D so
// that the two copies of every template and kernel do not collide), and both are linked with the
// timing main (speed_main.cu) into one program. The sides meet only through these C functions.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#ifndef SCANLAB_SPEED_SIDE
#error "compile a speed entry with -DSCANLAB_SPEED_SIDE=student or reference"
#endif
#define SCANLAB_SPEED_CAT2(a, b) a##_##b
#define SCANLAB_SPEED_CAT(a, b) SCANLAB_SPEED_CAT2(a, b)
#define SCANLAB_SPEED_FN(name) SCANLAB_SPEED_CAT(SCANLAB_SPEED_CAT(scanlab_speed, SCANLAB_SPEED_SIDE), name)

// What the main verifies the output against: "exclusive" (an exclusive sum of n int32), or
// "select_positive" (the elements above zero, in order, at the front of the output).
#define SCANLAB_SPEED_DECLARE(side)                                                                             \
  extern "C" const char* scanlab_speed_##side##_check();                                                        \
  extern "C" void* scanlab_speed_##side##_make(std::size_t n);                                                  \
  extern "C" void scanlab_speed_##side##_run(void* op, const int* in, int* out, std::size_t n, cudaStream_t s); \
  extern "C" void scanlab_speed_##side##_free(void* op);

// An entry: the check's name, a type Op whose constructor takes the largest n (its allocations,
// untimed) and whose run(in, out, n, s) does the operation as a user calls it.
#define SCANLAB_SPEED_ENTRY(check_name, Op)                                                                 \
  extern "C" const char* SCANLAB_SPEED_FN(check)() { return check_name; }                                   \
  extern "C" void* SCANLAB_SPEED_FN(make)(std::size_t n) { return new Op(n); }                              \
  extern "C" void SCANLAB_SPEED_FN(run)(void* op, const int* in, int* out, std::size_t n, cudaStream_t s) { \
    static_cast<Op*>(op)->run(in, out, n, s);                                                               \
  }                                                                                                         \
  extern "C" void SCANLAB_SPEED_FN(free)(void* op) { delete static_cast<Op*>(op); }
