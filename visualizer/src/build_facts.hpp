#pragma once
// What this build of scanlab-viz knows about the checkout it was built in. Only build_facts.cpp is
// compiled with them (visualizer/CMakeLists.txt), so that the other files compile to the same
// objects in any checkout and a second checkout's build (the release test's) finds them in ccache.

namespace scanlab::viz {

const char* emu_bin_dir();  // the emulator build's programs: <build>/bin/emu
const char* source_dir();   // the checkout
bool have_solutions();      // whether the reference solutions are here (not in a student's repository)

}  // namespace scanlab::viz
