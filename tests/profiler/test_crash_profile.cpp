// Crash survival through `amdahl profile`: the profiled command's exit status passes through
// unchanged (128+N for signal N) and the merged profile keeps the ranges recorded before the
// crash, with the diagnostics that say how each process ended.
#include <filesystem>
#include <set>

#include "../launcher/launcher_test_util.hpp"
#include "amdahl/format/profile_store.hpp"

using namespace launcher_test;
using namespace amdahl::format;

namespace {

std::string crash_helper() { return (build_dir() / "tests" / "crash_helper").string(); }

bool have_exit_hook() { return std::filesystem::exists(build_dir() / "lib" / "libamdahl_exit.so"); }

std::set<std::string> range_names(const RecordSet& rs, std::uint32_t pid) {
  std::set<std::string> out;
  for (const auto& r : rs.ranges) {
    if (r.pid == pid) out.insert(rs.str(r.name));
  }
  return out;
}

std::uint64_t diag(const RecordSet& rs, std::uint32_t pid, const std::string& key) {
  std::uint64_t n = 0;
  for (const auto& d : rs.diagnostics) {
    if (d.pid == pid && rs.str(d.key) == key) n += d.count;
  }
  return n;
}

}  // namespace

TEST_CASE("amdahl profile: a command that segfaults or aborts keeps its status and its ranges") {
  for (const auto& [mode, sig] : {std::pair<std::string, int>{"segv", 11}, {"abort", 6}}) {
    INFO("mode " << mode);
    TempDir t;
    const std::string out = t.file("crash.amdahl");
    const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", crash_helper(), mode},
                      t.dir.string(), {{"AMDAHL_FLUSH_MS", "0"}});
    REQUIRE_MESSAGE(r.code == 128 + sig, r.err);
    const Profile p = load_profile(out);
    REQUIRE(p.records.processes.size() == 1);
    const std::uint32_t pid = p.records.processes[0].pid;
    std::set<std::string> expected{"open-at-crash"};
    for (char i = '0'; i <= '9'; ++i) expected.insert(std::string{'r', i});
    CHECK(range_names(p.records, pid) == expected);
    CHECK(diag(p.records, pid, "collector.crash_signal") == static_cast<std::uint64_t>(sig));
  }
}

TEST_CASE("amdahl profile: a forked child that leaves through _exit is in the profile") {
  TempDir t;
  const std::string out = t.file("fork.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", crash_helper(), "fork_exit"},
                    t.dir.string(), {{"AMDAHL_FLUSH_MS", "50"}});
  REQUIRE_MESSAGE(r.code == 15, r.err);
  const Profile p = load_profile(out);
  REQUIRE(p.records.processes.size() == 2);
  std::uint32_t child = 0;
  for (const auto& proc : p.records.processes) {
    if (range_names(p.records, proc.pid).count("child-r0")) child = proc.pid;
  }
  REQUIRE(child != 0);
  CHECK(range_names(p.records, child).size() == 5);
  // With the exit hook (preloaded by amdahl profile) the child's _exit wrote its final part;
  // without it (sanitizer builds) the part is the last flush.
  CHECK(diag(p.records, child, "collector.flushed_before_exit") == (have_exit_hook() ? 0u : 1u));
}

TEST_CASE("amdahl profile: a child that _exits before any flush keeps its ranges (exit hook)") {
  if (!have_exit_hook()) return;  // sanitizer builds
  TempDir t;
  const std::string out = t.file("fork.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", crash_helper(), "fork_exit"},
                    t.dir.string(), {{"AMDAHL_FLUSH_MS", "0"}});
  REQUIRE_MESSAGE(r.code == 15, r.err);
  const Profile p = load_profile(out);
  REQUIRE(p.records.processes.size() == 2);
  std::size_t child_ranges = 0;
  for (const auto& proc : p.records.processes) {
    const auto names = range_names(p.records, proc.pid);
    if (names.count("child-r0")) child_ranges = names.size();
  }
  CHECK(child_ranges == 5);
  for (const auto& d : p.records.diagnostics) CHECK(p.records.str(d.key) != "launcher.lost_processes");
}

TEST_CASE("amdahl profile: a child SIGKILLed before its first flush is counted as lost") {
  TempDir t;
  const std::string out = t.file("kill.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", crash_helper(), "fork_kill"},
                    t.dir.string(), {{"AMDAHL_FLUSH_MS", "0"}});
  REQUIRE_MESSAGE(r.code == 0, r.err);
  const Profile p = load_profile(out);
  CHECK(p.records.processes.size() == 1);  // the parent's part only
  CHECK(diag(p.records, 0, "launcher.lost_processes") == 1);
  CHECK(r.err.find("launcher.lost_processes: 1") != std::string::npos);
}

TEST_CASE("amdahl profile: a command killed by SIGTERM keeps its ranges and dies of it") {
  TempDir t;
  const std::string out = t.file("term.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", crash_helper(), "term"}, t.dir.string(),
                    {{"AMDAHL_FLUSH_MS", "0"}});
  REQUIRE_MESSAGE(r.code == 128 + 15, r.err);
  const Profile p = load_profile(out);
  REQUIRE(p.records.processes.size() == 1);
  const std::uint32_t pid = p.records.processes[0].pid;
  CHECK(range_names(p.records, pid).size() == 11);
  CHECK(diag(p.records, pid, "collector.term_signal") == 15);
}
