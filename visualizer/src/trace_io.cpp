// Reading scanlab's JSON-lines traces (see trace_io.hpp).
#include "trace_io.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace scanlab::viz {

const TraceArray* Trace::find(const std::string& label, int step, unsigned block) const {
  for (const TraceArray& a : arrays) {
    if (a.label == label && a.step == step && a.block == block) return &a;
  }
  return nullptr;
}

std::vector<nlohmann::json> Trace::lines_of(const std::string& type) const {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& j : other) {
    if (j.value("type", "") == type) out.push_back(j);
  }
  return out;
}

Trace read_trace(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot read the trace '" + path + "'");
  Trace t;
  std::string line;
  int number = 0;
  while (std::getline(file, line)) {
    ++number;
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": not JSON: " + e.what());
    }
    const std::string type = j.value("type", "");
    if (number == 1) {
      if (type != "meta" || j.value("format", "") != "scanlab-trace") {
        throw std::runtime_error(path + ": the first line is not a scanlab-trace meta line");
      }
      t.meta = j;
    } else if (type == "array") {
      TraceArray a;
      a.label = j.value("label", "");
      a.step = j.value("step", 0);
      a.seq = j.value("seq", 0LL);
      a.block = j.value("block", 0u);
      a.values = j.value("values", nlohmann::json::array());
      t.arrays.push_back(std::move(a));
    } else if (type == "event") {
      t.events.push_back(j);
    } else if (type == "end") {
      t.end = j;
    } else {
      t.other.push_back(j);
    }
  }
  if (t.meta.is_null()) throw std::runtime_error(path + ": empty trace");
  std::stable_sort(t.arrays.begin(), t.arrays.end(), [](const TraceArray& a, const TraceArray& b) {
    return a.seq < b.seq;
  });
  return t;
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_array()) {
    std::string s = "(";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + value_text(v[i]);
    return s + ")";
  }
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  if (v.is_number_unsigned()) return std::to_string(v.get<unsigned long long>());
  if (v.is_number_float()) {
    std::string s = v.dump();
    return s;
  }
  return v.dump();
}

}  // namespace scanlab::viz
