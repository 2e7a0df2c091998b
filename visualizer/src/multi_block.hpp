// Chapter 05's multi-block picture, after GPU Gems 3, Fig. 39-6 (Harris, Sengupta, Owens): the
// input cut into tiles, each tile scanned on its own, the block sums, their scan one level up, and
// the uniform add that gives every tile everything to its left. Drawn from a traced run of
// ch05_multi_block_solution (labels: book/docs/traces.md), with every value the kernels
// recorded; reduce-then-scan (Merrill and Garland, section 2) is drawn the same way: range sums,
// the spine, and each range's scan seeded with its spine value.
//
// The picture is transposed: a tile is a band of columns (input, tile scan, output) and its
// elements run down the rows, so that 32-element tiles fit a page. Value nodes carry, for the
// tests (which read them back with Graphviz's parser): value, row, col (as every diagram), phase
// (input, tile_scan, output, block_sum, scanned_sum, add_prefix, carry, range_sum, spine), tile
// or block, and index (the element's position in the whole array). Edges carry op: "add" (the
// target is the sum of its add sources), "keep" (a copy), "scan" (the element went into its
// tile's scan), "reduce" (the tile went into a range's sum), "seed" (the prefix a range scan
// starts from).
#pragma once

#include "dot.hpp"
#include "trace_io.hpp"

namespace scanlab::viz {

// Tiles the picture draws at most; more do not fit a page.
constexpr int kMultiBlockMaxTiles = 8;

// The trace's algorithm (its meta line says which): scan-then-propagate or reduce-then-scan.
// Throws std::runtime_error when the trace lacks a record the picture needs, or is not a sum.
DotGraph multi_block_scan(const Trace& trace);

}  // namespace scanlab::viz
