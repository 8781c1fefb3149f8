// Crash survival of libamdahl_collector.so: crash_helper ends through _exit, SIGSEGV, abort,
// a host's own signal handler, a forked child's _exit and a child killed with SIGKILL; the
// test checks the exit status is unchanged and which records the parts kept (and which
// diagnostics say what was lost).
#include <set>

#include "collector_test_util.hpp"

namespace {

using namespace collector_test;

std::string crash_helper() { return build_dir() + "/tests/crash_helper"; }

std::vector<std::string> env_with(const TempDir& dir, const std::string& flush_ms) {
  return make_env({"NVTX_INJECTION64_PATH=" + collector_path(), "AMDAHL_PART_DIR=" + dir.path,
                   "AMDAHL_FLUSH_MS=" + flush_ms});
}

// The _exit hook `amdahl profile` preloads (not built under sanitizers: "" then).
std::string exit_hook() {
  const std::string lib = build_dir() + "/lib/libamdahl_exit.so";
  return ::access(lib.c_str(), R_OK) == 0 ? lib : std::string();
}

std::vector<std::string> env_with_hook(const TempDir& dir, const std::string& flush_ms) {
  return make_env({"NVTX_INJECTION64_PATH=" + collector_path(), "AMDAHL_PART_DIR=" + dir.path,
                   "AMDAHL_FLUSH_MS=" + flush_ms, "LD_PRELOAD=" + exit_hook()});
}

std::set<std::string> range_names(const RecordSet& rs) {
  std::set<std::string> out;
  for (const auto& r : rs.ranges) out.insert(rs.str(r.name));
  return out;
}

std::set<std::string> numbered(const std::string& prefix, int n) {
  std::set<std::string> out;
  for (int i = 0; i < n; ++i) out.insert(prefix + std::to_string(i));
  return out;
}

const RecordSet& part_of(const std::vector<RecordSet>& parts, std::uint32_t pid) {
  for (const auto& p : parts) {
    if (!p.processes.empty() && p.processes[0].pid == pid) return p;
  }
  FAIL("no part for pid " << pid);
  return parts.front();
}

}  // namespace

TEST_CASE("a process that leaves through _exit keeps the ranges of its last flush") {
  TempDir dir;
  const RunResult r = run({crash_helper(), "exit_after_flush"}, env_with(dir, "50"));
  CHECK(r.exit_code == 0);
  const auto parts = read_parts(dir);
  REQUIRE(parts.size() == 1);
  CHECK(range_names(parts[0]) == numbered("r", 10));
  CHECK(diag(parts[0], "collector.flushed_before_exit") == 1);  // says: not written at exit
  CHECK(diag(parts[0], "collector.crash_signal") == 0);
  CHECK(start_markers(dir) == 0);  // the first write removed the start marker
}

TEST_CASE("with the flusher off (AMDAHL_FLUSH_MS=0) an _exit loses the part, as documented") {
  TempDir dir;
  const RunResult r = run({crash_helper(), "exit_now"}, env_with(dir, "0"));
  CHECK(r.exit_code == 0);
  CHECK(read_parts(dir).empty());
  CHECK(start_markers(dir) == 1);  // what `amdahl profile` counts in launcher.lost_processes
}

TEST_CASE("SIGSEGV and abort: the part is written by the crash handler, the status unchanged") {
  for (const auto& [mode, sig] : {std::pair<std::string, int>{"segv", SIGSEGV}, {"abort", SIGABRT}}) {
    INFO("mode " << mode);
    TempDir dir;
    // No flusher: the part can only come from the crash handler.
    const RunResult r = run({crash_helper(), mode}, env_with(dir, "0"));
    CHECK(r.exit_code == 128 + sig);
    const auto parts = read_parts(dir);
    REQUIRE(parts.size() == 1);
    const RecordSet& rs = parts[0];
    auto expected = numbered("r", 10);
    expected.insert("open-at-crash");
    CHECK(range_names(rs) == expected);
    CHECK(diag(rs, "collector.crash_signal") == static_cast<std::uint64_t>(sig));
    CHECK(diag(rs, "collector.flushed_before_exit") == 0);
    CHECK(diag(rs, "nvtx.unclosed_range") == 1);
    for (const auto& rr : rs.ranges) CHECK(rr.unclosed == (rs.str(rr.name) == "open-at-crash"));
  }
}

TEST_CASE("a host with its own SIGSEGV handler keeps it (the collector installs none)") {
  TempDir dir;
  const RunResult r = run({crash_helper(), "host_handler"}, env_with(dir, "0"));
  CHECK(r.exit_code == 42);
  CHECK(r.out == "host handler\n");
  for (const auto& p : read_parts(dir)) CHECK(diag(p, "collector.crash_signal") == 0);
}

TEST_CASE("a forked child (no exec) that leaves through _exit has its own part") {
  TempDir dir;
  const RunResult r = run({crash_helper(), "fork_exit"}, env_with(dir, "50"));
  CHECK(r.exit_code == 15);  // the child's 5 came through _exit, + 10
  const auto parts = read_parts(dir);
  REQUIRE(parts.size() == 2);
  const RecordSet& parent = part_of(parts, static_cast<std::uint32_t>(r.pid));
  CHECK(range_names(parent) == std::set<std::string>{"parent-before-fork", "parent-r"});
  CHECK(diag(parent, "collector.flushed_before_exit") == 0);
  const RecordSet& child = parts[&parent == &parts[0] ? 1 : 0];
  CHECK(child.processes.at(0).ppid == static_cast<std::uint32_t>(r.pid));
  CHECK(range_names(child) == numbered("child-r", 5));
  CHECK(diag(child, "collector.flushed_before_exit") == 1);
}

TEST_CASE("a child killed with SIGKILL keeps the ranges of its last flush") {
  TempDir dir;
  const RunResult r = run({crash_helper(), "fork_kill"}, env_with(dir, "50"));
  CHECK(r.exit_code == 0);
  const auto parts = read_parts(dir);
  REQUIRE(parts.size() == 2);
  const RecordSet& parent = part_of(parts, static_cast<std::uint32_t>(r.pid));
  const RecordSet& child = parts[&parent == &parts[0] ? 1 : 0];
  CHECK(range_names(child) == numbered("child-r", 5));
  CHECK(diag(child, "collector.flushed_before_exit") == 1);
}

TEST_CASE("exit codes pass through unchanged with the flusher and the handlers installed") {
  for (int code : {0, 1, 7, 255}) {
    TempDir dir;
    const RunResult r = run({crash_helper(), "exit_code", std::to_string(code)}, env_with(dir, "50"));
    CHECK(r.exit_code == code);
    const auto parts = read_parts(dir);
    REQUIRE(parts.size() == 1);
    CHECK(range_names(parts[0]) == numbered("r", 10));
    CHECK(diag(parts[0], "collector.flushed_before_exit") == 0);  // the exit write is final
  }
}

TEST_CASE("SIGTERM: the part is written by the handler, the process dies of SIGTERM") {
  TempDir dir;
  const RunResult r = run({crash_helper(), "term"}, env_with(dir, "0"));
  CHECK(r.exit_code == 128 + SIGTERM);
  const auto parts = read_parts(dir);
  REQUIRE(parts.size() == 1);
  auto expected = numbered("r", 10);
  expected.insert("open-at-term");
  CHECK(range_names(parts[0]) == expected);
  CHECK(diag(parts[0], "collector.term_signal") == static_cast<std::uint64_t>(SIGTERM));
  CHECK(diag(parts[0], "collector.crash_signal") == 0);
  CHECK(diag(parts[0], "nvtx.unclosed_range") == 1);
}

TEST_CASE("with the exit hook preloaded, _exit writes the final part (flusher off)") {
  if (exit_hook().empty()) return;  // sanitizer builds: no exit hook library
  TempDir dir;
  const RunResult r = run({crash_helper(), "exit_now"}, env_with_hook(dir, "0"));
  CHECK(r.exit_code == 0);
  const auto parts = read_parts(dir);
  REQUIRE(parts.size() == 1);
  CHECK(range_names(parts[0]) == numbered("r", 10));
  CHECK(diag(parts[0], "collector.flushed_before_exit") == 0);  // final, not a flush
  CHECK(diag(parts[0], "collector.quick_exit_without_hooks") == 0);  // no part hooks (CUPTI) here
  CHECK(start_markers(dir) == 0);
}

TEST_CASE("with the exit hook, a forked child's _exit writes its final part; a vfork child writes none") {
  if (exit_hook().empty()) return;
  {
    TempDir dir;
    const RunResult r = run({crash_helper(), "fork_exit"}, env_with_hook(dir, "0"));
    CHECK(r.exit_code == 15);
    const auto parts = read_parts(dir);
    REQUIRE(parts.size() == 2);
    const RecordSet& parent = part_of(parts, static_cast<std::uint32_t>(r.pid));
    const RecordSet& child = parts[&parent == &parts[0] ? 1 : 0];
    CHECK(range_names(child) == numbered("child-r", 5));
    CHECK(diag(child, "collector.flushed_before_exit") == 0);
  }
  {
    TempDir dir;
    const RunResult r = run({crash_helper(), "vfork_exit"}, env_with_hook(dir, "0"));
    CHECK(r.exit_code == 13);
    const auto parts = read_parts(dir);
    REQUIRE(parts.size() == 1);
    auto expected = numbered("r", 10);
    expected.insert("parent-r");
    CHECK(range_names(parts[0]) == expected);
    CHECK(parts[0].processes.at(0).pid == static_cast<std::uint32_t>(r.pid));
  }
}

TEST_CASE("a child killed with SIGKILL before any flush leaves only its start marker") {
  TempDir dir;
  const RunResult r = run({crash_helper(), "fork_kill"}, env_with(dir, "0"));
  CHECK(r.exit_code == 0);
  const auto parts = read_parts(dir);
  REQUIRE(parts.size() == 1);  // the parent's
  CHECK(parts[0].processes.at(0).pid == static_cast<std::uint32_t>(r.pid));
  CHECK(start_markers(dir) == 1);  // the child's: `amdahl profile` reports launcher.lost_processes
}
