// What every test that runs a built program shares: the build folder (AMDAHL_BUILD_DIR, set by
// amdahl_add_test; a test run outside ctest is skipped with exit code 77), a temporary folder
// removed with its contents, reading a file whole, and running a program without a shell with
// its output captured (or started, to be signalled and waited for).
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace amdahl::testsupport {

// AMDAHL_BUILD_DIR; without it the test program is skipped (exit 77, ctest's SKIP_RETURN_CODE).
inline std::string build_dir() {
  const char* d = std::getenv("AMDAHL_BUILD_DIR");
  if (d == nullptr || *d == '\0') {
    std::fprintf(stderr, "SKIPPED: AMDAHL_BUILD_DIR is not set (run this test through ctest)\n");
    std::exit(77);
  }
  return d;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh folder under $TMPDIR (or /tmp) named PREFIX.XXXXXX, removed with its contents at the
// end; kept (and its path printed) when AMDAHL_TEST_KEEP (or the older AMDAHL_E2E_KEEP) is set.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "amdahl_test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + ".XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
    dir = tmpl;
  }
  ~TempDir() {
    if (std::getenv("AMDAHL_TEST_KEEP") != nullptr || std::getenv("AMDAHL_E2E_KEEP") != nullptr) {
      std::fprintf(stderr, "test: keeping %s\n", dir.c_str());
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path() const { return dir.string(); }
  std::string file(const std::string& name) const { return (dir / name).string(); }

  std::filesystem::path dir;
};

// Starts argv[0] (a path, no shell) with argv in `cwd`, stdout to `out_path` and stderr to
// `err_path` (the same path: one log); `env` entries ("NAME=value") are added to the environment.
inline pid_t start_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& out_path,
                           const std::string& err_path, const std::vector<std::string>& env = {}) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = err_path == out_path ? out : ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    for (const auto& e : env) {
      const auto eq = e.find('=');
      if (eq != std::string::npos) ::setenv(e.substr(0, eq).c_str(), e.c_str() + eq + 1, 1);
    }
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for `pid`: its exit code, or 128 + N when signal N ended it.
inline int wait_exit_code(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct ProcessResult {
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string out;
  std::string err;
};

// Runs argv to its end in `cwd`, stdout and stderr captured through CAPTURE.out and CAPTURE.err.
inline ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd,
                                 const std::string& capture, const std::vector<std::string>& env = {}) {
  ProcessResult r;
  r.exit_code = wait_exit_code(start_process(argv, cwd, capture + ".out", capture + ".err", env));
  r.out = read_file(capture + ".out");
  r.err = read_file(capture + ".err");
  return r;
}

}  // namespace amdahl::testsupport
