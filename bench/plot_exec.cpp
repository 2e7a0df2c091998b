// scanlab_bench --plot: see plot_exec.hpp. Plain C++ (POSIX), built by the host compiler.
#include "plot_exec.hpp"

#include <fcntl.h>
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
    if (r->baselines.empty()) add_once(algorithms, kCubRow);
    for (const std::string& base : r->baselines) add_once(algorithms, base);
  }
  add_once(algorithms, kCopyRow);
}

namespace {

// Runs argv (argv[0] found on PATH when search_path) and returns its exit status (127: not started).
int spawn_and_wait(std::vector<std::string> args, bool search_path, bool quiet) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  std::fflush(stdout);
  pid_t pid = 0;
  const int started = search_path ? posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ)
                                  : posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool has_matplotlib(const std::string& python, bool search_path) {
  return spawn_and_wait({python, "-c", "import matplotlib"}, search_path, true) == 0;
}

}  // namespace

int draw_run(const std::string& json_path, const std::string& svg_path) {
  // The python3 the build found (Debian's, with python3-matplotlib) first; where that one has no
  // matplotlib (a GPU machine whose matplotlib lives in another environment), the python3 on PATH
  // if it has it; else the first again, and plot.py says what is missing.
  bool search_path = false;
  std::string python = kPlotPython;
  if (!has_matplotlib(python, false) && has_matplotlib("python3", true)) {
    python = "python3";
    search_path = true;
  }
  return spawn_and_wait({python, kPlotScript, json_path, "--out", svg_path}, search_path, false);
}

}  // namespace scanlab::bench
