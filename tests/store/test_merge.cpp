// merge_parts: one string table with every StrId field remapped, range parents re-based into
// the merged vector, time order, and reused pids kept apart.
#include <doctest/doctest.h>

#include <algorithm>

#include <cstring>

#include "amdahl/format/part_file.hpp"
#include "amdahl/format/profile_store.hpp"

using namespace amdahl::format;

namespace {

RangeRec range(std::uint32_t pid, std::uint64_t tid, StrId domain, StrId name, std::int32_t depth, std::int64_t parent,
               std::int64_t start, std::int64_t end) {
  RangeRec r;
  r.pid = pid; r.tid = tid; r.end_tid = tid; r.domain = domain; r.name = name; r.depth = depth; r.parent = parent;
  r.start_ns = start; r.end_ns = end;
  return r;
}

// Part of process `pid`: strings in a part-specific order so the same id means different text.
RecordSet part_a() {
  RecordSet p;
  p.strings = {"", "amdahl", "step", "h2d", "loader", "python a.py", "k1", "cudaMemcpy", "GPU0", "nvtx.unbalanced_pop", "x"};
  p.processes.push_back({100, 1, 5, 1000, 9000, 0});
  p.threads.push_back({100, 100, 4});
  p.categories.push_back({100, 1, 3, 3});
  // Children listed before their parents (as a collector that appends at pop time would).
  p.ranges.push_back(range(100, 100, 1, 3, 1, 1, 1500, 1600));  // h2d inside step (index 1)
  p.ranges.push_back(range(100, 100, 1, 2, 0, -1, 1400, 2000));  // step
  p.ranges.push_back(range(100, 100, 1, 2, 0, -1, 1100, 1300));  // earlier step
  p.marks.push_back({100, 100, 1, 4, 0, 1700, {PayloadKind::Int64, 7, 0}});
  p.api_calls.push_back({100, 100, ApiKind::Runtime, 1, 7, 1500, 1550, 3});
  GpuOpRec g;
  g.pid = 100; g.name = 6; g.start_ns = 1560; g.end_ns = 1580; g.correlation_id = 3;
  p.gpu_ops.push_back(g);
  p.syncs.push_back({100, 1, 0, 0, SyncKind::StreamSynchronize, 1590, 1600, 4});
  p.event_records.push_back({100, 0, 1, 7, 21, 5, 0});
  p.event_records.push_back({100, 0, 1, 8, 22, 6, 1650});
  p.devices.push_back({100, 0, 8, 1, 9, 0, 132});
  p.diagnostics.push_back({100, 9, 2, 10});
  return p;
}

RecordSet part_b(std::uint32_t pid, std::int64_t t0) {
  RecordSet p;
  p.strings = {"", "step", "amdahl", "python b.py", "k2", "worker"};
  p.processes.push_back({pid, 100, 3, t0, t0 + 5000, 1});
  p.threads.push_back({pid, pid, 5});
  p.ranges.push_back(range(pid, pid, 2, 1, 0, -1, t0 + 200, t0 + 900));  // step
  p.ranges.push_back(range(pid, pid, 2, 5, 1, 0, t0 + 250, t0 + 300));   // worker inside it
  p.marks.push_back({pid, pid, 2, 1, 0, t0 + 10, {}});
  GpuOpRec g;
  g.pid = pid; g.name = 4; g.start_ns = t0 + 100; g.end_ns = t0 + 150;
  p.gpu_ops.push_back(g);
  p.event_records.push_back({pid, 0, 3, 9, 1, 40, 0});
  return p;
}

const RangeRec* find(const RecordSet& rs, std::uint32_t pid, std::int64_t start) {
  for (const RangeRec& r : rs.ranges)
    if (r.pid == pid && r.start_ns == start) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("merge remaps every string id and rebases parents") {
  const RecordSet m = merge_parts({part_a(), part_b(200, 1200)});

  // One string table, no duplicates, id 0 is "".
  REQUIRE(!m.strings.empty());
  CHECK(m.strings[0].empty());
  std::vector<std::string> sorted = m.strings;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());

  REQUIRE(m.processes.size() == 2);
  CHECK(m.str(m.processes[0].command) == "python a.py");
  CHECK(m.str(m.processes[1].command) == "python b.py");
  REQUIRE(m.threads.size() == 2);
  CHECK(m.str(m.threads[0].name) == "loader");
  CHECK(m.str(m.threads[1].name) == "worker");
  CHECK(m.str(m.categories[0].domain) == "amdahl");
  CHECK(m.str(m.categories[0].name) == "h2d");

  REQUIRE(m.ranges.size() == 5);
  for (std::size_t i = 1; i < m.ranges.size(); ++i) CHECK(m.ranges[i - 1].start_ns <= m.ranges[i].start_ns);
  for (const RangeRec& r : m.ranges) {
    CHECK(m.str(r.domain) == "amdahl");
    if (r.parent >= 0) {
      REQUIRE(r.parent < static_cast<std::int64_t>(m.ranges.size()));
      const RangeRec& parent = m.ranges[static_cast<std::size_t>(r.parent)];
      CHECK(parent.pid == r.pid);
      CHECK(parent.start_ns <= r.start_ns);
      CHECK(parent.end_ns >= r.end_ns);
      CHECK(m.str(parent.name) == "step");
    }
  }
  const RangeRec* h2d = find(m, 100, 1500);
  REQUIRE(h2d);
  CHECK(m.str(h2d->name) == "h2d");
  REQUIRE(h2d->parent >= 0);
  CHECK(m.ranges[static_cast<std::size_t>(h2d->parent)].start_ns == 1400);
  const RangeRec* worker = find(m, 200, 1450);
  REQUIRE(worker);
  CHECK(m.str(worker->name) == "worker");
  REQUIRE(worker->parent >= 0);
  CHECK(m.ranges[static_cast<std::size_t>(worker->parent)].start_ns == 1400);
  CHECK(m.ranges[static_cast<std::size_t>(worker->parent)].pid == 200);
  CHECK(find(m, 100, 1100)->parent == -1);

  REQUIRE(m.marks.size() == 2);
  CHECK(m.marks[0].ts_ns == 1210);  // sorted by time across parts
  CHECK(m.str(m.marks[0].name) == "step");
  CHECK(m.str(m.marks[1].name) == "loader");
  CHECK(m.marks[1].payload.i == 7);
  CHECK(m.str(m.api_calls[0].name) == "cudaMemcpy");
  REQUIRE(m.gpu_ops.size() == 2);
  CHECK(m.str(m.gpu_ops[0].name) == "k2");
  CHECK(m.str(m.gpu_ops[1].name) == "k1");
  CHECK(m.syncs.size() == 1);
  // Event records keep part order (processes by start) and, within a part, their own order.
  REQUIRE(m.event_records.size() == 3);
  CHECK(m.event_records[0].pid == 100);
  CHECK(m.event_records[0].event == 21);
  CHECK(m.event_records[0].stream == 7);
  CHECK(m.event_records[0].correlation_id == 5);
  CHECK(m.event_records[1].event == 22);
  CHECK(m.event_records[1].device_ts_ns == 1650);
  CHECK(m.event_records[2].pid == 200);
  CHECK(m.event_records[2].correlation_id == 40);
  CHECK(m.str(m.devices[0].name) == "GPU0");
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.str(m.diagnostics[0].key) == "nvtx.unbalanced_pop");
  CHECK(m.str(m.diagnostics[0].detail) == "x");
}

TEST_CASE("a pid seen in two parts keeps the processes apart and is diagnosed") {
  const RecordSet m = merge_parts({part_b(300, 5000), part_b(300, 100)});
  REQUIRE(m.processes.size() == 2);
  // The earlier process keeps the real pid; the later one gets a distinct synthetic pid.
  CHECK(m.processes[0].pid == 300);
  CHECK(m.processes[0].start_ns == 100);
  const std::uint32_t other = m.processes[1].pid;
  CHECK(other != 300);
  CHECK((other & 0x3fffffu) == 300);
  for (const RangeRec& r : m.ranges) CHECK(r.pid == (r.start_ns < 5000 ? 300u : other));
  for (const ThreadRec& t : m.threads) CHECK((t.pid == 300 || t.pid == other));
  REQUIRE(m.event_records.size() == 2);
  CHECK(m.event_records[0].pid == 300);
  CHECK(m.event_records[1].pid == other);
  CHECK(m.threads[0].pid != m.threads[1].pid);
  bool diagnosed = false;
  for (const DiagRec& d : m.diagnostics)
    if (m.str(d.key) == "merge.duplicate_pid") diagnosed = d.count == 1 && m.str(d.detail).find("300") != std::string::npos;
  CHECK(diagnosed);
}

TEST_CASE("bad ids in a part are counted, never followed") {
  RecordSet p = part_b(400, 0);
  p.ranges[1].parent = 99;
  p.ranges[0].name = 1000;
  const RecordSet m = merge_parts({p});
  CHECK(m.ranges[0].name == kNoString);
  CHECK(m.ranges[1].parent == -1);
  int seen = 0;
  for (const DiagRec& d : m.diagnostics)
    seen += m.str(d.key) == "merge.bad_parent" || m.str(d.key) == "merge.bad_string_id";
  CHECK(seen == 2);
}

TEST_CASE("a version-1 part (no event records) merges with a version-2 part") {
  RecordSet old = part_b(600, 0);
  old.event_records.clear();
  std::string v1 = encode_part(old, 2);
  // The version-1 layout: no section 12 (tag, empty count) before the end tag; version field 1.
  REQUIRE(v1.size() > 10);
  REQUIRE(v1[v1.size() - 10] == '\x0c');
  v1.erase(v1.size() - 10, 9);
  const std::uint32_t one = 1;
  std::memcpy(v1.data() + 8, &one, sizeof one);
  const RecordSet m = merge_parts({decode_part(v1), decode_part(encode_part(part_b(700, 10)))});
  REQUIRE(m.processes.size() == 2);
  CHECK(m.ranges.size() == 4);
  CHECK(m.gpu_ops.size() == 2);
  REQUIRE(m.event_records.size() == 1);
  CHECK(m.event_records[0].pid == 700);
  CHECK(m.diagnostics.empty());
}

TEST_CASE("CPU times and CPU counts follow their records through the merge; a version-2 part gives unknowns") {
  RecordSet a = part_a();
  a.processes[0].cpus_online = 64; a.processes[0].cpus_allowed = 8; a.processes[0].omp_threads = 4;
  a.ranges[0].thread_cpu_ns = 90; a.ranges[0].process_cpu_ns = 95;     // h2d, 1500
  a.ranges[1].thread_cpu_ns = 550; a.ranges[1].process_cpu_ns = 1100;  // step, 1400
  RecordSet b = part_b(100, 1200);  // same pid as part_a: rewritten, records keep their fields
  b.processes[0].cpus_allowed = 2;
  b.ranges[0].thread_cpu_ns = 10; b.ranges[0].process_cpu_ns = 700;
  RecordSet old = part_b(300, 50);  // written as version 2: fields unknown
  old.ranges[0].thread_cpu_ns = 1; old.processes[0].cpus_allowed = 1;
  const RecordSet m = merge_parts({decode_part(encode_part(a)), decode_part(encode_part(b)),
                                   decode_part(encode_part(old, 2))});
  const RangeRec* h2d = find(m, 100, 1500);
  const RangeRec* step = find(m, 100, 1400);
  const RangeRec* early = find(m, 100, 1100);
  REQUIRE(h2d != nullptr); REQUIRE(step != nullptr); REQUIRE(early != nullptr);
  CHECK(h2d->thread_cpu_ns == 90); CHECK(h2d->process_cpu_ns == 95);
  CHECK(step->thread_cpu_ns == 550); CHECK(step->process_cpu_ns == 1100);
  CHECK(early->thread_cpu_ns == -1); CHECK(early->process_cpu_ns == -1);
  std::uint32_t b_pid = 0;
  for (const ProcessRec& p : m.processes) {
    if (p.pid == 100) { CHECK(p.cpus_online == 64); CHECK(p.cpus_allowed == 8); CHECK(p.omp_threads == 4); }
    else if (p.pid == 300) { CHECK(p.cpus_online == 0); CHECK(p.cpus_allowed == 0); }
    else { b_pid = p.pid; CHECK(p.cpus_allowed == 2); }
  }
  REQUIRE(b_pid != 0);
  const RangeRec* b_step = find(m, b_pid, 1400);
  REQUIRE(b_step != nullptr);
  CHECK(b_step->thread_cpu_ns == 10); CHECK(b_step->process_cpu_ns == 700);
  const RangeRec* old_step = find(m, 300, 250);
  REQUIRE(old_step != nullptr);
  CHECK(old_step->thread_cpu_ns == -1); CHECK(old_step->process_cpu_ns == -1);
}

TEST_CASE("merging nothing gives an empty record set") {
  const RecordSet m = merge_parts({});
  CHECK(m.strings.size() == 1);
  CHECK(m.ranges.empty());
}

TEST_CASE("empty parts merge without inventing duplicate pids") {
  const RecordSet m = merge_parts({RecordSet{}, RecordSet{}, part_b(500, 0)});
  CHECK(m.diagnostics.empty());
  REQUIRE(m.processes.size() == 1);
  CHECK(m.processes[0].pid == 500);
}

// Issue 18, class 8 (b): a process that replaced its program (exec) writes a part before the
// exec (diagnostic collector.exec) and the new program another with the same pid: one process,
// not a reused pid.
TEST_CASE("the part after an exec keeps its pid: the same process, a new program") {
  RecordSet before = part_b(500, 100);
  before.strings.push_back("collector.exec");
  before.diagnostics.push_back({500, static_cast<StrId>(before.strings.size() - 1), 1, kNoString});
  const RecordSet m = merge_parts({part_b(500, 6000), before});
  REQUIRE(m.processes.size() == 2);
  for (const ProcessRec& p : m.processes) CHECK(p.pid == 500);
  for (const RangeRec& r : m.ranges) CHECK(r.pid == 500);
  for (const DiagRec& d : m.diagnostics) CHECK(m.str(d.key) != "merge.duplicate_pid");
  // Without the exec marker the same two parts are a reused pid, as before.
  const RecordSet reused = merge_parts({part_b(500, 6000), part_b(500, 100)});
  CHECK(reused.processes[1].pid != 500);
}

// Issue 18, class 8 (a): a part built in memory with an undefined enum value is left out of the
// merge, counted; the other parts are kept.
TEST_CASE("a part with an enum value the format does not define is left out of the merge") {
  RecordSet bad = part_b(600, 100);
  bad.gpu_ops[0].kind = static_cast<GpuOpKind>(3);
  const RecordSet m = merge_parts({part_a(), bad});
  for (const ProcessRec& p : m.processes) CHECK(p.pid != 600);
  for (const RangeRec& r : m.ranges) CHECK(r.pid == 100);
  bool counted = false;
  for (const DiagRec& d : m.diagnostics)
    counted = counted || (m.str(d.key) == "merge.rejected_part" && d.pid == 600 &&
                          m.str(d.detail).find("GPU operation 0 has kind 3") != std::string::npos);
  CHECK(counted);
}
