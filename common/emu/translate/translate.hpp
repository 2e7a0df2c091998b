// scanlab-emu-translate: the source pre-pass that lets g++ compile an unmodified CUDA .cu file for the
// CPU SIMT emulator. Built on the C++ lexical rules (comments, literals, raw strings, directives) and
// on the CUDA launch / __shared__ syntax; everything it does not rewrite is copied byte for byte and
// every rewrite keeps its newline count, so diagnostics, __LINE__ and debug info stay on the original
// lines.
//
// Rewrites (the runtime names they call live in namespace ::scanlab_emu, see the report / README):
//   EXPR<<<CFG>>>(ARGS)          -> ::scanlab_emu::launch(::scanlab_emu::launch_config(CFG), "EXPR",
//                                     __FILE__, __LINE__, [&](auto&... a) { EXPR(a...); }, ARGS)
//   __shared__ T name[d]...;     -> a function-local key + reference to ::scanlab_emu::static_shared(...)
//   extern __shared__ T name[];  -> ::scanlab_emu::dynamic_shared(...) in a function,
//                                   ::scanlab_emu::DynamicShared<T> at namespace scope
//   #include "x.cuh"             -> the translated copy of x.cuh (or its original, by absolute path)
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace scanlab::emu {

struct Diagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string message;
};

// Errors collected while translating; printed as "file:line:col: error: message".
struct Diagnostics {
  std::vector<Diagnostic> errors;

  bool ok() const { return errors.empty(); }
  void error(std::string file, int line, int column, std::string message);
  void print(std::ostream& os) const;
  std::string str() const;
};

// Called for every `#include "name"` of the text being translated. Returns the text that replaces
// the quoted name, without quotes (an absolute path), or nullopt to leave the directive alone.
using IncludeRewriter = std::function<std::optional<std::string>(const std::string& name)>;

struct TranslateOptions {
  std::string file_name = "<input>";  // used in diagnostics only
  IncludeRewriter rewrite_include;    // empty: every #include is left alone
};

// Translates one file's text (no #line header is added; see translate_file_text). Errors go into
// `diag`; the returned text is meaningful only when no error was added.
std::string translate_source(const std::string& text, const TranslateOptions& options, Diagnostics& diag);

// The quoted include names of a text, in order (directives inside comments/strings are not seen).
std::vector<std::string> find_quoted_includes(const std::string& text);

// `#line 1 "path"` (with the path escaped for a string literal) followed by a newline.
std::string line_directive(const std::string& path);

// --- the file driver (include walking, output files, depfile) ---

struct DriverOptions {
  std::string input;                      // the .cu file
  std::string output;                     // the .cpp file to write
  std::string inc_dir;                    // translated headers; empty: <dir of output>/inc
  std::string depfile;                    // empty: none
  std::vector<std::string> include_dirs;  // -I, searched after the including file's directory
  // Also copy headers that need no rewrite into inc_dir. Off by default: such a header is included
  // from its original location (by absolute path), so a header reached both through the translator
  // and through a plain -I path is still one file to `#pragma once`.
  bool translate_all_headers = false;
  // The folder the compiler runs in (ninja: the build folder). When set, the outputs name files by
  // relative paths: `#line` relative to this folder (what __FILE__ and the line tables hold), an
  // include relative to the including copy's folder, and a copy's name hashes its original's path
  // relative to this folder. The same tree translated in two checkouts then gives the same bytes,
  // so that a compiler cache shared between them hits (the release test builds the lab twice).
  // Empty: absolute paths.
  std::string relative_to;
};

// The stable file name (no directory) a header's translated copy gets in inc_dir: its stem, a hash
// of `path` (absolute, or relative to DriverOptions::relative_to), its extension.
std::string translated_header_name(const std::string& path);

// Translates options.input and the quoted headers it reaches; writes only files whose content changed.
// Returns 0 on success, 1 on any error (reported on `err`).
int run_translator(const DriverOptions& options, std::ostream& err);

// The command line: INPUT.cu -o OUTPUT.cpp [--inc-dir DIR] [--depfile FILE] [-I DIR | -IDIR]...
//                   [--translate-all-headers] [--relative-to DIR]. Returns the process exit code
//                   (2 for usage errors).
int translator_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace scanlab::emu
