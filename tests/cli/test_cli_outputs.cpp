// Where output goes, the same for every command: the format from -o's extension, a --format
// that contradicts it refused in one line, `-` as stdout (-o -, --chrome -), and one overwrite
// policy: an existing file is replaced only with --force (report, whatif, validate, diff,
// stages, export, import, profile).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_fixture.hpp"

namespace fs = std::filesystem;
using namespace amdahl;

TEST_CASE("report -o: the extension picks the format") {
  test::CliDir d("amdahl_cli_out_ext");
  struct Case {
    const char* file;
    const char* starts;
  };
  for (const Case& c : {Case{"r.html", "<!DOCTYPE html>"}, Case{"r.HTM", "<!DOCTYPE html>"}, Case{"r.md", "## amdahl report"},
                        Case{"r.json", "{\n  \"schema_version\": 1,"}, Case{"r.csv", "step,start_ns,span_ns,"},
                        Case{"r.txt", "window: "}, Case{"report", "window: "}}) {
    CAPTURE(c.file);
    const auto r = test::run_amdahl("report " + d.run + " -o " + d.p(c.file));
    REQUIRE(r.rc == 0);
    CHECK(test::slurp(d.p(c.file)).rfind(c.starts, 0) == 0);
  }
  // An explicit --format that agrees, or with an extension that names no format, is taken.
  CHECK(test::run_amdahl("report " + d.run + " --format html -o " + d.p("same.html")).rc == 0);
  REQUIRE(test::run_amdahl("report " + d.run + " --format json -o " + d.p("data.txt")).rc == 0);
  CHECK(nlohmann::json::parse(test::slurp(d.p("data.txt")))["schema_version"] == 1);
  // whatif writes json for a .json name.
  REQUIRE(test::run_amdahl("whatif " + d.run + " --speedup disk_io=2 -o " + d.p("w.json")).rc == 0);
  CHECK(nlohmann::json::parse(test::slurp(d.p("w.json"))).contains("simulated_speedup"));
}

TEST_CASE("a --format that contradicts -o's extension, or a format the command lacks: one line, exit 1") {
  test::CliDir d("amdahl_cli_out_conflict");
  for (const std::string& c : {"report " + d.run + " --format text -o " + d.p("r.html"),
                               "report " + d.run + " --format json -o " + d.p("r.csv"),
                               "whatif " + d.run + " --speedup disk_io=2 -o " + d.p("w.html"),
                               "diff " + d.run + " " + d.faster + " -o " + d.p("d.md")}) {
    CAPTURE(c);
    const auto r = test::run_amdahl(c);
    CHECK(r.rc == 1);
    CHECK(test::one_error_line(r));
    CHECK(r.out.empty());
  }
  const auto r = test::run_amdahl("report " + d.run + " --format text -o " + d.p("r.html"));
  CHECK(r.err.find("--format text contradicts -o") != std::string::npos);
  CHECK(!fs::exists(d.p("r.html")));
}

TEST_CASE("-o - and --chrome - are stdout; no file named '-'") {
  test::CliDir d("amdahl_cli_out_dash");
  auto r = test::shell("cd " + d.dir.string() + " && " + test::amdahl_bin() + " report " + d.run + " --format json -o -");
  REQUIRE(r.rc == 0);
  CHECK(nlohmann::json::parse(r.out)["schema_version"] == 1);
  r = test::shell("cd " + d.dir.string() + " && " + test::amdahl_bin() + " export " + d.run + " --chrome -");
  REQUIRE(r.rc == 0);
  CHECK(nlohmann::json::parse(r.out)["traceEvents"].size() > 10);
  CHECK(r.err.find("to stdout") != std::string::npos);
  CHECK(!fs::exists(d.p("-")));
  // A profile is a database: never to stdout.
  r = test::shell("cd " + d.dir.string() + " && " + test::amdahl_bin() + " profile -o - -- /bin/true");
  CHECK(r.rc == 1);
  CHECK(test::one_error_line(r));
  CHECK(!fs::exists(d.p("-")));
}

TEST_CASE("one overwrite policy: an existing file is replaced only with --force") {
  test::CliDir d("amdahl_cli_overwrite");
  const std::string kineto = test::source_dir() + "/tests/data/kineto_small.json";
  const std::string both = d.run + " " + d.faster;
  struct Case {
    std::string cmd, out;
  };
  const std::vector<Case> cases = {
      {"report " + d.run + " -o ", "r.txt"},
      {"whatif " + d.run + " --speedup disk_io=2 -o ", "w.txt"},
      {"validate " + both + " -o ", "v.txt"},
      {"diff " + both + " -o ", "d.txt"},
      {"stages " + d.run + " -o ", "s.txt"},
      {"export " + d.run + " --chrome ", "t.json"},
      {"import " + kineto + " -o ", "k.amdahl"},
      {"profile -o ", "p.amdahl"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.cmd);
    const std::string out = d.p(c.out);
    const std::string tail = c.cmd.rfind("profile", 0) == 0 ? " -- /bin/true" : "";
    { std::ofstream(out) << "precious"; }
    auto r = test::run_amdahl(c.cmd + out + tail);
    CHECK(r.rc == 1);
    CHECK(test::one_error_line(r));
    CHECK(r.err.find("refusing to overwrite") != std::string::npos);
    CHECK(r.err.find("already exists; use --force") != std::string::npos);
    CHECK(test::slurp(out) == "precious");
    r = test::run_amdahl(c.cmd + out + " --force" + tail);
    CHECK(r.rc == 0);
    CHECK(test::slurp(out) != "precious");
  }
  // Devices are written in place, no --force needed.
  CHECK(test::run_amdahl("report " + d.run + " -o /dev/null").rc == 0);
  CHECK(test::run_amdahl("export " + d.run + " --chrome /dev/null").rc == 0);
}
