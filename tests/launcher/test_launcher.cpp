// `amdahl profile` end to end, without needing the collector: exit-code passthrough (also
// 128+N for a signal), command not found (127, no profile), default file name, refusal to
// overwrite before the command runs, --force, the child's environment, signal forwarding,
// --stages kept in meta, and the temporary part directory removed.
#include <signal.h>

#include <chrono>
#include <regex>
#include <thread>

#include "amdahl/format/profile_store.hpp"
#include "launcher_test_util.hpp"

using namespace launcher_test;
using amdahl::format::load_profile;

TEST_CASE("the command's exit code passes through and lands in meta") {
  TempDir t;
  const std::string out = t.file("run.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", "/bin/sh", "-c", "exit 3"}, t.dir.string());
  CHECK(r.code == 3);
  CHECK(r.err.find("profile written to " + out) != std::string::npos);
  CHECK(r.err.find("exited with code 3") != std::string::npos);
  const auto p = load_profile(out);
  CHECK(p.meta.at("exit_code") == "3");
  CHECK(p.meta.at("command") == "/bin/sh -c 'exit 3'");
  CHECK(p.meta.at("clock") == "CLOCK_MONOTONIC");
  CHECK(p.meta.at("format_version") == std::to_string(amdahl::format::kProfileFormatVersion));
  CHECK(!p.meta.at("host").empty());
  CHECK(std::regex_match(p.meta.at("created"), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  CHECK(std::stoll(p.meta.at("wall_ns")) > 0);

  const Ran zero = run({amdahl_bin(), "profile", "-o", t.file("zero.amdahl"), "--", target(), "exit", "0"}, t.dir.string());
  CHECK(zero.code == 0);
}

TEST_CASE("a command killed by signal N gives 128+N") {
  TempDir t;
  const std::string out = t.file("killed.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", target(), "signal", "9"}, t.dir.string());
  CHECK(r.code == 128 + 9);
  CHECK(r.err.find("signal 9") != std::string::npos);
  const auto p = load_profile(out);
  CHECK(p.meta.at("exit_code") == "137");
  CHECK(p.meta.at("exit_signal") == "9");
}

TEST_CASE("a command that cannot run gives 127/126 like a shell, and no profile") {
  TempDir t;
  const std::string out = t.file("none.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", "no-such-command-amdahl-test", "x"}, t.dir.string());
  CHECK(r.code == 127);
  CHECK(r.err.find("no-such-command-amdahl-test: command not found") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  const Ran missing = run({amdahl_bin(), "profile", "-o", out, "--", t.file("missing-binary")}, t.dir.string());
  CHECK(missing.code == 127);
  CHECK_FALSE(fs::exists(out));
  { std::ofstream(t.file("not-executable")) << "hello\n"; }
  const Ran noexec = run({amdahl_bin(), "profile", "-o", out, "--", t.file("not-executable")}, t.dir.string());
  CHECK(noexec.code == 126);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("without -o the profile is amdahl-<command>-<YYYYmmdd-HHMMSS>.amdahl in the current directory") {
  TempDir t;
  const Ran r = run({amdahl_bin(), "profile", "--", target(), "exit", "0"}, t.dir.string());
  CHECK(r.code == 0);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(t.dir)) names.push_back(e.path().filename().string());
  REQUIRE(names.size() == 1);
  CHECK(std::regex_match(names[0], std::regex(R"(amdahl-launcher_target-\d{8}-\d{6}\.amdahl)")));
  CHECK(load_profile(t.file(names[0])).meta.at("exit_code") == "0");
}

TEST_CASE("an existing output is refused before the command runs; --force overwrites it") {
  TempDir t;
  const std::string out = t.file("run.amdahl");
  REQUIRE(run({amdahl_bin(), "profile", "-o", out, "--", target(), "exit", "4"}, t.dir.string()).code == 4);
  const std::string marker = t.file("env.txt");
  const Ran refused = run({amdahl_bin(), "profile", "-o", out, "--", target(), "env", marker}, t.dir.string());
  CHECK(refused.code == 1);
  CHECK(refused.err.find("already exists") != std::string::npos);
  CHECK(refused.err.find("--force") != std::string::npos);
  CHECK_FALSE(fs::exists(marker));  // the command never ran
  CHECK(load_profile(out).meta.at("exit_code") == "4");

  const Ran forced = run({amdahl_bin(), "profile", "--force", "-o", out, "--", target(), "env", marker}, t.dir.string());
  CHECK(forced.code == 0);
  CHECK(fs::exists(marker));
  CHECK(load_profile(out).meta.at("exit_code") == "0");
}

// Issue 18 class 12: amdahl set NCCL_NVLS_ENABLE=0 and two more in every profiled command, which
// changes collective performance on NVSwitch machines. The environment is now the user's;
// --multicast-off sets them (where unset) and the profile's meta command_env records it.
TEST_CASE("the child's environment: part directory; no multicast variables unless --multicast-off") {
  TempDir t;
  const std::string env_file = t.file("env.txt");
  // The three variables removed from amdahl's own environment (machines that set them globally).
  const std::vector<std::string> clean = {"/usr/bin/env", "-u", "NCCL_NVLS_ENABLE", "-u", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
                                          "-u", "NVSHMEM_DISABLE_NVLS"};
  auto argv = clean;
  for (const std::string& a : {amdahl_bin(), std::string("profile"), std::string("-o"), t.file("a.amdahl"),
                              std::string("--"), std::string("sh"), std::string("-c"), "env > " + env_file})
    argv.push_back(a);
  Ran r = run(argv, t.dir.string());
  REQUIRE(r.code == 0);
  std::string env = slurp(env_file);
  CHECK(env.find("NCCL_NVLS_ENABLE") == std::string::npos);
  CHECK(env.find("TORCH_SYMM_MEM_DISABLE_MULTICAST") == std::string::npos);
  CHECK(env.find("NVSHMEM_DISABLE_NVLS") == std::string::npos);
  CHECK(load_profile(t.file("a.amdahl")).meta.count("command_env") == 0);
  const auto pos = env.find("AMDAHL_PART_DIR=");
  REQUIRE(pos != std::string::npos);
  const std::string dir = env.substr(pos + 16, env.find('\n', pos) - pos - 16);
  CHECK(dir.find("amdahl-parts-") != std::string::npos);
  CHECK_FALSE(fs::exists(dir));  // removed after the merge
  if (fs::exists(build_dir() / "lib" / "libamdahl_collector.so"))
    CHECK(env.find("NVTX_INJECTION64_PATH=" + fs::canonical(build_dir() / "lib" / "libamdahl_collector.so").string()) !=
          std::string::npos);

  // --multicast-off: set where unset, the user's value kept, and what was set is in meta.
  argv = {"/usr/bin/env", "-u", "NCCL_NVLS_ENABLE", "-u", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS=0"};
  for (const std::string& a : {amdahl_bin(), std::string("profile"), std::string("--multicast-off"), std::string("-o"),
                              t.file("b.amdahl"), std::string("--"), target(), std::string("env"), env_file})
    argv.push_back(a);
  r = run(argv, t.dir.string());
  REQUIRE(r.code == 0);
  env = slurp(env_file);
  CHECK(env.find("NCCL_NVLS_ENABLE=0\n") != std::string::npos);
  CHECK(env.find("TORCH_SYMM_MEM_DISABLE_MULTICAST=1\n") != std::string::npos);
  CHECK(env.find("NVSHMEM_DISABLE_NVLS=0\n") != std::string::npos);  // the user's value is kept
  CHECK(load_profile(t.file("b.amdahl")).meta.at("command_env") ==
        "NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1");
  CHECK(run({amdahl_bin(), "profile", "--help"}, t.dir.string()).err.find("--multicast-off") != std::string::npos);
}

TEST_CASE("SIGTERM sent to amdahl is forwarded to the command, and the profile is still written") {
  TempDir t;
  const std::string out = t.file("term.amdahl");
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = start({amdahl_bin(), "profile", "-o", out, "--", target(), "sleep", "30"}, t.dir.string(), t.file("log"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(pid, SIGTERM);
  const int code = wait_code(pid);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(code == 128 + SIGTERM);
  CHECK(secs < 10.0);
  CHECK(load_profile(out).meta.at("exit_signal") == std::to_string(SIGTERM));
}

TEST_CASE("--stages keeps the rules file in meta; usage errors exit 1") {
  TempDir t;
  const std::string rules = t.file("stages.txt");
  { std::ofstream(rules) << "aten::copy_* -> h2d\nDataLoader* -> disk_io\n"; }
  const std::string out = t.file("s.amdahl");
  REQUIRE(run({amdahl_bin(), "profile", "--stages", rules, "-o", out, "--", target(), "exit", "0"}, t.dir.string()).code == 0);
  CHECK(load_profile(out).meta.at("stage_rules") == slurp(rules));

  CHECK(run({amdahl_bin(), "profile", "-o", t.file("x.amdahl")}, t.dir.string()).code == 1);  // no command
  CHECK(run({amdahl_bin(), "profile", "--stages", t.file("missing.txt"), "--", target(), "exit", "0"}, t.dir.string()).code == 1);
  CHECK(run({amdahl_bin(), "profile", "-o", t.file("no/such/dir/x.amdahl"), "--", target(), "exit", "0"}, t.dir.string()).code == 1);
}

TEST_CASE("options after the command belong to the command") {
  TempDir t;
  const std::string out = t.file("o.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "--", "/bin/sh", "-c", "exit $#", "sh", "-o", "--force"},
                    t.dir.string());
  CHECK(r.code == 2);
  CHECK(load_profile(out).meta.at("command") == "/bin/sh -c 'exit $#' sh -o --force");
}

TEST_CASE("without the separating -- the command still gets its own options") {
  TempDir t;
  const std::string out = t.file("p.amdahl");
  const Ran r = run({amdahl_bin(), "profile", "-o", out, "/bin/sh", "-c", "exit $#", "sh", "--", "-o", "x"}, t.dir.string());
  CHECK(r.code == 3);
  CHECK(load_profile(out).meta.at("command") == "/bin/sh -c 'exit $#' sh -- -o x");
}
