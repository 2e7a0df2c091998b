// Forwarding header: solutions/07_decoupled_lookback/decoupled_lookback.cuh includes "tile_scan.cuh",
// which lives in chapter 07's folder, on chapter 07's include path but not on this chapter's.
// Chapter 08 reuses that look-back (see lookback.cuh), so the name is resolved here.
#pragma once
#include "../07_decoupled_lookback/tile_scan.cuh"
