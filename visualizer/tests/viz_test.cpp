// Tests of scanlab-viz: it is run as a user runs it (`lab viz NN`), and what it wrote is read back
// with Graphviz's own DOT parser (cgraph's agmemread), never compared as text. Checked: the worked
// example's values in every row of chapter 02's trees (every "add" node is the sum of its two
// sources, every "swap" node a copy of its source, the root holds the total, the last row is the
// oracle's exclusive scan), chapter 01's step diagram, chapter 03's bank maps (each lane points to
// bank slot mod 32, conflicts are highlighted exactly where a bank holds two words) and the
// emulator's per-level table, chapter 05's multi-block picture (each block sum is its tile's total,
// their scan and the outputs are the scans computed here from the traced input, for both
// algorithms), and that the SVG and PNG files exist and are not empty.
#include <doctest/doctest.h>

#include <graphviz/cgraph.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <scanlab/monoid.hpp>
#include <scanlab/oracle.hpp>

namespace fs = std::filesystem;

namespace {

const std::vector<long long> kWorkedExample = {3, 1, 7, 0, 4, 1, 6, 3};

std::string join(const std::vector<long long>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

// Runs scanlab-viz with `args` into a fresh folder; returns the folder.
fs::path run_viz(const std::string& name, const std::string& args) {
  const fs::path out = fs::path(SCANLAB_VIZ_TEST_OUT) / name;
  fs::remove_all(out);
  // The reference solution's runs: the student's programs are built only when `lab viz` asks.
  const std::string command = std::string("'") + SCANLAB_VIZ_EXECUTABLE + "' " + args + " --solution --out '" +
                              out.string() + "' > '" + out.string() + ".log' 2>&1";
  fs::create_directories(out);
  const int rc = std::system(command.c_str());
  if (rc != 0) {
    std::ifstream log(out.string() + ".log");
    std::stringstream ss;
    ss << log.rdbuf();
    FAIL("scanlab-viz failed: " << command << "\n" << ss.str());
  }
  return out;
}

struct GraphDeleter {
  void operator()(Agraph_t* g) const { agclose(g); }
};
using Graph = std::unique_ptr<Agraph_t, GraphDeleter>;

Graph parse_dot(const fs::path& file) {
  std::ifstream f(file);
  REQUIRE_MESSAGE(f.good(), "missing " << file);
  std::stringstream ss;
  ss << f.rdbuf();
  Agraph_t* g = agmemread(ss.str().c_str());
  REQUIRE_MESSAGE(g != nullptr, "Graphviz cannot parse " << file);
  return Graph(g);
}

std::string attr(void* obj, const char* name) {
  char* v = agget(obj, const_cast<char*>(name));
  return v ? std::string(v) : std::string();
}

Agnode_t* node(Agraph_t* g, const std::string& id) { return agnode(g, const_cast<char*>(id.c_str()), 0); }

long long value(Agnode_t* n) {
  REQUIRE(n != nullptr);
  return std::stoll(attr(n, "value"));
}

// The values of row `row` of a grid whose node IDs are prefix<row>_<col>.
std::vector<long long> row_values(Agraph_t* g, const std::string& prefix, int row, std::size_t m) {
  std::vector<long long> v;
  for (std::size_t c = 0; c < m; ++c) {
    Agnode_t* n = node(g, prefix + std::to_string(row) + "_" + std::to_string(c));
    REQUIRE_MESSAGE(n != nullptr, "no node " << prefix << row << "_" << c);
    v.push_back(value(n));
  }
  return v;
}

// Every node that an "add" edge enters is the sum of its add sources; a "swap" or "keep" target
// equals its source. Returns how many add targets were checked.
int check_edges(Agraph_t* g) {
  int adds = 0;
  for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
    if (attr(n, "value").empty()) continue;
    long long sum = 0;
    int add_sources = 0;
    for (Agedge_t* e = agfstin(g, n); e; e = agnxtin(g, e)) {
      const std::string op = attr(e, "op");
      if (op == "add") {
        sum += value(agtail(e));
        ++add_sources;
      } else if (op == "swap" || op == "keep") {
        INFO(op << " into " << agnameof(n));
        CHECK(value(n) == value(agtail(e)));
      }
    }
    if (add_sources > 0) {
      INFO("add into " << agnameof(n));
      CHECK(add_sources == 2);
      CHECK(value(n) == sum);
      ++adds;
    }
  }
  return adds;
}

void check_rendered(const fs::path& dir, const std::string& name) {
  for (const char* ext : {".dot", ".svg", ".png"}) {
    const fs::path f = dir / (name + ext);
    INFO(f);
    REQUIRE(fs::exists(f));
    CHECK(fs::file_size(f) > 100);
  }
}

}  // namespace

TEST_CASE("chapter 02: the worked example's trees hold every intermediate array") {
  const fs::path out = run_viz("ch02", "02 --input " + join(kWorkedExample));
  check_rendered(out, "upsweep");
  check_rendered(out, "downsweep");
  const std::size_t m = kWorkedExample.size();
  const long long total = std::accumulate(kWorkedExample.begin(), kWorkedExample.end(), 0LL);

  Graph up = parse_dot(out / "upsweep.dot");
  CHECK(row_values(up.get(), "u", 0, m) == kWorkedExample);
  // 4 + 2 + 1 nodes are combined over the three levels.
  CHECK(check_edges(up.get()) == 7);
  CHECK(value(node(up.get(), "u3_7")) == total);

  Graph down = parse_dot(out / "downsweep.dot");
  CHECK(row_values(down.get(), "d0", 0, 0).empty());
  CHECK(value(node(down.get(), "d0_7")) == total);
  CHECK(value(node(down.get(), "d1_7")) == 0);  // the identity at the root
  // 1 + 2 + 4 nodes receive a sum on the way down.
  CHECK(check_edges(down.get()) == 7);
  std::vector<long long> expected(m);
  scanlab::exclusive_scan_oracle(kWorkedExample.data(), expected.data(), m, scanlab::Plus<long long>{});
  CHECK(row_values(down.get(), "d", 4, m) == expected);
}

TEST_CASE("chapter 02: a non-power-of-two input is padded with the identity, and drawn so") {
  const std::vector<long long> in = {5, 2, 9, 4, 1};
  const fs::path out = run_viz("ch02_pad", "02 --input " + join(in));
  Graph down = parse_dot(out / "downsweep.dot");
  std::vector<long long> expected(in.size());
  scanlab::exclusive_scan_oracle(in.data(), expected.data(), in.size(), scanlab::Plus<long long>{});
  std::vector<long long> last = row_values(down.get(), "d", 4, 8);
  last.resize(in.size());
  CHECK(last == expected);
  for (std::size_t c = 5; c < 8; ++c) CHECK(attr(node(down.get(), "d0_" + std::to_string(c)), "padding") == "true");
  CHECK(check_edges(down.get()) == 7);
}

TEST_CASE("chapter 01: one row per Hillis-Steele step, one add per element at or past the offset") {
  const fs::path out = run_viz("ch01", "01 --input " + join(kWorkedExample));
  check_rendered(out, "steps");
  Graph g = parse_dot(out / "steps.dot");
  // Steps with offsets 1, 2, 4 combine 7 + 6 + 4 elements.
  CHECK(check_edges(g.get()) == 17);
  std::vector<long long> expected(kWorkedExample.size());
  scanlab::inclusive_scan_oracle(kWorkedExample.data(), expected.data(), expected.size(), scanlab::Plus<long long>{});
  CHECK(row_values(g.get(), "h", 3, expected.size()) == expected);
}

TEST_CASE("chapter 03: bank maps point each lane to slot mod 32 and highlight exactly the conflicts") {
  const fs::path out = run_viz("ch03", "03 --level load --level \"up 5\"");
  check_rendered(out, "bank_levels");
  check_rendered(out, "bank_map_load");
  check_rendered(out, "bank_map_up5");

  Graph map = parse_dot(out / "bank_map_up5.dot");
  std::map<std::string, std::map<int, std::set<int>>> words;  // layout -> bank -> slots
  for (Agnode_t* n = agfstnode(map.get()); n; n = agnxtnode(map.get(), n)) {
    const std::string name = agnameof(n);
    if (name.find("_lane") == std::string::npos) continue;
    const int slot = std::stoi(attr(n, "slot"));
    const int bank = std::stoi(attr(n, "bank"));
    CHECK(bank == slot % 32);
    Agedge_t* e = agfstout(map.get(), n);
    REQUIRE(e != nullptr);
    CHECK(attr(aghead(e), "bank") == std::to_string(bank));
    words[name.substr(0, name.find("_lane"))][bank].insert(slot);
  }
  REQUIRE(words.count("padded") == 1);
  REQUIRE(words.count("unpadded") == 1);
  std::size_t worst_unpadded = 0, worst_padded = 0;
  for (const auto& [layout, banks] : words) {
    for (int b = 0; b < 32; ++b) {
      Agnode_t* n = node(map.get(), layout + "_bank" + std::to_string(b));
      REQUIRE(n != nullptr);
      const std::size_t count = banks.count(b) ? banks.at(b).size() : 0;
      CHECK(attr(n, "words") == std::to_string(count));
      CHECK(attr(n, "conflict") == (count > 1 ? "true" : "false"));
      (layout == "padded" ? worst_padded : worst_unpadded) =
          std::max(layout == "padded" ? worst_padded : worst_unpadded, count);
    }
  }
  // Level up 5 has stride 16: unpadded, warp 0's left indices 32t + 15 all fall into bank 15.
  CHECK(worst_unpadded == 32);
  CHECK(worst_padded == 1);

  // The emulator's per-level table: padding never makes a level worse, and removes the high degrees.
  Graph table = parse_dot(out / "bank_levels.dot");
  std::map<std::string, std::map<std::string, int>> degree;  // level -> layout -> degree
  for (Agnode_t* n = agfstnode(table.get()); n; n = agnxtnode(table.get(), n)) {
    const std::string layout = attr(n, "layout_name");
    if (layout.empty()) continue;
    degree[attr(n, "level")][layout] = std::stoi(attr(n, "degree"));
  }
  CHECK(degree.size() == 24);  // load, 11 up, 11 down, store
  int worst_before = 0;
  for (const auto& [level, d] : degree) {
    INFO(level);
    CHECK(d.at("padded") <= d.at("unpadded"));
    CHECK(d.at("padded") <= 2);
    worst_before = std::max(worst_before, d.at("unpadded"));
  }
  CHECK(worst_before >= 16);
}

// ---- chapter 05 -------------------------------------------------------------------------------

namespace {

struct Cell {
  long long tile, row, value;
  long long index;  // -1 for sums
};

// The nodes of one phase of the multi-block picture (phase attribute), ordered by tile and row.
std::vector<Cell> phase_cells(Agraph_t* g, const std::string& phase) {
  std::vector<Cell> cells;
  for (Agnode_t* n = agfstnode(g); n; n = agnxtnode(g, n)) {
    if (attr(n, "phase") != phase) continue;
    const std::string index = attr(n, "index");
    cells.push_back(
        {std::stoll(attr(n, "tile")), std::stoll(attr(n, "row")), value(n), index.empty() ? -1 : std::stoll(index)});
  }
  std::sort(cells.begin(), cells.end(), [](const Cell& a, const Cell& b) {
    return a.tile != b.tile ? a.tile < b.tile : a.row < b.row;
  });
  return cells;
}

std::vector<long long> values_of(const std::vector<Cell>& cells) {
  std::vector<long long> v;
  for (const Cell& c : cells) v.push_back(c.value);
  return v;
}

// What the driver scanned: the "input" of the trace's result line (written by the driver from
// its host array, not by a kernel).
std::vector<long long> traced_input(const fs::path& trace) {
  std::ifstream f(trace);
  REQUIRE_MESSAGE(f.good(), "missing " << trace);
  std::string line;
  while (std::getline(f, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.value("type", "") == "result") return j.at("input").get<std::vector<long long>>();
  }
  FAIL("no result line in " << trace);
  return {};
}

std::vector<long long> scan_of(const std::vector<long long>& in, bool inclusive) {
  std::vector<long long> out(in.size());
  if (inclusive) scanlab::inclusive_scan_oracle(in.data(), out.data(), in.size(), scanlab::Plus<long long>{});
  else scanlab::exclusive_scan_oracle(in.data(), out.data(), in.size(), scanlab::Plus<long long>{});
  return out;
}

// Sums of in over consecutive ranges of `width` elements.
std::vector<long long> range_sums(const std::vector<long long>& in, std::size_t width) {
  std::vector<long long> sums;
  for (std::size_t i = 0; i < in.size(); i += width) {
    sums.push_back(std::accumulate(in.begin() + i, in.begin() + std::min(in.size(), i + width), 0LL));
  }
  return sums;
}

constexpr std::size_t kTile = 32;  // scanlab-viz 05 runs one-warp tiles

}  // namespace

TEST_CASE("chapter 05: scan-then-propagate's tiles, block sums, their scan and the uniform add") {
  for (const bool inclusive : {true, false}) {
    CAPTURE(inclusive);
    const std::string name = inclusive ? "ch05_stp" : "ch05_stp_exclusive";
    const fs::path out = run_viz(name, std::string("05 --n 70 --seed 5") + (inclusive ? "" : " --exclusive"));
    check_rendered(out, "scan_then_propagate");
    const std::vector<long long> in = traced_input(out / "trace.jsonl");
    REQUIRE(in.size() == 70);
    Graph g = parse_dot(out / "scan_then_propagate.dot");

    // The input, cut into ceil(70 / 32) = 3 tiles: element i is row i % 32 of tile i / 32.
    const std::vector<Cell> inputs = phase_cells(g.get(), "input");
    REQUIRE(inputs.size() == in.size());
    CHECK(values_of(inputs) == in);
    std::set<long long> tiles;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      CHECK(inputs[i].index == static_cast<long long>(i));
      CHECK(inputs[i].tile == static_cast<long long>(i / kTile));
      CHECK(inputs[i].row == static_cast<long long>(i % kTile));
      tiles.insert(inputs[i].tile);
    }
    CHECK(tiles.size() == 3);

    // Each tile scanned on its own.
    std::vector<long long> local;
    for (std::size_t i = 0; i < in.size(); i += kTile) {
      const std::vector<long long> tile(in.begin() + i, in.begin() + std::min(in.size(), i + kTile));
      const std::vector<long long> scanned = scan_of(tile, inclusive);
      local.insert(local.end(), scanned.begin(), scanned.end());
    }
    CHECK(values_of(phase_cells(g.get(), "tile_scan")) == local);

    // The block sums are the tiles' totals; one level up they are scanned exclusively.
    const std::vector<long long> sums = range_sums(in, kTile);
    CHECK(values_of(phase_cells(g.get(), "block_sum")) == sums);
    CHECK(values_of(phase_cells(g.get(), "scanned_sum")) == scan_of(sums, false));

    // The uniform add: the output is the scan of the whole input.
    const std::vector<Cell> outputs = phase_cells(g.get(), "output");
    CHECK(values_of(outputs) == scan_of(in, inclusive));
    // The value every element of tile t >= 1 got added: its scanned block sum.
    for (const Cell& c : phase_cells(g.get(), "add_prefix")) CHECK(c.value == scan_of(sums, false).at(c.tile));

    // Every red edge adds up: 32 + 6 uniform adds, 2 scanned sums (and 3 exclusive tile totals).
    CHECK(check_edges(g.get()) == 38 + 2 + (inclusive ? 0 : 3));
  }
}

TEST_CASE("chapter 05: reduce-then-scan's range sums, spine and range scans") {
  for (const bool inclusive : {true, false}) {
    CAPTURE(inclusive);
    const std::string name = inclusive ? "ch05_rts" : "ch05_rts_exclusive";
    // Two blocks for three tiles: block 0 scans tiles 0 and 1 and carries its prefix across.
    const fs::path out = run_viz(name, std::string("05 --algorithm reduce-then-scan --max-blocks 2 --n 70 --seed 7") +
                                           (inclusive ? "" : " --exclusive"));
    check_rendered(out, "reduce_then_scan");
    const std::vector<long long> in = traced_input(out / "trace.jsonl");
    REQUIRE(in.size() == 70);
    Graph g = parse_dot(out / "reduce_then_scan.dot");

    CHECK(values_of(phase_cells(g.get(), "input")) == in);
    const std::vector<long long> ranges = range_sums(in, 2 * kTile);
    REQUIRE(ranges.size() == 2);
    CHECK(values_of(phase_cells(g.get(), "range_sum")) == ranges);
    CHECK(values_of(phase_cells(g.get(), "spine")) == scan_of(ranges, false));
    // The prefix each tile's scan starts from: everything left of the tile.
    CHECK(values_of(phase_cells(g.get(), "carry")) == scan_of(range_sums(in, kTile), false));
    const std::vector<Cell> outputs = phase_cells(g.get(), "output");
    CHECK(outputs.size() == in.size());
    CHECK(values_of(outputs) == scan_of(in, inclusive));
    // Red edges: the spine's one addition (and, exclusive, the carry from tile 0 to tile 1).
    CHECK(check_edges(g.get()) == 1 + (inclusive ? 0 : 1));
  }
}

TEST_CASE("chapter 05: a picture that would not fit is refused with a reason") {
  const fs::path out = fs::path(SCANLAB_VIZ_TEST_OUT) / "ch05_too_many";
  fs::create_directories(out);
  const std::string log = out.string() + ".log";
  const std::string command = std::string("'") + SCANLAB_VIZ_EXECUTABLE + "' 05 --n 300 --solution --out '" +
                              out.string() + "' > '" + log + "' 2>&1";
  CHECK(std::system(command.c_str()) != 0);
  std::ifstream f(log);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str().find("at most 8 tiles") != std::string::npos);
}
