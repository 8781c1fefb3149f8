// Issue 18, hardening: what a hostile or unlucky user could still break in `amdahl profile`.
// Each test case is the reproducer of one failure, kept as its regression test.
#include <signal.h>
#include <sys/resource.h>

#include <chrono>
#include <thread>

#include "amdahl/format/profile_store.hpp"
#include "launcher_test_util.hpp"

using namespace launcher_test;
using amdahl::format::load_profile;

namespace {

std::string static_target() { return (build_dir() / "tests" / "launcher_target_static").string(); }

bool has_diagnostic(const amdahl::format::Profile& p, const std::string& key) {
  for (const auto& d : p.records.diagnostics)
    if (p.records.str(d.key) == key) return true;
  return false;
}

}  // namespace

// Class 1, crashes: NVTX_INJECTION64_PATH made a statically linked program dlopen the collector
// with the static C library's loader (a second libc, no TLS for the library): its first range
// died of SIGSEGV (139) under `amdahl profile` while it exited 5 alone. The collector now
// refuses to run in a static process and says so in one line; the program is unchanged.
TEST_CASE("a statically linked NVTX program exits as it does alone; the collector says it stays off") {
  if (!fs::exists(static_target())) {
    MESSAGE("launcher_target_static not built (no static C library, or a sanitizer build): skipped");
    return;
  }
  TempDir t;
  const Ran alone = run({static_target(), "ranges"}, t.dir.string());
  REQUIRE(alone.code == 5);

  const std::string out = t.file("static.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", static_target(), "ranges"}, t.dir.string());
  CHECK(r.code == 5);
  if (fs::exists(build_dir() / "lib" / "libamdahl_collector.so")) {
    CHECK(r.err.find("is statically linked: the collector cannot run inside it") != std::string::npos);
    const auto p = load_profile(out);
    CHECK(has_diagnostic(p, "launcher.static_command"));
    CHECK_FALSE(has_diagnostic(p, "launcher.missing_part"));
    CHECK(p.records.ranges.empty());

    // The collector's own check, without the launcher: injected by hand, recording on.
    const std::string parts = t.file("parts");
    fs::create_directory(parts);
    const Ran injected = run({static_target(), "ranges"}, t.dir.string(),
                             {{"NVTX_INJECTION64_PATH", (build_dir() / "lib" / "libamdahl_collector.so").string()},
                              {"AMDAHL_PART_DIR", parts}});
    CHECK(injected.code == 5);
    CHECK(injected.err.find("statically linked") != std::string::npos);
  }
  // A dynamically linked program is still profiled (the refusal is for static hosts only).
  const std::string dyn = t.file("dynamic.amdahl");
  REQUIRE(run({amdahl_bin(), "profile", "-o", dyn, "--", target(), "ranges"}, t.dir.string()).code == 5);
  if (fs::exists(build_dir() / "lib" / "libamdahl_collector.so")) CHECK(!load_profile(dyn).records.ranges.empty());
}

// ---- class 2: signals and exit codes ---------------------------------------------------------

namespace {

using amdahl::testsupport::ProcessSetup;

// Starts argv in `cwd` with stdout and stderr to `log` and `extras`' process group, file size
// limit or closed-pipe stderr (tests/support's runner).
pid_t start_ex(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log,
               ProcessSetup extras) {
  extras.cwd = cwd;
  extras.out_path = extras.err_path = log;
  return amdahl::testsupport::start_process(argv, extras);
}

Ran run_ex(const std::vector<std::string>& argv, const std::string& cwd, const ProcessSetup& extras) {
  const std::string log = cwd + "/.run.log";
  Ran r;
  r.code = wait_code(start_ex(argv, cwd, log, extras));
  r.err = slurp(log);
  fs::remove(log);
  return r;
}

ProcessSetup own_group() {
  ProcessSetup s;
  s.own_group = true;  // amdahl leads a process group, as under a scheduler
  return s;
}
ProcessSetup file_size_limit(rlim_t bytes) {
  ProcessSetup s;
  s.file_size_limit = bytes;  // a full disk, deterministically
  return s;
}
ProcessSetup stderr_closed_pipe() {
  ProcessSetup s;
  s.err_to_closed_pipe = true;  // stderr is a pipe nobody reads
  return s;
}

void wait_for_file(const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!fs::exists(path) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(fs::exists(path));
}

// The `signals` mode of launcher_target: how many of each signal the command got.
struct Counts {
  int code = -1;
  std::string counts, err;
};

// Runs `amdahl profile -- launcher_target signals` as the leader of its own process group and
// sends it the signals `send` does once the command has its handlers in place.
template <class Send>
Counts signalled_run(const TempDir& t, const std::string& name, Send&& send) {
  const std::string counts = t.file(name + ".counts");
  const std::string log = t.file(name + ".log");
  const pid_t pid = start_ex({amdahl_bin(), "profile", "-o", t.file(name + ".amdahl"), "--", target(), "signals", counts, "20"},
                             t.dir.string(), log, own_group());
  wait_for_file(counts + ".ready");
  send(pid);
  Counts c;
  c.code = wait_code(pid);
  c.counts = slurp(counts);
  c.err = slurp(log);
  return c;
}

}  // namespace

// A scheduler or supervisor ends a job by signalling its process group: the command got the
// signal itself and a second copy from amdahl, so a program that shuts down gracefully on the
// first SIGTERM was forced out by the second (term=2). The command now gets exactly one.
TEST_CASE("a signal sent to the whole process group reaches the command once") {
  TempDir t;
  for (int sig : {SIGTERM, SIGINT}) {
    const Counts c = signalled_run(t, "group" + std::to_string(sig), [&](pid_t pid) { ::kill(-pid, sig); });
    CHECK(c.code == 1);  // one SIGINT/SIGTERM: its graceful exit status
    CHECK(c.counts == (sig == SIGTERM ? "int=0 term=1 hup=0 usr1=0 usr2=0" : "int=1 term=0 hup=0 usr1=0 usr2=0"));
    CHECK(c.err.find("profile written to") != std::string::npos);
  }
  // Sent to amdahl alone (`kill PID`, `docker stop`), it is passed on, once.
  const Counts alone = signalled_run(t, "alone", [](pid_t pid) { ::kill(pid, SIGTERM); });
  CHECK(alone.code == 1);
  CHECK(alone.counts == "int=0 term=1 hup=0 usr1=0 usr2=0");
  CHECK(load_profile(t.file("alone.amdahl")).meta.at("exit_code") == "1");
}

// SIGHUP (the terminal closed) or SIGUSR1 killed amdahl with no profile while the command ran
// on. Now each is passed on to the command (once, whether sent to amdahl or to the group) and
// amdahl keeps collecting, then writes the profile with the command's status.
TEST_CASE("SIGHUP, SIGUSR1 and SIGUSR2 are passed on; amdahl keeps collecting") {
  TempDir t;
  const Counts c = signalled_run(t, "hup", [](pid_t pid) {
    for (int sig : {SIGHUP, SIGUSR1, SIGUSR2}) {
      ::kill(pid, sig);  // to amdahl alone: forwarded
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    ::kill(-pid, SIGHUP);  // to the group (a shell hanging up its jobs): not forwarded
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(pid, SIGTERM);
  });
  CHECK(c.code == 1);
  CHECK(c.counts == "int=0 term=1 hup=2 usr1=1 usr2=1");
  CHECK(c.err.find("profile written to") != std::string::npos);
  CHECK(load_profile(t.file("hup.amdahl")).meta.at("exit_code") == "1");
}

// When the profile could not be saved amdahl exited 2 and dropped the command's status. Now the
// status passes through, with one line about the profile, however the save failed.
TEST_CASE("the command's exit status passes through whatever happens to the profile") {
  TempDir t;
  auto one_profile_line = [](const std::string& err) {
    const auto at = err.find("amdahl: error: no profile written: ");
    return at != std::string::npos && err.find("(the command exited with code 7, passed on)", at) != std::string::npos &&
           err.find("amdahl: error:", at + 1) == std::string::npos;
  };
  SUBCASE("the output's directory is removed while the command runs") {
    fs::create_directory(t.file("out"));
    const Ran r = run({amdahl_bin(), "profile", "-o", t.file("out/p.amdahl"), "--", "/bin/sh", "-c",
                       "rm -rf '" + t.file("out") + "'; exit 7"},
                      t.dir.string());
    CHECK(r.code == 7);
    CHECK(one_profile_line(r.err));
  }
  SUBCASE("the disk is full (a file size limit: SIGXFSZ must not kill amdahl)") {
    const Ran r = run_ex({amdahl_bin(), "profile", "-o", t.file("full.amdahl"), "--", "/bin/sh", "-c", "exit 7"},
                         t.dir.string(), file_size_limit(4096));
    CHECK(r.code == 7);
    CHECK(one_profile_line(r.err));
    CHECK_FALSE(fs::exists(t.file("full.amdahl")));
    for (const auto& e : fs::directory_iterator(t.dir))  // no temporary left behind
      CHECK(e.path().filename().string().find("full.amdahl") == std::string::npos);
  }
  SUBCASE("a dangling symbolic link appears at -o while the command runs") {
    const std::string out = t.file("late.amdahl");
    const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", "/bin/sh", "-c", "ln -s /nonexistent/x '" + out + "'; exit 7"},
                      t.dir.string());
    CHECK(r.code == 7);
    CHECK(one_profile_line(r.err));
    CHECK(fs::is_symlink(out));
    // Present before the run, it is refused before the command runs (exit 1, like any file).
    const Ran refused = run({amdahl_bin(), "profile", "-o", out, "--", "/bin/sh", "-c", "exit 7"}, t.dir.string());
    CHECK(refused.code == 1);
    CHECK(refused.err.find("already exists") != std::string::npos);
  }
  SUBCASE("the part folder is removed while the command runs: the profile says so") {
    const std::string out = t.file("noparts.amdahl");
    const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", "/bin/sh", "-c", "rm -rf \"$AMDAHL_PART_DIR\"; exit 7"},
                      t.dir.string());
    CHECK(r.code == 7);
    const auto p = load_profile(out);
    CHECK(has_diagnostic(p, "launcher.part_dir_unreadable"));
    CHECK(p.meta.at("exit_code") == "7");
  }
  SUBCASE("stderr is a closed pipe (SIGPIPE must not kill amdahl)") {
    const Ran r = run_ex({amdahl_bin(), "profile", "-o", t.file("pipe.amdahl"), "--", "/bin/sh", "-c", "exit 7"},
                         t.dir.string(), stderr_closed_pipe());
    CHECK(r.code == 7);
    CHECK(load_profile(t.file("pipe.amdahl")).meta.at("exit_code") == "7");
  }
}

// ---- class 3: concurrent runs ----------------------------------------------------------------

// Two runs with one -o shared `<out>.tmp`: one said "profile written" while the file held the
// other's data or 0 bytes; and `profile -o x.amdahl` deleted an unrelated `x.amdahl.tmp`.
TEST_CASE("concurrent profile runs on one output: each whole, each status kept, no one else's file touched") {
  TempDir t;
  const std::string out = t.file("x.amdahl");
  { std::ofstream(out + ".tmp") << "not amdahl's"; }
  for (int round = 0; round < 3; ++round) {
    std::vector<pid_t> pids;
    for (int k = 0; k < 3; ++k)
      pids.push_back(start({amdahl_bin(), "profile", "--force", "-o", out, "--", target(), "exit", std::to_string(3 + k)},
                           t.dir.string(), t.file("log" + std::to_string(k))));
    for (int k = 0; k < 3; ++k) {
      CHECK(wait_code(pids[k]) == 3 + k);
      CHECK(slurp(t.file("log" + std::to_string(k))).find("profile written to " + out) != std::string::npos);
    }
    const int code = std::stoi(load_profile(out).meta.at("exit_code"));
    CHECK(code >= 3);
    CHECK(code <= 5);
  }
  CHECK(slurp(out + ".tmp") == "not amdahl's");
  for (const auto& e : fs::directory_iterator(t.dir)) {
    const std::string name = e.path().filename().string();
    CHECK_MESSAGE((name == "x.amdahl" || name == "x.amdahl.tmp" || name.rfind("log", 0) == 0), name);
  }
}
