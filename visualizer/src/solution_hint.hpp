#pragma once
// Where a drawing fails for want of data, a message may point at the reference solution's run
// (--solution), but only in a build that has the reference solutions: a student's repository (made
// by `./lab release`) has none, and there --solution only refuses. visualizer/CMakeLists.txt sets
// SCANLAB_VIZ_HAVE_SOLUTIONS from SCANLAB_HAVE_SOLUTIONS.
#ifndef SCANLAB_VIZ_HAVE_SOLUTIONS
#define SCANLAB_VIZ_HAVE_SOLUTIONS 1
#endif

#include <string>

namespace scanlab::viz {

inline constexpr bool kHaveSolutions = SCANLAB_VIZ_HAVE_SOLUTIONS != 0;

// `text` in a build with the reference solutions, else nothing.
inline std::string if_solutions(const char* text) { return kHaveSolutions ? text : ""; }

}  // namespace scanlab::viz
