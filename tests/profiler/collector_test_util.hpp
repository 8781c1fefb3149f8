// Shared by the collector tests: locating the build's collector and helpers, scratch part
// directories, running a helper with the collector injected (fork/exec, no shell) and reading
// the parts it wrote.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <doctest/doctest.h>
#include <string>
#include <vector>

#include "amdahl/format/part_file.hpp"

extern char** environ;

namespace collector_test {

using namespace amdahl::format;

inline std::string build_dir() {
  const char* b = std::getenv("AMDAHL_BUILD_DIR");
  if (b == nullptr || *b == '\0') {
    MESSAGE("AMDAHL_BUILD_DIR is not set; skipping");
    std::exit(77);
  }
  return b;
}
inline std::string collector_path() { return build_dir() + "/lib/libamdahl_collector.so"; }
inline std::string helper_path() { return build_dir() + "/tests/nvtx_helper"; }

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/amdahl-collector-test-XXXXXX";
    const char* p = ::mkdtemp(tmpl);
    REQUIRE(p != nullptr);
    path = p;
  }
  ~TempDir() {
    if (DIR* d = ::opendir(path.c_str())) {
      while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
          ::unlink((path + "/" + e->d_name).c_str());
        }
      }
      ::closedir(d);
    }
    ::rmdir(path.c_str());
  }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(path.c_str())) {
      while (dirent* e = ::readdir(d)) {
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
          out.push_back(e->d_name);
        }
      }
      ::closedir(d);
    }
    return out;
  }
};

struct RunResult {
  pid_t pid = 0;
  int exit_code = -1;
  std::string out;
};

// The current environment without the collector's variables, plus `extra`.
inline std::vector<std::string> make_env(const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (key == "NVTX_INJECTION64_PATH" || key == "AMDAHL_PART_DIR" || key == "RANK" ||
        key == "OMPI_COMM_WORLD_RANK" || key == "PMI_RANK" || key == "AMDAHL_LOG_LEVEL" ||
        key == "AMDAHL_RANGE_CPU" || key == "OMP_NUM_THREADS") {
      continue;
    }
    bool overridden = false;  // a variable set in `extra` replaces the inherited one
    for (const auto& x : extra) overridden = overridden || x.rfind(key + "=", 0) == 0;
    if (overridden) continue;
    env.push_back(kv);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

inline RunResult run(const std::vector<std::string>& args, const std::vector<std::string>& env,
              const std::string& cwd = "") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  RunResult r;
  r.pid = pid;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    r.out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Start markers (`<part>.started`, left by a process that recorded until it writes a part):
// a process that recorded and wrote no part leaves one.
inline std::size_t start_markers(const TempDir& dir) {
  std::size_t n = 0;
  for (const auto& f : dir.files()) n += f.size() > 16 && f.substr(f.size() - 16) == ".amdpart.started" ? 1 : 0;
  return n;
}

inline std::vector<RecordSet> read_parts(const TempDir& dir) {
  std::vector<RecordSet> parts;
  for (const auto& f : dir.files()) {
    if (f.size() > 16 && f.substr(f.size() - 16) == ".amdpart.started") continue;  // start_markers()
    INFO("file " << f);
    CHECK(f.size() > 8);
    CHECK(f.substr(f.size() - 8) == ".amdpart");  // no temporary files left behind
    CHECK(f.rfind("part-", 0) == 0);
    parts.push_back(read_part(dir.path + "/" + f));
  }
  return parts;
}

inline std::uint64_t diag(const RecordSet& rs, const std::string& key) {
  for (const auto& d : rs.diagnostics) {
    if (rs.str(d.key) == key) return d.count;
  }
  return 0;
}

}  // namespace collector_test
