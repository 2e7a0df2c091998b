// Tests of scanlab/tuning.hpp: the per-GPU tuning file that ./lab tune writes and chapters 07 and
// 11 read. A file that is there but wrong must be an error that says so, never a silent default.
#include "scanlab/tuning.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

namespace {

namespace fs = std::filesystem;

// A fresh folder per test case, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("scanlab_tuning_test_" + std::to_string(std::rand()) + "_" +
                                        std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Sets an environment variable for one scope, restoring what was there.
struct EnvVar {
  std::string name, old;
  bool had;
  EnvVar(const char* n, const char* value) : name(n), had(std::getenv(n) != nullptr) {
    if (had) old = std::getenv(n);
    if (value != nullptr) setenv(n, value, 1);
    else unsetenv(n);
  }
  ~EnvVar() {
    if (had) setenv(name.c_str(), old.c_str(), 1);
    else unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("tuning_file_path: SCANLAB_TUNING, then XDG_CONFIG_HOME, then HOME") {
  EnvVar home("HOME", "/home/student");
  {
    EnvVar tuning("SCANLAB_TUNING", "/tmp/mine.json");
    EnvVar xdg("XDG_CONFIG_HOME", "/xdg");
    CHECK(scanlab::tuning_file_path() == "/tmp/mine.json");
  }
  {
    EnvVar tuning("SCANLAB_TUNING", nullptr);
    EnvVar xdg("XDG_CONFIG_HOME", "/xdg");
    CHECK(scanlab::tuning_file_path() == "/xdg/scanlab/tuning.json");
  }
  EnvVar tuning("SCANLAB_TUNING", "");
  EnvVar xdg("XDG_CONFIG_HOME", nullptr);
  CHECK(scanlab::tuning_file_path() == "/home/student/.config/scanlab/tuning.json");
}

TEST_CASE("load_scan_tuning: no file, no GPU entry and no chapter entry are all 'no tuning'") {
  TempDir dir;
  CHECK_FALSE(scanlab::load_scan_tuning(dir.file("absent.json"), "GPU A", "07_decoupled_lookback").has_value());
  scanlab::ScanTuning t;
  t.shape = "128x24";
  t.first_poll_ns = 1400;
  t.poll_every_ns = 300;
  scanlab::save_scan_tuning(dir.file("t.json"), "GPU A", "07_decoupled_lookback", t);
  CHECK_FALSE(scanlab::load_scan_tuning(dir.file("t.json"), "GPU B", "07_decoupled_lookback").has_value());
  CHECK_FALSE(scanlab::load_scan_tuning(dir.file("t.json"), "GPU A", "11_async_copy_scan").has_value());
}

TEST_CASE("save_scan_tuning then load: the entry comes back, and other GPUs' and chapters' entries stay") {
  TempDir dir;
  const std::string path = dir.file("sub/folder/tuning.json");  // the folders are made
  scanlab::ScanTuning a;
  a.shape = "256x16";
  a.first_poll_ns = 4200;
  a.poll_every_ns = 1800;
  a.tuned = "2026-11-26 12:00 UTC";
  a.gain = 1.034;
  scanlab::ScanTuning b = a;
  b.shape = "128x16x8";
  b.first_poll_ns = 0;
  scanlab::save_scan_tuning(path, "NVIDIA H100 80GB HBM3", "07_decoupled_lookback", a, {{"sizes", "2^24"}});
  scanlab::save_scan_tuning(path, "NVIDIA H200", "07_decoupled_lookback", b);
  scanlab::save_scan_tuning(path, "NVIDIA H100 80GB HBM3", "11_async_copy_scan", b);

  const auto got = scanlab::load_scan_tuning(path, "NVIDIA H100 80GB HBM3", "07_decoupled_lookback");
  REQUIRE(got.has_value());
  CHECK(got->shape == "256x16");
  CHECK(got->first_poll_ns == 4200);
  CHECK(got->poll_every_ns == 1800);
  CHECK(got->tuned == "2026-11-26 12:00 UTC");
  CHECK(got->gain == doctest::Approx(1.034));
  const auto other = scanlab::load_scan_tuning(path, "NVIDIA H200", "07_decoupled_lookback");
  REQUIRE(other.has_value());
  CHECK(other->shape == "128x16x8");
  CHECK(other->first_poll_ns == 0);
  CHECK(scanlab::load_scan_tuning(path, "NVIDIA H100 80GB HBM3", "11_async_copy_scan")->shape == "128x16x8");
  CHECK_FALSE(fs::exists(path + ".tmp"));  // written beside, then renamed over
}

TEST_CASE("a tuning file that is there but wrong is an error that names the file and the fix") {
  TempDir dir;
  const std::string path = dir.file("bad.json");
  auto message = [&](const std::string& text) {
    write(path, text);
    try {
      (void)scanlab::load_scan_tuning(path, "GPU A", "07_decoupled_lookback");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message("{ not json").find("is not valid JSON") != std::string::npos);
  CHECK(message("{ not json").find(path) != std::string::npos);
  CHECK(message("{ not json").find("./lab tune") != std::string::npos);
  CHECK(message(R"({"gpus": {}})").find("format 1") != std::string::npos);
  CHECK(message(R"({"scanlab_tuning": 2, "gpus": {}})").find("format 1") != std::string::npos);
  CHECK(message(R"({"scanlab_tuning": 1})").find("\"gpus\"") != std::string::npos);
  CHECK(message(R"({"scanlab_tuning": 1, "gpus": {"GPU A": 3}})").find("not an object") != std::string::npos);
  CHECK(message(R"({"scanlab_tuning": 1, "gpus": {"GPU A": {"07_decoupled_lookback": {"shape": 7}}}})")
            .find("\"shape\"") != std::string::npos);
  const std::string entry = R"({"scanlab_tuning": 1, "gpus": {"GPU A": {"07_decoupled_lookback": {"shape": "128x32", )";
  CHECK(message(entry + R"("first_poll_ns": -5, "poll_every_ns": 900}}}})").find("first_poll_ns") != std::string::npos);
  CHECK(message(entry + R"("first_poll_ns": 100, "poll_every_ns": 1e12}}}})").find("poll_every_ns") !=
        std::string::npos);
  CHECK(message(entry + R"("first_poll_ns": 100}}}})").find("poll_every_ns") != std::string::npos);
  CHECK(message(entry + R"("first_poll_ns": 100, "poll_every_ns": 200}}}})") == "no error");
  // A broken file is not overwritten by the next save either: the error comes first.
  write(path, "{ not json");
  CHECK_THROWS_AS(scanlab::save_scan_tuning(path, "GPU A", "07_decoupled_lookback", scanlab::ScanTuning{}),
                  std::runtime_error);
  std::ifstream f(path);
  std::string kept((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(kept == "{ not json");
}
