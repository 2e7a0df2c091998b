// scanlab_bench: table, CSV and JSON output. Plain C++ (no CUDA), built by the host compiler.
#include "report.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench_commit.hpp"  // SCANLAB_BENCH_COMMIT, written at build time by bench/commit.cmake

namespace scanlab::bench {
namespace {

std::string version_string(int v) {  // CUDA encodes 13.0 as 13000
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string cub_version_string(int v) {  // CUB_VERSION: 300001 = 3.0.1
  return std::to_string(v / 100000) + "." + std::to_string(v / 100 % 1000) + "." + std::to_string(v % 100);
}

bool is_power_of_two(size_t n) { return n != 0 && (n & (n - 1)) == 0; }

double log2_of(size_t n) { return std::log2(static_cast<double>(n)); }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

std::string device_line(const DeviceMeta& m) {
  std::string s = m.name + ", compute capability " + std::to_string(m.cc_major) + "." + std::to_string(m.cc_minor) +
                  ", " + std::to_string(m.sm_count) + " SMs";
  s += m.sm_clock_mhz > 0 ? ", SM clock " + std::to_string(m.sm_clock_mhz) + " MHz" : ", SM clock n/a";
  if (m.mem_clock_mhz > 0 && m.bus_width_bits > 0) {
    s += ", memory " + std::to_string(m.mem_clock_mhz) + " MHz x " + std::to_string(m.bus_width_bits) +
         "-bit (theoretical " + fmt("%.0f", m.theoretical_gbps()) + " GB/s)";
  } else {
    s += ", memory clock n/a";
  }
  s += ", L2 " + fmt("%.1f", static_cast<double>(m.l2_bytes) / 1048576.0) + " MiB, " +
       fmt("%.1f", static_cast<double>(m.global_mem_bytes) / 1073741824.0) + " GiB";
  return s;
}

std::string software_line(const DeviceMeta& m) {
  return "CUDA runtime " + version_string(m.runtime_version) + ", driver " + version_string(m.driver_version) +
         ", CUB " + cub_version_string(m.cub_version) + " (CUB_VERSION " + std::to_string(m.cub_version) + "), nvcc " +
         m.nvcc_version + ", built for " + m.built_for;
}

nlohmann::json number_or_null(double v, bool available) {
  return available && std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

std::string format_size(size_t n) {
  if (is_power_of_two(n)) {
    int k = 0;
    while ((size_t(1) << k) != n) ++k;
    return "2^" + std::to_string(k);
  }
  return std::to_string(n);
}

void print_header(std::FILE* f, const DeviceMeta& meta, const std::vector<std::string>& method) {
  std::fprintf(f, "scanlab_bench: prefix scan throughput on the GPU\n");
  std::fprintf(f, "device  : %s\n", device_line(meta).c_str());
  std::fprintf(f, "software: %s\n", software_line(meta).c_str());
  for (const std::string& line : method) std::fprintf(f, "method  : %s\n", line.c_str());
  std::fprintf(f, "\n");
}

void print_table_head(std::FILE* f) {
  std::fprintf(f, "%-26s %-5s %7s %11s %10s %10s %9s %8s %6s %6s  %s\n", "algorithm", "type", "n", "median ms",
               "min ms", "max ms", "Gelem/s", "GB/s", "x copy", "x CUB", "check");
  std::fflush(f);
}

void print_size_rows(std::FILE* f, const std::vector<Measurement>& rows) {
  for (const Measurement& m : rows) {
    if (!m.shown) continue;
    const std::string n = format_size(m.n);
    if (m.status == Status::skipped || m.reps == 0) {
      std::fprintf(f, "%-26s %-5s %7s  %s: %s\n", m.algorithm.c_str(), m.type.c_str(), n.c_str(),
                   m.status == Status::skipped ? "skipped" : "FAILED", m.note.c_str());
      continue;
    }
    const std::string rc = m.ratio_copy > 0 ? fmt("%6.2f", m.ratio_copy) : std::string("     -");
    const std::string rb = m.ratio_cub > 0 ? fmt("%6.2f", m.ratio_cub) : std::string("     -");
    // Where x CUB is against the faster of several counterparts, which one.
    const std::string against = m.cub_row_picked && m.ratio_cub > 0 ? "  x CUB vs " + m.cub_row : "";
    std::fprintf(f, "%-26s %-5s %7s %11.4f %10.4f %10.4f %9.2f %8.1f %s %s  %s%s%s\n", m.algorithm.c_str(),
                 m.type.c_str(), n.c_str(), m.median_ms, m.min_ms, m.max_ms, m.elements_per_s() / 1e9, m.gbps(),
                 rc.c_str(), rb.c_str(), status_name(m.status), m.l2_resident ? " *L2" : "", against.c_str());
    if (m.status == Status::failed) std::fprintf(f, "    %s\n", m.note.c_str());
  }
  std::fprintf(f, "\n");
  std::fflush(f);
}

size_t print_footer(std::FILE* f, const std::vector<Measurement>& rows, const std::vector<RowLegend>& legend,
                    const std::string& fatal) {
  std::fprintf(f, "rows:\n");
  for (const RowLegend& r : legend) {
    std::fprintf(f, "  %-26s %s%s%s\n", r.name.c_str(), r.what.c_str(), r.note.empty() ? "" : "; ", r.note.c_str());
  }
  bool any_l2 = false;
  size_t ok = 0, failed = 0, skipped = 0;
  for (const Measurement& m : rows) {
    if (!m.shown) continue;
    any_l2 = any_l2 || (m.l2_resident && m.status == Status::ok);
    if (m.status == Status::ok) ++ok;
    if (m.status == Status::failed) ++failed;
    if (m.status == Status::skipped) ++skipped;
  }
  if (any_l2) std::fprintf(f, "*L2: the data of consecutive repetitions may sit in L2 (hot cache)\n");
  std::fprintf(f, "%zu rows verified, %zu FAILED, %zu skipped\n", ok, failed, skipped);
  for (const Measurement& m : rows) {
    if (m.shown && m.status == Status::failed) {
      std::fprintf(f, "  FAILED %s %s n=%s: %s\n", m.algorithm.c_str(), m.type.c_str(), format_size(m.n).c_str(),
                   m.note.c_str());
    }
  }
  if (!fatal.empty()) std::fprintf(f, "stopped early, the device failed: %s\n", fatal.c_str());
  std::fflush(f);
  return failed;
}

void write_csv(const std::string& path, const DeviceMeta& meta, const std::vector<Measurement>& rows) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "algorithm,type,n,log2_n,status,median_ms,min_ms,max_ms,reps,elements_per_s,gb_per_s,"
         "ratio_to_copy,ratio_to_cub,cub_row,l2_resident,buffer_pairs,device,note\n";
  for (const Measurement& m : rows) {
    if (!m.shown) continue;
    const bool timed = m.reps > 0;
    out << m.algorithm << ',' << m.type << ',' << m.n << ',' << fmt("%.4g", log2_of(m.n)) << ','
        << status_name(m.status) << ',';
    if (timed) {
      out << fmt("%.6g", m.median_ms) << ',' << fmt("%.6g", m.min_ms) << ',' << fmt("%.6g", m.max_ms) << ',' << m.reps
          << ',' << fmt("%.6g", m.elements_per_s()) << ',' << fmt("%.6g", m.gbps()) << ',';
    } else {
      out << ",,,,,,";
    }
    out << (m.ratio_copy > 0 ? fmt("%.4f", m.ratio_copy) : "") << ','
        << (m.ratio_cub > 0 ? fmt("%.4f", m.ratio_cub) : "") << ',' << m.cub_row << ',' << (m.l2_resident ? 1 : 0)
        << ',' << m.slots << ',' << csv_quote(meta.name) << ',' << csv_quote(m.note) << '\n';
  }
  if (!out) throw std::runtime_error("error writing " + path);
}

void write_json(const std::string& path, const Config& cfg, const DeviceMeta& meta,
                const std::vector<std::string>& method, const std::vector<RowLegend>& legend,
                const std::vector<Measurement>& rows, const std::string& fatal) {
  nlohmann::json j;
  j["tool"] = "scanlab_bench";
  // The commit the bench was built from ("-dirty": with changes to tracked files), which the plots'
  // captions name; null outside a git checkout.
  const std::string commit = SCANLAB_BENCH_COMMIT;
  j["commit"] = commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(commit);
  j["device"] = {
      {"name", meta.name},
      {"compute_capability", std::to_string(meta.cc_major) + "." + std::to_string(meta.cc_minor)},
      {"sm_count", meta.sm_count},
      {"sm_clock_mhz", meta.sm_clock_mhz > 0 ? nlohmann::json(meta.sm_clock_mhz) : nlohmann::json(nullptr)},
      {"memory_clock_mhz", meta.mem_clock_mhz > 0 ? nlohmann::json(meta.mem_clock_mhz) : nlohmann::json(nullptr)},
      {"memory_bus_width_bits",
       meta.bus_width_bits > 0 ? nlohmann::json(meta.bus_width_bits) : nlohmann::json(nullptr)},
      {"theoretical_gb_per_s", number_or_null(meta.theoretical_gbps(), meta.theoretical_gbps() > 0)},
      {"l2_bytes", meta.l2_bytes},
      {"global_memory_bytes", meta.global_mem_bytes},
  };
  j["software"] = {
      {"cuda_runtime", version_string(meta.runtime_version)},
      {"cuda_driver", version_string(meta.driver_version)},
      {"cub", cub_version_string(meta.cub_version)},
      {"cub_version_macro", meta.cub_version},
      {"nvcc", meta.nvcc_version},
      {"built_for", meta.built_for},
  };
  j["config"] = {
      {"reps", cfg.reps},
      {"warmup", cfg.warmup},
      {"seed", cfg.seed},
      {"spin_us", cfg.spin_us},
      {"l2_warm", cfg.l2_warm},
      {"l2_rotate_factor", cfg.l2_rotate_factor},
      {"bytes_counted",
       "(n read + elements written)*sizeof(T)*arrays, arrays = 2 for key-value sorts (keys and values)"},
  };
  j["method"] = method;
  nlohmann::json legend_json = nlohmann::json::array();
  for (const RowLegend& r : legend) legend_json.push_back({{"name", r.name}, {"what", r.what}, {"note", r.note}});
  j["algorithms"] = legend_json;
  nlohmann::json rows_json = nlohmann::json::array();
  for (const Measurement& m : rows) {
    if (!m.shown) continue;
    const bool timed = m.reps > 0;
    rows_json.push_back({
        {"algorithm", m.algorithm},
        {"type", m.type},
        {"n", m.n},
        {"log2_n", log2_of(m.n)},
        {"status", status_name(m.status)},
        {"median_ms", number_or_null(m.median_ms, timed)},
        {"min_ms", number_or_null(m.min_ms, timed)},
        {"max_ms", number_or_null(m.max_ms, timed)},
        {"reps", m.reps},
        {"bytes", m.bytes_moved()},
        {"elements_per_s", number_or_null(m.elements_per_s(), timed)},
        {"gb_per_s", number_or_null(m.gbps(), timed)},
        {"ratio_to_copy", number_or_null(m.ratio_copy, m.ratio_copy > 0)},
        {"ratio_to_cub", number_or_null(m.ratio_cub, m.ratio_cub > 0)},
        // The row ratio_to_cub is against: "cub", the row's CUB counterpart, or the faster of its two
        // (a sort's, timed with an int and a size_t item count: cub_row_picked).
        {"cub_row", m.ratio_cub > 0 ? nlohmann::json(m.cub_row) : nlohmann::json(nullptr)},
        {"cub_row_picked", m.cub_row_picked},
        {"l2_resident", m.l2_resident},
        {"buffer_pairs", m.slots},
        {"note", m.note},
    });
  }
  j["rows"] = rows_json;
  j["fatal"] = fatal.empty() ? nlohmann::json(nullptr) : nlohmann::json(fatal);
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << j.dump(2) << '\n';
  if (!out) throw std::runtime_error("error writing " + path);
}

}  // namespace scanlab::bench
