// DOT text building and rendering for the visualizer (see dot.hpp).
#include "dot.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#if defined(SCANLAB_HAVE_GRAPHVIZ)
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#endif

namespace scanlab::viz {

std::string dot_quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {
std::string attr_list(const Attrs& attrs) {
  std::string out;
  for (const auto& [key, value] : attrs) {
    if (!out.empty()) out += ", ";
    const bool html = key == "label" && !value.empty() && value.front() == '<' && value.back() == '>';
    out += key + "=" + (html ? value : dot_quote(value));
  }
  return out;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}
}  // namespace

DotGraph::DotGraph(std::string name, bool directed) : name_(std::move(name)), directed_(directed) {}

void DotGraph::graph_attr(const std::string& key, const std::string& value) { graph_.push_back({key, value}); }
void DotGraph::node_defaults(Attrs attrs) { node_defaults_ = std::move(attrs); }
void DotGraph::edge_defaults(Attrs attrs) { edge_defaults_ = std::move(attrs); }

void DotGraph::node(const std::string& id, Attrs attrs) {
  body_.push_back("  " + dot_quote(id) + (attrs.empty() ? "" : " [" + attr_list(attrs) + "]") + ";");
}

void DotGraph::pinned_node(const std::string& id, double x, double y, Attrs attrs) {
  attrs.push_back({"pos", fmt(x) + "," + fmt(y) + "!"});
  node(id, std::move(attrs));
}

void DotGraph::edge(const std::string& from, const std::string& to, Attrs attrs) {
  body_.push_back("  " + dot_quote(from) + (directed_ ? " -> " : " -- ") + dot_quote(to) +
                  (attrs.empty() ? "" : " [" + attr_list(attrs) + "]") + ";");
}

std::string DotGraph::str() const {
  std::ostringstream os;
  os << (directed_ ? "digraph " : "graph ") << dot_quote(name_) << " {\n";
  for (const auto& [key, value] : graph_) {
    const bool html = key == "label" && !value.empty() && value.front() == '<';
    os << "  " << key << "=" << (html ? value : dot_quote(value)) << ";\n";
  }
  if (!node_defaults_.empty()) os << "  node [" << attr_list(node_defaults_) << "];\n";
  if (!edge_defaults_.empty()) os << "  edge [" << attr_list(edge_defaults_) << "];\n";
  for (const std::string& line : body_) os << line << "\n";
  os << "}\n";
  return os.str();
}

const char* renderer_name() {
#if defined(SCANLAB_HAVE_GRAPHVIZ)
  return "libgvc";
#else
  return "dot program";
#endif
}

void render(const std::string& dot_text, const std::string& engine, const std::string& format,
            const std::string& path) {
#if defined(SCANLAB_HAVE_GRAPHVIZ)
  GVC_t* gvc = gvContext();
  if (gvc == nullptr) throw std::runtime_error("graphviz: gvContext failed");
  Agraph_t* g = agmemread(dot_text.c_str());
  if (g == nullptr) {
    gvFreeContext(gvc);
    throw std::runtime_error("graphviz: cannot parse the generated DOT (a visualizer bug)");
  }
  int rc = gvLayout(gvc, g, engine.c_str());
  if (rc == 0) {
    rc = gvRenderFilename(gvc, g, format.c_str(), path.c_str());
    gvFreeLayout(gvc, g);
  }
  agclose(g);
  gvFreeContext(gvc);
  if (rc != 0) throw std::runtime_error("graphviz: rendering " + path + " (" + format + ", " + engine + ") failed");
#else
  const std::string dot_path = path + ".tmp.dot";
  {
    std::ofstream f(dot_path);
    f << dot_text;
    if (!f) throw std::runtime_error("cannot write " + dot_path);
  }
  const std::string command = "dot -K" + engine + " -T" + format + " -o " + dot_quote(path) + " " + dot_quote(dot_path);
  const int rc = std::system(command.c_str());
  std::remove(dot_path.c_str());
  if (rc != 0) throw std::runtime_error("`" + command + "` failed (is Graphviz installed?)");
#endif
}

std::vector<std::string> write_and_render(const DotGraph& g, const std::string& dir, const std::string& name,
                                          const std::string& engine) {
  const std::string base = dir + "/" + name;
  const std::string text = g.str();
  {
    std::ofstream f(base + ".dot");
    f << text;
    if (!f) throw std::runtime_error("cannot write " + base + ".dot");
  }
  render(text, engine, "svg", base + ".svg");
  render(text, engine, "png", base + ".png");
  return {base + ".dot", base + ".svg", base + ".png"};
}

}  // namespace scanlab::viz
