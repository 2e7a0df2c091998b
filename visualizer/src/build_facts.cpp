// The facts of build_facts.hpp, from definitions that visualizer/CMakeLists.txt gives this file only.
#include "build_facts.hpp"

namespace scanlab::viz {

const char* emu_bin_dir() { return SCANLAB_VIZ_EMU_BIN_DIR; }
const char* source_dir() { return SCANLAB_VIZ_SOURCE_DIR; }
bool have_solutions() { return SCANLAB_VIZ_HAVE_SOLUTIONS != 0; }

}  // namespace scanlab::viz
