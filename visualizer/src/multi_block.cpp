// Chapter 05's multi-block picture (see multi_block.hpp).
#include "multi_block.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "diagrams.hpp"
#include "solution_hint.hpp"

namespace scanlab::viz {

namespace {

constexpr double kPitch = 0.3;     // inches from one element's row to the next
constexpr double kTitleX = -1.45;  // the row titles' column
constexpr double kHeadY = 0.7;     // column heads (reduce-then-scan; scan-then-propagate has no carry row)
constexpr double kCarryY = 0.35;   // reduce-then-scan: the prefix a tile's scan starts from
const char* kInputFill = "white";
const char* kScanFill = "#d6eaf8";      // a tile scanned on its own
const char* kOutputFill = "#d5f5e3";    // final values
const char* kSumFill = "#f9e79f";       // block sums, range sums
const char* kScannedFill = "#fadbd8";   // their scan
const char* kIdentityFill = "#abebc6";  // the identity (exclusive scans start with it)
const char* kBusColor = "#e6b0aa";

double row_y(std::size_t i) { return -static_cast<double>(i) * kPitch; }

std::string cell(const std::string& phase, std::size_t tile, std::size_t i) {
  return phase + std::to_string(tile) + "_" + std::to_string(i);
}

const nlohmann::json& recorded(const Trace& t, const std::string& label, int step, unsigned block) {
  const TraceArray* a = t.find(label, step, block);
  if (a == nullptr) {
    throw std::runtime_error("the trace has no array '" + label + "' at step " + std::to_string(step) + " from block " +
                             std::to_string(block) + " (does your code still write nothing?" +
                             if_solutions(" --solution draws the reference's run") + ")");
  }
  return a->values;
}

// A value box. col numbers the picture's columns left to right (every tile has its own).
void value_cell(DotGraph& g, const std::string& id, double x, double y, const nlohmann::json& v,
                const std::string& fill, const std::string& phase, std::size_t tile, std::size_t row, long long index,
                int col) {
  Attrs a = {
      {"label", value_text(v)},       {"value", value_text(v)},     {"fillcolor", fill},         {"phase", phase},
      {"tile", std::to_string(tile)}, {"row", std::to_string(row)}, {"col", std::to_string(col)}};
  if (index >= 0) a.push_back({"index", std::to_string(index)});
  g.pinned_node(id, x, y, std::move(a));
}

void text(DotGraph& g, const std::string& id, double x, double y, const std::string& label, int size = 11) {
  g.pinned_node(id, x, y,
                {{"label", label},
                 {"shape", "plaintext"},
                 {"style", ""},
                 {"fixedsize", "false"},
                 {"fontsize", std::to_string(size)}});
}

void scan_edge(DotGraph& g, const std::string& from, const std::string& to) {
  g.edge(from, to, {{"op", "scan"}, {"color", "#aeb6bf"}, {"penwidth", "0.8"}, {"arrowsize", "0.4"}});
}

// Small boxes and thin edges: a tile is 32 rows.
void compact_style(DotGraph& g, const std::string& title) {
  common_style(g, title);
  g.graph_attr("fontsize", "14");
  g.node_defaults({{"shape", "box"},
                   {"style", "rounded,filled"},
                   {"fillcolor", "white"},
                   {"fontname", "Helvetica"},
                   {"fontsize", "10"},
                   {"width", "0.5"},
                   {"height", "0.22"},
                   {"fixedsize", "true"}});
  g.edge_defaults({{"arrowsize", "0.45"}, {"penwidth", "1.0"}});
}

const Attrs kThin = {{"penwidth", "1.0"}};  // op_edge's 1.6 is for chapter 02's larger boxes

// Reduce-then-scan: the last output of tile t - 1 (scanned by block b too).
const nlohmann::json& previous_last_output(const Trace& trace, std::size_t t, unsigned b) {
  return recorded(trace, "range_scan", static_cast<int>(t - 1), b).back();
}

struct Shape {
  std::size_t n, tile, tiles;
  bool inclusive;
};

Shape shape_of(const Trace& trace) {
  if (trace.meta.value("chapter", "") != "05_multi_block") throw std::runtime_error("not a chapter 05 trace");
  if (trace.meta.value("op", "") != "plus") {
    throw std::runtime_error("the picture draws sums (--op plus); this trace has --op " + trace.meta.value("op", "?"));
  }
  Shape s;
  s.n = trace.meta.value("n", std::size_t(0));
  s.tile = trace.meta.value("tile", std::size_t(0));
  if (s.tile == 0) throw std::runtime_error("the trace's meta line has no tile size");
  s.tiles = (s.n + s.tile - 1) / s.tile;
  s.inclusive = trace.meta.value("kind", "inclusive") == "inclusive";
  if (s.tiles < 2) throw std::runtime_error("one tile has no block sums to draw: use n > " + std::to_string(s.tile));
  if (s.tiles > static_cast<std::size_t>(kMultiBlockMaxTiles)) {
    throw std::runtime_error(std::to_string(s.tiles) + " tiles do not fit a page; the picture draws at most " +
                             std::to_string(kMultiBlockMaxTiles) +
                             " (n <= " + std::to_string(kMultiBlockMaxTiles * s.tile) + ")");
  }
  return s;
}

std::size_t valid_in(const Shape& s, std::size_t t) { return std::min(s.tile, s.n - t * s.tile); }

std::string what(const Shape& s) {
  return std::to_string(s.n) + " elements in " + std::to_string(s.tiles) + " tiles of " + std::to_string(s.tile) +
         ", " + (s.inclusive ? "inclusive" : "exclusive") + " sum";
}

std::string tile_head(const Shape& s, std::size_t t) {
  const std::size_t first = t * s.tile;
  return "tile " + std::to_string(t) + ": elements " + std::to_string(first) + "-" +
         std::to_string(first + valid_in(s, t) - 1);
}

// ---- scan-then-propagate ------------------------------------------------------------------------
// Per tile, columns input | tile scan | output, and right of the output a bus that carries the
// tile's scanned block sum to every element (the uniform add). Below: the block sums (level 1's
// input) and their exclusive scan (level 1's tile scan).

constexpr double kStpBand = 3.3;  // inches from one tile's columns to the next's
constexpr double kStpScanX = 0.95, kStpOutX = 2.05, kStpBusX = 2.55, kStpHeadY = 0.4;

DotGraph scan_then_propagate(const Trace& trace, const Shape& s) {
  DotGraph g("multi_block_scan_then_propagate");
  compact_style(g, "Scan-then-propagate: " + what(s) +
                       "\n1. each block scans its tile on its own   2. the block sums are scanned (exclusively,"
                       " one level up)\n3. the uniform add: tile t >= 1 gets its scanned block sum added on the"
                       " left of every element\nred: combined by +   pink: the scanned block sum, carried   dotted:"
                       " unchanged   grey: the tile's own scan (chapter 04)");
  const nlohmann::json& sums = recorded(trace, "tile_in", 1, 0);       // level 1 scans the block sums...
  const nlohmann::json& scanned = recorded(trace, "tile_scan", 1, 0);  // ...exclusively
  if (sums.size() != s.tiles || scanned.size() != s.tiles) {
    throw std::runtime_error("level 1 of the trace does not hold one block sum per tile");
  }
  const double sum_y = row_y(s.tile) - 0.35;
  const double scanned_y = sum_y - 0.85;
  text(g, "title_sum", kTitleX, sum_y, "block sums\n(tile totals)");
  text(g, "title_scanned", kTitleX, scanned_y, "block sums, scanned\n(level 1, exclusive)");
  for (std::size_t t = 0; t < s.tiles; ++t) {
    const double x = static_cast<double>(t) * kStpBand;
    const int col = static_cast<int>(t) * 3;
    const std::size_t valid = valid_in(s, t);
    const nlohmann::json& in = recorded(trace, "tile_in", 0, static_cast<unsigned>(t));
    const nlohmann::json& scan = recorded(trace, "tile_scan", 0, static_cast<unsigned>(t));
    // Tile 0 has nothing on its left: the add kernel's block b handles tile b + 1.
    const nlohmann::json& out = t == 0 ? scan : recorded(trace, "uniform_add", 0, static_cast<unsigned>(t - 1));
    if (in.size() != valid || scan.size() != valid || out.size() != valid) {
      throw std::runtime_error("tile " + std::to_string(t) + " of the trace does not hold " + std::to_string(valid) +
                               " values");
    }
    text(g, cell("head", t, 0), x + kStpScanX, kStpHeadY + 0.35, tile_head(s, t), 12);
    text(g, cell("head", t, 1), x, kStpHeadY, "input", 10);
    text(g, cell("head", t, 2), x + kStpScanX, kStpHeadY, "tile scan", 10);
    text(g, cell("head", t, 3), x + kStpOutX, kStpHeadY, t == 0 ? "output" : "prefix + scan", 10);
    for (std::size_t i = 0; i < valid; ++i) {
      const long long index = static_cast<long long>(t * s.tile + i);
      const bool identity = !s.inclusive && i == 0;
      value_cell(g, cell("in", t, i), x, row_y(i), in[i], kInputFill, "input", t, i, index, col);
      value_cell(g, cell("scan", t, i), x + kStpScanX, row_y(i), scan[i], identity ? kIdentityFill : kScanFill,
                 "tile_scan", t, i, index, col + 1);
      value_cell(g, cell("out", t, i), x + kStpOutX, row_y(i), out[i], kOutputFill, "output", t, i, index, col + 2);
      scan_edge(g, cell("in", t, i), cell("scan", t, i));
      op_edge(g, cell("scan", t, i), cell("out", t, i), t == 0 ? "keep" : "add", kThin);
    }
    // The tile's total: the last element of its inclusive scan (exclusive: that plus the last input).
    const std::string last_scan = cell("scan", t, valid - 1);
    value_cell(g, cell("sum", t, 0), x + kStpScanX, sum_y, sums[t], kSumFill, "block_sum", t, 0, -1, col + 1);
    op_edge(g, last_scan, cell("sum", t, 0), s.inclusive ? "keep" : "add", kThin);
    if (!s.inclusive) op_edge(g, cell("in", t, valid - 1), cell("sum", t, 0), "add", kThin);
    // Level 1: scanned[t] = scanned[t - 1] + sums[t - 1]; scanned[0] is the identity.
    value_cell(g, cell("scanned", t, 0), x + kStpBusX, scanned_y, scanned[t], t == 0 ? kIdentityFill : kScannedFill,
               "scanned_sum", t, 0, -1, col + 2);
    if (t > 0) {
      op_edge(g, cell("scanned", t - 1, 0), cell("scanned", t, 0), "add", kThin);
      op_edge(g, cell("sum", t - 1, 0), cell("scanned", t, 0), "add", kThin);
      // The bus: the value the add kernel read (add_prefix), up the tile and into every element.
      const nlohmann::json& prefix = recorded(trace, "add_prefix", 0, static_cast<unsigned>(t - 1)).at(0);
      std::string below = cell("scanned", t, 0);
      for (std::size_t i = valid; i-- > 0;) {
        const std::string bus = cell("bus", t, i);
        g.pinned_node(bus, x + kStpBusX, row_y(i),
                      {{"shape", "point"},
                       {"width", "0.04"},
                       {"height", "0.04"},
                       {"color", kBusColor},
                       {"label", ""},
                       {"value", value_text(prefix)},
                       {"phase", "add_prefix"},
                       {"tile", std::to_string(t)},
                       {"row", std::to_string(i)}});
        op_edge(g, below, bus, "keep", {{"style", "solid"}, {"color", kBusColor}, {"penwidth", "2"}});
        op_edge(g, bus, cell("out", t, i), "add", kThin);
        below = bus;
      }
    }
  }
  return g;
}

// ---- reduce-then-scan ---------------------------------------------------------------------------
// Per tile, columns input | output (the range scan) and above the output the prefix the tile's scan
// starts from: its block's spine value for a block's first tile, else the previous tile's last
// output. Below: the range sums (one per block) and the spine (their exclusive scan).

constexpr double kRtsBand = 3.0;
constexpr double kRtsOutX = 1.15, kRtsSpineX = 1.75, kRtsCarryX = 2.35;

// The prefix a block carries from tile t - 1 to tile t: from below tile t - 1's last output (that
// output, plus its input when exclusive) along a channel right of that tile, up and over to tile
// t's carry node; so the long line runs between the tiles, not across them.
void carry_path(DotGraph& g, const Shape& s, std::size_t t, const nlohmann::json& carry) {
  const std::size_t last = valid_in(s, t - 1) - 1;
  const double x = static_cast<double>(t - 1) * kRtsBand;
  const double points[][2] = {
      {x + kRtsOutX, row_y(last + 1)}, {x + kRtsCarryX, row_y(last + 1)}, {x + kRtsCarryX, kCarryY}};
  const Attrs line = {{"style", "solid"}, {"color", kBusColor}, {"arrowhead", "none"}};
  std::string from;
  for (int p = 0; p < 3; ++p) {
    const std::string id = cell("carry_path", t, static_cast<std::size_t>(p));
    g.pinned_node(id, points[p][0], points[p][1],
                  {{"shape", "point"},
                   {"width", "0.04"},
                   {"height", "0.04"},
                   {"color", kBusColor},
                   {"label", ""},
                   {"value", value_text(carry)},
                   {"phase", "carry_path"},
                   {"tile", std::to_string(t)}});
    if (p == 0) {
      op_edge(g, cell("out", t - 1, last), id, s.inclusive ? "keep" : "add",
              s.inclusive ? line : Attrs{{"penwidth", "1.0"}});
      if (!s.inclusive) op_edge(g, cell("in", t - 1, last), id, "add", {{"penwidth", "1.0"}});
    } else {
      op_edge(g, from, id, "keep", line);
    }
    from = id;
  }
  op_edge(g, from, cell("carry", t, 0), "keep", {{"style", "solid"}, {"color", kBusColor}});
}

DotGraph reduce_then_scan(const Trace& trace, const Shape& s) {
  // The input is not recorded per tile (the reduce only reads it): the driver's result line has it.
  const std::vector<nlohmann::json> results = trace.lines_of("result");
  if (results.empty() || !results[0].contains("input")) {
    throw std::runtime_error("the trace has no result line with the input (an integer sum run has one)");
  }
  const nlohmann::json& input = results[0]["input"];
  if (input.size() != s.n) throw std::runtime_error("the trace's result line does not hold n inputs");
  std::vector<unsigned> block_of(s.tiles, ~0u);
  for (const TraceArray& a : trace.arrays) {
    if (a.label == "range_scan" && a.step >= 0 && static_cast<std::size_t>(a.step) < s.tiles)
      block_of[a.step] = a.block;
  }
  for (std::size_t t = 0; t < s.tiles; ++t) {
    if (block_of[t] == ~0u) throw std::runtime_error("the trace has no range_scan of tile " + std::to_string(t));
  }
  const std::size_t blocks = block_of.back() + 1;
  const nlohmann::json& spine = recorded(trace, "spine", 1, 0);
  if (spine.size() != blocks) throw std::runtime_error("the spine does not hold one value per block");

  DotGraph g("multi_block_reduce_then_scan");
  compact_style(g, "Reduce-then-scan: " + what(s) + ", " + std::to_string(blocks) +
                       " blocks\n1. each block reduces its range of tiles   2. one block scans the range sums (the"
                       " spine)\n3. each block scans its tiles again, from its spine value, carrying the prefix from"
                       " tile to tile\nred: combined by +   pink lines: copied   grey: reduced, or scanned within"
                       " the tile");
  const double sum_y = row_y(s.tile) - 0.35;
  const double spine_y = sum_y - 0.85;
  text(g, "title_sum", kTitleX, sum_y, "range sums\n(one per block)");
  text(g, "title_spine", kTitleX, spine_y, "spine: range sums,\nscanned (exclusive)");
  for (std::size_t t = 0; t < s.tiles; ++t) {
    const double x = static_cast<double>(t) * kRtsBand;
    const int col = static_cast<int>(t) * 3;
    const std::size_t valid = valid_in(s, t);
    const unsigned b = block_of[t];
    const bool first_of_block = t == 0 || block_of[t - 1] != b;
    const nlohmann::json& out = recorded(trace, "range_scan", static_cast<int>(t), b);
    if (out.size() != valid) {
      throw std::runtime_error("tile " + std::to_string(t) + " of the trace does not hold " + std::to_string(valid) +
                               " values");
    }
    text(g, cell("head", t, 0), x + 0.8, kHeadY + 0.45, tile_head(s, t) + "\nscanned by block " + std::to_string(b),
         12);
    text(g, cell("head", t, 1), x, kHeadY, "input", 10);
    text(g, cell("head", t, 2), x + kRtsOutX, kHeadY, "range scan", 10);
    // The carry: what the block's running prefix held when this tile's scan began. Only the spine
    // value is recorded; later tiles' carries are read off the outputs: the previous tile's last
    // inclusive value, or (exclusive) this tile's first value, which is the carry itself.
    const nlohmann::json& carry = first_of_block ? spine[b] : s.inclusive ? previous_last_output(trace, t, b) : out[0];
    value_cell(g, cell("carry", t, 0), x + kRtsSpineX, kCarryY, carry, kScannedFill, "carry", t, 0, -1, col + 2);
    if (!first_of_block) carry_path(g, s, t, carry);
    for (std::size_t i = 0; i < valid; ++i) {
      const long long index = static_cast<long long>(t * s.tile + i);
      value_cell(g, cell("in", t, i), x, row_y(i), input[t * s.tile + i], kInputFill, "input", t, i, index, col);
      value_cell(g, cell("out", t, i), x + kRtsOutX, row_y(i), out[i], kOutputFill, "output", t, i, index, col + 1);
      scan_edge(g, cell("in", t, i), cell("out", t, i));
    }
    g.edge(cell("carry", t, 0), cell("out", t, 0),
           {{"op", "seed"}, {"color", "#c0392b"}, {"penwidth", "1.0"}, {"arrowsize", "0.45"}});
    if (first_of_block) {
      // The range sum under the block's first tile, the spine value under its carry.
      const nlohmann::json& range_sum = recorded(trace, "range_sum", 0, b).at(0);
      value_cell(g, cell("range", b, 0), x, sum_y, range_sum, kSumFill, "range_sum", b, 0, -1, col);
      value_cell(g, cell("spine", b, 0), x + kRtsSpineX, spine_y, spine[b], b == 0 ? kIdentityFill : kScannedFill,
                 "spine", b, 0, -1, col + 2);
      op_edge(g, cell("spine", b, 0), cell("carry", t, 0), "keep", {{"style", "solid"}, {"color", kBusColor}});
      if (b > 0) {
        op_edge(g, cell("spine", b - 1, 0), cell("spine", b, 0), "add", kThin);
        op_edge(g, cell("range", b - 1, 0), cell("spine", b, 0), "add", kThin);
      }
    }
    g.edge(cell("in", t, valid - 1), cell("range", b, 0),
           {{"op", "reduce"}, {"color", "#aeb6bf"}, {"style", "dashed"}, {"penwidth", "0.8"}});
  }
  return g;
}

}  // namespace

DotGraph multi_block_scan(const Trace& trace) {
  const Shape s = shape_of(trace);
  const std::string algorithm = trace.meta.value("algorithm", "");
  if (algorithm == "scan-then-propagate") return scan_then_propagate(trace, s);
  if (algorithm == "reduce-then-scan") return reduce_then_scan(trace, s);
  throw std::runtime_error("the trace's algorithm '" + algorithm +
                           "' is neither scan-then-propagate nor reduce-then-scan");
}

}  // namespace scanlab::viz
