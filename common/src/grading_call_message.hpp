// The request and the reply of one grading call (scanlab::grading::Call::Message): the JSON that a
// runner's entries read and write through Call. Only the runner library sees it; runner.hpp says
// why a runner's own translation unit does not.
#pragma once

#include "scanlab/grading/runner.hpp"
#include "scanlab/grading/wire.hpp"

namespace scanlab::grading {

struct Call::Message {
  explicit Message(const wire::json& r) : request(r) {}
  const wire::json& request;
  wire::json outputs = wire::json::array();
  wire::json info = wire::json::object();
};

}  // namespace scanlab::grading
