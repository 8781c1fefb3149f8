// Running the built `amdahl` binary from the CLI, render and validation tests: exit code, stdout, stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace amdahl::test {

struct CmdResult {
  int rc = -1;
  std::string out, err;
};

inline std::string build_dir() {
  const char* b = std::getenv("AMDAHL_BUILD_DIR");
  return b ? b : ".";
}
inline std::string source_dir() {
  const char* s = std::getenv("AMDAHL_SOURCE_DIR");
  return s ? s : ".";
}
inline std::string amdahl_bin() { return build_dir() + "/bin/amdahl"; }

inline std::string slurp(const std::string& path) { return testsupport::read_file(path); }

// Runs `command` through the shell; stderr is captured through a temporary file.
inline CmdResult shell(const std::string& command) {
  CmdResult r;
  const std::string err = (std::filesystem::temp_directory_path() /
                           ("amdahl_report_err_" + std::to_string(::getpid()))).string();
  FILE* p = ::popen((command + " 2>" + err).c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err);
  std::remove(err.c_str());
  return r;
}

inline CmdResult run_amdahl(const std::string& args) { return shell(amdahl_bin() + " " + args); }

// A fresh temporary folder for one CLI test, removed with it; the test is skipped (exit 77, as
// ctest's SKIP_RETURN_CODE) when bin/amdahl is not built.
struct CliTempDir : testsupport::TempDir {
  explicit CliTempDir(const char* prefix) : TempDir(skip_unless_built(prefix)) {}
  std::string p(const std::string& name) const { return file(name); }

 private:
  static std::string skip_unless_built(const char* prefix) {
    if (!std::filesystem::exists(amdahl_bin())) {
      std::fprintf(stderr, "SKIP: %s not built\n", amdahl_bin().c_str());
      std::exit(77);
    }
    return prefix;
  }
};

}  // namespace amdahl::test
