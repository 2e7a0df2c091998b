// apply_tuning (scanlab/driver/tuning_options.hpp): the tuning file read with nlohmann-json,
// compiled once into the scanlab_driver library instead of in chapters 07 and 11's drivers.
#include "scanlab/driver/tuning_options.hpp"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "scanlab/tuning.hpp"

namespace scanlab {

std::string apply_tuning(TunableOptions& o, const std::string& chapter, bool shape_applies, bool emulator,
                         const std::string& device) {
  const bool named = o.tuning != "auto" && o.tuning != "off";
  if (emulator) return named ? "tuning: the emulator runs the built-in shape (tuning files are for GPUs)" : "";
  if (o.tuning == "off") return std::string();
  const std::string path = named ? o.tuning : tuning_file_path();
  if (named && !std::filesystem::exists(path)) throw std::runtime_error("--tuning " + path + ": no such file");
  const std::optional<ScanTuning> t = load_scan_tuning(path, device, chapter);
  if (!t) return named ? "tuning: " + path + " has no entry for " + device + "; built-in defaults" : std::string();
  std::string used;
  if (!o.tile_option->given() && shape_applies) {
    o.tile = t->shape;
    used += "tile " + t->shape;
  }
  if (!o.first_option->given()) o.first_poll_ns = t->first_poll_ns;
  if (!o.every_option->given()) o.poll_every_ns = t->poll_every_ns;
  if (!o.first_option->given() || !o.every_option->given()) {
    used += std::string(used.empty() ? "" : ", ") + "polls " + std::to_string(o.first_poll_ns) + "/" +
            std::to_string(o.poll_every_ns) + " ns";
  }
  if (used.empty()) return "tuning: " + path + " not used (the command line sets the tile and the polls)";
  return "tuning: " + used + " from " + path + " (tuned " + t->tuned + " on this GPU model)";
}

}  // namespace scanlab
