// Part-file codec: round trip of every record kind, and rejection of bad bytes.
#include <doctest/doctest.h>

#include "amdahl/format/part_file.hpp"

using namespace amdahl::format;

TEST_CASE("part file round trip keeps every field") {
  RecordSet rs;
  rs.strings = {"", "amdahl", "step", "worker-1"};
  rs.processes.push_back({42, 1, 2, 100, 900, 3});
  rs.threads.push_back({42, 4242, 3});
  rs.categories.push_back({42, 1, 7, 2});
  RangeRec r;
  r.pid = 42; r.tid = 4242; r.end_tid = 4243; r.domain = 1; r.name = 2; r.category = 7;
  r.kind = RangeKind::StartEnd; r.depth = -1; r.parent = 5; r.start_ns = -3; r.end_ns = 1LL << 40;
  r.unclosed = true; r.payload = {PayloadKind::Double, 0, 2.5};
  rs.ranges.push_back(r);
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

  const RecordSet back = decode_part(encode_part(rs));
  CHECK(back.strings == rs.strings);
  REQUIRE(back.ranges.size() == 1);
  CHECK(back.ranges[0].end_tid == 4243);
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
  CHECK(back.threads[0].name == 3);
  CHECK(back.categories[0].category == 7);
}

TEST_CASE("part file rejects bad bytes with PartError") {
  CHECK_THROWS_AS(decode_part("hello"), PartError);
  std::string good = encode_part(RecordSet{});
  CHECK_THROWS_AS(decode_part(good.substr(0, good.size() - 1)), PartError);  // truncated
  std::string newer = good;
  newer[8] = 99;  // version field
  CHECK_THROWS_WITH_AS(decode_part(newer), doctest::Contains("newer"), PartError);
  CHECK_THROWS_AS(read_part("/nonexistent/part.bin"), PartError);
}
