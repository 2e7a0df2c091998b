// Reading scanlab's JSON-lines traces (format: book/docs/traces.md; writer:
// common/include/scanlab/trace_writer.hpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace scanlab::viz {

struct TraceArray {
  std::string label;
  int step = 0;
  long long seq = 0;
  unsigned block = 0;
  nlohmann::json values;  // numbers, or [a, b] pairs for affine maps
};

struct Trace {
  nlohmann::json meta;                 // the first line
  std::vector<TraceArray> arrays;      // "array" lines, in sequence order
  std::vector<nlohmann::json> events;  // "event" lines
  std::vector<nlohmann::json> other;   // every other line (results, bank data, ...), in file order
  nlohmann::json end;                  // the last line ("end"), null if missing

  // The array with this label and step recorded by `block`; nullptr when there is none.
  const TraceArray* find(const std::string& label, int step, unsigned block = 0) const;
  // The other lines whose "type" is `type`.
  std::vector<nlohmann::json> lines_of(const std::string& type) const;
};

// Throws std::runtime_error naming the file and line when a line is not JSON or the meta line is
// missing.
Trace read_trace(const std::string& path);

// A value as a diagram shows it: 25, -3, 0.5, (3,1).
std::string value_text(const nlohmann::json& v);

}  // namespace scanlab::viz
