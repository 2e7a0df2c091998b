// Chapter 08's single-pass compaction reuses chapter 07's decoupled look-back as it is: the
// reference solution's descriptors, look-back and tile ticket. This header reaches it from the
// chapter folder (on the include path of the exercise and of the solution), so a student's
// chapter 08 always builds on the working look-back, whatever state their chapter 07 is in.
#pragma once
#include "../../solutions/07_decoupled_lookback/decoupled_lookback.cuh"
