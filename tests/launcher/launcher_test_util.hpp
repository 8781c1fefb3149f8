// Shared by the launcher tests: locating bin/amdahl and launcher_target through
// AMDAHL_BUILD_DIR, running a program with its stderr captured, and scratch directories.
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "../support/test_support.hpp"

namespace launcher_test {

namespace fs = std::filesystem;

inline fs::path build_dir() {
  const char* b = std::getenv("AMDAHL_BUILD_DIR");
  REQUIRE_MESSAGE(b != nullptr, "AMDAHL_BUILD_DIR is not set (run the test through ctest)");
  return b;
}
inline std::string amdahl_bin() { return (build_dir() / "bin" / "amdahl").string(); }
inline std::string target() { return (build_dir() / "tests" / "launcher_target").string(); }

struct TempDir : amdahl::testsupport::TempDir {
  TempDir() : amdahl::testsupport::TempDir("amdahl-launcher") {}
};

inline std::string slurp(const std::string& path) { return amdahl::testsupport::read_file(path); }

struct Ran {
  int code = -1;  // exit code, or 128+N for signal N
  std::string err;
};

// Starts argv in `cwd` with stderr (and stdout) going to `log`; `env` entries are added.
inline pid_t start(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log,
                   const std::vector<std::pair<std::string, std::string>>& env = {}) {
  std::vector<std::string> kv;
  for (const auto& [k, v] : env) kv.push_back(k + "=" + v);
  return amdahl::testsupport::start_process(argv, cwd, log, log, kv);
}

inline int wait_code(pid_t pid) { return amdahl::testsupport::wait_exit_code(pid); }

inline Ran run(const std::vector<std::string>& argv, const std::string& cwd,
               const std::vector<std::pair<std::string, std::string>>& env = {}) {
  const std::string log = cwd + "/.run.log";
  Ran r;
  r.code = wait_code(start(argv, cwd, log, env));
  r.err = slurp(log);
  fs::remove(log);
  return r;
}

}  // namespace launcher_test
