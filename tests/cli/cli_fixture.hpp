// A scratch directory with two synthetic runs for the CLI consistency tests (issue 19 item 5):
// `run` (6 steps of 9.5 ms) and `faster` (disk_io 2 ms shorter: 7.5 ms steps), written with
// amdahl_store; the commands run through tests/support/cli_support.hpp.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "../support/cli_support.hpp"
#include "../support/report_fixture.hpp"
#include "amdahl/format/profile_store.hpp"

namespace amdahl::test {

struct CliDir {
  std::filesystem::path dir;
  std::string run, faster;
  explicit CliDir(const char* name) {
    if (!std::filesystem::exists(amdahl_bin())) {
      std::fprintf(stderr, "SKIP: %s not built\n", amdahl_bin().c_str());
      std::exit(77);
    }
    dir = std::filesystem::temp_directory_path() / (std::string(name) + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    run = p("run.amdahl");
    faster = p("faster.amdahl");
    format::save_profile(report_fixture(3, 4), run, true);
    format::save_profile(report_fixture(1, 4), faster, true);
  }
  ~CliDir() { std::filesystem::remove_all(dir); }
  CliDir(const CliDir&) = delete;
  CliDir& operator=(const CliDir&) = delete;
  std::string p(const std::string& name) const { return (dir / name).string(); }
};

// Exactly one line on stderr, "amdahl: error: ...".
inline bool one_error_line(const CmdResult& r) {
  return r.err.rfind("amdahl: error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

}  // namespace amdahl::test
