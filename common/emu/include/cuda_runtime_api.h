// Compatibility header: everything is in cuda_runtime.h on the emulator.
#pragma once
#include "cuda_runtime.h"
