// What every test that runs a built program shares: the build folder (AMDAHL_BUILD_DIR, set by
// amdahl_add_test; a test run outside ctest is skipped with exit code 77), a temporary folder
// removed with its contents, reading a file whole, and running a program without a shell with
// its output captured (or started, to be signalled and waited for): in a folder, with added
// variables or a whole environment, as a process group's leader, under a file size limit, with
// stderr a closed pipe, stdout read through a pipe to its end (test_process_runner.cpp).
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
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

extern char** environ;

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

// How start_process starts a program beyond its argv. Every field's default leaves that part
// of the child as the test's own.
struct ProcessSetup {
  std::string cwd;                 // the working folder ("": the test's)
  std::string out_path, err_path;  // stdout, stderr to these files ("": inherited; one path: one log)
  std::vector<std::string> env;    // "NAME=value": set in the environment (an entry without '=' is ignored)
  bool env_is_whole = false;       // `env` is the whole environment, nothing inherited
  bool own_group = false;          // leads a new process group (setpgid on both sides, as a shell does)
  rlim_t file_size_limit = 0;      // RLIMIT_FSIZE when above 0 (a full disk, deterministically)
  bool err_to_closed_pipe = false;  // stderr is a pipe whose read end is closed (a write raises SIGPIPE)
};

// The environment a child gets: `base` (environ's form, null-terminated; ignored when `whole`)
// where each "NAME=value" of `env` replaces the entry of its name or is added, in `env`'s order.
inline std::vector<std::string> child_environment(char* const* base, const std::vector<std::string>& env, bool whole) {
  std::vector<std::string> out;
  auto name_of = [](const std::string& kv) { return kv.substr(0, kv.find('=')); };
  for (char* const* e = whole ? nullptr : base; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  for (const auto& kv : env) {
    if (kv.find('=') == std::string::npos) continue;
    const std::string name = name_of(kv);
    std::vector<std::string> kept;
    for (auto& o : out)
      if (name_of(o) != name) kept.push_back(std::move(o));
    out = std::move(kept);
    out.push_back(kv);
  }
  return out;
}

namespace detail {

// Forks argv[0] (a path, no shell) as `setup` says; `out_fd`, when not -1, is its stdout instead
// of setup.out_path, and `close_fd` is closed in the child. Everything the child needs is made
// before the fork, so the child only calls async-signal-safe functions. A child that cannot be
// set up exits 126, one whose exec fails 127.
inline pid_t spawn(const std::vector<std::string>& argv, const ProcessSetup& setup, int out_fd, int close_fd) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env = child_environment(environ, setup.env, setup.env_is_whole);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid > 0) {
    if (setup.own_group) ::setpgid(pid, pid);  // also here: the group exists when start_process returns
    return pid;
  }
  if (setup.own_group && ::setpgid(0, 0) != 0) ::_exit(126);
  if (close_fd >= 0) ::close(close_fd);
  if (!setup.cwd.empty() && ::chdir(setup.cwd.c_str()) != 0) ::_exit(126);
  int out = out_fd;
  if (out < 0 && !setup.out_path.empty()) out = ::open(setup.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if ((out_fd >= 0 || !setup.out_path.empty()) && (out < 0 || ::dup2(out, 1) < 0)) ::_exit(126);
  if (!setup.err_path.empty()) {
    const int err = setup.err_path == setup.out_path && out_fd < 0
                        ? out
                        : ::open(setup.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err < 0 || ::dup2(err, 2) < 0) ::_exit(126);
  }
  if (setup.err_to_closed_pipe) {
    int p[2];
    if (::pipe(p) != 0 || ::close(p[0]) != 0 || ::dup2(p[1], 2) < 0) ::_exit(126);
  }
  if (setup.file_size_limit > 0) {
    const rlimit rl{setup.file_size_limit, setup.file_size_limit};
    if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) ::_exit(126);
  }
  ::execve(args[0], args.data(), envp.data());
  ::_exit(127);
}

}  // namespace detail

// Starts argv[0] (a path, no shell) with argv as `setup` says; returns its pid.
inline pid_t start_process(const std::vector<std::string>& argv, const ProcessSetup& setup) {
  return detail::spawn(argv, setup, -1, -1);
}

// Starts argv[0] (a path, no shell) with argv in `cwd`, stdout to `out_path` and stderr to
// `err_path` (the same path: one log); `env` entries ("NAME=value") are added to the environment.
inline pid_t start_process(const std::vector<std::string>& argv, const std::string& cwd, const std::string& out_path,
                           const std::string& err_path, const std::vector<std::string>& env = {}) {
  ProcessSetup setup;
  setup.cwd = cwd;
  setup.out_path = out_path;
  setup.err_path = err_path;
  setup.env = env;
  return start_process(argv, setup);
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
  pid_t pid = 0;
  int exit_code = -1;  // 128 + N when killed by signal N
  std::string out;
  std::string err;
};

// Runs argv to its end in `cwd`, stdout and stderr captured through CAPTURE.out and CAPTURE.err.
inline ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd,
                                 const std::string& capture, const std::vector<std::string>& env = {}) {
  ProcessResult r;
  r.pid = start_process(argv, cwd, capture + ".out", capture + ".err", env);
  r.exit_code = wait_exit_code(r.pid);
  r.out = read_file(capture + ".out");
  r.err = read_file(capture + ".err");
  return r;
}

// Runs argv to its end as `setup` says but for stdout, which is read through a pipe until every
// process holding it closed it (children that inherited it and outlive argv's process too);
// then argv's process is waited for. `err` stays empty (stderr goes where `setup` says).
inline ProcessResult run_process_piped(const std::vector<std::string>& argv, const ProcessSetup& setup) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  ProcessResult r;
  try {
    r.pid = detail::spawn(argv, setup, fds[1], fds[0]);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    r.out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  r.exit_code = wait_exit_code(r.pid);
  return r;
}

}  // namespace amdahl::testsupport
