// Tests of the trace API (common/include/scanlab/trace.hpp, trace_writer.hpp), built with
// -DSCANLAB_TRACE and run on both backends: block arrays and events land in the buffer with unique,
// dense sequence numbers; a full buffer drops and counts instead of overflowing; the writer's JSON
// lines parse back with the documented fields; a default TraceLog records nothing, and on the
// emulator adds no barrier.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <scanlab/cuda_check.hpp>
#include <scanlab/device_buffer.hpp>
#include <scanlab/monoid.hpp>
#include <scanlab/trace.hpp>
#include <scanlab/trace_writer.hpp>

#if defined(SCANLAB_EMU)
#include <scanlab_emu/diagnostics.hpp>
#include <scanlab_emu/options.hpp>
#endif

static_assert(scanlab::trace_enabled(), "this test is built with -DSCANLAB_TRACE");

// Every block fills a shared array with block*100 + i, snapshots it, and every thread records one
// event (block, thread, a value, thread*thread).
__global__ void record_kernel(scanlab::TraceLog log, int per_block) {
  extern __shared__ int shared_values[];
  const int t = static_cast<int>(threadIdx.x);
  if (t < per_block) shared_values[t] = static_cast<int>(blockIdx.x) * 100 + t;
  SCANLAB_TRACE_BLOCK_ARRAY(log, "values", static_cast<int>(blockIdx.x), shared_values, per_block);
  SCANLAB_TRACE_EVENT(log, "visit", 7, static_cast<long long>(blockIdx.x), t, -t, t * t);
}

__global__ void affine_kernel(scanlab::TraceLog log) {
  scanlab::Affine<std::uint32_t> maps[2] = {{3u, 1u}, {5u, 2u}};
  SCANLAB_TRACE_ARRAY(log, "maps", 0, maps, 2);
}

// Thread 0 writes a shared word that thread 1 then reads, with only a block snapshot between them:
// ordered while a trace is recorded (its barriers), a race when it is not.
__global__ void snapshot_between_kernel(scanlab::TraceLog log, int* out) {
  __shared__ int word;
  if (threadIdx.x == 0) word = 42;
  SCANLAB_TRACE_BLOCK_ARRAY(log, "word", 0, &word, 1);
  if (threadIdx.x == 1) *out = word;
}

namespace {

std::vector<nlohmann::json> write_lines(const scanlab::TraceBuffer& buffer) {
  std::stringstream ss;
  {
    scanlab::TraceWriter writer(ss, {{"chapter", "test"}, {"type", "not allowed to override"}});
    writer.name_fields("visit", {"block", "thread", "negative", "square"});
    writer.records(buffer);
  }
  std::vector<nlohmann::json> lines;
  std::string line;
  while (std::getline(ss, line)) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

}  // namespace

TEST_CASE("block arrays and events are recorded with dense, unique sequence numbers") {
  const int blocks = 5, threads = 64, per_block = 48;
  scanlab::TraceBuffer buffer;
  record_kernel<<<blocks, threads, per_block * sizeof(int)>>>(buffer.log(), per_block);
  SCANLAB_CHECK_SYNC();
  const std::vector<nlohmann::json> lines = write_lines(buffer);
  REQUIRE(lines.size() == 2 + blocks + blocks * threads);
  CHECK(lines.front()["type"] == "meta");
  CHECK(lines.front()["format"] == "scanlab-trace");
  CHECK(lines.front()["chapter"] == "test");
  CHECK(lines.back()["type"] == "end");
  CHECK(lines.back()["records"] == blocks + blocks * threads);
  CHECK(lines.back()["dropped"] == 0);

  std::set<long long> seqs;
  long long previous = -1;
  int arrays = 0;
  for (std::size_t i = 1; i + 1 < lines.size(); ++i) {
    const nlohmann::json& j = lines[i];
    const long long seq = j["seq"];
    CHECK(seq > previous);  // written in sequence order
    previous = seq;
    seqs.insert(seq);
    if (j["type"] == "array") {
      ++arrays;
      const int b = j["block"];
      CHECK(j["label"] == "values");
      CHECK(j["step"] == b);
      CHECK(j["elem"] == "int32");
      REQUIRE(j["values"].size() == static_cast<std::size_t>(per_block));
      for (int k = 0; k < per_block; ++k) CHECK(j["values"][k] == b * 100 + k);
    } else {
      CHECK(j["type"] == "event");
      CHECK(j["label"] == "visit");
      const long long t = j["thread"];
      CHECK(j["block"] == j["fields"][0]);
      CHECK(j["fields"][1] == t);
      CHECK(j["negative"] == -t);
      CHECK(j["square"] == t * t);
    }
  }
  CHECK(arrays == blocks);
  CHECK(seqs.size() == lines.size() - 2);
  CHECK(*seqs.begin() == 0);
  CHECK(*seqs.rbegin() == static_cast<long long>(seqs.size()) - 1);
}

TEST_CASE("a full buffer drops records and counts them; values of a full arena are dropped") {
  scanlab::TraceBuffer small(/*records=*/10, /*arena bytes=*/64);
  record_kernel<<<2, 32, 16 * sizeof(int)>>>(small.log(), 16);
  SCANLAB_CHECK_SYNC();
  const scanlab::TraceBuffer::Snapshot s = small.download();
  CHECK(s.records.size() == 10);
  CHECK(s.dropped == 2 + 64 - 10);
  const std::vector<nlohmann::json> lines = write_lines(small);
  CHECK(lines.back()["dropped"] == s.dropped);
  // Two 64-byte arrays do not both fit a 64-byte arena: at most one keeps its values.
  int kept = 0;
  for (const auto& j : lines) {
    if (j["type"] == "array" && !j["values"].empty()) ++kept;
  }
  CHECK(kept <= 1);
}

TEST_CASE("affine maps are written as [a, b] pairs; a default TraceLog records nothing") {
  scanlab::TraceBuffer buffer;
  affine_kernel<<<1, 1>>>(buffer.log());
  affine_kernel<<<1, 1>>>(scanlab::TraceLog{});
  SCANLAB_CHECK_SYNC();
  const std::vector<nlohmann::json> lines = write_lines(buffer);
  REQUIRE(lines.size() == 3);
  CHECK(lines[1]["elem"] == "affine<uint32>");
  CHECK(lines[1]["values"] == nlohmann::json::parse("[[3,1],[5,2]]"));
}

#if defined(SCANLAB_EMU)
// The emulator's chapter programs are traced builds (visualizer/CMakeLists.txt), run untraced by
// `lab run` and the race checks: their trace lines must not supply a barrier the code lacks.
TEST_CASE("a block snapshot synchronises only while a trace is recorded (the emulator's race checker)") {
  const scanlab_emu::OptionsGuard guard;  // the other test cases run with the options as they were
  scanlab_emu::options().racecheck = true;
  scanlab::DeviceBuffer<int> out(1);
  scanlab_emu::reset_diagnostics();
  snapshot_between_kernel<<<1, 32>>>(scanlab::TraceLog{}, out.data());
  SCANLAB_CHECK_SYNC();
  CHECK_MESSAGE(scanlab_emu::diagnostics().hazards.size() == 1, "untraced, the write and the read race");
  scanlab::TraceBuffer buffer;
  scanlab_emu::reset_diagnostics();
  snapshot_between_kernel<<<1, 32>>>(buffer.log(), out.data());
  SCANLAB_CHECK_SYNC();
  CHECK_MESSAGE(scanlab_emu::diagnostics().hazards.empty(), "traced, the snapshot's barriers order them");
}
#endif
