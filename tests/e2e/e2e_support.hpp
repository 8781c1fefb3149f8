// Helpers for the end-to-end tests: locate the built binaries (AMDAHL_BUILD_DIR, set by
// amdahl_add_test), skip with exit code 77 when one is not built, run a program without a shell
// capturing its output, parse JSON output, and hold a scratch directory.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "../support/test_support.hpp"

namespace amdahl::e2e {

using testsupport::build_dir;

inline std::string bin(const std::string& name) { return build_dir() + "/bin/" + name; }
inline std::string lib(const std::string& name) { return build_dir() + "/lib/" + name; }

inline std::string amdahl_bin() { return bin("amdahl"); }
inline std::string cpu_pipeline_bin() { return bin("cpu_pipeline"); }
inline std::string collector_lib() { return lib("libamdahl_collector.so"); }

inline bool file_exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Skips the whole test program (exit 77: ctest reports it SKIPPED) unless every file exists.
inline void require_built(std::initializer_list<std::string> files) {
  for (const auto& f : files) {
    if (!file_exists(f)) {
      std::fprintf(stderr, "SKIPPED: %s is not built yet; this end-to-end test needs it\n",
                   f.c_str());
      std::fflush(stdout);
      std::exit(77);
    }
  }
}

// A scratch directory under $TMPDIR (or /tmp), removed with its contents at the end; kept
// (and its path printed) when AMDAHL_TEST_KEEP or AMDAHL_E2E_KEEP is set, for inspection.
class ScratchDir : public testsupport::TempDir {
 public:
  ScratchDir() : TempDir("amdahl_e2e") {}
};

inline std::string read_text(const std::string& path) { return testsupport::read_file(path); }

using RunResult = testsupport::ProcessResult;

// Runs argv[0] (a path) with argv, no shell, in `scratch`, stdout/stderr captured through files
// there; `env` ("NAME=value") is added to the environment.
inline RunResult run(const std::vector<std::string>& argv, const ScratchDir& scratch,
                     const std::vector<std::string>& env = {}) {
  static int counter = 0;
  return testsupport::run_process(argv, scratch.path(), scratch.file("run" + std::to_string(++counter)), env);
}

inline std::string describe(const std::vector<std::string>& argv, const RunResult& r) {
  std::string cmd;
  for (const auto& a : argv) cmd += a + " ";
  return "command: " + cmd + "\nexit code: " + std::to_string(r.exit_code) + "\nstdout:\n" +
         r.out + "\nstderr:\n" + r.err;
}

// Runs a command that must succeed; fails the test (with its output) otherwise.
inline RunResult run_ok(const std::vector<std::string>& argv, const ScratchDir& scratch,
                        const std::vector<std::string>& env = {}) {
  RunResult r = run(argv, scratch, env);
  INFO(describe(argv, r));
  REQUIRE(r.exit_code == 0);
  return r;
}

// `amdahl profile -o <file> -- <command...>`; returns the profile path.
inline std::string profile(const std::string& name, const std::vector<std::string>& command,
                           const ScratchDir& scratch) {
  const std::string out = scratch.file(name + ".amdahl");
  std::vector<std::string> argv{amdahl_bin(), "profile", "-o", out, "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  run_ok(argv, scratch);
  REQUIRE(file_exists(out));
  return out;
}

// Runs an amdahl command that prints JSON on stdout and parses it.
inline nlohmann::json run_json(const std::vector<std::string>& argv, const ScratchDir& scratch) {
  const RunResult r = run_ok(argv, scratch);
  INFO(describe(argv, r));
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
  return j;
}

inline nlohmann::json report_json(const std::string& profile_path, const ScratchDir& scratch) {
  return run_json({amdahl_bin(), "report", profile_path, "--format", "json"}, scratch);
}

// The entry of `stages` named `name` (fails the test when absent).
inline nlohmann::json stage(const nlohmann::json& report, const std::string& name) {
  INFO("report: " << report.dump(2));
  REQUIRE(report.contains("stages"));
  REQUIRE(report["stages"].is_array());
  for (const auto& s : report["stages"]) {
    if (s.value("name", "") == name) return s;
  }
  FAIL("stage " << name << " is missing from the report");
  return {};
}

// Wall time per analysed step in ms, from a report's wall_ns and steps.
inline double ms_per_step(const nlohmann::json& report) {
  INFO("report: " << report.dump(2));
  REQUIRE(report.contains("wall_ns"));
  REQUIRE(report.contains("steps"));
  const double steps = report["steps"].get<double>();
  REQUIRE(steps > 0);
  return report["wall_ns"].get<double>() / 1e6 / steps;
}

// A cpu_pipeline command line with sleep costs (exact ground truth).
inline std::vector<std::string> cpu_pipeline_cmd(std::vector<std::string> flags) {
  std::vector<std::string> argv{cpu_pipeline_bin()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return argv;
}

}  // namespace amdahl::e2e
