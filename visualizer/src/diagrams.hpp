// The chapters' diagrams, as DOT graphs built from traces (see dot.hpp for the grid conventions).
//
// Every value node carries, besides its label, machine-readable attributes that the tests read back
// with Graphviz's own parser: value (the value's text), row, col; every edge carries op ("add",
// "swap", "keep", "clear"). Bank-map nodes carry slot / bank / words.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "dot.hpp"
#include "trace_io.hpp"

namespace scanlab::viz {

// The look the diagrams share (title on top, rounded value boxes, edges under the nodes) and an
// edge drawn by what the operator did there: op = "add" (red), "swap" (blue), "keep" (dotted
// grey, the value is unchanged), "clear" (dashed green). `extra` attributes override the style.
// Also used by the diagram files of later chapters (multi_block.cpp).
void common_style(DotGraph& g, const std::string& title);
void op_edge(DotGraph& g, const std::string& from, const std::string& to, const std::string& op, Attrs extra = {});

// Chapter 01: one row per Hillis-Steele step (row 0 = input; row k after the step with offset
// 2^(k-1)), an edge for each operator application.
DotGraph hillis_steele_steps(const std::vector<std::vector<nlohmann::json>>& rows, std::size_t n);

// Chapter 02: the up-sweep (input, then the array after each level) and the down-sweep (the
// array after the up-sweep, the cleared root, then each level), from a traced run's arrays
// labelled input / up / clear / down. n = elements actually scanned (slots past n are padding).
DotGraph blelloch_upsweep(const Trace& trace);
DotGraph blelloch_downsweep(const Trace& trace);

// Chapter 03: the per-level conflict degrees before and after padding (emulator data, "banks"
// lines), and warp 0's index-to-bank map for one level ("bank_map" line), both layouts.
DotGraph bank_levels_table(const Trace& report);
DotGraph bank_map(const nlohmann::json& map_line, const nlohmann::json& banks_line);

}  // namespace scanlab::viz
