// Running the built `amdahl` binary from the report tests: exit code, stdout, stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

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

}  // namespace amdahl::test
