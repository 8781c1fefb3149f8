// Collector stress (issue #8), kept short for CI (label `stress`): many threads, 10 000 nested
// levels, 1 MB names, names that are not UTF-8, pops without pushes, ranges ended on another
// thread, 100 forked children, crashes under load, and the memory budget. Each case checks
// the exit status is unchanged, the part keeps what was recorded and the diagnostics count
// what was lost. Sizes: AMDAHL_STRESS_THREADS (8) x AMDAHL_STRESS_RANGES (100000);
// scripts/stress.sh runs the full 64 x 1M.
#include <signal.h>

#include <map>
#include <set>
#include <sstream>

#include "../profiler/collector_test_util.hpp"

namespace {

using namespace collector_test;

std::string stress_helper() { return build_dir() + "/tests/stress_helper"; }

long env_long(const char* key, long def) {
  const char* v = std::getenv(key);
  return v != nullptr && *v != '\0' ? std::atol(v) : def;
}

std::vector<std::string> env_for(const TempDir& dir, std::vector<std::string> extra = {}) {
  extra.push_back("NVTX_INJECTION64_PATH=" + collector_path());
  extra.push_back("AMDAHL_PART_DIR=" + dir.path);
  return make_env(extra);
}

RecordSet only_part(const TempDir& dir) {
  auto parts = read_parts(dir);
  REQUIRE(parts.size() == 1);
  return std::move(parts[0]);
}

}  // namespace

TEST_CASE("threads x ranges: every range and mark is kept, none dropped") {
  const long t = env_long("AMDAHL_STRESS_THREADS", 8);
  const long n = env_long("AMDAHL_STRESS_RANGES", 100000);
  TempDir dir;
  const RunResult r =
      run({stress_helper(), "threads", std::to_string(t), std::to_string(n)}, env_for(dir));
  CHECK(r.exit_code == 0);
  CHECK(r.out == "recorded " + std::to_string(t * n) + "\n");
  const RecordSet rs = only_part(dir);
  CHECK(rs.ranges.size() == static_cast<std::size_t>(t * n));
  CHECK(rs.marks.size() == static_cast<std::size_t>(t * (n / 1000)));
  CHECK(rs.threads.size() == static_cast<std::size_t>(t));  // main made no recording call
  CHECK(diag(rs, "collector.dropped_ranges") == 0);
  std::map<std::uint64_t, long> per_thread;
  for (const auto& x : rs.ranges) {
    ++per_thread[x.tid];
    CHECK_FALSE(x.unclosed);
  }
  CHECK(per_thread.size() == static_cast<std::size_t>(t));
  for (const auto& [tid, count] : per_thread) CHECK(count == n);
}

TEST_CASE("the memory budget with AMDAHL_ON_FULL=drop drops past the cap and counts every dropped range") {
  TempDir dir;
  // 1 MiB of record storage holds a few thousand 56-byte ranges; 200 000 do not fit.
  const RunResult r = run({stress_helper(), "threads", "2", "100000"},
                          env_for(dir, {"AMDAHL_MEMORY_BUDGET_MB=1", "AMDAHL_ON_FULL=drop"}));
  CHECK(r.exit_code == 0);
  const RecordSet rs = only_part(dir);
  const std::uint64_t dropped = diag(rs, "collector.dropped_ranges");
  CHECK(rs.ranges.size() > 1000);
  CHECK(dropped > 0);
  CHECK(rs.ranges.size() + dropped == 200000);
  CHECK(rs.marks.size() + diag(rs, "collector.dropped_marks") == 200);
  CHECK(diag(rs, "collector.spilled_ranges") == 0);
}

TEST_CASE("past the memory budget records spill to disk by default: every range is kept") {
  TempDir dir;
  const RunResult r = run({stress_helper(), "threads", "2", "100000"},
                          env_for(dir, {"AMDAHL_MEMORY_BUDGET_MB=1", "AMDAHL_FLUSH_MS=50"}));
  CHECK(r.exit_code == 0);
  const RecordSet rs = only_part(dir);  // the spill file is unlinked: nothing else in the folder
  CHECK(rs.ranges.size() == 200000);
  CHECK(rs.marks.size() == 200);
  CHECK(diag(rs, "collector.dropped_ranges") == 0);
  CHECK(diag(rs, "collector.dropped_marks") == 0);
  const std::uint64_t spilled = diag(rs, "collector.spilled_ranges");
  CHECK(spilled > 100000);  // most of them: 1 MiB holds a few thousand
  CHECK(spilled < 200000);
  std::map<std::uint64_t, long> per_thread;
  std::set<std::string> names;
  for (const auto& x : rs.ranges) {
    ++per_thread[x.tid];
    CHECK_FALSE(x.unclosed);
    CHECK(x.end_ns >= x.start_ns);
    names.insert(rs.str(x.name));
  }
  CHECK(names.size() == 16);
  REQUIRE(per_thread.size() == 2);
  for (const auto& [tid, count] : per_thread) CHECK(count == 100000);
}

TEST_CASE("spilled records do not stay resident: a fast writer's memory stays near the budget") {
  // 2 M pairs (112 MB of ranges) past a 4 MB budget, with no flusher to evict the spilled pages
  // behind the writer: the owner hands them back itself every 8 MiB it writes. Without that the
  // peak grows by the whole spill (~108 MB); with the run but without the previous chunk's last
  // run handed back at a chunk change, by ~34 MB (measured on the 2-core VM: ~14 MB with both).
  TempDir dir;
  const RunResult r = run({helper_path(), "spill", "2000000"},
                          env_for(dir, {"AMDAHL_MEMORY_BUDGET_MB=4", "AMDAHL_FLUSH_MS=0"}));
  REQUIRE(r.exit_code == 0);
  long before = -1, hwm = -1;
  std::istringstream lines(r.out);
  for (std::string key; lines >> key;) {
    if (key == "rss_before_kb") lines >> before;
    if (key == "hwm_kb") lines >> hwm;
  }
  REQUIRE(before > 0);
  REQUIRE(hwm > 0);
  MESSAGE("resident before " << before / 1024 << " MB, peak " << hwm / 1024 << " MB");
#if defined(__SANITIZE_THREAD__)
  // TSan's shadow of every byte touched (~4x the 112 MB, never handed back) is in the peak: the
  // bound says nothing there (822 MB measured). ASan's shadow is small enough (~14 MB growth).
  MESSAGE("ThreadSanitizer build: the resident-memory bound is not checked");
#else
  CHECK(hwm - before < 28 * 1024);  // 4 MB in memory + one 8 MiB run; 34 MB if chunk tails stay
#endif
  const RecordSet rs = only_part(dir);
  REQUIRE(rs.ranges.size() == 2000002);  // warm-up, outer and the pairs
  CHECK(diag(rs, "collector.spilled_ranges") > 1900000);
  CHECK(diag(rs, "collector.dropped_ranges") == 0);
  long bad = 0;
  for (std::size_t i = 2; i < rs.ranges.size(); ++i) {
    const auto& x = rs.ranges[i];
    bad += (rs.str(x.name) != (i % 2 == 0 ? "sp-a" : "sp-b") || x.parent != 1 || x.unclosed || x.end_ns < x.start_ns);
  }
  CHECK(bad == 0);
  // The outer range was popped last: its end went into a page handed back long before.
  const auto& outer = rs.ranges[1];
  CHECK(rs.str(outer.name) == "outer");
  CHECK_FALSE(outer.unclosed);
  CHECK(outer.end_ns >= rs.ranges.back().end_ns);
}

TEST_CASE("spilled nested ranges keep their depths and parents") {
  TempDir dir;
  const RunResult r = run({stress_helper(), "deep", "100000"}, env_for(dir, {"AMDAHL_MEMORY_BUDGET_MB=1"}));
  CHECK(r.exit_code == 0);
  const RecordSet rs = only_part(dir);
  REQUIRE(rs.ranges.size() == 100000);
  CHECK(diag(rs, "collector.spilled_ranges") > 50000);
  long bad = 0;
  for (std::size_t i = 0; i < rs.ranges.size(); ++i) {
    if (rs.ranges[i].depth != static_cast<std::int32_t>(i) || rs.ranges[i].parent != static_cast<std::int64_t>(i) - 1 ||
        rs.ranges[i].unclosed || (i > 0 && rs.ranges[i].end_ns > rs.ranges[i - 1].end_ns)) {
      ++bad;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("10 000 nested levels keep their depths and parents") {
  TempDir dir;
  const RunResult r = run({stress_helper(), "deep", "10000"}, env_for(dir));
  CHECK(r.exit_code == 0);
  const RecordSet rs = only_part(dir);
  REQUIRE(rs.ranges.size() == 10000);
  for (std::size_t i = 0; i < rs.ranges.size(); ++i) {
    CHECK(rs.ranges[i].depth == static_cast<std::int32_t>(i));
    CHECK(rs.ranges[i].parent == static_cast<std::int64_t>(i) - 1);
    if (i > 0) CHECK(rs.ranges[i].end_ns <= rs.ranges[i - 1].end_ns);
  }
  CHECK(rs.diagnostics.empty());
}

TEST_CASE("a 1 MB name is kept whole, for a range and a mark") {
  TempDir dir;
  const RunResult r = run({stress_helper(), "bigname", "1"}, env_for(dir));
  CHECK(r.exit_code == 0);
  const RecordSet rs = only_part(dir);
  REQUIRE(rs.ranges.size() == 1);
  REQUIRE(rs.marks.size() == 1);
  CHECK(rs.str(rs.ranges[0].name) == std::string(std::size_t{1} << 20, 'x'));
  CHECK(rs.marks[0].name == rs.ranges[0].name);
}

TEST_CASE("names that are not UTF-8: ASCII-API bytes kept as given, wide code points replaced") {
  TempDir dir;
  const RunResult r = run({stress_helper(), "nonutf8"}, env_for(dir));
  CHECK(r.exit_code == 0);
  const RecordSet rs = only_part(dir);
  std::set<std::string> names;
  for (const auto& x : rs.ranges) names.insert(rs.str(x.name));
  CHECK(names.count("bad-\xff\xfe-bytes") == 1);
  CHECK(names.count("truncated-\xe2\x82") == 1);
  CHECK(names.count("overlong-\xc0\xaf") == 1);
  CHECK(names.count("w\xef\xbf\xbd\xef\xbf\xbd!") == 1);  // two U+FFFD
  CHECK(names.size() == 4);
}

TEST_CASE("pops without pushes are counted and change nothing else") {
  TempDir dir;
  const RunResult r = run({stress_helper(), "pops", "1000"}, env_for(dir));
  CHECK(r.exit_code == 4);
  const RecordSet rs = only_part(dir);
  CHECK(diag(rs, "nvtx.unbalanced_pop") == 2000);
  REQUIRE(rs.ranges.size() == 1);
  CHECK(rs.str(rs.ranges[0].name) == "after-pops");
  CHECK(rs.ranges[0].depth == 0);
}

TEST_CASE("ranges started on one thread and ended on another") {
  TempDir dir;
  const RunResult r = run({stress_helper(), "cross", "5000"}, env_for(dir));
  CHECK(r.exit_code == 0);
  const RecordSet rs = only_part(dir);
  REQUIRE(rs.ranges.size() == 5000);
  for (const auto& x : rs.ranges) {
    CHECK_FALSE(x.unclosed);
    CHECK(x.end_tid != x.tid);
    CHECK(x.end_ns >= x.start_ns);
  }
  CHECK(diag(rs, "nvtx.unknown_range_end") == 0);
}

TEST_CASE("100 forked children, half leaving through _exit: 101 parts, every range kept") {
  TempDir dir;
  const RunResult r = run({stress_helper(), "children", "100"}, env_for(dir, {"AMDAHL_FLUSH_MS=50"}));
  CHECK(r.exit_code == 0);
  const auto parts = read_parts(dir);
  REQUIRE(parts.size() == 101);
  int flushed_only = 0;
  std::set<std::string> names;
  for (const auto& p : parts) {
    for (const auto& x : p.ranges) names.insert(p.str(x.name));
    if (diag(p, "collector.flushed_before_exit") == 1) ++flushed_only;
  }
  CHECK(names.size() == 100 * 10 + 1);
  CHECK(flushed_only == 50);  // the _exit children: their part is their last flush
}

TEST_CASE("crashes under load: status unchanged, records before the crash kept") {
  for (int sig : {SIGSEGV, SIGABRT, SIGKILL}) {
    INFO("signal " << sig);
    TempDir dir;
    const RunResult r =
        run({stress_helper(), "crash_threads", "4", std::to_string(sig)}, env_for(dir, {"AMDAHL_FLUSH_MS=20"}));
    CHECK(r.exit_code == 128 + sig);
    const RecordSet rs = only_part(dir);
    if (sig == SIGKILL) {
      CHECK(rs.ranges.size() > 0);  // what the flusher had written when the kill came
      // No code runs: the part is the last flush, and says so.
      CHECK(diag(rs, "collector.flushed_before_exit") == 1);
      CHECK(diag(rs, "collector.crash_signal") == 0);
    } else {
      CHECK(rs.ranges.size() == 4 * 20000 + 1);  // everything, + main-open
      CHECK(diag(rs, "collector.crash_signal") == static_cast<std::uint64_t>(sig));
      CHECK(diag(rs, "collector.flushed_before_exit") == 0);
      CHECK(diag(rs, "nvtx.unclosed_range") == 1);  // main-open
    }
  }
}
