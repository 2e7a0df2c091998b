// End-to-end check of scanlab-emu-translate (common/emu/translate): translates a realistic kernel file
// (data/block_scan.cu, valid CUDA for nvcc) and compiles the output with the C++ compiler against the
// stand-in runtime header stub/scanlab_emu_stub.hpp; then checks that the compiler's diagnostics for a
// translated file point at the original file and line.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "translate.hpp"

#ifndef SCANLAB_TEST_CXX
#error "SCANLAB_TEST_CXX (the C++ compiler) must be defined by the build"
#endif
#ifndef SCANLAB_TRANSLATE_TEST_DIR
#error "SCANLAB_TRANSLATE_TEST_DIR (tests/translate) must be defined by the build"
#endif

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("scanlab_translate_compile_" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string quote(const fs::path& p) { return "'" + p.string() + "'"; }

// Runs the compiler on `source` (syntax only); returns its exit status, output in `log`.
int compile(const fs::path& source, const fs::path& log) {
  const fs::path stub = fs::path(SCANLAB_TRANSLATE_TEST_DIR) / "stub" / "scanlab_emu_stub.hpp";
  const std::string cmd = std::string("'") + SCANLAB_TEST_CXX + "' -std=c++17 -fsyntax-only -Wall " +
                          "-Wextra -Werror -include " + quote(stub) + " " + quote(source) + " > " + quote(log) +
                          " 2>&1";
  return std::system(cmd.c_str());
}

}  // namespace

TEST_CASE("compile: a translated realistic kernel file compiles against the runtime's declarations") {
  TempDir tmp;
  scanlab::emu::DriverOptions opt;
  opt.input = (fs::path(SCANLAB_TRANSLATE_TEST_DIR) / "data" / "block_scan.cu").string();
  opt.output = (tmp.path / "block_scan.cpp").string();
  std::ostringstream err;
  REQUIRE(scanlab::emu::run_translator(opt, err) == 0);
  CHECK(err.str().empty());

  const std::string out = read(opt.output);
  CHECK(out.find("__shared__") == out.rfind("__shared__ in a string"));  // only the string/comment
  CHECK(out.find("<<<") == out.find("<<<1, 1>>>() and __shared__"));     // ...keep theirs

  const fs::path log = tmp.path / "compile.log";
  const int status = compile(opt.output, log);
  INFO("compiler output:\n" << read(log));
  CHECK(status == 0);
}

TEST_CASE("compile: an untranslated file does not compile against the stand-in (the check can fail)") {
  TempDir tmp;
  const fs::path log = tmp.path / "compile.log";
  const fs::path copy = tmp.path / "block_scan_as_is.cpp";
  fs::copy_file(fs::path(SCANLAB_TRANSLATE_TEST_DIR) / "data" / "block_scan.cu", copy);
  fs::copy_file(fs::path(SCANLAB_TRANSLATE_TEST_DIR) / "data" / "scan_helpers.cuh", tmp.path / "scan_helpers.cuh");
  CHECK(compile(copy, log) != 0);
}

TEST_CASE("compile: compiler diagnostics point at the original file and line") {
  TempDir tmp;
  const fs::path src = tmp.path / "bad kernel.cu";
  std::ofstream(src) << "__global__ void k(int* p) {\n"
                        "  __shared__ int a[4],\n"
                        "                b[8];\n"
                        "  p[0] = a[0] + b[0];\n"
                        "}\n"
                        "void host(int* p) {\n"
                        "  k<<<1,\n"
                        "      4>>>(p);\n"
                        "  int oops = undeclared_name_on_line_9;\n"
                        "}\n";
  scanlab::emu::DriverOptions opt;
  opt.input = src.string();
  opt.output = (tmp.path / "bad.cpp").string();
  std::ostringstream err;
  REQUIRE(scanlab::emu::run_translator(opt, err) == 0);
  const fs::path log = tmp.path / "compile.log";
  CHECK(compile(opt.output, log) != 0);
  const std::string text = read(log);
  INFO("compiler output:\n" << text);
  CHECK(text.find(src.string() + ":9:") != std::string::npos);
}
