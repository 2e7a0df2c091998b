// scanlab_bench --plot: the run drawn by bench/plot.py (Python, matplotlib), the one module of the
// lab's charts, on the JSON this run wrote; `./lab plot RUN.json` draws any run the same way.
#pragma once

#include <string>
#include <vector>

#include "registry.hpp"

namespace scanlab::bench {

// "" when the plotter can run here, else why not (the script or Python is missing).
std::string plot_unavailable();

// The JSON a --plot run writes when --json names none: FILE.svg -> FILE.json.
std::string json_beside(const std::string& svg_path);

// Adds to `algorithms` what a plot draws beside the rows asked for: the copy (the roof) and the CUB
// row each of them is compared with. They are measured anyway; this also shows them in the table.
void add_plot_baselines(const Registry& reg, std::vector<std::string>& algorithms);

// Runs bench/plot.py JSON --out SVG; returns its exit status (127: it could not be started).
int draw_run(const std::string& json_path, const std::string& svg_path);

}  // namespace scanlab::bench
