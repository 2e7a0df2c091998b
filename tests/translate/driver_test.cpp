// Tests of scanlab-emu-translate's file driver (common/emu/translate/driver.cpp): a small header tree
// with a cycle, include resolution order, the translated copies and their #line, the depfile,
// write-only-if-changed, errors in headers and the command line.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "translate.hpp"

namespace fs = std::filesystem;
using scanlab::emu::DriverOptions;
using scanlab::emu::line_directive;
using scanlab::emu::run_translator;
using scanlab::emu::translated_header_name;
using scanlab::emu::translator_main;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("scanlab_translate_test_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

long newlines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// The tree: src/main.cu -> kern.cuh <-> cycle.cuh (a cycle), kern.cuh -> "../lib dir/lib.cuh",
// main.cu -> "lib.cuh" through -I (the same file), lib.cuh -> plain.hpp (nothing to rewrite),
// plus an unresolvable quoted include and an angle one.
struct Tree {
  TempDir tmp;
  fs::path src, lib, main_cu, kern, cycle, lib_cuh, plain, out, inc, dep;
  std::string main_text;

  Tree() {
    src = tmp.path / "src";
    lib = tmp.path / "lib dir";
    main_cu = src / "main.cu";
    kern = src / "kern.cuh";
    cycle = src / "cycle.cuh";
    lib_cuh = lib / "lib.cuh";
    plain = lib / "plain.hpp";
    out = tmp.path / "build" / "main.cpp";
    inc = tmp.path / "build" / "inc";
    dep = tmp.path / "build" / "main.cpp.d";
    main_text = "#include \"kern.cuh\"\n"
                "#include \"lib.cuh\"\n"
                "#include \"missing.cuh\"\n"
                "#include <vector>\n"
                "int main() {\n"
                "  fill<<<4, 64>>>(p, 7);\n"
                "}\n";
    write(main_cu, main_text);
    write(kern, "#pragma once\n#include \"cycle.cuh\"\n#include \"../lib dir/lib.cuh\"\n"
                "__global__ void fill(int* p, int v) {\n  __shared__ int t[64];\n  t[0] = v; p[0] = t[0];\n}\n");
    write(cycle, "#pragma once\n#include \"kern.cuh\"\n");
    write(lib_cuh, "#pragma once\n#include \"plain.hpp\"\ninline void go() { k<<<1, 1>>>(); }\n");
    write(plain, "#pragma once\ninline int plain() { return 3; }\n");
  }

  DriverOptions options() const {
    DriverOptions o;
    o.input = main_cu.string();
    o.output = out.string();
    o.inc_dir = inc.string();
    o.depfile = dep.string();
    o.include_dirs = {lib.string()};
    return o;
  }
};

std::string copy_of(const Tree& t, const fs::path& header) {
  return (t.inc / translated_header_name(header.lexically_normal().string())).string();
}

}  // namespace

TEST_CASE("driver: a header tree with a cycle is translated once per file") {
  Tree t;
  std::ostringstream err;
  REQUIRE(run_translator(t.options(), err) == 0);
  CHECK(err.str().empty());

  const std::string out = read(t.out);
  // #line first, then the original lines one for one
  CHECK(out.rfind(line_directive(t.main_cu.string()), 0) == 0);
  CHECK(out.rfind("#line 1 \"" + t.main_cu.string() + "\"\n", 0) == 0);
  CHECK(newlines(out) == newlines(t.main_text) + 1);
  CHECK(out.find("#include \"" + copy_of(t, t.kern) + "\"\n") != std::string::npos);
  CHECK(out.find("#include \"" + copy_of(t, t.lib_cuh) + "\"\n") != std::string::npos);  // via -I
  CHECK(out.find("#include \"missing.cuh\"\n") != std::string::npos);
  CHECK(out.find("#include <vector>\n") != std::string::npos);
  CHECK(out.find("::scanlab_emu::launch(::scanlab_emu::launch_config(4, 64), \"fill\"") != std::string::npos);

  // Only files with something to rewrite (or that reach one) get a copy; plain.hpp does not.
  CHECK(listing(t.inc) == std::set<std::string>{translated_header_name(t.kern.string()),
                                                translated_header_name(t.cycle.string()),
                                                translated_header_name(t.lib_cuh.string())});
  const std::string kern = read(copy_of(t, t.kern));
  CHECK(kern.rfind(line_directive(t.kern.string()), 0) == 0);
  CHECK(kern.find("#include \"" + copy_of(t, t.cycle) + "\"\n") != std::string::npos);
  // "../lib dir/lib.cuh" and "lib.cuh" through -I are the same file: one copy
  CHECK(kern.find("#include \"" + copy_of(t, t.lib_cuh) + "\"\n") != std::string::npos);
  CHECK(kern.find("auto& t = *static_cast<int(*)[64]>(") != std::string::npos);
  const std::string cycle = read(copy_of(t, t.cycle));
  CHECK(cycle == line_directive(t.cycle.string()) + "#pragma once\n#include \"" + copy_of(t, t.kern) + "\"\n");
  const std::string lib = read(copy_of(t, t.lib_cuh));
  // the untranslated header is included from where it is, by absolute path
  CHECK(lib.find("#include \"" + t.plain.string() + "\"\n") != std::string::npos);

  // depfile: every file read, absolute, spaces escaped, in discovery order after the input
  const std::string dep = read(t.dep);
  auto esc = [](std::string s) {
    std::string o;
    for (char c : s) o += (c == ' ' ? std::string("\\ ") : std::string(1, c));
    return o;
  };
  CHECK(dep.rfind(esc(t.out.string()) + ": \\\n  " + esc(t.main_cu.string()) + " \\\n", 0) == 0);
  for (const fs::path& p : {t.kern, t.cycle, t.lib_cuh, t.plain})
    CHECK(dep.find("  " + esc(p.string())) != std::string::npos);
  CHECK(dep.find("missing.cuh") == std::string::npos);
  CHECK(newlines(dep) == 6);
}

TEST_CASE("driver: unchanged outputs are not rewritten; a changed header touches the main output") {
  Tree t;
  std::ostringstream err;
  REQUIRE(run_translator(t.options(), err) == 0);
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(2);
  for (const fs::path& p : {t.out, fs::path(copy_of(t, t.kern)), t.dep}) fs::last_write_time(p, old_time);

  REQUIRE(run_translator(t.options(), err) == 0);
  CHECK(fs::last_write_time(t.out) == old_time);
  CHECK(fs::last_write_time(copy_of(t, t.kern)) == old_time);
  CHECK(fs::last_write_time(t.dep) == old_time);

  write(t.kern, read(t.kern) + "// more\n");
  REQUIRE(run_translator(t.options(), err) == 0);
  // main.cpp's text did not change, but it is the compiler's input: it gets a new time stamp, or
  // ninja (which re-checks a custom command's outputs) would skip recompiling it.
  CHECK(fs::last_write_time(t.out) != old_time);
  CHECK(fs::last_write_time(copy_of(t, t.kern)) != old_time);
  CHECK(read(copy_of(t, t.kern)).find("// more\n") != std::string::npos);
}

TEST_CASE("driver: include order is the including file's directory, then -I in order") {
  TempDir tmp;
  write(tmp.path / "a" / "main.cu", "#include \"h.cuh\"\n");
  write(tmp.path / "a" / "h.cuh", "void f() { __shared__ int here[1]; }\n");
  write(tmp.path / "i1" / "h.cuh", "void f() { __shared__ int first_i[1]; }\n");
  write(tmp.path / "i1" / "g.cuh", "void g() { __shared__ int i1[1]; }\n");
  write(tmp.path / "i2" / "g.cuh", "void g() { __shared__ int i2[1]; }\n");
  write(tmp.path / "b" / "main.cu", "#include \"h.cuh\"\n#include \"g.cuh\"\n");
  std::ostringstream err;
  for (const char* which : {"a", "b"}) {
    DriverOptions o;
    o.input = (tmp.path / which / "main.cu").string();
    o.output = (tmp.path / "out" / which / "main.cpp").string();  // default inc dir: out/<which>/inc
    o.include_dirs = {(tmp.path / "i1").string(), (tmp.path / "i2").string()};
    REQUIRE(run_translator(o, err) == 0);
  }
  const fs::path inc_a = tmp.path / "out" / "a" / "inc", inc_b = tmp.path / "out" / "b" / "inc";
  CHECK(listing(inc_a) == std::set<std::string>{translated_header_name((tmp.path / "a" / "h.cuh").string())});
  CHECK(listing(inc_b) == std::set<std::string>{translated_header_name((tmp.path / "i1" / "h.cuh").string()),
                                                translated_header_name((tmp.path / "i1" / "g.cuh").string())});
  CHECK(translated_header_name("/x/y/scan.cuh") == translated_header_name("/x/y/scan.cuh"));
  CHECK(translated_header_name("/x/y/scan.cuh") != translated_header_name("/x/z/scan.cuh"));
  CHECK(translated_header_name("/x/y/scan.cuh").rfind("scan_", 0) == 0);
}

TEST_CASE("driver: --translate-all-headers copies plain headers too") {
  Tree t;
  DriverOptions o = t.options();
  o.translate_all_headers = true;
  std::ostringstream err;
  REQUIRE(run_translator(o, err) == 0);
  CHECK(listing(t.inc).count(translated_header_name(t.plain.string())) == 1);
  CHECK(read(copy_of(t, t.lib_cuh)).find("#include \"" + copy_of(t, t.plain) + "\"") != std::string::npos);
}

// With --relative-to, the outputs name files by paths relative to the compiler's folder (#line) or
// to the including copy's folder (#include), and the same tree translated in two folders gives the
// same bytes: what lets a compiler cache serve a second checkout.
TEST_CASE("driver: --relative-to names files relatively; two checkouts translate alike") {
  Tree one, two;
  std::map<std::string, std::string> first;  // output file, relative to its tree -> content
  for (const Tree* t : {&one, &two}) {
    DriverOptions o = t->options();
    o.relative_to = (t->tmp.path / "build").string();
    std::ostringstream err;
    REQUIRE(run_translator(o, err) == 0);
    CHECK(err.str().empty());
    std::map<std::string, std::string> outputs{{"main.cpp", read(t->out)}};
    for (const std::string& name : listing(t->inc)) outputs["inc/" + name] = read(t->inc / name);
    if (t == &one) {
      first = outputs;
      continue;
    }
    CHECK(outputs == first);
  }
  // The copies' names hash the relative path: "kern" ... of "../src/kern.cuh" from build/.
  const std::string kern_copy = translated_header_name("../src/kern.cuh");
  CHECK(listing(one.inc) == std::set<std::string>{kern_copy, translated_header_name("../src/cycle.cuh"),
                                                  translated_header_name("../lib dir/lib.cuh")});
  const std::string main_cpp = read(one.out);
  CHECK(main_cpp.rfind(line_directive("../src/main.cu"), 0) == 0);
  CHECK(main_cpp.find("#include \"inc/" + kern_copy + "\"\n") != std::string::npos);
  const std::string lib = read(one.inc / translated_header_name("../lib dir/lib.cuh"));
  CHECK(lib.rfind(line_directive("../lib dir/lib.cuh"), 0) == 0);
  CHECK(lib.find("#include \"../../lib dir/plain.hpp\"\n") != std::string::npos);  // from inc/
  CHECK(read(one.inc / translated_header_name("../src/cycle.cuh")).find("#include \"" + kern_copy + "\"\n") !=
        std::string::npos);
  // The depfile is ninja's: absolute paths still.
  CHECK(read(one.dep).find("  " + one.kern.string() + " \\\n") != std::string::npos);
}

// Relative paths are taken between real locations: a build folder reached through a symbolic link
// still names files that the compiler (which resolves `..` after the link) finds.
TEST_CASE("driver: --relative-to through a symbolic link names files that exist") {
  Tree t;
  const fs::path elsewhere = t.tmp.path / "elsewhere" / "deep";
  fs::create_directories(elsewhere);
  fs::create_symlink(elsewhere, t.tmp.path / "linked");
  DriverOptions o = t.options();
  o.output = (t.tmp.path / "linked" / "main.cpp").string();
  o.inc_dir = (t.tmp.path / "linked" / "inc").string();
  o.relative_to = (t.tmp.path / "linked").string();
  std::ostringstream err;
  REQUIRE(run_translator(o, err) == 0);
  const std::string main_cpp = read(elsewhere / "main.cpp");
  CHECK(main_cpp.rfind(line_directive("../../src/main.cu"), 0) == 0);
  CHECK(fs::is_regular_file(elsewhere / "../../src/main.cu"));
  for (const std::string& name : listing(elsewhere / "inc")) {
    const std::string text = read(elsewhere / "inc" / name);
    for (std::size_t at = text.find("#include \""); at != std::string::npos; at = text.find("#include \"", at + 1)) {
      const std::string file = text.substr(at + 10, text.find('"', at + 10) - at - 10);
      if (file != "missing.cuh") CHECK_MESSAGE(fs::is_regular_file(elsewhere / "inc" / file), name << ": " << file);
    }
  }
}

TEST_CASE("driver: an error in a header names the header; nothing is written") {
  Tree t;
  write(t.cycle, "#pragma once\n#include \"kern.cuh\"\n\n  __shared__ int bad;\n");
  std::ostringstream err;
  CHECK(run_translator(t.options(), err) == 1);
  CHECK(err.str() == t.cycle.string() + ":4:3: error: __shared__ variables at namespace scope are not supported by "
                                        "the emulator; declare it inside the kernel\n");
  CHECK_FALSE(fs::exists(t.out));
  CHECK_FALSE(fs::exists(t.dep));
}

TEST_CASE("driver: the command line") {
  Tree t;
  const std::string in = t.main_cu.string(), out = t.out.string(), inc = t.inc.string(), dep = t.dep.string(),
                    idir = "-I" + t.lib.string();
  {
    const char* argv[] = {"scanlab-emu-translate",
                          in.c_str(),
                          "-o",
                          out.c_str(),
                          "--inc-dir",
                          inc.c_str(),
                          "--depfile",
                          dep.c_str(),
                          idir.c_str()};
    std::ostringstream o, e;
    CHECK(translator_main(9, argv, o, e) == 0);
    CHECK(e.str().empty());
    CHECK(read(t.out).find(copy_of(t, t.lib_cuh)) != std::string::npos);  // -IDIR form worked
    CHECK(fs::exists(t.dep));
  }
  {
    const char* argv[] = {"scanlab-emu-translate", "--help"};
    std::ostringstream o, e;
    CHECK(translator_main(2, argv, o, e) == 0);
    CHECK(o.str().find("usage: scanlab-emu-translate INPUT.cu -o OUTPUT.cpp") == 0);
  }
  {
    const char* argv[] = {"scanlab-emu-translate", in.c_str(), "--bogus", "-o", out.c_str()};
    std::ostringstream o, e;
    CHECK(translator_main(5, argv, o, e) == 2);
    CHECK(e.str().find("unknown option --bogus") != std::string::npos);
  }
  {
    const char* argv[] = {"scanlab-emu-translate", in.c_str()};
    std::ostringstream o, e;
    CHECK(translator_main(2, argv, o, e) == 2);
  }
  {
    const std::string missing = (t.tmp.path / "nope.cu").string();
    const char* argv[] = {"scanlab-emu-translate", missing.c_str(), "-o", out.c_str()};
    std::ostringstream o, e;
    CHECK(translator_main(4, argv, o, e) == 1);
    CHECK(e.str() == missing + ": error: cannot read file\n");
  }
}
