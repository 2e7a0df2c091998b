// Chapter 10 driver: segmented scan from head flags, and a summed-area table with a
// variable-width box filter that writes a PGM image.
//
// 1. n random values with random head flags (segments of every length, crossing warps, tiles and
//    blocks) through segmented_scan.cuh's segmented scan, checked against a sequential loop;
// 2. an 8-bit image (generated, or --input FILE.pgm) through the summed-area table (row scans,
//    transpose, row scans, transpose), checked against a sequential table; then a box filter whose
//    radius grows away from a focus row, checked against a direct sum over every box, and written
//    as a PGM image: the original on the left, the filtered image on the right.
// Exit code 0 only when everything verified.
//
//   ch10_segmented_scan_solution                            2^20 (emulator) / 2^24 (GPU) elements, 512 x 384 image
//   ch10_segmented_scan_solution --exclusive --type float
//   ch10_segmented_scan_solution --warp-only                the scan article's warp-only version, failing
//   ch10_segmented_scan_solution --input photo.pgm --output blurred.pgm --max-radius 20

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <scanlab/json.hpp>
#include <scanlab/chapter_driver.hpp>
#include <scanlab/command_line.hpp>
#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/device_info.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/nvtx.hpp>
#include <scanlab/random.hpp>
#include <scanlab/timing.hpp>
#include <scanlab/verify.hpp>

#include "segmented_scan_dispatch.cuh"

namespace {

struct Config {
  scanlab::CommonOptions common;
  std::string type = "int";
  bool exclusive = false;
  double mean_segment = 300.0;
  bool warp_only = false;
  int width = 512;
  int height = 384;
  std::string input;
  std::string output = "ch10_box_filter.pgm";
  int max_radius = 12;
  int focus_row = -1;  // -1: the middle row
  bool skip_image = false;
};

// ---- segmented scan ------------------------------------------------------------------------

// Heads with probability 1 / mean_segment, so segments of all lengths occur.
std::vector<std::uint8_t> random_heads(std::size_t n, double mean_segment, std::uint64_t seed) {
  scanlab::Rng rng(seed);
  std::vector<std::uint8_t> heads(n);
  const double p = mean_segment <= 1.0 ? 1.0 : 1.0 / mean_segment;
  for (auto& h : heads) h = rng.uniform(0.0, 1.0) < p ? 1 : 0;
  return heads;
}

// Each segment checked on its own against the oracle (float: with the tolerance of its length).
template <class T>
scanlab::VerifyResult verify_segments(const std::vector<T>& in, const std::vector<std::uint8_t>& heads,
                                      const std::vector<T>& got, bool exclusive) {
  const scanlab::ScanKind kind = exclusive ? scanlab::ScanKind::exclusive : scanlab::ScanKind::inclusive;
  scanlab::VerifyResult total;
  total.n = in.size();
  std::size_t begin = 0;
  while (begin < in.size()) {
    std::size_t end = begin + 1;
    while (end < in.size() && !heads[end]) ++end;
    const std::size_t len = end - begin;
    const scanlab::VerifyResult r =
        scanlab::verify_scan(in.data() + begin, got.data() + begin, len, kind, scanlab::Plus<T>{});
    if (!r.ok) {
      if (total.ok) {
        total = r;
        total.ok = false;
        total.first_index += begin;
        total.mismatches = 0;
        total.note = "in the segment [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
      }
      total.mismatches += r.mismatches;
    }
    begin = end;
  }
  total.n = in.size();
  return total;
}

template <class T>
bool run_segmented(const Config& cfg, scanlab::Json& report) {
  const std::size_t n = static_cast<std::size_t>(cfg.common.n);
  const T lo = std::is_integral_v<T> ? T(-100) : T(-1);
  const T hi = std::is_integral_v<T> ? T(100) : T(1);
  const std::vector<T> in = scanlab::random_vector<T>(n, cfg.common.seed, lo, hi);
  const std::vector<std::uint8_t> heads = random_heads(n, cfg.mean_segment, scanlab::derive_seed(cfg.common.seed, 1));
  std::size_t segments = n > 0 ? 1 : 0;
  for (std::size_t i = 1; i < n; ++i) segments += heads[i] ? 1 : 0;

  scanlab::DeviceBuffer<T> d_in(n), d_out(n);
  scanlab::DeviceBuffer<std::uint8_t> d_heads(n);
  ch10::SegmentedScanWorkspace<T> ws(n);
  const scanlab::Plus<T> plus;
  auto launch = [&] {
    if (cfg.warp_only) ch10::segmented_inclusive_scan_warp_only(d_in.data(), d_heads.data(), d_out.data(), n, plus);
    else if (cfg.exclusive)
      ch10::segmented_exclusive_scan(d_in.data(), ch10::HeadFlagArray{d_heads.data()}, d_out.data(), n, plus, ws);
    else ch10::segmented_inclusive_scan(d_in.data(), ch10::HeadFlagArray{d_heads.data()}, d_out.data(), n, plus, ws);
  };
  {
    SCANLAB_NVTX_RANGE("upload");
    d_in.upload(in);
    d_heads.upload(heads);
    d_out.fill_poison();
  }
  {
    SCANLAB_NVTX_RANGE("segmented scan");
    launch();
    SCANLAB_CHECK_SYNC();
  }
  const std::vector<T> got = d_out.download();
  const scanlab::VerifyResult r = verify_segments(in, heads, got, cfg.exclusive && !cfg.warp_only);
  const std::string what = std::to_string(n) + " elements in " + std::to_string(segments) + " segments, " +
                           (cfg.exclusive && !cfg.warp_only ? "exclusive" : "inclusive") + " sum, " +
                           (std::is_integral_v<T> ? "int32" : "float32");
  std::cout << (cfg.warp_only ? "segmented scan, warp only (the article's version): " : "segmented scan: ")
            << scanlab::verdict_line(r, what) << "\n";
  if (cfg.warp_only) {
    std::cout << "  Each warp restarts its scan at its first lane: a segment that crosses a warp boundary\n"
                 "  loses everything before the boundary. Carrying the lifted (value, flag) pairs across\n"
                 "  warps and blocks, as any scan does, fixes it: that is ch10::segmented_inclusive_scan.\n";
  }
  report["segmented"] = {{"n", n}, {"segments", segments}, {"verified", r.ok}, {"message", r.message()}};
  if (r.ok && !cfg.warp_only && !scanlab::on_emulator() && n > 0) {
    const scanlab::TimingStats t = scanlab::time_ms(launch, 3, cfg.common.repeat);
    const double bytes = static_cast<double>(n) * (2 * sizeof(T) + 1);
    std::cout << "median " << t.median_ms << " ms over " << t.reps
              << " run(s): " << static_cast<double>(n) / (t.median_ms * 1e6) << " G elements/s, "
              << scanlab::gbps(bytes, t.median_ms)
              << " GB/s (counting values in and out and one flag byte per element)\n";
    report["segmented"]["median_ms"] = t.median_ms;
  }
  return r.ok;
}

// ---- the image -----------------------------------------------------------------------------

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;
};

// Binary PGM (P5, maxval 255), comments allowed in the header.
Image read_pgm(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open '" + path + "'");
  auto token = [&]() {
    std::string t;
    while (f >> t) {
      if (t[0] == '#') {
        std::string rest;
        std::getline(f, rest);
        continue;
      }
      return t;
    }
    throw std::runtime_error("'" + path + "': truncated PGM header");
  };
  if (token() != "P5") throw std::runtime_error("'" + path + "' is not a binary PGM (P5) file");
  Image img;
  img.width = scanlab::parse_whole_number<int>(token(), "'" + path + "': the PGM width");
  img.height = scanlab::parse_whole_number<int>(token(), "'" + path + "': the PGM height");
  if (scanlab::parse_whole_number<int>(token(), "'" + path + "': the PGM maxval") != 255)
    throw std::runtime_error("'" + path + "': only maxval 255 is supported");
  f.get();
  if (img.width <= 0 || img.height <= 0) throw std::runtime_error("'" + path + "': bad size");
  img.pixels.resize(static_cast<std::size_t>(img.width) * img.height);
  f.read(reinterpret_cast<char*>(img.pixels.data()), static_cast<std::streamsize>(img.pixels.size()));
  if (!f) throw std::runtime_error("'" + path + "': truncated pixel data");
  return img;
}

void write_pgm(const std::string& path, const Image& img) {
  std::ofstream f(path, std::ios::binary);
  f << "P5\n" << img.width << " " << img.height << "\n255\n";
  f.write(reinterpret_cast<const char*>(img.pixels.data()), static_cast<std::streamsize>(img.pixels.size()));
  if (!f) throw std::runtime_error("cannot write '" + path + "'");
}

// A test card: a checkerboard, rings, a ramp and thin lines: blur shows on all of them.
Image test_card(int width, int height) {
  Image img{width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height)};
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      int v = ((x / 16 + y / 16) % 2) ? 200 : 55;
      const double dx = x - width * 0.5, dy = y - height * 0.5;
      const double rr = std::sqrt(dx * dx + dy * dy);
      if (rr < std::min(width, height) * 0.35) v = (static_cast<int>(rr) / 6) % 2 ? 255 : 0;
      if (x % 64 == 0 || y % 64 == 0) v = 128;
      if (y >= height - 24) v = x * 255 / std::max(1, width - 1);
      img.pixels[static_cast<std::size_t>(y) * width + x] = static_cast<std::uint8_t>(v);
    }
  }
  return img;
}

bool run_image(const Config& cfg, scanlab::Json& report) {
  const Image img = cfg.input.empty() ? test_card(cfg.width, cfg.height) : read_pgm(cfg.input);
  const int w = img.width, h = img.height;
  const std::size_t pixels = static_cast<std::size_t>(w) * h;
  if (pixels > (std::size_t{1} << 24)) throw std::runtime_error("images up to 2^24 pixels (uint32 table sums)");
  std::vector<std::uint32_t> values(img.pixels.begin(), img.pixels.end());

  scanlab::DeviceBuffer<std::uint32_t> d_image(values), d_sat(pixels);
  scanlab::DeviceBuffer<std::uint8_t> d_out(pixels);
  ch10::SatWorkspace<std::uint32_t> ws(w, h);
  d_sat.fill_poison();
  d_out.fill_poison();
  const ch10::TiltShiftRadius radius{cfg.focus_row >= 0 ? std::min(cfg.focus_row, h - 1) : h / 2, cfg.max_radius, h};
  {
    SCANLAB_NVTX_RANGE("summed-area table and box filter");
    ch10::summed_area_table(d_image.data(), d_sat.data(), w, h, ws);
    ch10::box_filter(d_sat.data(), d_out.data(), w, h, radius);
    SCANLAB_CHECK_SYNC();
  }
  // The table, sequentially.
  std::vector<std::uint32_t> want(pixels);
  for (int y = 0; y < h; ++y) {
    std::uint32_t row = 0;
    for (int x = 0; x < w; ++x) {
      row += values[static_cast<std::size_t>(y) * w + x];
      want[static_cast<std::size_t>(y) * w + x] = row + (y > 0 ? want[static_cast<std::size_t>(y - 1) * w + x] : 0u);
    }
  }
  const std::vector<std::uint32_t> sat = d_sat.download();
  const scanlab::VerifyResult rs = scanlab::verify_exact(want.data(), sat.data(), pixels);
  std::cout << "summed-area table of a " << w << " x " << h
            << " image: " << (rs.ok ? "verified" : "FAILED: " + rs.message()) << "\n";

  // The filter, by summing every box directly (no table).
  const std::vector<std::uint8_t> got = d_out.download();
  std::size_t wrong = 0, first = 0;
  for (int y = 0; y < h && rs.ok; ++y) {
    for (int x = 0; x < w; ++x) {
      const int r = radius(x, y);
      std::uint64_t sum = 0, count = 0;
      for (int yy = std::max(0, y - r); yy <= std::min(h - 1, y + r); ++yy) {
        for (int xx = std::max(0, x - r); xx <= std::min(w - 1, x + r); ++xx) {
          sum += img.pixels[static_cast<std::size_t>(yy) * w + xx];
          ++count;
        }
      }
      const auto mean = static_cast<std::uint8_t>((sum + count / 2) / count);
      if (got[static_cast<std::size_t>(y) * w + x] != mean) {
        if (wrong == 0) first = static_cast<std::size_t>(y) * w + x;
        ++wrong;
      }
    }
  }
  const bool filter_ok = rs.ok && wrong == 0;
  std::cout << "box filter, radius 0 at row " << radius.focus_row << " growing to " << cfg.max_radius
            << " at the edges: "
            << (filter_ok ? "verified against a direct sum over every box"
                          : (rs.ok ? "FAILED: " + std::to_string(wrong) + " pixels wrong, the first at (" +
                                         std::to_string(first % w) + ", " + std::to_string(first / w) + ")"
                                   : std::string("not checked (the table is wrong)")))
            << "\n";

  Image side{2 * w, h, std::vector<std::uint8_t>(static_cast<std::size_t>(2 * w) * h)};
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      side.pixels[static_cast<std::size_t>(y) * 2 * w + x] = img.pixels[static_cast<std::size_t>(y) * w + x];
      side.pixels[static_cast<std::size_t>(y) * 2 * w + w + x] = got[static_cast<std::size_t>(y) * w + x];
    }
  }
  write_pgm(cfg.output, side);
  std::cout << "wrote " << cfg.output << " (" << 2 * w << " x " << h
            << ": the original left, the filtered image right; any image viewer opens PGM)\n";
  report["image"] = {
      {"width", w}, {"height", h}, {"sat_verified", rs.ok}, {"filter_verified", filter_ok}, {"output", cfg.output}};
  if (filter_ok && !scanlab::on_emulator()) {
    const scanlab::TimingStats t = scanlab::time_ms(
        [&] {
          ch10::summed_area_table(d_image.data(), d_sat.data(), w, h, ws);
        },
        3, cfg.common.repeat);
    std::cout << "summed-area table: median " << t.median_ms << " ms over " << t.reps << " run(s)\n";
    report["image"]["sat_median_ms"] = t.median_ms;
  }
  return filter_ok;
}

}  // namespace

int main(int argc, char** argv) {
  scanlab::CommandLine cli{"Chapter 10: segmented scan and summed-area tables", "ch10_segmented_scan"};
  Config cfg;
  scanlab::add_common_options(cli, cfg.common, scanlab::on_emulator() ? (1u << 20) : (1u << 24));
  cli.option("--type", cfg.type, "element type of the segmented scan").one_of({"int", "float"}).show_default();
  cli.flag("--exclusive", cfg.exclusive, "exclusive segmented scan (the identity at each head)");
  cli.option("--mean-segment", cfg.mean_segment, "mean segment length (heads with probability 1/L)")
      .positive()
      .show_default();
  cli.flag("--warp-only", cfg.warp_only, "run the scan article's warp-only segmented scan, and watch it fail");
  cli.option("--width", cfg.width, "width of the generated test image").range(1, 4096).show_default();
  cli.option("--height", cfg.height, "height of the generated test image").range(1, 4096).show_default();
  cli.option("--input", cfg.input, "filter this binary PGM (P5) image instead of the test card").existing_file();
  cli.option("--output", cfg.output, "where to write the PGM (original | filtered)").show_default();
  cli.option("--max-radius", cfg.max_radius, "box radius at the top and bottom edges").range(0, 1000).show_default();
  cli.option("--focus-row", cfg.focus_row, "the sharp row (default: the middle)").non_negative();
  cli.flag("--no-image", cfg.skip_image, "skip the summed-area table and the image");
  cli.parse(argc, argv);
  return scanlab::run_reporting_errors(cli, [&] {
    if (!cfg.common.quiet) {
      std::cout << "Chapter 10: segmented scan = a scan of (value, head flag) pairs with the lifted operator;\n"
                   "summed-area table = row scans (a segmented scan), transpose, row scans, transpose.\n"
                << "backend: " << scanlab::backend_description() << "\n\n";
    }
    scanlab::Json report = {
        {"chapter", "10_segmented_scan"}, {"backend", scanlab::backend_name()}, {"seed", cfg.common.seed}};
    bool ok = cfg.type == "float" ? run_segmented<float>(cfg, report) : run_segmented<std::int32_t>(cfg, report);
    if (!cfg.skip_image && !cfg.warp_only) ok = run_image(cfg, report) && ok;
    if (scanlab::on_emulator() && !cfg.common.quiet) scanlab::say_not_timed();
    report["verified"] = ok;
    scanlab::write_json_report(cfg.common.json, report);
    return ok ? 0 : 1;
  });
}
