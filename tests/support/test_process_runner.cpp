// The process runner of test_support.hpp, which the tests that run programs share: exit codes
// and signals, folders, environments (added to, or whole), process groups, a file size limit,
// stderr a closed pipe, stdout read through a pipe until every holder closed it.
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace amdahl::testsupport;

namespace {

const std::string kSh = "/bin/sh";

ProcessResult sh(const std::string& script, const TempDir& t, const std::vector<std::string>& env = {}) {
  return run_process({kSh, "-c", script}, t.path(), t.file("capture"), env);
}

}  // namespace

TEST_CASE("child_environment: each entry replaces its name or is added; `whole` keeps nothing else") {
  char a[] = "A=1", b[] = "B=2", c[] = "C";
  char* base[] = {a, b, c, nullptr};
  using V = std::vector<std::string>;
  CHECK(child_environment(base, {}, false) == V{"A=1", "B=2", "C"});
  CHECK(child_environment(base, {"B=3", "D=4", "junk"}, false) == V{"A=1", "C", "B=3", "D=4"});
  CHECK(child_environment(base, {"B=3", "B=5"}, false) == V{"A=1", "C", "B=5"});
  CHECK(child_environment(base, {"B=3", "D="}, true) == V{"B=3", "D="});
  CHECK(child_environment(nullptr, {"X=1"}, false) == V{"X=1"});
}

TEST_CASE("run_process: stdout, stderr, the exit code, the folder") {
  TempDir t("amdahl_runner");
  const ProcessResult r = sh("pwd; echo oops >&2; exit 3", t);
  CHECK(r.exit_code == 3);
  CHECK(std::filesystem::equivalent(r.out.substr(0, r.out.size() - 1), t.path()));
  CHECK(r.err == "oops\n");
  CHECK(r.pid > 0);
  CHECK(sh("exit 0", t).exit_code == 0);
}

TEST_CASE("exit codes: 128 + N for signal N; 126 when the child cannot be set up, 127 when exec fails") {
  TempDir t("amdahl_runner");
  CHECK(sh("kill -TERM $$", t).exit_code == 128 + SIGTERM);
  CHECK(sh("kill -KILL $$", t).exit_code == 128 + SIGKILL);
  CHECK(run_process({t.file("no_such_program")}, t.path(), t.file("c")).exit_code == 127);
  CHECK(run_process({kSh, "-c", "exit 0"}, t.file("no_such_folder"), t.file("c")).exit_code == 126);
}

TEST_CASE("environment: added variables, or the whole environment") {
  TempDir t("amdahl_runner");
  ::setenv("AMDAHL_RUNNER_INHERITED", "yes", 1);
  const std::string script = "echo \"[$AMDAHL_RUNNER_INHERITED][$AMDAHL_RUNNER_X]\"";
  CHECK(sh(script, t).out == "[yes][]\n");
  CHECK(sh(script, t, {"AMDAHL_RUNNER_X=7"}).out == "[yes][7]\n");
  CHECK(sh(script, t, {"AMDAHL_RUNNER_INHERITED=no"}).out == "[no][]\n");
  ProcessSetup whole;
  whole.env = {"AMDAHL_RUNNER_X=8"};
  whole.env_is_whole = true;
  CHECK(run_process_piped({kSh, "-c", script}, whole).out == "[][8]\n");
  ::unsetenv("AMDAHL_RUNNER_INHERITED");
}

TEST_CASE("own_group: the child leads its own process group, which a signal to the group ends") {
  TempDir t("amdahl_runner");
  ProcessSetup s;
  const pid_t same = start_process({kSh, "-c", "exec sleep 30"}, s);
  CHECK(::getpgid(same) == ::getpgrp());
  ::kill(same, SIGKILL);
  CHECK(wait_exit_code(same) == 128 + SIGKILL);
  s.own_group = true;
  const std::string ready = t.file("ready");
  const pid_t leader = start_process({kSh, "-c", "touch '" + ready + "'; sleep 30; exit 0"}, s);
  CHECK(::getpgid(leader) == leader);  // already when start_process returns
  // Signalled once the shell runs (before its exec the child still has this test's handlers).
  for (int i = 0; i < 2000 && !std::filesystem::exists(ready); ++i) ::usleep(5000);
  REQUIRE(std::filesystem::exists(ready));
  ::kill(-leader, SIGTERM);
  CHECK(wait_exit_code(leader) == 128 + SIGTERM);
}

TEST_CASE("file_size_limit: a write past it raises SIGXFSZ") {
  TempDir t("amdahl_runner");
  ProcessSetup s;
  s.out_path = t.file("zeros");
  CHECK(wait_exit_code(start_process({kSh, "-c", "exec head -c 10000 /dev/zero"}, s)) == 0);
  CHECK(std::filesystem::file_size(s.out_path) == 10000);
  s.file_size_limit = 4096;
  CHECK(wait_exit_code(start_process({kSh, "-c", "exec head -c 10000 /dev/zero"}, s)) == 128 + SIGXFSZ);
  CHECK(std::filesystem::file_size(s.out_path) == 4096);
}

TEST_CASE("err_to_closed_pipe: a write to stderr raises SIGPIPE") {
  TempDir t("amdahl_runner");
  ProcessSetup s;
  s.out_path = s.err_path = t.file("log");
  CHECK(wait_exit_code(start_process({kSh, "-c", "echo before; echo oops >&2; echo after"}, s)) == 0);
  CHECK(read_file(s.out_path) == "before\noops\nafter\n");
  s.err_to_closed_pipe = true;
  CHECK(wait_exit_code(start_process({kSh, "-c", "echo before; echo oops >&2; echo after"}, s)) == 128 + SIGPIPE);
  CHECK(read_file(s.out_path) == "before\n");
}

TEST_CASE("run_process_piped: stdout to its end, a child that outlives the process included") {
  TempDir t("amdahl_runner");
  ProcessSetup s;
  s.err_path = t.file("err");
  const ProcessResult r = run_process_piped({kSh, "-c", "(sleep 0.3; echo late) & echo early; echo e >&2; exit 4"}, s);
  CHECK(r.out == "early\nlate\n");
  CHECK(r.exit_code == 4);
  CHECK(r.pid > 0);
  CHECK(r.err.empty());
  CHECK(read_file(s.err_path) == "e\n");
  s.cwd = t.path();
  const std::string pwd = run_process_piped({kSh, "-c", "pwd"}, s).out;
  CHECK(std::filesystem::equivalent(pwd.substr(0, pwd.size() - 1), t.path()));
}
