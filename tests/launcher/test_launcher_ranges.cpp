// `amdahl profile` with the real collector: NVTX ranges, nesting and marks of the command and
// of a forked child arrive in the merged profile. Skips (exit 77) until
// <build>/lib/libamdahl_collector.so exists.
#include <cstdio>
#include <cstdlib>

#include "amdahl/format/profile_store.hpp"
#include "launcher_test_util.hpp"

using namespace launcher_test;
using namespace amdahl::format;

TEST_CASE("ranges, parents and marks from the command and its forked child reach the profile") {
  if (!fs::exists(build_dir() / "lib" / "libamdahl_collector.so")) {
    std::fprintf(stderr, "SKIPPED: %s/lib/libamdahl_collector.so is not built\n", build_dir().c_str());
    std::_Exit(77);
  }
  TempDir t;
  const std::string out = t.file("ranges.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", target(), "ranges"}, t.dir.string());
  REQUIRE_MESSAGE(r.code == 5, r.err);
  const Profile p = load_profile(out);
  const RecordSet& rs = p.records;
  CHECK(p.meta.at("parts") == "2");
  REQUIRE(rs.processes.size() == 2);
  const std::uint32_t main_pid = static_cast<std::uint32_t>(std::stoul(p.meta.at("pid")));
  int steps = 0, h2d = 0, child = 0;
  for (const RangeRec& x : rs.ranges) {
    const std::string name = rs.str(x.name);
    if (rs.str(x.domain) != "amdahl") continue;
    if (name == "step") {
      ++steps;
      CHECK(x.pid == main_pid);
      CHECK(x.depth == 0);
      CHECK(x.end_ns > x.start_ns);
    } else if (name == "h2d") {
      ++h2d;
      REQUIRE(x.parent >= 0);
      const RangeRec& parent = rs.ranges[static_cast<std::size_t>(x.parent)];
      CHECK(rs.str(parent.name) == "step");
      CHECK(parent.start_ns <= x.start_ns);
      CHECK(parent.end_ns >= x.end_ns);
      CHECK(x.end_ns - x.start_ns >= 2'000'000);
    } else if (name == "child_work") {
      ++child;
      CHECK(x.pid != main_pid);
    }
  }
  CHECK(steps == 2);
  CHECK(h2d == 2);
  CHECK(child == 1);
  bool mark = false;
  for (const MarkRec& m : rs.marks)
    mark = mark || (rs.str(m.name) == "produce" && m.payload.kind == PayloadKind::Int64 && m.payload.i == 7);
  CHECK(mark);
  CHECK(r.err.find("2 processes") != std::string::npos);
}
