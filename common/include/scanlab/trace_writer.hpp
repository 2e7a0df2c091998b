// scanlab/trace_writer.hpp: writes a TraceBuffer's records as JSON lines (book/docs/traces.md).
//
// One JSON object per line, so a trace can be read with any JSON library, grepped and diffed:
//   {"type":"meta","format":"scanlab-trace","version":1,...}   first line, with the caller's fields
//   {"type":"array","seq":..,"label":..,"step":..,"block":..,"thread":..,"elem":"int32","count":..,"values":[..]}
//   {"type":"event","seq":..,"label":..,"step":..,"block":..,"thread":..,"fields":[..],<named fields>}
//   any line the host adds with line() (for example the emulator's bank-conflict data)
//   {"type":"end","records":..,"dropped":..,"truncated":..}   last line
// Host only; include it from a driver, not from a kernel header, and link the scanlab_driver
// library, which writes the lines (scanlab/json.hpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "scanlab/json.hpp"
#include "scanlab/trace.hpp"

namespace scanlab {

inline const char* to_string(TraceType t) {
  switch (t) {
    case TraceType::int32: return "int32";
    case TraceType::uint32: return "uint32";
    case TraceType::int64: return "int64";
    case TraceType::uint64: return "uint64";
    case TraceType::float32: return "float32";
    case TraceType::float64: return "float64";
    case TraceType::affine_uint32: return "affine<uint32>";
    case TraceType::affine_int32: return "affine<int32>";
    case TraceType::affine_float32: return "affine<float32>";
    default: return "words32";
  }
}

namespace trace_detail {

template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// One element as JSON: a number, or [a, b] for an affine map.
inline Json element_json(TraceType t, const unsigned char* p, std::uint32_t elem_bytes) {
  switch (t) {
    case TraceType::int32: return load<std::int32_t>(p);
    case TraceType::uint32: return load<std::uint32_t>(p);
    case TraceType::int64: return load<std::int64_t>(p);
    case TraceType::uint64: return load<std::uint64_t>(p);
    case TraceType::float32: return load<float>(p);
    case TraceType::float64: return load<double>(p);
    case TraceType::affine_uint32: return Json::array_of({load<std::uint32_t>(p), load<std::uint32_t>(p + 4)});
    case TraceType::affine_int32: return Json::array_of({load<std::int32_t>(p), load<std::int32_t>(p + 4)});
    case TraceType::affine_float32: return Json::array_of({load<float>(p), load<float>(p + 4)});
    default: {
      Json words = Json::array();
      for (std::uint32_t b = 0; b + 4 <= elem_bytes; b += 4) words.push_back(load<std::uint32_t>(p + b));
      return words;
    }
  }
}

inline std::string label_of(const TraceRecord& r) { return std::string(r.label, strnlen(r.label, sizeof(r.label))); }

}  // namespace trace_detail

class TraceWriter {
 public:
  // Opens `path` and writes the meta line: {"type":"meta","format":"scanlab-trace","version":1}
  // plus every field of `meta` (chapter, backend, input, ...) except those three keys.
  TraceWriter(const std::string& path, const Json& meta) : file_(path), out_(&file_) {
    if (!file_) throw std::runtime_error("cannot write the trace file '" + path + "'");
    start(meta);
  }
  // Writes to a stream the caller owns.
  TraceWriter(std::ostream& out, const Json& meta) : out_(&out) { start(meta); }

  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter() {
    if (!finished_) {
      try {
        finish();
      } catch (...) {
      }
    }
  }

  // Events with this label get their fields also written under these names.
  void name_fields(const std::string& label, std::vector<std::string> names) { field_names_[label] = std::move(names); }

  // Appends every record of the buffer (downloading it), in sequence order.
  void records(const TraceBuffer& buffer) { records(buffer.download()); }

  void records(const TraceBuffer::Snapshot& s) {
    for (const TraceRecord& r : s.records) {
      Json j;
      const std::string label = trace_detail::label_of(r);
      j["type"] = r.kind == static_cast<std::uint32_t>(TraceKind::array) ? "array" : "event";
      j["seq"] = r.seq;
      j["label"] = label;
      j["step"] = r.step;
      j["block"] = r.block;
      j["thread"] = r.thread;
      if (r.kind == static_cast<std::uint32_t>(TraceKind::array)) {
        const TraceType t = static_cast<TraceType>(r.type);
        j["elem"] = to_string(t);
        j["count"] = r.count;
        Json values = Json::array();
        for (std::uint64_t i = 0; i < r.count; ++i) {
          const std::uint64_t at = r.data_offset + i * r.elem_bytes;
          if (at + r.elem_bytes > s.arena.size()) break;
          values.push_back(trace_detail::element_json(t, s.arena.data() + at, r.elem_bytes));
        }
        j["values"] = std::move(values);
        if (r.count < r.requested) j["truncated_from"] = r.requested;
      } else {
        j["fields"] = Json::array_of({r.fields[0], r.fields[1], r.fields[2], r.fields[3]});
        auto named = field_names_.find(label);
        if (named != field_names_.end()) {
          for (std::size_t f = 0; f < named->second.size() && f < kTraceEventFields; ++f) {
            j[named->second[f]] = r.fields[f];
          }
        }
      }
      line(j);
      ++records_;
    }
    dropped_ += s.dropped;
    truncated_ += s.truncated;
  }

  // Any other line (must be a JSON object with a "type"), its keys in the order they were set.
  void line(const Json& object) { *out_ << object.dump_in_order() << "\n"; }

  // Writes the end line and flushes; a writer not finished by hand finishes when destroyed.
  void finish() {
    if (finished_) return;
    finished_ = true;
    line({{"type", "end"}, {"records", records_}, {"dropped", dropped_}, {"truncated", truncated_}});
    out_->flush();
    if (!*out_) throw std::runtime_error("writing the trace failed");
  }

 private:
  // The caller's fields follow the three that say what the file is, keys sorted at every level.
  void start(const Json& meta) {
    Json j = {{"type", "meta"}, {"format", "scanlab-trace"}, {"version", 1}};
    const Json sorted_meta = meta.sorted();  // alive for the loop: members() refers into it
    for (const auto& [key, value] : sorted_meta.members()) {
      // The first three keys say what the file is; the caller cannot change them.
      if (key != "type" && key != "format" && key != "version") j[key] = value;
    }
    line(j);
  }

  std::ofstream file_;
  std::ostream* out_;
  std::map<std::string, std::vector<std::string>> field_names_;
  std::uint64_t records_ = 0, dropped_ = 0, truncated_ = 0;
  bool finished_ = false;
};

// The end of a traced run's file: a "result" line, with the input and the output when they are
// plain numbers (kWithValues), so that a reader can check the last recorded level against what was
// stored; then the writer's end record.
template <bool kWithValues, class In, class Out>
void finish_trace_with_result(TraceWriter& writer, const std::vector<In>& in, const std::vector<Out>& got) {
  Json result = {{"type", "result"}, {"label", "output"}};
  if constexpr (kWithValues) {
    result["input"] = in;
    result["values"] = got;
  }
  writer.line(result.sorted());  // its keys sorted, as this line has always been written
  writer.finish();
}

}  // namespace scanlab
