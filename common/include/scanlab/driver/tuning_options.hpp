// scanlab/driver/tuning_options.hpp: the options of the chapters whose tile shape and poll schedule
// `./lab tune` measures (07 and 11): --tile, --first-poll, --poll-every and --tuning, and how the
// tuning file (scanlab/tuning.hpp, read in common/src/tuning_options.cpp) fills in what the
// command line leaves unset.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scanlab/command_line.hpp"

namespace scanlab {

struct TunableOptions {
  std::string tile = "default";  // "default", or one of the chapter's tuned shapes ("128x24")
  unsigned first_poll_ns = 0;    // the chapter's built-in schedule until the command line or the file says
  unsigned poll_every_ns = 0;
  std::string tuning = "auto";        // the tuning file, "auto" (tuning_file_path()) or "off"
  std::optional<Option> tile_option;  // set by add_tunable_options
  std::optional<Option> first_option;
  std::optional<Option> every_option;
};

// `tiles`: the shapes the chapter can run besides "default" (its tuned shapes, and e.g. "small").
inline void add_tunable_options(CommandLine& cli, TunableOptions& o, const std::vector<std::string>& tiles,
                                const std::string& tile_help, unsigned first_poll_ns, unsigned poll_every_ns) {
  o.first_poll_ns = first_poll_ns;
  o.poll_every_ns = poll_every_ns;
  std::vector<std::string> choices = {"default"};
  choices.insert(choices.end(), tiles.begin(), tiles.end());
  o.tile_option = cli.option("--tile", o.tile, tile_help).one_of(choices).show_default();
  o.first_option =
      cli.option("--first-poll", o.first_poll_ns, "__nanosleep before a tile's first look-back read, ns (0: none)")
          .range(0u, 1000000u)
          .show_default();
  o.every_option =
      cli.option("--poll-every", o.poll_every_ns, "__nanosleep between look-back reads that find X, ns (0: spin)")
          .range(0u, 1000000u)
          .show_default();
  cli.option("--tuning", o.tuning,
             "the tile shape and poll schedule ./lab tune measured for this GPU: a tuning file, 'auto' "
             "($SCANLAB_TUNING, else ~/.config/scanlab/tuning.json, when it has this GPU) or 'off' (the "
             "built-in defaults); --tile, --first-poll and --poll-every override it")
      .show_default();
}

// After parsing: on a GPU, reads the tuning of `chapter` for this GPU and takes from it what the
// command line did not set (the tile only when `shape_applies`: the tuned shapes are built for
// some runs only). `emulator` and `device` say where the program runs (scanlab::on_emulator(),
// scanlab::backend_name()). Returns one line for the output saying what was used ("" when no file
// applies); throws std::runtime_error for a tuning file that cannot be read. Defined in
// common/src/tuning_options.cpp, which alone compiles nlohmann-json's parser for it.
std::string apply_tuning(TunableOptions& o, const std::string& chapter, bool shape_applies, bool emulator,
                         const std::string& device);

}  // namespace scanlab
