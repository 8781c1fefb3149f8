// `amdahl --version` and `amdahl version`: the release, the profile format written and read,
// the JSON schema version and the git commit (or "unknown" outside a git checkout).
#include <doctest/doctest.h>

#include <regex>

#include "amdahl/format/profile_store.hpp"
#include "cli_fixture.hpp"

using namespace amdahl;

TEST_CASE("--version and version print the release, the formats and the commit") {
  test::CliDir d("amdahl_cli_version");
  const auto flag = test::run_amdahl("--version");
  CHECK(flag.rc == 0);
  CHECK(flag.err.empty());
  const auto sub = test::run_amdahl("version");
  CHECK(sub.rc == 0);
  CHECK(sub.out == flag.out);
  CAPTURE(flag.out);
  CHECK(std::regex_search(flag.out, std::regex("^amdahl [0-9]+\\.[0-9]+\\.[0-9]+\n")));
  const std::string v = std::to_string(format::kProfileFormatVersion);
  CHECK(flag.out.find("\nprofile format " + v + " (writes " + v + ", reads " +
                      std::to_string(format::kOldestProfileFormatVersion) + " to " + v + ")\n") != std::string::npos);
  CHECK(flag.out.find("\njson schema 1\n") != std::string::npos);
  // The commit of a git checkout (12 hex digits, -dirty with uncommitted changes), else unknown.
  CHECK(std::regex_search(flag.out,
                          std::regex("\ncommit ([0-9a-f]{12}(-dirty)?|unknown \\(not built from a git checkout\\))\n$")));
}

// Built from a release tarball (no .git): the build still works and says the commit is unknown.
TEST_CASE("the build information outside a git checkout: commit unknown") {
  test::CliDir d("amdahl_cli_version_tarball");
  std::filesystem::create_directories(d.p("src"));
  const std::string cmd = std::string(AMDAHL_CMAKE_COMMAND) + " -DSRC_DIR=" + d.p("src") + " -DIN=" +
                          test::source_dir() + "/cli/src/build_info.hpp.in -DOUT=" + d.p("build_info.hpp") +
                          " -DAMDAHL_VERSION=9.8.7 -P " + test::source_dir() + "/cmake/BuildInfo.cmake";
  const auto r = test::shell("GIT_CEILING_DIRECTORIES=" + d.dir.string() + " " + cmd);
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  const std::string h = test::slurp(d.p("build_info.hpp"));
  CHECK(h.find("kVersion = \"9.8.7\"") != std::string::npos);
  CHECK(h.find("kGitCommit = \"unknown\"") != std::string::npos);
}
