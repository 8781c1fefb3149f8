// The SQLite profile: round trip of every record kind and field through save/load, the meta
// keys the store adds, and one clear ProfileError for each kind of bad input.
#include <doctest/doctest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <atomic>
#include <thread>
#include <vector>

#include "amdahl/format/profile_store.hpp"

using namespace amdahl::format;
namespace fs = std::filesystem;

namespace {

// A fresh directory per test case, removed at the end.
struct TempDir {
  fs::path dir;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "amdahl-store-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const char* name) const { return (dir / name).string(); }
};

Profile sample_profile() {
  Profile p;
  p.meta["command"] = "train.py --epochs 1";
  p.meta["host"] = "node-1";
  p.meta["exit_code"] = "0";
  RecordSet& rs = p.records;
  rs.strings = {"", "amdahl", "step", "worker-1", "python train.py", "sgemm_kernel", "cudaLaunchKernel",
                "NVIDIA H200", "nvtx.unbalanced_pop", "pop on thread 7 with an empty stack", "h2d"};
  rs.processes.push_back({42, 1, 4, 100, 900, 3, 192, 24, 8});
  rs.threads.push_back({42, 4242, 3});
  rs.threads.push_back({42, 0xffffffffffull, 0});
  rs.categories.push_back({42, 1, 7, 2});
  RangeRec outer;
  outer.pid = 42; outer.tid = 4242; outer.end_tid = 4242; outer.domain = 1; outer.name = 2; outer.category = 7;
  outer.depth = 0; outer.parent = -1; outer.start_ns = 100; outer.end_ns = 800;
  outer.payload = {PayloadKind::Int64, -12, 0.0};
  outer.thread_cpu_ns = 650; outer.process_cpu_ns = 1300;
  RangeRec inner = outer;
  inner.name = 10; inner.depth = 1; inner.parent = 0; inner.start_ns = 150; inner.end_ns = 300;
  inner.payload = {PayloadKind::Double, 0, 2.5};
  inner.thread_cpu_ns = 0; inner.process_cpu_ns = 1LL << 40;
  RangeRec se;
  se.pid = 42; se.tid = 4242; se.end_tid = 4243; se.domain = 0; se.name = 2; se.kind = RangeKind::StartEnd;
  se.depth = -1; se.parent = -1; se.start_ns = -3; se.end_ns = 1LL << 40; se.unclosed = true;
  se.payload = {PayloadKind::UInt64, static_cast<std::int64_t>(0xfedcba9876543210ull), 0.0};
  rs.ranges = {outer, inner, se};
  rs.marks.push_back({42, 4242, 1, 2, 0, 77, {PayloadKind::Int64, -9, 0}});
  rs.marks.push_back({42, 4243, 0, 3, 5, 78, {}});
  rs.api_calls.push_back({42, 4242, ApiKind::Driver, 307, 6, 10, 20, 99});
  rs.api_calls.push_back({42, 4242, ApiKind::Runtime, 211, 6, 21, 25, 100});
  GpuOpRec k;
  k.pid = 42; k.device = 0; k.context = 1; k.stream = 7; k.kind = GpuOpKind::Kernel; k.name = 5;
  k.start_ns = 30; k.end_ns = 60; k.correlation_id = 99; k.graph_id = 4;
  GpuOpRec c;
  c.pid = 42; c.device = 1; c.context = 2; c.stream = 8; c.kind = GpuOpKind::Memcpy; c.bytes = 123456789;
  c.copy_kind = CopyKind::DtoH; c.src_kind = MemKind::Device; c.dst_kind = MemKind::Pageable;
  c.start_ns = 61; c.end_ns = 90; c.correlation_id = 100;
  GpuOpRec s;
  s.pid = 42; s.kind = GpuOpKind::Memset; s.bytes = 1; s.copy_kind = CopyKind::PtoP; s.dst_kind = MemKind::Managed;
  s.src_kind = MemKind::Pinned;
  rs.gpu_ops = {k, c, s};
  rs.syncs.push_back({42, 1, 0xffffffffu, 3, SyncKind::ContextSynchronize, 20, 31, 101});
  rs.syncs.push_back({42, 1, 7, 0, SyncKind::StreamWaitEvent, 32, 33, 102});
  rs.event_records.push_back({42, 0, 1, 7, 12, 98, 0});
  rs.event_records.push_back({42, 1, 2, 0xfffffffeu, 0xfffffff0u, 0xffffffffu, 1'000'000'000'123});
  rs.devices.push_back({42, 0, 7, 1ull << 37, 9, 0, 132});
  rs.diagnostics.push_back({42, 8, 5, 9});
  return p;
}


std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Runs SQL on an existing profile with the C API (to forge bad files).
void sql(const std::string& path, const char* statement) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, statement, nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
}

// A profile as the format-2 amdahl wrote it: no CPU columns in ranges and processes (and the
// views of format 2, which did not show them), version 2.
void make_format2(const std::string& path) {
  sql(path, "DROP VIEW range_totals; DROP VIEW ranges_named; DROP VIEW processes_named; "
            "ALTER TABLE ranges DROP COLUMN thread_cpu_ns; ALTER TABLE ranges DROP COLUMN process_cpu_ns; "
            "ALTER TABLE processes DROP COLUMN cpus_online; ALTER TABLE processes DROP COLUMN cpus_allowed; "
            "ALTER TABLE processes DROP COLUMN omp_threads; "
            "UPDATE meta SET value = '2' WHERE key = 'format_version'");
  sql(path, R"sql(
CREATE VIEW ranges_named AS
  SELECT r.id, r.pid, r.tid, d.value AS domain, n.value AS name, r.kind, r.depth, r.parent,
         r.start_ns, r.end_ns, r.end_ns - r.start_ns AS dur_ns, r.unclosed, r.category,
         r.payload_kind, r.payload_int, r.payload_double, r.end_tid
  FROM ranges r JOIN strings d ON d.id = r.domain_id JOIN strings n ON n.id = r.name_id;
CREATE VIEW range_totals AS
  SELECT domain, name, count(*) AS count, sum(dur_ns) AS total_ns,
         CAST(avg(dur_ns) AS INTEGER) AS mean_ns, min(dur_ns) AS min_ns, max(dur_ns) AS max_ns
  FROM ranges_named GROUP BY domain, name ORDER BY total_ns DESC;
CREATE VIEW processes_named AS
  SELECT p.id, p.pid, p.ppid, c.value AS command, p.start_ns, p.end_ns,
         p.end_ns - p.start_ns AS dur_ns, p.rank
  FROM processes p JOIN strings c ON c.id = p.command_id;
)sql");
}

// A profile as the format-1 amdahl wrote it: format 2 without the event_records table and its
// count, version 1.
void make_format1(const std::string& path) {
  make_format2(path);
  sql(path, "DROP TABLE event_records; DELETE FROM meta WHERE key = 'count.event_records'; "
            "UPDATE meta SET value = '1' WHERE key = 'format_version'");
}

std::string load_error(const std::string& path) {
  try {
    load_profile(path);
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("every record kind and field survives save and load") {
  TempDir t;
  const std::string path = t.file("run.amdahl");
  const Profile p = sample_profile();
  save_profile(p, path, false);
  CHECK_FALSE(fs::exists(path + ".tmp"));
  const Profile b = load_profile(path);
  const RecordSet& x = p.records;
  const RecordSet& y = b.records;

  CHECK(b.meta.at("command") == "train.py --epochs 1");
  CHECK(b.meta.at("host") == "node-1");
  CHECK(b.meta.at("format_version") == "3");
  CHECK(b.meta.at("clock") == "CLOCK_MONOTONIC");
  CHECK(b.meta.count("amdahl_version") == 1);
  CHECK(b.meta.at("count.ranges") == "3");
  CHECK(b.meta.at("count.event_records") == "2");
  CHECK(y.strings == x.strings);

  REQUIRE(y.processes.size() == 1);
  CHECK(y.processes[0].pid == 42); CHECK(y.processes[0].ppid == 1); CHECK(y.processes[0].command == 4);
  CHECK(y.processes[0].start_ns == 100); CHECK(y.processes[0].end_ns == 900); CHECK(y.processes[0].rank == 3);
  CHECK(y.processes[0].cpus_online == 192); CHECK(y.processes[0].cpus_allowed == 24);
  CHECK(y.processes[0].omp_threads == 8);

  REQUIRE(y.threads.size() == 2);
  CHECK(y.threads[0].tid == 4242); CHECK(y.threads[0].name == 3); CHECK(y.threads[1].tid == 0xffffffffffull);

  REQUIRE(y.categories.size() == 1);
  CHECK(y.categories[0].domain == 1); CHECK(y.categories[0].category == 7); CHECK(y.categories[0].name == 2);

  REQUIRE(y.ranges.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const RangeRec& a = x.ranges[i];
    const RangeRec& r = y.ranges[i];
    CHECK(r.pid == a.pid); CHECK(r.tid == a.tid); CHECK(r.end_tid == a.end_tid); CHECK(r.domain == a.domain);
    CHECK(r.name == a.name); CHECK(r.category == a.category); CHECK(r.kind == a.kind); CHECK(r.depth == a.depth);
    CHECK(r.parent == a.parent); CHECK(r.start_ns == a.start_ns); CHECK(r.end_ns == a.end_ns);
    CHECK(r.unclosed == a.unclosed); CHECK(r.payload.kind == a.payload.kind); CHECK(r.payload.i == a.payload.i);
    CHECK(r.payload.d == a.payload.d); CHECK(r.thread_cpu_ns == a.thread_cpu_ns);
    CHECK(r.process_cpu_ns == a.process_cpu_ns);
  }
  CHECK(y.ranges[2].thread_cpu_ns == -1);  // unknown: stored as NULL, read back as -1
  CHECK(y.ranges[2].process_cpu_ns == -1);

  REQUIRE(y.marks.size() == 2);
  CHECK(y.marks[0].tid == 4242); CHECK(y.marks[0].domain == 1); CHECK(y.marks[0].name == 2);
  CHECK(y.marks[0].ts_ns == 77); CHECK(y.marks[0].payload.kind == PayloadKind::Int64); CHECK(y.marks[0].payload.i == -9);
  CHECK(y.marks[1].category == 5); CHECK(y.marks[1].payload.kind == PayloadKind::None);

  REQUIRE(y.api_calls.size() == 2);
  CHECK(y.api_calls[0].api == ApiKind::Driver); CHECK(y.api_calls[0].cbid == 307); CHECK(y.api_calls[0].name == 6);
  CHECK(y.api_calls[0].start_ns == 10); CHECK(y.api_calls[0].end_ns == 20); CHECK(y.api_calls[0].correlation_id == 99);
  CHECK(y.api_calls[1].api == ApiKind::Runtime);

  REQUIRE(y.gpu_ops.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const GpuOpRec& a = x.gpu_ops[i];
    const GpuOpRec& g = y.gpu_ops[i];
    CHECK(g.pid == a.pid); CHECK(g.device == a.device); CHECK(g.context == a.context); CHECK(g.stream == a.stream);
    CHECK(g.kind == a.kind); CHECK(g.name == a.name); CHECK(g.start_ns == a.start_ns); CHECK(g.end_ns == a.end_ns);
    CHECK(g.correlation_id == a.correlation_id); CHECK(g.bytes == a.bytes); CHECK(g.copy_kind == a.copy_kind);
    CHECK(g.src_kind == a.src_kind); CHECK(g.dst_kind == a.dst_kind); CHECK(g.graph_id == a.graph_id);
  }

  REQUIRE(y.syncs.size() == 2);
  CHECK(y.syncs[0].stream == 0xffffffffu); CHECK(y.syncs[0].event == 3); CHECK(y.syncs[0].kind == SyncKind::ContextSynchronize);
  CHECK(y.syncs[0].start_ns == 20); CHECK(y.syncs[0].end_ns == 31); CHECK(y.syncs[0].correlation_id == 101);
  CHECK(y.syncs[1].kind == SyncKind::StreamWaitEvent); CHECK(y.syncs[1].context == 1);

  REQUIRE(y.event_records.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    const EventRecordRec& a = x.event_records[i];
    const EventRecordRec& e = y.event_records[i];
    CHECK(e.pid == a.pid); CHECK(e.device == a.device); CHECK(e.context == a.context); CHECK(e.stream == a.stream);
    CHECK(e.event == a.event); CHECK(e.correlation_id == a.correlation_id); CHECK(e.device_ts_ns == a.device_ts_ns);
  }

  REQUIRE(y.devices.size() == 1);
  CHECK(y.devices[0].name == 7); CHECK(y.devices[0].global_memory == (1ull << 37)); CHECK(y.devices[0].cc_major == 9);
  CHECK(y.devices[0].cc_minor == 0); CHECK(y.devices[0].sm_count == 132);

  REQUIRE(y.diagnostics.size() == 1);
  CHECK(y.diagnostics[0].key == 8); CHECK(y.diagnostics[0].count == 5); CHECK(y.diagnostics[0].detail == 9);
}

TEST_CASE("the sqlite3-shell views and readable enum columns") {
  TempDir t;
  const std::string path = t.file("run.amdahl");
  save_profile(sample_profile(), path, false);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  auto one = [&](const char* q) {
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, q, -1, &st, nullptr) == SQLITE_OK);
    std::string v = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)
                        ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) : "(none)";
    sqlite3_finalize(st);
    return v;
  };
  CHECK(one("SELECT name || '/' || domain || '/' || dur_ns FROM ranges_named WHERE id = 1") == "h2d/amdahl/150");
  CHECK(one("SELECT kind || ' ' || copy_kind || ' ' || src_kind FROM gpu_ops WHERE id = 1") == "memcpy DtoH device");
  CHECK(one("SELECT name FROM gpu_ops_named WHERE kind = 'kernel'") == "sgemm_kernel");
  CHECK(one("SELECT kind FROM syncs WHERE id = 0") == "context_synchronize");
  CHECK(one("SELECT event || ' ' || stream || ' ' || correlation_id FROM event_records WHERE id = 0") == "12 7 98");
  CHECK(one("SELECT stream || ' ' || correlation_id FROM event_records WHERE id = 1") == "4294967294 4294967295");
  CHECK(one("SELECT count || ' ' || total_ns FROM range_totals WHERE name = 'step' AND domain = 'amdahl'") == "1 700");
  CHECK(one("SELECT key || ': ' || detail FROM diagnostics_named") ==
        "nvtx.unbalanced_pop: pop on thread 7 with an empty stack");
  CHECK(one("SELECT parent FROM ranges WHERE id = 0") == "(none)");  // NULL: no parent
  CHECK(one("SELECT thread_cpu_ns || ' ' || process_cpu_ns FROM ranges_named WHERE id = 0") == "650 1300");
  CHECK(one("SELECT thread_cpu_ns FROM ranges WHERE id = 2") == "(none)");  // NULL: unknown
  CHECK(one("SELECT process_cpu_ns FROM ranges WHERE id = 2") == "(none)");
  CHECK(one("SELECT cpus_online || ' ' || cpus_allowed || ' ' || omp_threads FROM processes_named") == "192 24 8");
  sqlite3_close(db);
}

TEST_CASE("save refuses to overwrite unless asked, and leaves no temporary file") {
  TempDir t;
  const std::string path = t.file("run.amdahl");
  Profile p = sample_profile();
  save_profile(p, path, false);
  CHECK_THROWS_WITH_AS(save_profile(p, path, false), doctest::Contains("refusing to overwrite"), ProfileError);
  p.meta["host"] = "node-2";
  save_profile(p, path, true);
  CHECK(load_profile(path).meta.at("host") == "node-2");
  CHECK_FALSE(fs::exists(path + ".tmp"));
  CHECK_THROWS_AS(save_profile(p, t.file("no-such-dir/run.amdahl"), false), ProfileError);
}

// Issue 18, concurrent runs: every save used `<out>.tmp`, removing whatever was there first, so
// two saves to one output shared one temporary (one reported success while the file held the
// other's data, or 0 bytes) and a save deleted an unrelated `<out>.tmp`. Now each save has a
// temporary of its own (mkstemp next to the output) and renames it when complete.
TEST_CASE("concurrent saves to one path: each has its own temporary; the file is one whole profile") {
  TempDir t;
  const std::string path = t.file("run.amdahl");
  write_bytes(path + ".tmp", "someone else's file");
  write_bytes(path + ".tmp-ABCDEF", "someone else's too");
  constexpr int kWriters = 6;
  std::vector<Profile> profiles(kWriters, sample_profile());
  for (int i = 0; i < kWriters; ++i) profiles[i].meta["writer"] = std::to_string(i);
  for (int round = 0; round < 3; ++round) {
    std::vector<std::thread> threads;
    std::vector<std::string> errors(kWriters);
    for (int i = 0; i < kWriters; ++i)
      threads.emplace_back([&, i] {
        try {
          save_profile(profiles[i], path, true);
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    for (auto& th : threads) th.join();
    for (const auto& e : errors) CHECK(e.empty());
    const Profile back = load_profile(path);
    const int writer = std::stoi(back.meta.at("writer"));
    CHECK(writer >= 0);
    CHECK(writer < kWriters);
    CHECK(back.records.ranges.size() == 3);
  }
  CHECK(slurp(path + ".tmp") == "someone else's file");
  CHECK(slurp(path + ".tmp-ABCDEF") == "someone else's too");
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(t.dir)) {
    (void)e;
    ++files;
  }
  CHECK(files == 3);  // the profile and the two files that were there: no temporary left
  // Without overwrite, one of several concurrent saves wins and the others are refused.
  const std::string once = t.file("once.amdahl");
  std::atomic<int> saved{0}, refused{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i)
    threads.emplace_back([&, i] {
      try {
        save_profile(profiles[i], once, false);
        ++saved;
      } catch (const ProfileError& e) {
        if (std::string(e.what()).find("refusing to overwrite") != std::string::npos) ++refused;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(saved == 1);
  CHECK(refused == kWriters - 1);
  CHECK(load_profile(once).records.ranges.size() == 3);
}

TEST_CASE("a profile is written only to a regular file; a directory is named as one") {
  TempDir t;
  const Profile p = sample_profile();
  CHECK_THROWS_WITH_AS(save_profile(p, t.dir.string(), true), doctest::Contains("is a directory"), ProfileError);
  CHECK_THROWS_WITH_AS(save_profile(p, "/dev/null", true), doctest::Contains("not a regular file"), ProfileError);
  // A dangling symbolic link is an existing file for the refusal to overwrite.
  fs::create_symlink(t.file("nowhere/x"), t.file("link.amdahl"));
  CHECK_THROWS_WITH_AS(save_profile(p, t.file("link.amdahl"), false), doctest::Contains("refusing to overwrite"),
                       ProfileError);
}

TEST_CASE("bad input gives one clear ProfileError") {
  TempDir t;
  SUBCASE("missing file") {
    CHECK(load_error(t.file("nope.amdahl")) == "cannot open " + t.file("nope.amdahl") + ": no such file");
  }
  SUBCASE("a directory") { CHECK(load_error(t.dir.string()).find("is a directory") != std::string::npos); }
  SUBCASE("not an SQLite file") {
    const std::string path = t.file("text.amdahl");
    write_bytes(path, std::string(5000, 'x'));
    CHECK(load_error(path) == path + " is not an amdahl profile: it is not an SQLite database");
  }
  SUBCASE("empty file") {
    const std::string path = t.file("empty.amdahl");
    write_bytes(path, "");
    CHECK(load_error(path).find("not an amdahl profile") != std::string::npos);
  }
  SUBCASE("an SQLite database that is not a profile") {
    const std::string path = t.file("other.db");
    sql(path, "CREATE TABLE t(x)");
    CHECK(load_error(path) == path + " is not an amdahl profile: it has no meta table");
  }
  SUBCASE("a profile missing a table") {
    const std::string path = t.file("run.amdahl");
    save_profile(sample_profile(), path, false);
    sql(path, "DROP VIEW gpu_ops_named; DROP TABLE gpu_ops");
    CHECK(load_error(path) == path + " is not a complete amdahl profile: table 'gpu_ops' is missing");
  }
  SUBCASE("a profile missing the table format 2 added") {
    const std::string path = t.file("run.amdahl");
    save_profile(sample_profile(), path, false);
    sql(path, "DROP TABLE event_records");
    CHECK(load_error(path) == path + " is not a complete amdahl profile: table 'event_records' is missing");
  }
  SUBCASE("newer format version") {
    const std::string path = t.file("run.amdahl");
    save_profile(sample_profile(), path, false);
    sql(path, "UPDATE meta SET value = '4' WHERE key = 'format_version'");
    CHECK(load_error(path) == path + " was written by a newer amdahl (format 4); this one reads formats 1 to 3");
  }
  SUBCASE("older and unknown format versions") {
    const std::string path = t.file("run.amdahl");
    save_profile(sample_profile(), path, false);
    sql(path, "UPDATE meta SET value = '0' WHERE key = 'format_version'");
    CHECK(load_error(path).find("profile format 0") != std::string::npos);
    sql(path, "UPDATE meta SET value = 'one' WHERE key = 'format_version'");
    CHECK(load_error(path).find("unknown profile format version 'one'") != std::string::npos);
    sql(path, "DELETE FROM meta WHERE key = 'format_version'");
    CHECK(load_error(path).find("has no format_version") != std::string::npos);
  }
  SUBCASE("unknown enum text") {
    const std::string path = t.file("run.amdahl");
    save_profile(sample_profile(), path, false);
    sql(path, "UPDATE gpu_ops SET kind = 'teleport' WHERE id = 0");
    CHECK(load_error(path) == path + " is corrupt: unknown value 'teleport' in gpu_ops.kind");
  }
  SUBCASE("deleted rows") {
    const std::string path = t.file("run.amdahl");
    save_profile(sample_profile(), path, false);
    sql(path, "DELETE FROM marks WHERE id = 1");
    CHECK(load_error(path).find("is corrupt: table marks has 1 rows where 2 were written") != std::string::npos);
  }
  SUBCASE("deleted event records") {
    const std::string path = t.file("run.amdahl");
    save_profile(sample_profile(), path, false);
    sql(path, "DELETE FROM event_records WHERE id = 1");
    CHECK(load_error(path) == path + " is corrupt: table event_records has 1 rows where 2 were written");
    sql(path, "DELETE FROM event_records WHERE id = 0");
    sql(path, "INSERT INTO event_records VALUES (1, 42, 0, 1, 7, 12, 98, 0)");
    CHECK(load_error(path) == path + " is corrupt: table event_records has a gap at id 0");
  }
}

TEST_CASE("a format-1 profile (the previous release) loads, with no event records") {
  TempDir t;
  const std::string path = t.file("old.amdahl");
  const Profile p = sample_profile();
  save_profile(p, path, false);
  make_format1(path);
  for (const bool analysis_only : {false, true}) {
    CAPTURE(analysis_only);
    LoadOptions o;
    o.analysis_columns_only = analysis_only;
    Profile b;
    REQUIRE_NOTHROW(b = load_profile(path, o));
    CHECK(b.meta.at("format_version") == "1");
    CHECK(b.records.event_records.empty());
    CHECK(b.records.strings == p.records.strings);
    CHECK(b.records.ranges.size() == 3);
    CHECK(b.records.gpu_ops.size() == 3);
    CHECK(b.records.api_calls.size() == 2);
    REQUIRE(b.records.syncs.size() == 2);
    CHECK(b.records.syncs[1].kind == SyncKind::StreamWaitEvent);
    CHECK(b.records.devices.size() == 1);
    CHECK(b.records.diagnostics.size() == 1);
  }
  // Saved again, it is a format-3 profile (with an empty event_records table).
  const std::string again = t.file("again.amdahl");
  save_profile(load_profile(path), again, false);
  const Profile c = load_profile(again);
  CHECK(c.meta.at("format_version") == "3");
  CHECK(c.meta.at("count.event_records") == "0");
  CHECK(c.records.event_records.empty());
  // Format 1 never had the table: one left behind in a format-1 file is not read.
  save_profile(p, t.file("odd.amdahl"), false);
  sql(t.file("odd.amdahl"), "UPDATE meta SET value = '1' WHERE key = 'format_version'");
  CHECK(load_profile(t.file("odd.amdahl")).records.event_records.empty());
}

TEST_CASE("a format-2 profile (the previous release) loads, with CPU times -1 and CPU counts 0") {
  TempDir t;
  const std::string path = t.file("old.amdahl");
  const Profile p = sample_profile();
  save_profile(p, path, false);
  make_format2(path);
  for (const bool analysis_only : {false, true}) {
    CAPTURE(analysis_only);
    LoadOptions o;
    o.analysis_columns_only = analysis_only;
    Profile b;
    REQUIRE_NOTHROW(b = load_profile(path, o));
    CHECK(b.meta.at("format_version") == "2");
    CHECK(b.records.strings == p.records.strings);
    REQUIRE(b.records.ranges.size() == 3);
    for (const RangeRec& r : b.records.ranges) {
      CHECK(r.thread_cpu_ns == -1);
      CHECK(r.process_cpu_ns == -1);
    }
    CHECK(b.records.ranges[1].end_ns == 300);
    REQUIRE(b.records.processes.size() == 1);
    CHECK(b.records.processes[0].rank == 3);
    CHECK(b.records.processes[0].cpus_online == 0);
    CHECK(b.records.processes[0].cpus_allowed == 0);
    CHECK(b.records.processes[0].omp_threads == 0);
    CHECK(b.records.event_records.size() == 2);
    CHECK(b.records.gpu_ops.size() == 3);
  }
  // Saved again, it is a format-3 profile whose CPU columns say "unknown" (NULL, 0).
  const std::string again = t.file("again.amdahl");
  save_profile(load_profile(path), again, false);
  const Profile c = load_profile(again);
  CHECK(c.meta.at("format_version") == "3");
  REQUIRE(c.records.ranges.size() == 3);
  CHECK(c.records.ranges[0].thread_cpu_ns == -1);
  CHECK(c.records.processes[0].cpus_allowed == 0);
  CHECK(c.records.event_records.size() == 2);
  // A format-3 file whose CPU columns are missing is not a valid profile.
  save_profile(p, t.file("cut.amdahl"), false);
  sql(t.file("cut.amdahl"), "DROP VIEW range_totals; DROP VIEW ranges_named; "
                            "ALTER TABLE ranges DROP COLUMN process_cpu_ns");
  CHECK(load_error(t.file("cut.amdahl")).find("is not a valid amdahl profile") != std::string::npos);
}

TEST_CASE("a profile the format-2 release wrote loads (tests/fuzz seed, untouched since)") {
  const char* src = std::getenv("AMDAHL_SOURCE_DIR");
  const fs::path file = fs::path(src ? src : AMDAHL_SOURCE_DIR_FALLBACK) /
                        "tests/fuzz/corpus/profile_loader/gen_profile_gpu_events.amdahl";
  REQUIRE(fs::exists(file));
  for (const bool analysis_only : {false, true}) {
    CAPTURE(analysis_only);
    LoadOptions o;
    o.analysis_columns_only = analysis_only;
    Profile b;
    REQUIRE_NOTHROW(b = load_profile(file.string(), o));
    REQUIRE_MESSAGE(b.meta.at("format_version") == "2", "the seed was rewritten: this test needs a format-2 file");
    CHECK(b.records.gpu_ops.size() == 164);
    CHECK(b.records.api_calls.size() == 168);
    CHECK(b.records.event_records.size() == 4);
    REQUIRE(b.records.ranges.size() == 28);
    for (const RangeRec& r : b.records.ranges) {
      CHECK(r.thread_cpu_ns == -1);
      CHECK(r.process_cpu_ns == -1);
    }
    REQUIRE(b.records.processes.size() == 1);
    CHECK(b.records.processes[0].pid == 1000);
    CHECK(b.records.processes[0].cpus_allowed == 0);
  }
}

TEST_CASE("a profile the format-1 release wrote loads (tests/fuzz seed, untouched since)") {
  const char* src = std::getenv("AMDAHL_SOURCE_DIR");
  const fs::path file =
      fs::path(src ? src : AMDAHL_SOURCE_DIR_FALLBACK) / "tests/fuzz/corpus/profile_loader/gen_profile_gpu.amdahl";
  REQUIRE(fs::exists(file));
  Profile b;
  REQUIRE_NOTHROW(b = load_profile(file.string()));
  REQUIRE_MESSAGE(b.meta.at("format_version") == "1", "the seed was rewritten: this test needs a format-1 file");
  CHECK(b.records.gpu_ops.size() == 164);
  CHECK(b.records.api_calls.size() == 168);
  CHECK(b.records.ranges.size() == 28);
  CHECK(b.records.event_records.empty());
}

TEST_CASE("a truncated profile is detected, however it was cut") {
  TempDir t;
  const std::string path = t.file("big.amdahl");
  Profile p = sample_profile();
  for (int i = 0; i < 20000; ++i) {  // several pages of ranges
    RangeRec r = p.records.ranges[0];
    r.start_ns = i;
    r.end_ns = i + 10;
    p.records.ranges.push_back(r);
  }
  save_profile(p, path, false);
  const std::string bytes = slurp(path);
  REQUIRE(bytes.size() > 100000);
  for (const double frac : {0.5, 0.9, 0.99, 0.1}) {
    CAPTURE(frac);
    const std::string cut = t.file("cut.amdahl");
    write_bytes(cut, bytes.substr(0, static_cast<std::size_t>(static_cast<double>(bytes.size()) * frac)));
    const std::string err = load_error(cut);
    CHECK(err.find(cut) == 0);
    CHECK((err.find("truncated") != std::string::npos || err.find("corrupt") != std::string::npos));
  }
  // Garbage in the middle of the file (a corrupted page) is caught by SQLite or the row counts.
  std::string damaged = bytes;
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 4096; ++i) damaged[i] = '\x5a';
  const std::string bad = t.file("bad.amdahl");
  write_bytes(bad, damaged);
  CHECK(load_error(bad).find("corrupt") != std::string::npos);
}

TEST_CASE("a ten-million-row profile saves and loads in seconds" * doctest::skip(std::getenv("AMDAHL_BIG_TESTS") == nullptr)) {
  TempDir t;
  Profile p;
  p.records.strings = {"", "amdahl", "step"};
  p.records.ranges.resize(10'000'000);
  for (std::size_t i = 0; i < p.records.ranges.size(); ++i) {
    RangeRec& r = p.records.ranges[i];
    r.pid = 1; r.tid = 2; r.name = 2; r.domain = 1;
    r.start_ns = static_cast<std::int64_t>(i) * 10;
    r.end_ns = r.start_ns + 5;
  }
  const auto t0 = std::chrono::steady_clock::now();
  save_profile(p, t.file("big.amdahl"), false);
  const auto t1 = std::chrono::steady_clock::now();
  const Profile b = load_profile(t.file("big.amdahl"));
  const auto t2 = std::chrono::steady_clock::now();
  MESSAGE("save ", std::chrono::duration<double>(t1 - t0).count(), " s, load ",
          std::chrono::duration<double>(t2 - t1).count(), " s");
  CHECK(b.records.ranges.size() == p.records.ranges.size());
}

TEST_CASE("big tables load in parallel slices with the same checks") {
  TempDir t;
  const std::string path = t.file("big.amdahl");
  Profile p;
  p.records.strings = {"", "amdahl", "step"};
  p.records.ranges.resize(1'500'000);
  for (std::size_t i = 0; i < p.records.ranges.size(); ++i) {
    RangeRec& r = p.records.ranges[i];
    r.pid = 1; r.tid = 2 + i % 3; r.name = 2; r.domain = 1; r.depth = i % 2 ? 1 : 0;
    r.parent = i % 2 ? static_cast<std::int64_t>(i) - 1 : -1;
    r.start_ns = static_cast<std::int64_t>(i) * 10;
    r.end_ns = r.start_ns + 5;
    r.payload = {PayloadKind::Int64, static_cast<std::int64_t>(i), 0.0};
  }
  save_profile(p, path, false);
  const Profile b = load_profile(path);
  REQUIRE(b.records.ranges.size() == p.records.ranges.size());
  bool same = true;
  for (std::size_t i = 0; i < p.records.ranges.size() && same; ++i) {
    const RangeRec& x = p.records.ranges[i];
    const RangeRec& y = b.records.ranges[i];
    same = x.start_ns == y.start_ns && x.parent == y.parent && x.tid == y.tid && y.payload.i == x.payload.i;
  }
  CHECK(same);
  sql(path, "DELETE FROM ranges WHERE id = 1234567");
  CHECK(load_error(path) == path + " is corrupt: table ranges has a gap at id 1234567");
  sql(path, "INSERT INTO ranges SELECT 1234567, pid, tid, end_tid, domain_id, name_id, category, kind, depth, NULL, "
            "start_ns, end_ns, unclosed, payload_kind, payload_int, payload_double, thread_cpu_ns, process_cpu_ns "
            "FROM ranges WHERE id = 0");
  CHECK_NOTHROW(load_profile(path));
  sql(path, "DELETE FROM ranges WHERE id = 1499999");
  CHECK(load_error(path) == path + " is corrupt: table ranges has a gap at id 1499999");
  sql(path, "INSERT INTO ranges SELECT 1499999 + 2, pid, tid, end_tid, domain_id, name_id, category, kind, depth, "
            "NULL, start_ns, end_ns, unclosed, payload_kind, payload_int, payload_double, thread_cpu_ns, process_cpu_ns "
            "FROM ranges WHERE id = 0");
  CHECK(load_error(path).find("is corrupt: table ranges has a gap at id 1499999") != std::string::npos);
}
