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

namespace launcher_test {

namespace fs = std::filesystem;

inline fs::path build_dir() {
  const char* b = std::getenv("AMDAHL_BUILD_DIR");
  REQUIRE_MESSAGE(b != nullptr, "AMDAHL_BUILD_DIR is not set (run the test through ctest)");
  return b;
}
inline std::string amdahl_bin() { return (build_dir() / "bin" / "amdahl").string(); }
inline std::string target() { return (build_dir() / "tests" / "launcher_target").string(); }

struct TempDir {
  fs::path dir;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "amdahl-launcher-XXXXXX").string();
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Ran {
  int code = -1;  // exit code, or 128+N for signal N
  std::string err;
};

// Starts argv in `cwd` with stderr (and stdout) going to `log`; `env` entries are added.
inline pid_t start(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log,
                   const std::vector<std::pair<std::string, std::string>>& env = {}) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) ::_exit(200);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) ::_exit(201);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    ::execv(args[0], args.data());
    ::_exit(202);
  }
  return pid;
}

inline int wait_code(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

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
