// File driver of scanlab-emu-translate: walks the quoted includes of a .cu file, translates the files
// that need it into the build tree, writes a Makefile-style depfile and only touches files whose
// content changed (so ninja's restat keeps rebuilds minimal). Include lookup follows the quoted-form
// order of GCC: the including file's directory first, then each -I directory in order.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "translate.hpp"

namespace scanlab::emu {

namespace fs = std::filesystem;

namespace {

std::string absolute_normal(const fs::path& p) {
  std::error_code ec;
  fs::path a = fs::absolute(p, ec);
  if (ec) a = p;
  return a.lexically_normal().string();
}

// The real location of a file or folder that may not exist yet: symbolic links and `..` resolved
// as far as the path exists, the rest normalised.
fs::path real_path(const std::string& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::path(absolute_normal(p)) : r;
}

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return !in.bad();
}

// Writes `content` unless the file already holds exactly that. Two .cu files of one target share
// an inc dir and may be translated in parallel, so the new content goes to a temporary file that is
// renamed over the old one: a compiler never sees a half-written header.
// `force` writes even unchanged content, to give the file a new modification time; `changed` (if
// given) tells whether the file was written.
bool write_if_changed(const std::string& path, const std::string& content, std::ostream& err, bool force = false,
                      bool* changed = nullptr) {
  std::string old;
  if (changed) *changed = false;
  if (!force && read_file(path, old) && old == content) return true;
  if (changed) *changed = true;
  std::error_code ec;
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  static std::atomic<unsigned> counter{0};
  const std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out) {
      err << path << ": error: cannot write file\n";
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    err << path << ": error: cannot write file (" << ec.message() << ")\n";
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

std::string escape_make(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

struct SourceFile {
  std::string path;  // absolute, normalised
  std::string text;
  std::map<std::string, std::string> includes;  // quoted name -> resolved absolute path
  bool own_rewrites = false;                    // launches or __shared__ to rewrite
  bool translate = false;                       // gets a translated copy
};

}  // namespace

std::string translated_header_name(const std::string& path) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a: stable across runs and machines
  for (unsigned char c : path) {
    h ^= c;
    h *= 1099511628211ull;
  }
  const fs::path p(path);
  static const char* hex = "0123456789abcdef";
  std::string tag;
  for (int i = 15; i >= 0; --i) tag += hex[(h >> (4 * i)) & 0xF];
  return p.stem().string() + "_" + tag + p.extension().string();
}

int run_translator(const DriverOptions& opt, std::ostream& err) {
  const std::string input = absolute_normal(opt.input);
  const std::string output = absolute_normal(opt.output);
  const std::string inc_dir =
      absolute_normal(opt.inc_dir.empty() ? fs::path(output).parent_path() / "inc" : fs::path(opt.inc_dir));
  std::vector<std::string> include_dirs;
  for (const auto& d : opt.include_dirs) include_dirs.push_back(absolute_normal(d));
  // How the outputs name a file: absolute, or relative (--relative-to). Relative paths are taken
  // between the files' real locations, since the compiler resolves `..` through symbolic links.
  const bool relative = !opt.relative_to.empty();
  const fs::path base = relative ? real_path(opt.relative_to) : fs::path();
  auto named_from = [&](const std::string& path, const fs::path& from) -> std::string {
    return relative ? real_path(path).lexically_relative(from).string() : path;
  };
  auto copy_of = [&](const std::string& path) {
    return (fs::path(inc_dir) / translated_header_name(named_from(path, base))).string();
  };

  // 1. Read everything reachable through resolvable quoted includes (once each: cycles are safe).
  std::map<std::string, SourceFile> files;
  std::vector<std::string> order;  // discovery order, for a deterministic depfile
  std::vector<std::string> todo{input};
  Diagnostics diag;
  while (!todo.empty()) {
    const std::string path = todo.back();
    todo.pop_back();
    if (files.count(path) != 0) continue;
    SourceFile f;
    f.path = path;
    if (!read_file(path, f.text)) {
      err << path << ": error: cannot read file\n";
      return 1;
    }
    const fs::path dir = fs::path(path).parent_path();
    for (const std::string& name : find_quoted_includes(f.text)) {
      if (f.includes.count(name) != 0) continue;
      std::vector<fs::path> candidates{dir / name};
      for (const auto& d : include_dirs) candidates.push_back(fs::path(d) / name);
      for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(c, ec)) {
          const std::string resolved = absolute_normal(c);
          f.includes[name] = resolved;
          todo.push_back(resolved);
          break;
        }
      }
    }
    Diagnostics local;
    TranslateOptions topt;
    topt.file_name = path;
    f.own_rewrites = translate_source(f.text, topt, local) != f.text || !local.ok();
    order.push_back(path);
    files.emplace(path, std::move(f));
  }

  // 2. A header needs a copy when it, or anything it reaches, has something to rewrite.
  for (auto& [path, f] : files) f.translate = f.own_rewrites || opt.translate_all_headers;
  files[input].translate = true;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [path, f] : files) {
      if (f.translate) continue;
      for (const auto& [name, target] : f.includes) {
        if (files[target].translate) {
          f.translate = true;
          changed = true;
          break;
        }
      }
    }
  }

  // 3. Translate. Every resolved include of a translated (moved) file names the translated copy
  //    when there is one, else the original: by absolute path, or (--relative-to) relative to the
  //    folder of the copy that includes it, which the compiler searches first for a quoted include.
  std::map<std::string, std::string> outputs;  // file to write -> content
  for (const std::string& path : order) {
    const SourceFile& f = files[path];
    if (!f.translate) continue;
    const std::string dest = path == input ? output : copy_of(path);
    const fs::path dest_dir = relative ? real_path(fs::path(dest).parent_path().string()) : fs::path();
    TranslateOptions topt;
    topt.file_name = path;
    topt.rewrite_include = [&](const std::string& name) -> std::optional<std::string> {
      const auto it = f.includes.find(name);
      if (it == f.includes.end()) return std::nullopt;
      const SourceFile& target = files.at(it->second);
      if (!target.translate) return named_from(target.path, dest_dir);
      if (target.path == input) return named_from(output, dest_dir);  // a cycle back to the .cu itself
      return named_from(copy_of(target.path), dest_dir);
    };
    const std::string body = translate_source(f.text, topt, diag);
    outputs[dest] = line_directive(named_from(path, base)) + body;
  }
  if (!diag.ok()) {
    diag.print(err);
    return 1;
  }

  // Headers first. The compiler's input is the main output, so when a translated header changed the
  // main output must change too (its time stamp at least): ninja re-checks a custom command's
  // outputs after it runs and would otherwise skip the recompile.
  bool ok = true, header_changed = false;
  for (const auto& [dest, content] : outputs) {
    if (dest == output) continue;
    bool changed = false;
    ok = write_if_changed(dest, content, err, false, &changed) && ok;
    header_changed = header_changed || changed;
  }
  ok = write_if_changed(output, outputs[output], err, header_changed) && ok;
  if (!opt.depfile.empty()) {
    std::string dep = escape_make(opt.output) + ":";
    for (const std::string& path : order) dep += " \\\n  " + escape_make(path);
    dep += "\n";
    ok = write_if_changed(opt.depfile, dep, err) && ok;
  }
  return ok ? 0 : 1;
}

int translator_main(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  const char* usage = "usage: scanlab-emu-translate INPUT.cu -o OUTPUT.cpp [--inc-dir DIR] [--depfile FILE]\n"
                      "                             [-I DIR]... [--translate-all-headers] [--relative-to DIR]\n"
                      "Rewrites CUDA launches (<<<>>>) and __shared__ declarations so that g++ can compile the\n"
                      "file for the scanlab CPU SIMT emulator; quoted includes are translated too.\n"
                      "--relative-to DIR: name files relative to DIR, the compiler's working folder, instead\n"
                      "of by absolute path (the outputs are then the same in two checkouts).\n";
  DriverOptions opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& into) {
      if (i + 1 >= argc) {
        err << "scanlab-emu-translate: error: " << a << " needs a value\n" << usage;
        return false;
      }
      into = argv[++i];
      return true;
    };
    if (a == "-h" || a == "--help") {
      out << usage;
      return 0;
    } else if (a == "-o") {
      if (!value(opt.output)) return 2;
    } else if (a == "--inc-dir") {
      if (!value(opt.inc_dir)) return 2;
    } else if (a == "--depfile") {
      if (!value(opt.depfile)) return 2;
    } else if (a == "-I") {
      std::string d;
      if (!value(d)) return 2;
      opt.include_dirs.push_back(d);
    } else if (a.size() > 2 && a.compare(0, 2, "-I") == 0) {
      opt.include_dirs.push_back(a.substr(2));
    } else if (a == "--translate-all-headers") {
      opt.translate_all_headers = true;
    } else if (a == "--relative-to") {
      if (!value(opt.relative_to)) return 2;
    } else if (!a.empty() && a[0] == '-') {
      err << "scanlab-emu-translate: error: unknown option " << a << '\n' << usage;
      return 2;
    } else if (opt.input.empty()) {
      opt.input = a;
    } else {
      err << "scanlab-emu-translate: error: more than one input file\n" << usage;
      return 2;
    }
  }
  if (opt.input.empty() || opt.output.empty()) {
    err << "scanlab-emu-translate: error: need an input file and -o OUTPUT\n" << usage;
    return 2;
  }
  return run_translator(opt, err);
}

}  // namespace scanlab::emu
