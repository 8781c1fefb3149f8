// Issue 18, classes 6 and 8, through `amdahl profile`: what is in the part folder when the
// command ends (a FIFO or a device planted there, a part with a record the format does not
// define) and what a process that replaces its program with exec keeps. Each test case is the
// reproducer of one failure, kept as its regression test.
#include <sys/stat.h>

#include <chrono>
#include <set>

#include "amdahl/format/part_file.hpp"
#include "amdahl/format/profile_store.hpp"
#include "launcher_test_util.hpp"

using namespace launcher_test;
using amdahl::format::load_profile;

namespace {

bool collector_built() { return fs::exists(build_dir() / "lib" / "libamdahl_collector.so"); }
bool exit_hook_built() { return fs::exists(build_dir() / "lib" / "libamdahl_exit.so"); }

const amdahl::format::DiagRec* diagnostic(const amdahl::format::Profile& p, const std::string& key) {
  for (const auto& d : p.records.diagnostics)
    if (p.records.str(d.key) == key) return &d;
  return nullptr;
}

std::size_t count_ranges(const amdahl::format::Profile& p, const std::string& name) {
  std::size_t n = 0;
  for (const auto& r : p.records.ranges) n += p.records.str(r.name) == name;
  return n;
}

}  // namespace

// Class 6: a FIFO planted in the part folder hung `amdahl profile` after the command exited
// (reading it as a part waited for a writer forever). Entries that are not regular files are
// skipped without being opened, and counted.
TEST_CASE("a FIFO planted in the part folder does not hang amdahl profile") {
  TempDir t;
  const std::string out = t.file("fifo.amdahl");
  const auto t0 = std::chrono::steady_clock::now();
  const Ran r = run({"/usr/bin/timeout", "30", amdahl_bin(), "profile", "-o", out, "--", "/bin/sh", "-c",
                     "mkfifo \"$AMDAHL_PART_DIR/part-1-1.amdpart\" \"$AMDAHL_PART_DIR/x.amdpart.tmp\" && "
                     "mkdir \"$AMDAHL_PART_DIR/dir.amdpart\" && exit 4"},
                    t.dir.string());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.code == 4);  // not 124: timeout did not have to end it
  CHECK(s < 10);
  const auto p = load_profile(out);
  const auto* d = diagnostic(p, "part.not_regular_file");
  REQUIRE(d != nullptr);
  CHECK(d->count == 3);
  CHECK(p.records.str(d->detail).find("part-1-1.amdpart") != std::string::npos);
}

// Class 6: a FIFO given as the command hung `amdahl profile` in its open (reading the
// command's ELF header and its #! line), deaf to SIGTERM. Only regular files are read there;
// the exec then fails as it does for any file that cannot run.
TEST_CASE("a FIFO as the command: amdahl profile does not hang") {
  TempDir t;
  const std::string fifo = t.file("cmd");
  REQUIRE(::mkfifo(fifo.c_str(), 0755) == 0);
  ::chmod(fifo.c_str(), 0755);
  const Ran r = run({"/usr/bin/timeout", "-s", "KILL", "30", amdahl_bin(), "profile", "-o", t.file("c.amdahl"), "--", fifo},
                    t.dir.string());
  CHECK(r.code == 126);  // not 137: timeout did not have to kill it
  CHECK(r.err.find("amdahl: error: cannot run " + fifo) != std::string::npos);
}

// Class 8 (a): a part with a record kind beyond its enum was merged; the saved profile then
// failed `export` as corrupt while `report` worked. Such a part is rejected whole, counted,
// and named in one warning line; the command's own part is kept.
TEST_CASE("a part with an enum value the format does not define is rejected whole; the others are kept") {
  if (!collector_built()) {
    MESSAGE("the collector is not built: skipped");
    return;
  }
  TempDir t;
  amdahl::format::RecordSet bad;
  bad.strings.push_back("bad_range");
  bad.processes.push_back({999, 1, 0, 10, 20});
  amdahl::format::RangeRec x;
  x.pid = 999;
  x.tid = 999;
  x.name = 1;
  x.start_ns = 11;
  x.end_ns = 12;
  x.kind = static_cast<amdahl::format::RangeKind>(7);
  bad.ranges.push_back(x);
  { std::ofstream(t.file("bad.amdpart"), std::ios::binary) << amdahl::format::encode_part(bad); }

  const std::string out = t.file("bad.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", "/bin/sh", "-c",
                     "cp bad.amdpart \"$AMDAHL_PART_DIR/part-999-1.amdpart\" && exec \"$0\" ranges", target()},
                    t.dir.string());
  CHECK(r.code == 5);
  CHECK(r.err.find("amdahl: warning: part part-999-1.amdpart rejected") != std::string::npos);
  const auto p = load_profile(out);
  const auto* d = diagnostic(p, "part.unreadable");
  REQUIRE(d != nullptr);
  CHECK(p.records.str(d->detail).find("part-999-1.amdpart") != std::string::npos);
  CHECK(p.records.str(d->detail).find("range 0 has kind 7, a kind the format does not define") != std::string::npos);
  CHECK(count_ranges(p, "bad_range") == 0);
  CHECK(count_ranges(p, "step") == 2);  // the command's own part
  // The saved profile is whole: the full load (export) reads it.
  const Ran e = run({amdahl_bin(), "export", out, "--chrome", t.file("trace.json")}, t.dir.string());
  CHECK(e.code == 0);
}

// Class 8 (b): a program that replaced itself with exec kept 2 of 42 steps and said nothing:
// exec runs no exit handler, so the records before it were lost. The preloaded exit hook now
// has the collector write its part before every exec function.
TEST_CASE("a program that re-execs itself keeps every step, whichever exec function it uses") {
  if (!collector_built() || !exit_hook_built()) {
    MESSAGE("the collector or libamdahl_exit.so is not built (sanitizer build): skipped");
    return;
  }
  TempDir t;
  for (const std::string how : {"execv", "execve", "execvp", "execl"}) {
    CAPTURE(how);
    const std::string out = t.file(how + ".amdahl");
    // 3 rounds of 14 steps: two execs, 42 steps in all, one process.
    const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", target(), "reexec", "14", "3", how}, t.dir.string());
    CHECK(r.code == 3);
    const auto p = load_profile(out);
    CHECK(count_ranges(p, "step") == 42);
    CHECK(count_ranges(p, "cpu_preprocess") == 42);
    const auto* d = diagnostic(p, "collector.exec");
    REQUIRE(d != nullptr);
    CHECK(diagnostic(p, "merge.duplicate_pid") == nullptr);  // the same process, not a reused pid
    std::set<std::uint32_t> pids;
    for (const auto& x : p.records.ranges) pids.insert(x.pid);
    CHECK(pids.size() == 1);
  }
  // The report sees the 42 steps on one thread.
  const Ran rep = run({amdahl_bin(), "report", t.file("execv.amdahl"), "--format", "json", "--warmup", "0", "-o",
                       t.file("report.json")},
                      t.dir.string());
  CHECK(rep.code == 0);
  CHECK(slurp(t.file("report.json")).find("\"steps\": 42") != std::string::npos);
}
