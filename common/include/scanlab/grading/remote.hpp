// scanlab/grading/remote.hpp: the checker's side of grading: the runner process it talks to.
//
// The checker (a doctest program of tests/grade/) starts the runner once, on its first call, with
// the command in SCANLAB_GRADE_RUNNER: a JSON array of strings, e.g. ["/path/to/runner"], or a
// sandbox command with the runner at its end (what `lab grade` passes). Each call sends one
// request and waits, at most SCANLAB_GRADE_CALL_TIMEOUT seconds (default 60), for the reply. A
// runner that crashes, exits, hangs or answers with anything but a well-formed reply is stopped
// (its whole process group) and the call fails with the reason; the next call starts it afresh.
// The runner's standard output and error are kept as a log, shown in failure messages, and never
// read as a verdict. Host code only: the checker runs no kernel and links no CUDA.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "scanlab/grading/wire.hpp"

namespace scanlab::grading {

using wire::json;

struct Reply {
  enum class Status { ok, invalid_argument, error, crashed, timed_out, not_started, garbled };
  Status status = Status::not_started;
  std::string message;  // why it is not ok, in a sentence
  json outputs = json::array();
  json info = json::object();

  bool ok() const { return status == Status::ok; }
};

const char* to_string(Reply::Status);

// Sends a request to the runner (starting it if needed) and returns its reply or what went wrong.
Reply call_runner(const json& request);

// "emu" or "gpu": the backend of the runner (asked once); "" when the runner does not start.
const std::string& runner_backend();

// The runner's most recent output lines (its log), for a failure message; at most `lines` lines.
std::string runner_log_tail(std::size_t lines = 4);

}  // namespace scanlab::grading
