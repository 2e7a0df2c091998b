// scanlab/driver/scan_options.hpp: the command-line options the scan chapters share (the kind of
// scan, element types and operators, the single-pass chapters' tile order) and which of their
// combinations a driver does not run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "scanlab/command_line.hpp"
#include "scanlab/device_info.hpp"
#include "scanlab/monoid.hpp"
#include "scanlab/verify.hpp"

namespace scanlab {

// --inclusive and --exclusive: at most one of them; neither means the chapter's default kind.
struct ScanKindFlags {
  ScanKind default_kind = ScanKind::inclusive;
  bool inclusive = false;
  bool exclusive = false;
  std::optional<Option> inclusive_option;  // set by add_scan_kind_flags (a driver may exclude
  std::optional<Option> exclusive_option;  // other options with them)

  ScanKind kind() const {
    if (inclusive) return ScanKind::inclusive;
    if (exclusive) return ScanKind::exclusive;
    return default_kind;
  }
};

// The help text names the default, so it depends on which kind that is.
inline void add_scan_kind_flags(CommandLine& cli, ScanKindFlags& flags, ScanKind default_kind) {
  flags.default_kind = default_kind;
  const bool inclusive_default = default_kind == ScanKind::inclusive;
  flags.inclusive_option =
      cli.flag("--inclusive", flags.inclusive, inclusive_default ? "inclusive scan (the default)" : "inclusive scan");
  flags.exclusive_option = cli.flag(
      "--exclusive", flags.exclusive,
      inclusive_default ? "exclusive scan: out[0] = identity" : "exclusive scan: out[0] = identity (the default)");
  flags.inclusive_option->excludes(*flags.exclusive_option);
}

// --type int|float and --op plus|max|affine: the element types and operators of chapters 00-04.
inline void add_element_options(CommandLine& cli, std::string& type, std::string& op) {
  cli.option("--type", type, "element type").one_of({"int", "float"}).show_default();
  cli.option("--op", op, "operator: plus, max, or affine (composition of affine maps over uint32)")
      .one_of({"plus", "max", "affine"})
      .show_default();
}

// Why --type and --op do not go together, or "" when they do.
inline std::string element_options_error(const std::string& type, const std::string& op) {
  if (op == "affine" && type != "int") {
    return "--op affine composes affine maps over uint32; it takes no --type float";
  }
  return std::string();
}

// Calls f(op) with the operator object that add_element_options' --type and --op name, so that a
// driver instantiates its run once per combination: f(Plus<float>{}), f(Max<std::int32_t>{}), ...
template <class F>
int with_element_operator(const std::string& type, const std::string& op, F&& f) {
  if (op == "affine") return f(AffineCompose<std::uint32_t>{});
  if (type == "float") return op == "max" ? f(Max<float>{}) : f(Plus<float>{});
  return op == "max" ? f(Max<std::int32_t>{}) : f(Plus<std::int32_t>{});
}

// ---- chapters 02 and 03: one block's scan, or independent tiles -------------------------------

// --tiles and --tile N: scan independent tiles (N elements each, a power of two from 2 to
// max_tile) instead of one block's worth. --tile implies --tiles (the driver sets it when
// tile.given()); an option that means one block only excludes both.
struct TilesOptions {
  Option tiles;
  Option tile;
};

inline TilesOptions add_tiles_options(CommandLine& cli, bool& tiles, int& tile, int max_tile) {
  const Option tiles_option =
      cli.flag("--tiles", tiles, "scan independent tiles (one block each) of any n: throughput");
  const Option tile_option =
      cli.option("--tile", tile,
                 "tile length for --tiles (a power of two, 2.." + std::to_string(max_tile) + "; implies --tiles)")
          .range(2, max_tile)
          .show_default();
  return {tiles_option, tile_option};
}

// ---- the single-pass chapters (06 chained scan, 07 decoupled look-back) -----------------------

// Their --type int|float|int64 and --op plus|max|affine.
inline void add_single_pass_element_options(CommandLine& cli, std::string& type, std::string& op) {
  cli.option("--type", type, "element type").one_of({"int", "float", "int64"}).show_default();
  cli.option("--op", op, "operator: plus, max (int), affine (composition of affine maps over uint32)")
      .one_of({"plus", "max", "affine"})
      .show_default();
}

inline std::string single_pass_element_options_error(const std::string& type, const std::string& op) {
  if (op == "affine" && type != "int") return "--op affine takes no --type";
  if (op == "max" && type != "int") return "--op max is built for int32";
  return std::string();
}

// As with_element_operator, for add_single_pass_element_options.
template <class F>
int with_single_pass_operator(const std::string& type, const std::string& op, F&& f) {
  if (op == "affine") return f(AffineCompose<std::uint32_t>{});
  if (type == "float") return f(Plus<float>{});
  if (type == "int64") return f(Plus<std::int64_t>{});
  if (op == "max") return f(Max<std::int32_t>{});
  return f(Plus<std::int32_t>{});
}

// --order ticket|blockidx: where a tile takes its number from.
inline void add_tile_order_option(CommandLine& cli, std::string& order) {
  cli.option("--order", order, "tile order: ticket, or blockidx (deadlocks; emulator only)")
      .one_of({"ticket", "blockidx"})
      .show_default();
}

// A deadlocked GPU stays hung, while the emulator reports the deadlock and goes on.
inline std::string tile_order_error(const std::string& order) {
  if (order == "blockidx" && !on_emulator()) {
    return "--order blockidx can hang a GPU for good; it is offered on the emulator only, which reports "
           "the deadlock";
  }
  return std::string();
}

}  // namespace scanlab
