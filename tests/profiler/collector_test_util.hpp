// Shared by the collector tests: locating the build's collector and helpers, scratch part
// directories, running a helper with the collector injected (tests/support's runner, no shell,
// an environment of its own) and reading the parts it wrote.
#pragma once

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <doctest/doctest.h>
#include <string>
#include <vector>

#include "../support/test_support.hpp"
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

// pid, exit_code (128 + N for signal N), out (stdout); err stays empty (stderr is inherited).
using RunResult = amdahl::testsupport::ProcessResult;

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

// Runs args (no shell) with exactly `env` as its environment, in `cwd` when given, through
// tests/support's runner: stdout is read through a pipe to its end (the children a helper forks
// hold it too), stderr is the test's.
inline RunResult run(const std::vector<std::string>& args, const std::vector<std::string>& env,
                     const std::string& cwd = "") {
  amdahl::testsupport::ProcessSetup setup;
  setup.cwd = cwd;
  setup.env = env;
  setup.env_is_whole = true;
  return amdahl::testsupport::run_process_piped(args, setup);
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
