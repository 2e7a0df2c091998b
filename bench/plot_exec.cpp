// scanlab_bench --plot: see plot_exec.hpp. Plain C++ (POSIX), built by the host compiler.
#include "plot_exec.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

extern char** environ;

namespace scanlab::bench {
namespace {

// Set by bench/CMakeLists.txt: the checkout's bench/plot.py and the python3 that has matplotlib.
constexpr const char* kPlotScript = SCANLAB_PLOT_SCRIPT;
constexpr const char* kPlotPython = SCANLAB_PLOT_PYTHON;

void add_once(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

}  // namespace

std::string plot_unavailable() {
  if (access(kPlotScript, R_OK) != 0) return std::string("the plotter ") + kPlotScript + " is not there";
  if (access(kPlotPython, X_OK) != 0) return std::string("no ") + kPlotPython + " to run the plotter";
  return "";
}

std::string json_beside(const std::string& svg_path) {
  const std::string ext = ".svg";
  if (svg_path.size() > ext.size() && svg_path.compare(svg_path.size() - ext.size(), ext.size(), ext) == 0)
    return svg_path.substr(0, svg_path.size() - ext.size()) + ".json";
  return svg_path + ".json";
}

void add_plot_baselines(const Registry& reg, std::vector<std::string>& algorithms) {
  const std::vector<std::string> asked = algorithms;
  for (const std::string& name : asked) {
    const Row* r = reg.find(name);
    if (r == nullptr || name == kCopyRow || name == kCubRow) continue;
    add_once(algorithms, r->baseline.empty() ? std::string(kCubRow) : r->baseline);
  }
  add_once(algorithms, kCopyRow);
}

int draw_run(const std::string& json_path, const std::string& svg_path) {
  std::vector<std::string> args = {kPlotPython, kPlotScript, json_path, "--out", svg_path};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  pid_t pid = 0;
  if (posix_spawn(&pid, kPlotPython, nullptr, nullptr, argv.data(), environ) != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace scanlab::bench
