// The checker's side of grading against runners that misbehave: one that never answers, one that
// exits, two that crash, one that writes garbage on the reply channel, one that claims success.
// Each case runs in its own process (the checker keeps one runner per process), with
// SCANLAB_GRADE_RUNNER set by CTest (tests/common/CMakeLists.txt) and the case chosen with -tc.
#include <doctest/doctest.h>

#include <string>

#include "scanlab/grading/remote.hpp"

using scanlab::grading::call_runner;
using scanlab::grading::json;
using scanlab::grading::Reply;

namespace {
Reply ask() { return call_runner(json{{"entry", "anything"}, {"inputs", json::array()}}); }
}  // namespace

TEST_CASE("a runner that never answers is stopped at the time limit") {
  const Reply r = ask();
  CHECK(r.status == Reply::Status::timed_out);
  CHECK(r.message.find("no reply within") != std::string::npos);
}

TEST_CASE("a runner that exits before answering did not start, and stays so") {
  const Reply r = ask();
  CHECK(r.status == Reply::Status::not_started);
  CHECK(r.message.find("exited with status 7") != std::string::npos);
  CHECK(ask().status == Reply::Status::not_started);  // at once, the same reason
}

TEST_CASE("a runner that crashes is said to have crashed, with what the signal means") {
  const Reply r = ask();
  CHECK(r.status == Reply::Status::not_started);
  INFO(r.message);
  CHECK(r.message.find("was killed by signal 11") != std::string::npos);
  CHECK(r.message.find("touched memory outside its arrays") != std::string::npos);
}

TEST_CASE("a runner that crashes under a shell is said to have crashed too") {
  // The shell reports its child's signal as status 128 + 11, as the sandbox's wrapper does.
  const Reply r = ask();
  INFO(r.message);
  CHECK(r.message.find("exited with status 139 (128 + signal 11") != std::string::npos);
  CHECK(r.message.find("touched memory outside its arrays") != std::string::npos);
}

TEST_CASE("a runner that writes garbage on the reply channel gets no credit") {
  const Reply r = ask();
  CHECK_FALSE(r.ok());
  CHECK(r.status == Reply::Status::not_started);
  CHECK(r.message.find("not one") != std::string::npos);
}

TEST_CASE("a runner that prints a success on standard output is not believed") {
  // The fake runner prints doctest's success line, then exits: output is a log, not a verdict.
  const Reply r = ask();
  CHECK_FALSE(r.ok());
  CHECK(scanlab::grading::runner_log_tail().find("SUCCESS") != std::string::npos);
}
