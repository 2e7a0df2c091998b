// scanlab/grading/runner_prelude.hpp: the headers of the lab that every grading runner
// (tests/grade/NN_slug_runner.cu) includes, before the chapter's code and the student's.
//
// The grader compiles a runner for every student it grades. Its build (`lab grade`) precompiles
// this header once, with the emulator's flags (scanlab-emucc --precompile; CMake target
// scanlab_runner_prelude), and each runner's compile starts from that (-include): the same text,
// already parsed. It is made from the lab's files only and shown to a runner's build read-only, so
// nothing of a student's can change it; the student's files come after it, as they always did.
// A runner compiles the same without it (the compiler then reads these headers as text).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "scanlab/cuda_check.hpp"
#include "scanlab/device_buffer.hpp"
#include "scanlab/grading/runner.hpp"
#include "scanlab/verify.hpp"
