// Per-range CPU times through `amdahl profile`: the collector's parts, merged into the SQLite
// profile, keep each amdahl range's thread and process CPU time and each process's CPU counts,
// in the file (readable from the sqlite3 shell) and after load_profile.
#include <sqlite3.h>

#include <map>

#include "../launcher/launcher_test_util.hpp"
#include "amdahl/format/profile_store.hpp"

using namespace launcher_test;
using namespace amdahl::format;

namespace {

std::string nvtx_helper() { return (build_dir() / "tests" / "nvtx_helper").string(); }

std::int64_t sql_int(const std::string& path, const char* query) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, query, -1, &st, nullptr) == SQLITE_OK);
  const std::int64_t v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -999;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

}  // namespace

TEST_CASE("amdahl profile: range CPU times and process CPU counts reach the profile") {
  TempDir t;
  const std::string out = t.file("cpu.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", nvtx_helper(), "cpu"}, t.dir.string(),
                    {{"OMP_NUM_THREADS", "3"}, {"AMDAHL_RANGE_CPU", "1"}});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const Profile p = load_profile(out);
  CHECK(p.meta.at("format_version") == std::to_string(kProfileFormatVersion));
  const RecordSet& rs = p.records;
  REQUIRE(rs.processes.size() == 1);
  CHECK(rs.processes[0].cpus_allowed >= 1);
  CHECK(rs.processes[0].cpus_online >= rs.processes[0].cpus_allowed);
  CHECK(rs.processes[0].omp_threads == 3);

  std::map<std::string, const RangeRec*> by_name;
  for (const RangeRec& x : rs.ranges) by_name[rs.str(x.name)] = &x;
  for (const char* name : {"busy-0", "sleep", "contended", "outer-stage", "inner-stage", "other-busy",
                           "default-busy", "async-amdahl", "unclosed-amdahl"}) {
    REQUIRE_MESSAGE(by_name.count(name) == 1, name);
  }
  const RangeRec& busy = *by_name["busy-0"];
  CHECK(busy.thread_cpu_ns > 0);
  CHECK(busy.thread_cpu_ns <= busy.end_ns - busy.start_ns + 1'000'000);
  CHECK(busy.process_cpu_ns >= busy.thread_cpu_ns - 1'000'000);
  const RangeRec& sleep = *by_name["sleep"];
  CHECK(sleep.thread_cpu_ns >= 0);
  CHECK(sleep.thread_cpu_ns < (sleep.end_ns - sleep.start_ns) / 10);
  const RangeRec& contended = *by_name["contended"];
  CHECK(contended.process_cpu_ns > contended.thread_cpu_ns + 30'000'000);
  for (const char* name : {"other-busy", "default-busy", "inner-other", "async-amdahl", "unclosed-amdahl"}) {
    CAPTURE(name);
    CHECK(by_name[name]->thread_cpu_ns == -1);
    CHECK(by_name[name]->process_cpu_ns == -1);
  }

  // In the file: NULL where unknown; every closed amdahl push/pop range has both.
  std::int64_t with_cpu = 0;
  for (const RangeRec& x : rs.ranges) with_cpu += x.thread_cpu_ns >= 0 ? 1 : 0;
  CHECK(with_cpu >= 7);  // three or more busy loops, sleep, contended, outer-stage, inner-stage
  CHECK(sql_int(out, "SELECT count(*) FROM ranges_named WHERE thread_cpu_ns IS NOT NULL AND process_cpu_ns IS NOT NULL "
                     "AND domain = 'amdahl' AND kind = 'push_pop' AND unclosed = 0") == with_cpu);
  CHECK(sql_int(out, "SELECT count(*) FROM ranges WHERE thread_cpu_ns IS NOT NULL") == with_cpu);
  CHECK(sql_int(out, "SELECT count(*) FROM ranges_named WHERE domain = 'amdahl' AND kind = 'push_pop' "
                     "AND unclosed = 0 AND thread_cpu_ns IS NULL") == 0);
  CHECK(sql_int(out, "SELECT thread_cpu_ns FROM ranges_named WHERE name = 'contended'") == contended.thread_cpu_ns);
  CHECK(sql_int(out, "SELECT process_cpu_ns FROM ranges_named WHERE name = 'contended'") == contended.process_cpu_ns);
  CHECK(sql_int(out, "SELECT cpus_allowed FROM processes_named") == rs.processes[0].cpus_allowed);
  CHECK(sql_int(out, "SELECT omp_threads FROM processes") == 3);
}
