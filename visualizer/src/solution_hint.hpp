#pragma once
// Where a drawing fails for want of data, a message may point at the reference solution's run
// (--solution), but only in a build that has the reference solutions: a student's repository (made
// by `./lab release`) has none, and there --solution only refuses.
#include <string>

#include "build_facts.hpp"

namespace scanlab::viz {

// `text` in a build with the reference solutions, else nothing.
inline std::string if_solutions(const char* text) { return have_solutions() ? text : ""; }

}  // namespace scanlab::viz
