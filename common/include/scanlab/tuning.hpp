// scanlab/tuning.hpp: the per-GPU tuning file that `./lab tune` writes and chapters 07 and 11 read
// at run time (host only, no CUDA).
//
// A single-pass scan's best tile shape and poll schedule depend on the GPU (its memory latency, how
// many tiles fit on an SM, how far L2 is). The chapters carry defaults measured on one GPU; `./lab
// tune` measures the alternatives on the GPU it runs on (scanlab_bench --tune) and keeps the best
// here, one entry per GPU model and chapter:
//
//   { "scanlab_tuning": 1,
//     "gpus": { "NVIDIA H100 80GB HBM3": {
//        "07_decoupled_lookback": { "shape": "128x32", "first_poll_ns": 2800, "poll_every_ns": 900,
//                                   "tuned": "2026-11-26 12:00 UTC", "gain": 1.012, ... } } } }
//
// The file is $SCANLAB_TUNING when that is set, else $XDG_CONFIG_HOME/scanlab/tuning.json (by
// default ~/.config/scanlab/tuning.json). No file, or no entry for this GPU: the built-in defaults.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

namespace scanlab {

inline constexpr int kTuningFormat = 1;

// One chapter's choice on one GPU. `shape` names one of the chapter's tuned shapes ("128x32"); the
// chapter checks that it knows it.
struct ScanTuning {
  std::string shape;
  unsigned first_poll_ns = 0;
  unsigned poll_every_ns = 0;
  std::string tuned;  // when (UTC), as written by the tuner
  double gain = 1.0;  // default time / tuned time, geometric mean over the sizes tuned at
};

// Where the tuning file is: $SCANLAB_TUNING, else $XDG_CONFIG_HOME/scanlab/tuning.json, else
// $HOME/.config/scanlab/tuning.json; empty when none of these is set.
inline std::string tuning_file_path() {
  if (const char* p = std::getenv("SCANLAB_TUNING"); p != nullptr && *p != '\0') return p;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x != nullptr && *x != '\0') {
    return std::string(x) + "/scanlab/tuning.json";
  }
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0')
    return std::string(h) + "/.config/scanlab/tuning.json";
  return std::string();
}

namespace tuning_detail {

[[noreturn]] inline void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("tuning file " + path + ": " + what +
                           " (run ./lab tune again, or delete the file to use the built-in defaults)");
}

// The whole file, checked for its format; an empty object when the file does not exist.
inline nlohmann::json read_file(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return nlohmann::json::object();
  std::ifstream f(path);
  if (!f) fail(path, "cannot be read");
  nlohmann::json j = nlohmann::json::parse(f, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) fail(path, "is not valid JSON");
  if (!j.is_object() || !j.contains("scanlab_tuning") || j["scanlab_tuning"] != kTuningFormat) {
    fail(path, "is not a scanlab tuning file of format " + std::to_string(kTuningFormat));
  }
  if (!j.contains("gpus") || !j["gpus"].is_object()) fail(path, "has no \"gpus\" object");
  return j;
}

inline unsigned read_ns(const std::string& path, const nlohmann::json& entry, const char* key) {
  const auto it = entry.find(key);
  if (it == entry.end() || !it->is_number_unsigned() || *it > 1000000u) {
    fail(path, std::string("\"") + key + "\" must be a whole number of nanoseconds from 0 to 1000000");
  }
  return it->get<unsigned>();
}

}  // namespace tuning_detail

// The tuning of `chapter` ("07_decoupled_lookback") on the GPU named `device` (cudaDeviceProp::name),
// from the file at `path`; nullopt when the file or the entry is not there. A file that is there but
// malformed is an error (std::runtime_error saying what is wrong), never a silent default.
inline std::optional<ScanTuning> load_scan_tuning(const std::string& path, const std::string& device,
                                                  const std::string& chapter) {
  const nlohmann::json j = tuning_detail::read_file(path);
  if (!j.contains("gpus") || !j["gpus"].contains(device)) return std::nullopt;
  const nlohmann::json& gpu = j["gpus"][device];
  if (!gpu.is_object()) tuning_detail::fail(path, "the entry of " + device + " is not an object");
  if (!gpu.contains(chapter)) return std::nullopt;
  const nlohmann::json& e = gpu[chapter];
  if (!e.is_object() || !e.contains("shape") || !e["shape"].is_string()) {
    tuning_detail::fail(path, chapter + " on " + device + " has no \"shape\" string");
  }
  ScanTuning t;
  t.shape = e["shape"].get<std::string>();
  t.first_poll_ns = tuning_detail::read_ns(path, e, "first_poll_ns");
  t.poll_every_ns = tuning_detail::read_ns(path, e, "poll_every_ns");
  if (e.contains("tuned") && e["tuned"].is_string()) t.tuned = e["tuned"].get<std::string>();
  if (e.contains("gain") && e["gain"].is_number()) t.gain = e["gain"].get<double>();
  return t;
}

// Writes (or replaces) the entry of `chapter` on `device`, keeping every other entry of the file.
// `evidence` (the measurements behind the choice) is stored beside it for the reader.
inline void save_scan_tuning(const std::string& path, const std::string& device, const std::string& chapter,
                             const ScanTuning& t, const nlohmann::json& evidence = nlohmann::json::object()) {
  if (path.empty()) throw std::runtime_error("no place for the tuning file: set SCANLAB_TUNING or HOME");
  nlohmann::json j = tuning_detail::read_file(path);
  j["scanlab_tuning"] = kTuningFormat;
  if (!j.contains("gpus")) j["gpus"] = nlohmann::json::object();
  nlohmann::json e = evidence;
  e["shape"] = t.shape;
  e["first_poll_ns"] = t.first_poll_ns;
  e["poll_every_ns"] = t.poll_every_ns;
  e["tuned"] = t.tuned;
  e["gain"] = t.gain;
  j["gpus"][device][chapter] = e;
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  // Write a sibling and rename it over the file: a tuner stopped halfway leaves the old file whole.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!f) throw std::runtime_error("cannot write the tuning file " + tmp);
    f << j.dump(2) << "\n";
    if (!f) throw std::runtime_error("cannot write the tuning file " + tmp);
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot replace the tuning file " + path + ": " + ec.message());
}

}  // namespace scanlab
