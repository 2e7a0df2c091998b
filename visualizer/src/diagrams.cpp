// The chapters' diagrams (see diagrams.hpp).
#include "diagrams.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "solution_hint.hpp"

namespace scanlab::viz {

namespace {

constexpr double kColumn = 0.75;  // inches between value columns
constexpr double kRow = 0.95;     // inches between rows
constexpr double kLabelX = -1.4;  // the row titles' column

const char* kAddColor = "#c0392b";
const char* kSwapColor = "#2471a3";
const char* kKeepColor = "#b3b6b7";

std::string id(const std::string& prefix, int row, std::size_t col) {
  return prefix + std::to_string(row) + "_" + std::to_string(col);
}

}  // namespace

void common_style(DotGraph& g, const std::string& title) {
  g.graph_attr("label", title);
  g.graph_attr("labelloc", "t");
  g.graph_attr("fontname", "Helvetica");
  g.graph_attr("fontsize", "16");
  g.graph_attr("splines", "line");
  g.graph_attr("outputorder", "edgesfirst");
  g.graph_attr("bgcolor", "white");
  g.node_defaults({{"shape", "box"},
                   {"style", "rounded,filled"},
                   {"fillcolor", "white"},
                   {"fontname", "Helvetica"},
                   {"fontsize", "13"},
                   {"width", "0.55"},
                   {"height", "0.4"},
                   {"fixedsize", "true"}});
  g.edge_defaults({{"arrowsize", "0.6"}, {"penwidth", "1.2"}});
}

namespace {

void row_title(DotGraph& g, const std::string& prefix, int row, const std::string& text) {
  g.pinned_node(prefix + "title" + std::to_string(row), kLabelX, -row * kRow,
                {{"label", text},
                 {"shape", "plaintext"},
                 {"style", ""},
                 {"width", "1.6"},
                 {"fontsize", "12"},
                 {"fixedsize", "false"}});
}

// One value node of a grid.
void value_node(DotGraph& g, const std::string& prefix, int row, std::size_t col, const nlohmann::json& v,
                const std::string& fill, bool padding) {
  Attrs a = {{"label", value_text(v)},
             {"value", value_text(v)},
             {"row", std::to_string(row)},
             {"col", std::to_string(col)},
             {"fillcolor", fill}};
  if (padding) {
    a.push_back({"style", "rounded,dashed,filled"});
    a.push_back({"fontcolor", "#7f8c8d"});
    a.push_back({"padding", "true"});
  }
  g.pinned_node(id(prefix, row, col), static_cast<double>(col) * kColumn, -row * kRow, std::move(a));
}

}  // namespace

void op_edge(DotGraph& g, const std::string& from, const std::string& to, const std::string& op, Attrs extra) {
  Attrs a;
  if (op == "keep") {
    a = {{"op", op}, {"color", kKeepColor}, {"style", "dotted"}, {"arrowhead", "none"}};
  } else if (op == "clear") {
    a = {{"op", op}, {"color", "#1e8449"}, {"penwidth", "1.6"}, {"style", "dashed"}};
  } else if (op == "swap") {
    a = {{"op", op}, {"color", kSwapColor}, {"penwidth", "1.6"}};
  } else {
    a = {{"op", op}, {"color", kAddColor}, {"penwidth", "1.6"}};
  }
  a.insert(a.end(), extra.begin(), extra.end());  // later attributes win in DOT
  g.edge(from, to, std::move(a));
}

namespace {

std::size_t column_labels(DotGraph& g, const std::string& prefix, int row, std::size_t m, std::size_t n) {
  for (std::size_t c = 0; c < m; ++c) {
    g.pinned_node(prefix + "col" + std::to_string(c), static_cast<double>(c) * kColumn, -row * kRow + 0.55,
                  {{"label", c < n ? "[" + std::to_string(c) + "]" : "pad"},
                   {"shape", "plaintext"},
                   {"style", ""},
                   {"fontsize", "10"},
                   {"fontcolor", "#7f8c8d"}});
  }
  return m;
}

const nlohmann::json& values_of(const Trace& t, const std::string& label, int step) {
  const TraceArray* a = t.find(label, step);
  if (a == nullptr) {
    throw std::runtime_error("the trace has no array '" + label + "' at step " + std::to_string(step) +
                             " (a traced build records it where the exercise's comments say" +
                             if_solutions("; --solution draws the reference's run") + ")");
  }
  return a->values;
}

int levels_of(std::size_t m) {
  int levels = 0;
  while ((std::size_t(1) << levels) < m) ++levels;
  return levels;
}

std::string legend(const std::string& first, bool swaps = true) {
  return first + "\nred: combined by the operator (left operand from the left)   " +
         (swaps ? "blue: copied down (the swap)   " : "") + "dotted: unchanged";
}

}  // namespace

// ---- chapter 01 ---------------------------------------------------------------------------------

DotGraph hillis_steele_steps(const std::vector<std::vector<nlohmann::json>>& rows, std::size_t n) {
  DotGraph g("hillis_steele_steps");
  common_style(
      g, legend("Hillis-Steele scan of " + std::to_string(n) + " elements: step k adds the element 2^(k-1) to the left",
                false));
  column_labels(g, "h", 0, n, n);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int row = static_cast<int>(r);
    const std::size_t offset = r == 0 ? 0 : std::size_t(1) << (r - 1);
    row_title(g, "h", row, r == 0 ? "input" : "step " + std::to_string(r) + "\noffset " + std::to_string(offset));
    for (std::size_t c = 0; c < n; ++c) {
      const bool changed = r > 0 && c >= offset;
      value_node(g, "h", row, c, rows[r][c], changed ? "#fadbd8" : "white", false);
      if (r == 0) continue;
      if (changed) {
        op_edge(g, id("h", row - 1, c - offset), id("h", row, c), "add");
        op_edge(g, id("h", row - 1, c), id("h", row, c), "add");
      } else {
        op_edge(g, id("h", row - 1, c), id("h", row, c), "keep");
      }
    }
  }
  return g;
}

// ---- chapter 02 ---------------------------------------------------------------------------------

DotGraph blelloch_upsweep(const Trace& trace) {
  const nlohmann::json& input = values_of(trace, "input", 0);
  const std::size_t m = input.size();
  const std::size_t n = trace.meta.value("n", m);
  const int levels = levels_of(m);
  DotGraph g("blelloch_upsweep");
  common_style(g, legend("Blelloch up-sweep (reduce), " + std::to_string(n) + " elements in a tile of " +
                         std::to_string(m) + ": level k combines pairs 2^(k-1) apart; the root ends with the total"));
  column_labels(g, "u", 0, m, n);
  row_title(g, "u", 0, "input");
  for (std::size_t c = 0; c < m; ++c) value_node(g, "u", 0, c, input[c], "white", c >= n);
  for (int k = 1; k <= levels; ++k) {
    const nlohmann::json& values = values_of(trace, "up", k);
    const std::size_t stride = std::size_t(1) << (k - 1);
    row_title(g, "u", k, "up " + std::to_string(k) + "\nstride " + std::to_string(stride));
    std::set<std::size_t> written;
    for (std::size_t t = 0; t < m / (2 * stride); ++t) {
      const std::size_t left = stride * (2 * t + 1) - 1;
      const std::size_t right = stride * (2 * t + 2) - 1;
      written.insert(right);
      op_edge(g, id("u", k - 1, left), id("u", k, right), "add");
      op_edge(g, id("u", k - 1, right), id("u", k, right), "add");
    }
    for (std::size_t c = 0; c < m; ++c) {
      const bool root = k == levels && c == m - 1;
      value_node(g, "u", k, c, values[c], root ? "#f9e79f" : written.count(c) ? "#fadbd8" : "white", c >= n);
      if (!written.count(c)) op_edge(g, id("u", k - 1, c), id("u", k, c), "keep");
    }
  }
  return g;
}

DotGraph blelloch_downsweep(const Trace& trace) {
  const nlohmann::json& input = values_of(trace, "input", 0);
  const std::size_t m = input.size();
  const std::size_t n = trace.meta.value("n", m);
  const int levels = levels_of(m);
  DotGraph g("blelloch_downsweep");
  common_style(g, legend("Blelloch down-sweep, " + std::to_string(n) + " elements in a tile of " + std::to_string(m) +
                         ": the root becomes the identity, then each node passes its value "
                         "left and (value op left child) right"));
  column_labels(g, "d", 0, m, n);
  const nlohmann::json& reduced = values_of(trace, "up", levels);
  const nlohmann::json& cleared = values_of(trace, "clear", levels);
  row_title(g, "d", 0, "after the\nup-sweep");
  row_title(g, "d", 1, "root :=\nidentity");
  for (std::size_t c = 0; c < m; ++c) {
    value_node(g, "d", 0, c, reduced[c], c == m - 1 ? "#f9e79f" : "white", c >= n);
    value_node(g, "d", 1, c, cleared[c], c == m - 1 ? "#d5f5e3" : "white", c >= n);
    op_edge(g, id("d", 0, c), id("d", 1, c), c == m - 1 ? "clear" : "keep");
  }
  for (int k = 1; k <= levels; ++k) {
    const int row = k + 1;
    const nlohmann::json& values = values_of(trace, "down", k);
    const std::size_t stride = m >> k;
    row_title(g, "d", row, "down " + std::to_string(k) + "\nstride " + std::to_string(stride));
    std::set<std::size_t> written;
    for (std::size_t t = 0; t < (std::size_t(1) << (k - 1)); ++t) {
      const std::size_t left = stride * (2 * t + 1) - 1;
      const std::size_t right = stride * (2 * t + 2) - 1;
      written.insert(left);
      written.insert(right);
      op_edge(g, id("d", row - 1, right), id("d", row, left), "swap");
      op_edge(g, id("d", row - 1, right), id("d", row, right), "add");
      op_edge(g, id("d", row - 1, left), id("d", row, right), "add");
    }
    for (std::size_t c = 0; c < m; ++c) {
      const bool last = k == levels;
      value_node(g, "d", row, c, values[c], last && c < n ? "#d5f5e3" : written.count(c) ? "#d6eaf8" : "white", c >= n);
      if (!written.count(c)) op_edge(g, id("d", row - 1, c), id("d", row, c), "keep");
    }
  }
  return g;
}

// ---- chapter 03 ---------------------------------------------------------------------------------

namespace {

std::string degree_fill(unsigned degree) {
  if (degree <= 1) return "#d5f5e3";
  if (degree == 2) return "#fcf3cf";
  if (degree <= 8) return "#f5cba7";
  return "#f1948a";
}

}  // namespace

DotGraph bank_levels_table(const Trace& report) {
  const std::vector<nlohmann::json> rows = report.lines_of("banks");
  if (rows.empty()) throw std::runtime_error("the bank report has no \"banks\" lines");
  DotGraph g("bank_levels");
  const int n = report.meta.value("n", 0);
  common_style(g, "Worst bank-conflict degree per tree level, one block scanning " + std::to_string(n) +
                      " int32 (measured by the emulator, 32 banks of 4 bytes)");
  g.graph_attr("splines", "false");
  const double w[] = {1.0, 0.8, 0.8, 1.1, 1.1};  // column widths, inches
  const char* heads[] = {"level", "stride", "active", "unpadded", "padded"};
  double x = 0;
  for (int c = 0; c < 5; ++c) {
    g.pinned_node("head" + std::to_string(c), x + w[c] / 2, 0,
                  {{"label", heads[c]},
                   {"shape", "box"},
                   {"style", "filled"},
                   {"fillcolor", "#d5d8dc"},
                   {"width", std::to_string(w[c])},
                   {"height", "0.32"}});
    x += w[c];
  }
  int r = 1;
  for (const nlohmann::json& row : rows) {
    const std::string level = row.value("level", "");
    const unsigned before = row["unpadded"].value("worst", 0u);
    const unsigned after = row["padded"].value("worst", 0u);
    const std::string cells[] = {level, row.value("stride", 0) ? std::to_string(row.value("stride", 0)) : "-",
                                 std::to_string(row.value("active", 0)), std::to_string(before) + "-way",
                                 std::to_string(after) + "-way"};
    x = 0;
    for (int c = 0; c < 5; ++c) {
      Attrs a = {{"label", cells[c]}, {"shape", "box"},   {"style", "filled"}, {"width", std::to_string(w[c])},
                 {"height", "0.3"},   {"fontsize", "12"}, {"level", level}};
      if (c == 3 || c == 4) {
        const unsigned d = c == 3 ? before : after;
        a.push_back({"fillcolor", degree_fill(d)});
        a.push_back({"layout_name", c == 3 ? "unpadded" : "padded"});
        a.push_back({"degree", std::to_string(d)});
      } else {
        a.push_back({"fillcolor", "white"});
      }
      g.pinned_node("cell" + std::to_string(r) + "_" + std::to_string(c), x + w[c] / 2, -r * 0.3, std::move(a));
      x += w[c];
    }
    ++r;
  }
  return g;
}

DotGraph bank_map(const nlohmann::json& map_line, const nlohmann::json& banks_line) {
  const std::string level = map_line.value("level", "");
  const int stride = map_line.value("stride", 0);
  DotGraph g("bank_map");
  const unsigned measured_before = banks_line["unpadded"].value("worst", 0u);
  const unsigned measured_after = banks_line["padded"].value("worst", 0u);
  common_style(g, "Level \"" + level + "\"" + (stride ? " (stride " + std::to_string(stride) + ")" : "") +
                      ": warp 0's first shared access, element index -> slot -> bank = slot mod 32.\n"
                      "Emulator, whole level: unpadded " +
                      std::to_string(measured_before) + "-way, padded " + std::to_string(measured_after) +
                      "-way. Red banks hold more than one word (a conflict).");
  g.graph_attr("splines", "line");
  const double dy = 0.32;
  const char* layouts[] = {"unpadded", "padded"};
  for (int p = 0; p < 2; ++p) {
    const std::string L = layouts[p];
    const double x0 = p * 7.5;
    const nlohmann::json& lanes = map_line[L];
    std::map<int, std::set<int>> words;  // bank -> distinct slots
    for (const nlohmann::json& lane : lanes) words[lane.value("left_bank", 0)].insert(lane.value("left_slot", 0));
    g.pinned_node(L + "_title", x0 + 1.9, 0.5,
                  {{"label", L == "padded" ? "padded: slot = i + i/32 + i/1024" : "unpadded (chapter 02): slot = i"},
                   {"shape", "plaintext"},
                   {"style", ""},
                   {"fixedsize", "false"},
                   {"fontsize", "14"}});
    for (const nlohmann::json& lane : lanes) {
      const int t = lane.value("lane", 0);
      const int slot = lane.value("left_slot", 0);
      const int bank = lane.value("left_bank", 0);
      const std::string lane_id = L + "_lane" + std::to_string(t);
      g.pinned_node(lane_id, x0, -t * dy,
                    {{"label", "t" + std::to_string(t) + ": i=" + std::to_string(lane.value("left", 0)) + " -> " +
                                   std::to_string(slot)},
                     {"width", "1.7"},
                     {"height", "0.26"},
                     {"fontsize", "10"},
                     {"lane", std::to_string(t)},
                     {"slot", std::to_string(slot)},
                     {"bank", std::to_string(bank)}});
      g.edge(lane_id, L + "_bank" + std::to_string(bank),
             {{"op", "access"},
              {"color", words[bank].size() > 1 ? kAddColor : "#5d6d7e"},
              {"arrowsize", "0.4"},
              {"penwidth", "0.8"}});
    }
    for (int b = 0; b < 32; ++b) {
      const std::size_t count = words.count(b) ? words[b].size() : 0;
      g.pinned_node(L + "_bank" + std::to_string(b), x0 + 4.0, -b * dy,
                    {{"label", "bank " + std::to_string(b) + (count ? " (" + std::to_string(count) + ")" : "")},
                     {"width", "1.2"},
                     {"height", "0.26"},
                     {"fontsize", "10"},
                     {"fillcolor", count > 1    ? "#f1948a"
                                   : count == 1 ? "#d5f5e3"
                                                : "white"},
                     {"bank", std::to_string(b)},
                     {"words", std::to_string(count)},
                     {"conflict", count > 1 ? "true" : "false"}});
    }
  }
  return g;
}

}  // namespace scanlab::viz
