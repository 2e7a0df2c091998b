// Chapter 07's look-back snapshots (see lookback_snapshots.hpp).
#include "lookback_snapshots.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <stdexcept>

#include "solution_hint.hpp"

namespace scanlab::viz {

namespace {

const char* kFlagNames[] = {"X", "A", "P"};
const char* kFlagFill[] = {"#eaecee", "#f9e79f", "#abebc6"};
constexpr double kColumn = 0.8;
constexpr double kRow = 0.6;

long long field(const nlohmann::json& e, int i) { return e["fields"][i].get<long long>(); }
bool is_protocol(const std::string& label) {
  return label == "word" || label == "value" || label == "flag" || label == "read";
}
std::string opt_text(const std::optional<long long>& v) { return v ? std::to_string(*v) : "-"; }

int tile_count(const Trace& trace) {
  long long tiles = trace.meta.value("tiles", 0LL);
  for (const nlohmann::json& e : trace.events) tiles = std::max<long long>(tiles, e["step"].get<long long>() + 1);
  return static_cast<int>(tiles);
}

}  // namespace

std::vector<TileDescriptor> lookback_state(const Trace& trace, long long at) {
  std::vector<TileDescriptor> tiles(static_cast<std::size_t>(tile_count(trace)));
  for (const nlohmann::json& e : trace.events) {
    const long long seq = e["seq"].get<long long>();
    if (at >= 0 && seq > at) break;
    const std::string label = e["label"].get<std::string>();
    const long long t = e["step"].get<long long>();
    if (t < 0 || t >= static_cast<long long>(tiles.size())) continue;
    TileDescriptor& d = tiles[static_cast<std::size_t>(t)];
    if (label == "word") {  // fused: flag and value at once
      d.flag = static_cast<int>(field(e, 0));
      (d.flag == 2 ? d.inclusive : d.aggregate) = field(e, 1);
      if (d.flag == 2 && t == 0) d.aggregate = field(e, 1);
    } else if (label == "value") {
      (field(e, 0) == 2 ? d.inclusive : d.aggregate) = field(e, 1);
    } else if (label == "flag") {
      d.flag = static_cast<int>(field(e, 0));
    } else if (label == "read") {
      d.reads.push_back({field(e, 0), static_cast<int>(field(e, 1)), field(e, 2), seq});
    }
  }
  return tiles;
}

std::vector<long long> lookback_steps(const Trace& trace) {
  std::vector<long long> steps;
  for (const nlohmann::json& e : trace.events) {
    if (is_protocol(e["label"].get<std::string>())) steps.push_back(e["seq"].get<long long>());
  }
  return steps;
}

std::vector<int> lookback_depths(const Trace& trace) {
  const std::vector<TileDescriptor> tiles = lookback_state(trace, -1);
  std::vector<int> depths;
  for (std::size_t t = 1; t < tiles.size(); ++t) {
    long long nearest = -1;
    for (const LookbackRead& r : tiles[t].reads) {
      if (r.status == 2) nearest = std::max(nearest, r.predecessor);
    }
    if (nearest >= 0) depths.push_back(static_cast<int>(static_cast<long long>(t) - nearest));
  }
  return depths;
}

std::string lookback_state_text(const std::vector<TileDescriptor>& tiles) {
  std::string flags, aggregates, inclusives;
  for (const TileDescriptor& d : tiles) {
    flags += std::string(flags.empty() ? "" : " ") + kFlagNames[d.flag];
    aggregates += (aggregates.empty() ? "" : " ") + opt_text(d.aggregate);
    inclusives += (inclusives.empty() ? "" : " ") + opt_text(d.inclusive);
  }
  return flags + " | " + aggregates + " | " + inclusives;
}

DotGraph lookback_snapshot(const Trace& trace, long long at, const std::string& title) {
  const std::vector<TileDescriptor> tiles = lookback_state(trace, at);
  DotGraph g("lookback");
  g.graph_attr("label", title);
  g.graph_attr("labelloc", "t");
  g.graph_attr("fontname", "Helvetica");
  g.graph_attr("fontsize", "15");
  g.graph_attr("bgcolor", "white");
  g.graph_attr("splines", "curved");
  g.graph_attr("outputorder", "edgesfirst");
  g.node_defaults({{"shape", "box"},
                   {"style", "filled"},
                   {"fillcolor", "white"},
                   {"fontname", "Helvetica"},
                   {"fontsize", "12"},
                   {"width", "0.7"},
                   {"height", "0.45"},
                   {"fixedsize", "true"}});
  g.edge_defaults({{"arrowsize", "0.6"}, {"penwidth", "1.3"}});
  const char* rows[] = {"Partition ID", "Flag", "Aggregate", "Inclusive prefix"};
  for (int r = 0; r < 4; ++r) {
    g.pinned_node("title" + std::to_string(r), -1.3, -r * kRow,
                  {{"label", rows[r]}, {"shape", "plaintext"}, {"style", ""}, {"width", "1.5"}});
  }
  for (std::size_t t = 0; t < tiles.size(); ++t) {
    const TileDescriptor& d = tiles[t];
    const double x = static_cast<double>(t) * kColumn;
    const std::string ts = std::to_string(t);
    g.pinned_node("id" + ts, x, 0, {{"label", ts}, {"shape", "plaintext"}, {"style", ""}});
    g.pinned_node("flag" + ts, x, -kRow,
                  {{"label", kFlagNames[d.flag]},
                   {"fillcolor", kFlagFill[d.flag]},
                   {"tile", ts},
                   {"field", "flag"},
                   {"value", kFlagNames[d.flag]}});
    g.pinned_node(
        "agg" + ts, x, -2 * kRow,
        {{"label", opt_text(d.aggregate)}, {"tile", ts}, {"field", "aggregate"}, {"value", opt_text(d.aggregate)}});
    g.pinned_node(
        "inc" + ts, x, -3 * kRow,
        {{"label", opt_text(d.inclusive)}, {"tile", ts}, {"field", "inclusive"}, {"value", opt_text(d.inclusive)}});
    // One arrow per predecessor read (the latest status seen), under the table.
    std::map<long long, const LookbackRead*> latest;
    for (const LookbackRead& r : d.reads) latest[r.predecessor] = &r;
    for (const auto& [pred, r] : latest) {
      if (pred < 0) continue;
      const std::string ps = std::to_string(pred);
      const bool waiting = r->status == 0;
      g.edge("inc" + ts, "inc" + ps,
             {{"reader", ts},
              {"predecessor", ps},
              {"status", kFlagNames[r->status]},
              {"color", waiting ? "#c0392b" : (r->status == 2 ? "#1e8449" : "#b7950b")},
              {"style", waiting ? "dashed" : "solid"},
              {"tailport", "s"},
              {"headport", "s"}});
    }
  }
  return g;
}

DotGraph lookback_depth_histogram(const Trace& trace) {
  const std::vector<int> depths = lookback_depths(trace);
  std::map<int, int> count;
  for (int d : depths) ++count[d];
  int most = 1;
  for (const auto& [d, c] : count) most = std::max(most, c);
  DotGraph g("depths");
  g.graph_attr("label", "look-back depth: predecessors inspected until an inclusive prefix (" +
                            std::to_string(depths.size()) + " tiles)");
  g.graph_attr("labelloc", "t");
  g.graph_attr("fontname", "Helvetica");
  g.graph_attr("bgcolor", "white");
  g.node_defaults({{"shape", "box"},
                   {"style", "filled"},
                   {"fillcolor", "#5dade2"},
                   {"fontname", "Helvetica"},
                   {"fontsize", "11"},
                   {"fixedsize", "true"},
                   {"width", "0.5"}});
  double x = 0;
  for (const auto& [d, c] : count) {
    const double h = 0.2 + 2.5 * c / most;
    const std::string ds = std::to_string(d);
    g.pinned_node(
        "bar" + ds, x, h / 2,
        {{"label", std::to_string(c)}, {"height", std::to_string(h)}, {"depth", ds}, {"count", std::to_string(c)}});
    g.pinned_node("axis" + ds, x, -0.25, {{"label", ds}, {"shape", "plaintext"}, {"style", ""}, {"height", "0.3"}});
    x += 0.65;
  }
  return g;
}

std::vector<std::string> lookback_program_args(const LookbackVizOptions& o, const std::string& trace_path) {
  if (o.schedule == "fig6") return {"--fig6", "--trace", trace_path, "-q"};
  std::vector<std::string> args = {
      "--tile",   "small",   "--variant", o.variant, "-n",     std::to_string(o.n),   "--emu-schedule",
      o.schedule, "--trace", trace_path,  "-q",      "--seed", std::to_string(o.seed)};
  if (o.resident > 0) {
    args.push_back("--emu-resident");
    args.push_back(std::to_string(o.resident));
  }
  return args;
}

std::vector<std::string> draw_lookback(const std::string& trace_path, long long at, const std::string& out_dir) {
  const Trace trace = read_trace(trace_path);
  if (trace.meta.value("chapter", "") != "07_decoupled_lookback") {
    throw std::runtime_error(trace_path + " is not a chapter 07 trace");
  }
  const std::vector<long long> steps = lookback_steps(trace);
  if (steps.empty())
    throw std::runtime_error(trace_path + " has no look-back events: no tile published or read a descriptor" +
                             if_solutions(" (--solution draws the reference's run)"));
  if (at < 0) at = trace.meta.contains("fig6_seq") ? trace.meta["fig6_seq"].get<long long>() : steps.back();
  std::cout << "chapter 07: trace " << trace_path << " (" << steps.size() << " protocol steps, "
            << trace.meta.value("variant", "") << ", " << trace.meta.value("backend", "") << ")\n";
  std::cout << "  at step " << at << ": " << lookback_state_text(lookback_state(trace, at)) << "\n";
  std::vector<std::string> files =
      write_and_render(lookback_snapshot(trace, at, "descriptors at step " + std::to_string(at)), out_dir, "snapshot");
  const std::size_t frames = std::min<std::size_t>(8, steps.size());
  for (std::size_t f = 0; f < frames; ++f) {
    const long long s = steps[(steps.size() - 1) * (f + 1) / frames];
    char name[32];
    std::snprintf(name, sizeof name, "snapshot_%02zu", f + 1);
    for (const std::string& w :
         write_and_render(lookback_snapshot(trace, s, "descriptors at step " + std::to_string(s)), out_dir, name)) {
      files.push_back(w);
    }
  }
  std::cout << "  look-back depths:";
  for (int d : lookback_depths(trace)) std::cout << " " << d;
  std::cout << "\n";
  for (const std::string& w : write_and_render(lookback_depth_histogram(trace), out_dir, "depth_histogram")) {
    files.push_back(w);
  }
  return files;
}

}  // namespace scanlab::viz
