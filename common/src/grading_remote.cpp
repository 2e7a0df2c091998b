// The checker's runner process: started on the first call, fed requests on its standard input,
// read on a private reply pipe (its descriptor 3), its standard output and error kept as a log.
// See scanlab/grading/remote.hpp.
#include "scanlab/grading/remote.hpp"

#include <chrono>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace scanlab::grading {

const char* to_string(Reply::Status s) {
  switch (s) {
    case Reply::Status::ok: return "ok";
    case Reply::Status::invalid_argument: return "invalid argument";
    case Reply::Status::error: return "error";
    case Reply::Status::crashed: return "crashed";
    case Reply::Status::timed_out: return "timed out";
    case Reply::Status::not_started: return "did not start";
    case Reply::Status::garbled: return "garbled reply";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kLogKeepBytes = 16 * 1024;

std::vector<std::string> runner_command() {
  const char* env = std::getenv("SCANLAB_GRADE_RUNNER");
  if (env == nullptr || *env == '\0') {
    throw std::runtime_error("SCANLAB_GRADE_RUNNER is not set: it names the runner to grade, as a JSON "
                             "array of strings (ctest and lab grade set it)");
  }
  json argv;
  try {
    argv = json::parse(env);
  } catch (const json::exception&) {
    argv = json::array({env});  // a plain path
  }
  if (!argv.is_array() || argv.empty()) throw std::runtime_error("SCANLAB_GRADE_RUNNER: not a command");
  std::vector<std::string> out;
  for (const auto& a : argv) {
    if (!a.is_string()) throw std::runtime_error("SCANLAB_GRADE_RUNNER: every argument must be a string");
    out.push_back(a.get<std::string>());
  }
  return out;
}

double call_timeout_seconds() {
  const char* env = std::getenv("SCANLAB_GRADE_CALL_TIMEOUT");
  if (env == nullptr || *env == '\0') return 60.0;
  char* end = nullptr;
  const double t = std::strtod(env, &end);
  if (end == env || *end != '\0' || !(t > 0) || t > 86400) {
    throw std::runtime_error(std::string("SCANLAB_GRADE_CALL_TIMEOUT='") + env + "' is not a time in seconds");
  }
  return t;
}

// A signal by number and name, and what it most often means in a student's code. The emulator runs
// kernels as ordinary code, so there a wild index crashes the runner instead of failing a CUDA call.
std::string describe_signal(int sig) {
  const char* name = strsignal(sig);
  std::string s = "signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  if (sig == SIGSEGV || sig == SIGBUS) {
    s += ": the program touched memory outside its arrays; on the emulator an index or offset far past an array's end "
         "does this";
  }
  return s;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + describe_signal(WTERMSIG(status));
  const int code = WEXITSTATUS(status);
  if (code == 124) return "was ended by the emulator's watchdog (a deadlock, or a loop that never ends)";
  // A shell or the sandbox between the checker and the runner reports a runner that a signal ended
  // as 128 + the signal's number.
  if (code > 128 && code < 128 + NSIG) {
    return "exited with status " + std::to_string(code) + " (128 + " + describe_signal(code - 128) + ")";
  }
  return "exited with status " + std::to_string(code);
}

class Runner {
 public:
  ~Runner() { stop(); }

  Reply call(const json& request) {
    if (pid_ < 0) {
      // A runner that did not start once (it exits, crashes or hangs before main) will not start
      // the next time either: every later call fails at once with the same reason.
      if (!start_failure_.ok()) return start_failure_;
      Reply started = start();
      if (!started.ok()) {
        start_failure_ = started;
        return started;
      }
    }
    return exchange(request);
  }

  const std::string& backend() {
    if (pid_ < 0 && !tried_) {
      Reply started = start();
      if (!started.ok()) start_failure_ = started;
    }
    return backend_;
  }

  std::string log_tail(std::size_t lines) const {
    std::size_t end = log_.size();
    while (end > 0 && log_[end - 1] == '\n') --end;
    std::size_t begin = end;
    for (std::size_t found = 0; begin > 0; --begin) {
      if (log_[begin - 1] == '\n' && ++found == lines) break;
    }
    // A multi-line report (the emulator's deadlock report: its first line says what happened, the
    // indented ones where each block waits) is kept from its first line on, up to 16 more lines.
    for (std::size_t more = 0; begin > 0 && log_[begin] == ' ' && more < 16; ++more) {
      std::size_t prev = begin - 1;
      while (prev > 0 && log_[prev - 1] != '\n') --prev;
      begin = prev;
    }
    return log_.substr(begin, end - begin);
  }

 private:
  Reply start() {
    tried_ = true;
    std::signal(SIGPIPE, SIG_IGN);  // a runner that dies must not take the checker with it
    log_.clear();
    std::vector<std::string> argv;
    try {
      argv = runner_command();
      timeout_ = call_timeout_seconds();
    } catch (const std::exception& e) {
      return failure(Reply::Status::not_started, e.what());
    }
    int to_child[2], from_child[2], log[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0 || pipe2(log, O_CLOEXEC) != 0) {
      return failure(Reply::Status::not_started, std::string("pipe: ") + std::strerror(errno));
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) return failure(Reply::Status::not_started, std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      // The child: its own process group (so a time-out stops all of it), gone with the checker.
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);
      dup2(to_child[0], 0);
      dup2(log[1], 1);
      dup2(log[1], 2);
      dup2(from_child[1], 3);  // dup2 clears close-on-exec on the copies
      execvp(args[0], args.data());
      const char msg[] = "scanlab checker: cannot start the runner\n";
      (void)!write(2, msg, sizeof msg - 1);
      _exit(127);
    }
    pid_ = pid;
    setpgid(pid, pid);
    close(to_child[0]);
    close(from_child[1]);
    close(log[1]);
    to_ = to_child[1];
    from_ = from_child[0];
    log_fd_ = log[0];
    for (int fd : {to_, from_, log_fd_}) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    Reply hello = exchange(json{{"entry", "hello"}});
    if (!hello.ok()) {
      hello.status = hello.status == Reply::Status::timed_out ? hello.status : Reply::Status::not_started;
      hello.message = "the runner did not start: " + hello.message;
      return hello;
    }
    backend_ = hello.info.value("backend", std::string("?"));
    return hello;
  }

  static Reply ok_reply() {
    Reply r;
    r.status = Reply::Status::ok;
    return r;
  }

  Reply failure(Reply::Status status, const std::string& message) {
    Reply r;
    r.status = status;
    r.message = message;
    return r;
  }

  void drain_log() {
    char buf[4096];
    for (;;) {
      const ssize_t n = read(log_fd_, buf, sizeof buf);
      if (n <= 0) break;
      log_.append(buf, static_cast<std::size_t>(n));
    }
    if (log_.size() > 2 * kLogKeepBytes) log_.erase(0, log_.size() - kLogKeepBytes);
  }

  // Sends the request and reads the reply, both within the time limit.
  Reply exchange(const json& request) {
    const std::vector<std::uint8_t> out = wire::frame(request);
    std::vector<std::uint8_t> in;
    std::size_t sent = 0;
    std::uint64_t want = 8;  // the header first, then the body
    bool have_header = false;
    const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_);
    while (true) {
      if (have_header && in.size() == want) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        stop();
        return failure(Reply::Status::timed_out,
                       "no reply within " + format_seconds(timeout_) +
                           " (a deadlock or a loop that never ends?); the runner was stopped");
      }
      pollfd fds[3] = {{from_, POLLIN, 0}, {log_fd_, POLLIN, 0}, {to_, POLLOUT, 0}};
      const nfds_t count = sent < out.size() ? 3 : 2;
      const int ready = poll(fds, count, static_cast<int>(std::min<long long>(left, 1000)));
      if (ready < 0 && errno != EINTR) return lost("poll failed");
      if (fds[1].revents) drain_log();
      if (count == 3 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
        const ssize_t w = write(to_, out.data() + sent, out.size() - sent);
        if (w > 0) sent += static_cast<std::size_t>(w);
        else if (w < 0 && errno != EAGAIN && errno != EINTR) return lost("stopped reading its requests");
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        std::uint8_t buf[65536];
        const std::size_t room = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof buf, want - in.size()));
        const ssize_t r = read(from_, buf, room);
        if (r == 0) return lost("stopped");
        if (r < 0 && errno != EAGAIN && errno != EINTR) return lost("stopped");
        if (r > 0) in.insert(in.end(), buf, buf + r);
        if (!have_header && in.size() == 8) {
          want = wire::frame_length(in.data());
          if (want > wire::kMaxMessageBytes) return garbled("a reply of " + std::to_string(want) + " bytes");
          in.clear();
          have_header = true;
        }
      }
    }
    drain_log();
    json reply;
    try {
      reply = wire::parse_body(in);
    } catch (const std::exception& e) {
      return garbled(e.what());
    }
    if (!reply.is_object() || !reply.contains("status") || !reply["status"].is_string()) {
      return garbled("a reply without a status");
    }
    Reply r;
    const std::string status = reply["status"].get<std::string>();
    r.status = status == "ok"                 ? Reply::Status::ok
               : status == "invalid_argument" ? Reply::Status::invalid_argument
                                              : Reply::Status::error;
    if (reply.contains("message") && reply["message"].is_string()) r.message = reply["message"].get<std::string>();
    if (reply.contains("outputs") && reply["outputs"].is_array()) r.outputs = reply["outputs"];
    if (reply.contains("info") && reply["info"].is_object()) r.info = reply["info"];
    if (r.status == Reply::Status::error && r.message.empty()) r.message = "the runner reported an error";
    if (reply.value("fatal", false)) stop();
    return r;
  }

  static std::string format_seconds(double s) {
    std::string t = std::to_string(s);
    t.erase(t.find_last_not_of('0') + 1);
    if (!t.empty() && t.back() == '.') t.pop_back();
    return t + " s";
  }

  Reply lost(const std::string& what) {
    const int status = stop();
    std::string message = "the runner " + what;
    if (status >= 0) message = "the runner " + describe_exit(status);
    return failure(Reply::Status::crashed, message);
  }

  Reply garbled(const std::string& what) {
    stop();
    return failure(Reply::Status::garbled, "the runner's reply was not one: " + what + " (the runner was stopped)");
  }

  // Stops the runner's whole process group; returns its wait status (-1 if it was not running).
  int stop() {
    if (pid_ < 0) return -1;
    drain_log();
    int status = -1;
    // Give a runner that is already exiting a moment to finish, then stop the group for good.
    for (int i = 0; i < 20; ++i) {
      const pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) break;
      if (i == 19 || done < 0) {
        kill(-pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      usleep(5000);
    }
    kill(-pid_, SIGKILL);  // anything it left behind in its group
    drain_log();
    for (int* fd : {&to_, &from_, &log_fd_}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
    pid_ = -1;
    return status;
  }

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1, log_fd_ = -1;
  double timeout_ = 60;
  bool tried_ = false;
  Reply start_failure_ = ok_reply();
  std::string backend_;
  std::string log_;
};

Runner& runner() {
  static Runner r;
  return r;
}

}  // namespace

Reply call_runner(const json& request) { return runner().call(request); }

const std::string& runner_backend() { return runner().backend(); }

std::string runner_log_tail(std::size_t lines) { return runner().log_tail(lines); }

}  // namespace scanlab::grading
