// Part-file codec: round trip of every record kind, and rejection of bad bytes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "amdahl/format/part_file.hpp"

using namespace amdahl::format;

namespace {

// The bytes a version-1 writer (before the event_records section) made for `rs`, which must
// have no event records: the version-2 encoding without its empty section 12, version field 1.
std::string as_version1(const RecordSet& rs) {
  REQUIRE(rs.event_records.empty());
  std::string b = encode_part(rs, 2);
  const std::string tail = std::string(1, '\x0c') + std::string(8, '\0') + std::string(1, '\xff');
  REQUIRE(b.size() > tail.size());
  REQUIRE(b.substr(b.size() - tail.size()) == tail);  // tag 12, count 0, end
  b.erase(b.size() - tail.size(), tail.size() - 1);
  const std::uint32_t v1 = 1;
  std::memcpy(b.data() + 8, &v1, sizeof v1);
  return b;
}

std::string source_dir() {
  const char* src = std::getenv("AMDAHL_SOURCE_DIR");
  return src != nullptr && *src != '\0' ? src : AMDAHL_SOURCE_DIR_FALLBACK;
}

}  // namespace

TEST_CASE("part file round trip keeps every field") {
  RecordSet rs;
  rs.strings = {"", "amdahl", "step", "worker-1"};
  rs.processes.push_back({42, 1, 2, 100, 900, 3, 192, 24, 0xfffffffeu});
  rs.threads.push_back({42, 4242, 3});
  rs.categories.push_back({42, 1, 7, 2});
  RangeRec r;
  r.pid = 42; r.tid = 4242; r.end_tid = 4243; r.domain = 1; r.name = 2; r.category = 7;
  r.kind = RangeKind::StartEnd; r.depth = -1; r.parent = 5; r.start_ns = -3; r.end_ns = 1LL << 40;
  r.unclosed = true; r.payload = {PayloadKind::Double, 0, 2.5};
  r.thread_cpu_ns = 48'000'123; r.process_cpu_ns = (1LL << 41) + 5;
  rs.ranges.push_back(r);
  RangeRec unknown_cpu;  // CPU times -1 (the default) stay -1
  rs.ranges.push_back(unknown_cpu);
  rs.marks.push_back({42, 4242, 1, 2, 0, 77, {PayloadKind::Int64, -9, 0}});
  rs.api_calls.push_back({42, 4242, ApiKind::Driver, 307, 2, 10, 20, 99});
  GpuOpRec g;
  g.pid = 42; g.device = 1; g.stream = 7; g.kind = GpuOpKind::Memcpy; g.bytes = 123456789;
  g.copy_kind = CopyKind::HtoD; g.src_kind = MemKind::Pinned; g.dst_kind = MemKind::Device;
  g.correlation_id = 99; g.graph_id = 3; g.start_ns = 15; g.end_ns = 30;
  rs.gpu_ops.push_back(g);
  rs.syncs.push_back({42, 1, 7, 0, SyncKind::StreamSynchronize, 20, 31, 100});
  rs.devices.push_back({42, 0, 3, 1ull << 37, 9, 0, 132});
  rs.diagnostics.push_back({42, 1, 5, 2});
  rs.event_records.push_back({42, 1, 2, 7, 11, 98, 0});
  rs.event_records.push_back({42, 3, 4, 0xfffffffeu, 0xfffffff0u, 0xffffffffu, -5});

  const RecordSet back = decode_part(encode_part(rs));
  CHECK(back.strings == rs.strings);
  REQUIRE(back.ranges.size() == 2);
  CHECK(back.ranges[0].end_tid == 4243);
  CHECK(back.ranges[0].thread_cpu_ns == 48'000'123);
  CHECK(back.ranges[0].process_cpu_ns == (1LL << 41) + 5);
  CHECK(back.ranges[1].thread_cpu_ns == -1);
  CHECK(back.ranges[1].process_cpu_ns == -1);
  CHECK(back.ranges[0].kind == RangeKind::StartEnd);
  CHECK(back.ranges[0].parent == 5);
  CHECK(back.ranges[0].end_ns == (1LL << 40));
  CHECK(back.ranges[0].unclosed);
  CHECK(back.ranges[0].payload.kind == PayloadKind::Double);
  CHECK(back.ranges[0].payload.d == 2.5);
  CHECK(back.marks[0].payload.i == -9);
  CHECK(back.api_calls[0].api == ApiKind::Driver);
  CHECK(back.gpu_ops[0].bytes == 123456789);
  CHECK(back.gpu_ops[0].src_kind == MemKind::Pinned);
  CHECK(back.gpu_ops[0].graph_id == 3);
  CHECK(back.syncs[0].kind == SyncKind::StreamSynchronize);
  CHECK(back.devices[0].sm_count == 132);
  CHECK(back.diagnostics[0].count == 5);
  CHECK(back.processes[0].rank == 3);
  CHECK(back.processes[0].cpus_online == 192);
  CHECK(back.processes[0].cpus_allowed == 24);
  CHECK(back.processes[0].omp_threads == 0xfffffffeu);
  CHECK(back.threads[0].name == 3);
  CHECK(back.categories[0].category == 7);
  REQUIRE(back.event_records.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const EventRecordRec& a = rs.event_records[i];
    const EventRecordRec& e = back.event_records[i];
    CHECK(e.pid == a.pid);
    CHECK(e.device == a.device);
    CHECK(e.context == a.context);
    CHECK(e.stream == a.stream);
    CHECK(e.event == a.event);
    CHECK(e.correlation_id == a.correlation_id);
    CHECK(e.device_ts_ns == a.device_ts_ns);
  }
}

TEST_CASE("a version-1 part (no event records) still reads") {
  RecordSet rs;
  rs.strings = {"", "step"};
  rs.processes.push_back({42, 1, 1, 100, 900, 0});
  rs.syncs.push_back({42, 1, 7, 3, SyncKind::EventSynchronize, 20, 31, 100});
  rs.diagnostics.push_back({42, 1, 5, 0});
  const std::string v1 = as_version1(rs);
  const RecordSet back = decode_part(v1);
  CHECK(back.strings == rs.strings);
  REQUIRE(back.syncs.size() == 1);
  CHECK(back.syncs[0].event == 3);
  CHECK(back.syncs[0].kind == SyncKind::EventSynchronize);
  CHECK(back.diagnostics.size() == 1);
  CHECK(back.processes.size() == 1);
  CHECK(back.event_records.empty());
  // Version 1 had no section 12: one in a version-1 part is corrupt, as a version-1 reader said.
  std::string odd = encode_part(rs, 2);
  const std::uint32_t one = 1;
  std::memcpy(odd.data() + 8, &one, sizeof one);
  CHECK_THROWS_WITH_AS(decode_part(odd), doctest::Contains("unknown section 12"), PartError);
}

TEST_CASE("a version-2 part (no CPU fields) still reads: CPU times -1, CPU counts 0") {
  RecordSet rs;
  rs.strings = {"", "amdahl", "step"};
  rs.processes.push_back({42, 1, 2, 100, 900, 1, 8, 4, 2});
  RangeRec r;
  r.pid = 42; r.tid = 42; r.end_tid = 42; r.domain = 1; r.name = 2; r.start_ns = 200; r.end_ns = 300;
  r.payload = {PayloadKind::Int64, 3, 0.0};
  r.thread_cpu_ns = 90; r.process_cpu_ns = 150;
  rs.ranges.push_back(r);
  rs.event_records.push_back({42, 0, 1, 7, 11, 98, 0});
  const std::string v2 = encode_part(rs, 2);
  CHECK(v2.size() + 2 * 8 + 3 * 4 == encode_part(rs).size());  // the fields version 3 added
  const RecordSet back = decode_part(v2);
  REQUIRE(back.ranges.size() == 1);
  CHECK(back.ranges[0].end_ns == 300);
  CHECK(back.ranges[0].payload.i == 3);
  CHECK(back.ranges[0].thread_cpu_ns == -1);
  CHECK(back.ranges[0].process_cpu_ns == -1);
  REQUIRE(back.processes.size() == 1);
  CHECK(back.processes[0].rank == 1);
  CHECK(back.processes[0].cpus_online == 0);
  CHECK(back.processes[0].cpus_allowed == 0);
  CHECK(back.processes[0].omp_threads == 0);
  CHECK(back.event_records.size() == 1);
}

TEST_CASE("a part the version-2 writer wrote reads (tests/data/part_v2.amdpart)") {
  // Written by format::write_part at commit 9a5e15a (part version 2), before the CPU fields.
  const RecordSet rs = read_part(source_dir() + "/tests/data/part_v2.amdpart");
  CHECK(rs.strings == std::vector<std::string>{"", "amdahl", "step", "python train.py", "main", "other-range"});
  REQUIRE(rs.processes.size() == 1);
  const ProcessRec& p = rs.processes[0];
  CHECK(p.pid == 4242); CHECK(p.ppid == 1); CHECK(p.command == 3); CHECK(p.start_ns == 1000);
  CHECK(p.end_ns == 9000); CHECK(p.rank == 2);
  CHECK(p.cpus_online == 0); CHECK(p.cpus_allowed == 0); CHECK(p.omp_threads == 0);
  REQUIRE(rs.threads.size() == 1);
  CHECK(rs.threads[0].name == 4);
  REQUIRE(rs.ranges.size() == 2);
  CHECK(rs.ranges[0].domain == 1); CHECK(rs.ranges[0].name == 2); CHECK(rs.ranges[0].start_ns == 2000);
  CHECK(rs.ranges[0].end_ns == 5000); CHECK(rs.ranges[0].payload.kind == PayloadKind::Int64);
  CHECK(rs.ranges[0].payload.i == 7);
  CHECK(rs.ranges[1].name == 5); CHECK(rs.ranges[1].parent == 0); CHECK(rs.ranges[1].depth == 1);
  CHECK(rs.ranges[1].end_ns == 3000);
  for (const RangeRec& r : rs.ranges) {
    CHECK(r.thread_cpu_ns == -1);
    CHECK(r.process_cpu_ns == -1);
  }
  REQUIRE(rs.marks.size() == 1);
  CHECK(rs.marks[0].ts_ns == 2100);
  REQUIRE(rs.event_records.size() == 1);
  CHECK(rs.event_records[0].event == 11);
  CHECK(rs.event_records[0].correlation_id == 98);
  REQUIRE(rs.diagnostics.size() == 1);
  CHECK(rs.diagnostics[0].key == 2);
}

TEST_CASE("part file rejects bad bytes with PartError") {
  CHECK_THROWS_AS(decode_part("hello"), PartError);
  std::string good = encode_part(RecordSet{});
  CHECK_THROWS_AS(decode_part(good.substr(0, good.size() - 1)), PartError);  // truncated
  std::string newer = good;
  newer[8] = 99;  // version field
  CHECK_THROWS_WITH_AS(decode_part(newer), doctest::Contains("newer"), PartError);
  newer[8] = static_cast<char>(kPartVersion + 1);
  CHECK_THROWS_WITH_AS(decode_part(newer), doctest::Contains("newer"), PartError);
  CHECK(kPartVersion == 3);
  CHECK(static_cast<unsigned char>(good[8]) == kPartVersion);
  CHECK_THROWS_AS(read_part("/nonexistent/part.bin"), PartError);
  CHECK_THROWS_AS(encode_part(RecordSet{}, 0), PartError);
  CHECK_THROWS_AS(encode_part(RecordSet{}, kPartVersion + 1), PartError);
}

TEST_CASE("a section count larger than the bytes left is refused before any allocation") {
  // The ranges section's count is the first byte where the encodings of one and two ranges
  // differ. Counts too large for the bytes left (by one record, or absurdly) are "truncated"
  // at once, instead of a vector of up to 15 times the file's size being made first.
  RecordSet one, two;
  one.ranges.resize(1);
  two.ranges.resize(2);
  const std::string a = encode_part(one), b = encode_part(two);
  std::size_t at = 0;
  while (at < a.size() && a[at] == b[at]) ++at;
  REQUIRE(at + 8 <= a.size());
  const auto with_count = [&](std::uint64_t n) {
    std::string bytes = a;
    std::memcpy(bytes.data() + at, &n, sizeof n);
    return bytes;
  };
  CHECK_NOTHROW(decode_part(with_count(1)));
  for (std::uint64_t n : {std::uint64_t{2}, std::uint64_t{a.size() / 8}, std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
    CAPTURE(n);
    CHECK_THROWS_WITH_AS(decode_part(with_count(n)), doctest::Contains("truncated: a section of"), PartError);
  }
  // The string table's count (after the magic, the version and its tag): each string has at
  // least its 4-byte length.
  REQUIRE(a[12] == 1);
  for (std::uint64_t n : {std::uint64_t{a.size()} / 4, std::uint64_t{1} << 40}) {
    CAPTURE(n);
    std::string bytes = a;
    std::memcpy(bytes.data() + 13, &n, sizeof n);
    CHECK_THROWS_WITH_AS(decode_part(bytes), doctest::Contains("string count too large"), PartError);
  }
}

TEST_CASE("read_part streams a file larger than its 1 MiB buffer: same records as the bytes in memory") {
  // Fields, strings and sections fall across the buffer's edges: 40 000 ranges (about 4 MiB) and
  // one string of 1.5 MiB.
  RecordSet rs;
  rs.strings = {"", "amdahl", "step", std::string(3 << 19, 'x'), "after"};
  rs.processes.push_back({7, 1, 2, 100, 900, 3, 2, 2, 1});
  rs.threads.push_back({7, 70, 4});
  for (int i = 0; i < 40000; ++i) {
    RangeRec r;
    r.pid = 7; r.tid = 70; r.end_tid = 70; r.domain = 1; r.name = 2 + (i % 3); r.depth = i % 5;
    r.start_ns = 10LL * i; r.end_ns = 10LL * i + 7; r.thread_cpu_ns = i;
    rs.ranges.push_back(r);
  }
  rs.diagnostics.push_back({7, 1, 5, 2});
  const std::string bytes = encode_part(rs);
  REQUIRE(bytes.size() > (std::size_t{4} << 20));
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("amdahl-part-stream-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](std::size_t n) {
    std::string name = std::to_string(n);  // not "p" + to_string(n): GCC 12's false -Wrestrict
    const std::string f = (dir / name.append(".amdpart")).string();
    std::ofstream(f, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(n));
    return f;
  };
  const RecordSet back = read_part(write(bytes.size()));
  CHECK(back.ranges.size() == 40000);
  CHECK(back.strings[3].size() == (std::size_t{3} << 19));
  CHECK(encode_part(back) == bytes);  // every field, as decode_part reads them

  SUBCASE("a file cut anywhere is 'truncated', also at and next to the buffer's edge") {
    for (std::size_t n : {std::size_t{12}, std::size_t{100}, (std::size_t{1} << 20) - 1, std::size_t{1} << 20,
                          (std::size_t{1} << 20) + 1, (std::size_t{2} << 20) + 3, bytes.size() / 2, bytes.size() - 1}) {
      CAPTURE(n);
      CHECK_THROWS_WITH_AS(read_part(write(n)), doctest::Contains("truncated"), PartError);
    }
    CHECK_THROWS_WITH_AS(read_part(write(4)), doctest::Contains("bad magic"), PartError);
  }
  std::filesystem::remove_all(dir);
}

// Issue 18, class 8: a part with an enum byte beyond its enum was merged, and the saved
// profile then failed `export` as corrupt. decode_part refuses such a part whole.
TEST_CASE("a record with an enum value the format does not define makes the part corrupt") {
  auto refused = [](RecordSet rs, const char* says) {
    CAPTURE(says);
    std::string msg;
    try {
      decode_part(encode_part(rs));
    } catch (const PartError& e) {
      msg = e.what();
    }
    CHECK(msg.find(says) != std::string::npos);
  };
  RecordSet base;
  base.strings.push_back("x");
  {
    RecordSet rs = base;
    rs.ranges.push_back({});
    rs.ranges.push_back({});
    rs.ranges[1].kind = static_cast<RangeKind>(2);
    refused(rs, "range 1 has kind 2, a kind the format does not define");
  }
  {
    RecordSet rs = base;
    rs.marks.push_back({});
    rs.marks[0].payload.kind = static_cast<PayloadKind>(9);
    refused(rs, "mark 0 has payload kind 9");
  }
  {
    RecordSet rs = base;
    rs.gpu_ops.push_back({});
    rs.gpu_ops[0].copy_kind = static_cast<CopyKind>(6);
    refused(rs, "GPU operation 0 has copy kind 6");
  }
  {
    RecordSet rs = base;
    rs.gpu_ops.push_back({});
    rs.gpu_ops[0].dst_kind = static_cast<MemKind>(200);
    refused(rs, "destination memory kind 200");
  }
  {
    RecordSet rs = base;
    rs.api_calls.push_back({});
    rs.api_calls[0].api = static_cast<ApiKind>(2);
    refused(rs, "API call 0 has API kind 2");
  }
  {
    RecordSet rs = base;
    rs.syncs.push_back({});
    rs.syncs[0].kind = static_cast<SyncKind>(5);
    refused(rs, "sync 0 has kind 5");
  }
  // Every defined value still reads.
  RecordSet ok = base;
  ok.ranges.push_back({});
  ok.ranges[0].kind = RangeKind::StartEnd;
  ok.ranges[0].payload.kind = PayloadKind::Double;
  ok.gpu_ops.push_back({});
  ok.gpu_ops[0].kind = GpuOpKind::Memset;
  ok.gpu_ops[0].copy_kind = CopyKind::PtoP;
  ok.gpu_ops[0].src_kind = MemKind::Managed;
  ok.syncs.push_back({});
  ok.syncs[0].kind = SyncKind::ContextSynchronize;
  CHECK(decode_part(encode_part(ok)).ranges.size() == 1);
}
