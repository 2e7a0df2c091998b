// scanlab_bench --tune: the sweep, the choice and the tuning file (see tune.hpp).
//
// The choice is made twice, so that noise does not pick it: the sweep ranks every candidate by its
// gain over the chapter's default (default time / candidate time, geometric mean over the sizes and
// types); then the best is measured again, against the default, with three times the repetitions.
// It replaces the default only when that second run also finds it at least kMinGain faster.
#include "tune.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <scanlab/tuning.hpp>

#include "harness.hpp"

namespace scanlab::bench {
namespace {

constexpr double kMinGain = 1.01;  // 1%: below that, medians of 20 runs do not tell two configurations apart

// Geometric mean over (type, n) of base time / row time; 0 when a pair is missing or not ok.
double gain_over(const std::vector<Measurement>& ms, const std::string& base, const std::string& row) {
  std::map<std::pair<std::string, size_t>, double> base_ms;
  for (const Measurement& m : ms) {
    if (m.algorithm == base && m.status == Status::ok) base_ms[{m.type, m.n}] = m.median_ms;
  }
  double log_sum = 0;
  int count = 0;
  for (const Measurement& m : ms) {
    if (m.algorithm != row) continue;
    const auto it = base_ms.find({m.type, m.n});
    if (m.status != Status::ok || it == base_ms.end() || m.median_ms <= 0) return 0.0;
    log_sum += std::log(it->second / m.median_ms);
    ++count;
  }
  return count == 0 ? 0.0 : std::exp(log_sum / count);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return buf;
}

std::string sizes_text(const Config& cfg) {
  std::string s;
  for (size_t n : cfg.sizes) {
    const int k = static_cast<int>(std::log2(static_cast<double>(n)));
    s += (s.empty() ? "" : ",") + ((size_t(1) << k) == n ? "2^" + std::to_string(k) : std::to_string(n));
  }
  return s;
}

Config only_rows(Config cfg, std::vector<std::string> rows, int reps) {
  cfg.algorithms = std::move(rows);
  cfg.reps = reps;
  return cfg;
}

}  // namespace

std::vector<PollPair> tune_poll_grid() {
  std::vector<PollPair> grid;
  for (unsigned first : {0u, 1400u, 2800u, 4200u, 5600u}) {
    for (unsigned every : {300u, 900u, 1800u}) grid.push_back({first, every});
  }
  return grid;
}

// One chapter: its candidates swept at cfg's sizes (or the chapter's own), its best measured again
// against its default, the winner written to `path`. Returns the exit code.
int tune_chapter(const std::string& chapter, bool first, const std::vector<TuneCandidate>& candidates, Registry& reg,
                 const Config& base_cfg, const DeviceMeta& meta, const std::string& path) {
  std::vector<const TuneCandidate*> mine;
  const TuneCandidate* def = nullptr;
  for (const TuneCandidate& c : candidates) {
    if (c.chapter != chapter) continue;
    mine.push_back(&c);
    if (c.is_default) def = &c;
  }
  if (def == nullptr) throw std::logic_error("chapter " + chapter + " has no default among its tuning candidates");
  Config cfg = base_cfg;
  if (cfg.sizes.empty()) cfg.sizes = def->sizes;
  std::vector<std::string> names;
  for (const TuneCandidate* c : mine) names.push_back(c->row);

  std::printf("%stuning chapter %s on %s: %zu configurations (tile shapes x poll schedules) at %s, %s; "
              "%d repetitions each\n",
              first ? "" : "\n", chapter.c_str(), meta.name.c_str(), names.size(), sizes_text(cfg).c_str(),
              cfg.types.size() == 1 ? cfg.types[0].c_str() : "int32 and float", cfg.reps);
  std::fflush(stdout);
  const BenchResult sweep =
      run_benchmark(only_rows(cfg, names, cfg.reps), reg, meta, [](const std::vector<Measurement>& ms) {
        if (ms.empty()) return;
        std::printf("  measured %s n = %zu\n", ms.front().type.c_str(), ms.front().n);
        std::fflush(stdout);
      });
  if (!sweep.fatal.empty()) {
    std::fprintf(stderr, "scanlab_bench --tune: the device failed: %s\n", sweep.fatal.c_str());
    return 1;
  }
  for (const Measurement& m : sweep.rows) {
    if (m.status == Status::failed) {
      std::fprintf(stderr, "scanlab_bench --tune: %s failed at %s n = %zu: %s; nothing written\n", m.algorithm.c_str(),
                   m.type.c_str(), m.n, m.note.c_str());
      return 1;
    }
  }

  std::vector<std::pair<double, const TuneCandidate*>> ranked;
  for (const TuneCandidate* c : mine) ranked.emplace_back(gain_over(sweep.rows, def->row, c->row), c);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    return a.first > b.first;
  });

  std::printf("\nchapter %s: the five best of %zu (gain = default time / its time, geometric mean)\n", chapter.c_str(),
              ranked.size());
  nlohmann::json sweep_json = nlohmann::json::array();
  for (size_t i = 0; i < ranked.size(); ++i) {
    const TuneCandidate& c = *ranked[i].second;
    if (i < 5 || c.is_default) {
      std::printf("  %-10s first poll %5u ns, then every %5u ns   gain %.3f%s\n", c.shape.c_str(), c.first_poll_ns,
                  c.poll_every_ns, ranked[i].first, c.is_default ? "   (built-in default)" : "");
    }
    sweep_json.push_back({{"shape", c.shape},
                          {"first_poll_ns", c.first_poll_ns},
                          {"poll_every_ns", c.poll_every_ns},
                          {"gain", ranked[i].first}});
  }

  // The best again, against the default, with three times the repetitions.
  const TuneCandidate* best = ranked.front().second;
  TuneCandidate chosen = *def;
  double confirmed = 1.0;
  if (best != def) {
    const BenchResult again = run_benchmark(only_rows(cfg, {def->row, best->row}, 3 * cfg.reps), reg, meta,
                                            [](const std::vector<Measurement>&) {});
    if (!again.fatal.empty()) {
      std::fprintf(stderr, "scanlab_bench --tune: the device failed: %s\n", again.fatal.c_str());
      return 1;
    }
    confirmed = gain_over(again.rows, def->row, best->row);
    std::printf("  measured again (%d repetitions): %s %u/%u gain %.3f over the default: %s\n", 3 * cfg.reps,
                best->shape.c_str(), best->first_poll_ns, best->poll_every_ns, confirmed,
                confirmed >= kMinGain ? "kept" : "under 1%, the default stays");
    if (confirmed >= kMinGain) chosen = *best;
    else confirmed = 1.0;
  } else {
    std::printf("  the built-in default is the best here\n");
  }

  ScanTuning t;
  t.shape = chosen.shape;
  t.first_poll_ns = chosen.first_poll_ns;
  t.poll_every_ns = chosen.poll_every_ns;
  t.tuned = utc_now();
  t.gain = confirmed;
  const nlohmann::json evidence = {{"sizes", sizes_text(cfg)},
                                   {"types", cfg.types},
                                   {"reps", cfg.reps},
                                   {"sm_count", meta.sm_count},
                                   {"cuda_runtime", meta.runtime_version},
                                   {"sweep", sweep_json}};
  save_scan_tuning(path, meta.name, chapter, t, evidence);
  std::printf("  %s on %s: tile %s, polls %u/%u ns (gain %.3f) -> %s\n", chapter.c_str(), meta.name.c_str(),
              t.shape.c_str(), t.first_poll_ns, t.poll_every_ns, t.gain, path.c_str());
  return 0;
}

int run_tuning(const Config& base_cfg, const DeviceMeta& meta, const std::string& path) {
  Registry reg;
  register_baseline_rows(reg);
  std::vector<TuneCandidate> candidates;
  register_ch07_tune_rows(reg, candidates);
  register_ch11_tune_rows(reg, candidates);
  std::vector<std::string> chapters;
  for (const TuneCandidate& c : candidates) {
    if (std::find(chapters.begin(), chapters.end(), c.chapter) == chapters.end()) chapters.push_back(c.chapter);
  }

  for (const std::string& chapter : chapters) {
    const int rc = tune_chapter(chapter, chapter == chapters.front(), candidates, reg, base_cfg, meta, path);
    if (rc != 0) return rc;
  }
  return 0;
}

}  // namespace scanlab::bench
