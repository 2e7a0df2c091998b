// A small Graphviz DOT builder and renderer, shared by every diagram of the visualizer (trees,
// step diagrams, bank maps; chapter 07's look-back snapshots can use the same pieces).
//
// Diagrams here are grids: each node gets a pinned position (pos="x,y!", inches) and is laid out
// with neato, so rows and columns stay where the algorithm puts them, whatever the edges.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace scanlab::viz {

using Attrs = std::vector<std::pair<std::string, std::string>>;

// "text" with DOT's escapes (a quoted ID or attribute value).
std::string dot_quote(const std::string& text);

// Text for an HTML-like label (<...>): & < > " escaped.
std::string html_escape(const std::string& text);

class DotGraph {
 public:
  explicit DotGraph(std::string name, bool directed = true);

  void graph_attr(const std::string& key, const std::string& value);
  void node_defaults(Attrs attrs);
  void edge_defaults(Attrs attrs);

  // A node; the attribute `label` is written as an HTML-like label when it starts with '<'.
  void node(const std::string& id, Attrs attrs);
  // A node pinned at (x, y) inches (y grows upwards, as in Graphviz).
  void pinned_node(const std::string& id, double x, double y, Attrs attrs);
  void edge(const std::string& from, const std::string& to, Attrs attrs = {});

  std::string str() const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  bool directed_;
  Attrs graph_, node_defaults_, edge_defaults_;
  std::vector<std::string> body_;
};

// Renders DOT text to `path` in `format` ("svg", "png") with the layout engine `engine` ("neato"
// for pinned grids, "dot" for layered graphs): through libgvc when the visualizer was built with
// it, else by running Graphviz's `dot` program. Throws std::runtime_error on failure.
void render(const std::string& dot_text, const std::string& engine, const std::string& format, const std::string& path);

// Writes name.dot, name.svg and name.png into dir; returns the three paths.
std::vector<std::string> write_and_render(const DotGraph& g, const std::string& dir, const std::string& name,
                                          const std::string& engine = "neato");

// How the renderer was built: "libgvc" or "dot program".
const char* renderer_name();

}  // namespace scanlab::viz
