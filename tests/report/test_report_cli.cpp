// `amdahl report --format html|markdown|csv`, `export --chrome`, `import`, `diff` through the
// built binary: outputs, one clear error line, exit codes (2 bad input, 1 usage).
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "amdahl/format/profile_store.hpp"
#include "cli_support.hpp"
#include "report_fixture.hpp"

namespace fs = std::filesystem;
using namespace amdahl;
using test::run_amdahl;

namespace {

struct Dir {
  fs::path dir;
  std::string run, faster, corrupt, kineto;
  Dir() {
    if (!fs::exists(test::amdahl_bin())) {
      std::fprintf(stderr, "SKIP: %s not built\n", test::amdahl_bin().c_str());
      std::exit(77);
    }
    dir = fs::temp_directory_path() / ("amdahl_report_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    run = (dir / "run.amdahl").string();
    faster = (dir / "faster.amdahl").string();
    corrupt = (dir / "corrupt.amdahl").string();
    kineto = test::source_dir() + "/tests/data/kineto_small.json";
    format::save_profile(test::report_fixture(3, 4), run, true);
    format::save_profile(test::report_fixture(1, 4), faster, true);
    std::ofstream(corrupt) << "this is not a profile";
  }
  ~Dir() { fs::remove_all(dir); }
  std::string p(const char* name) const { return (dir / name).string(); }
};

bool one_error_line(const test::CmdResult& r) {
  return r.err.rfind("amdahl: error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

}  // namespace

TEST_CASE("report --format html|markdown|csv") {
  Dir d;
  auto r = run_amdahl("report " + d.run + " --format html -o " + d.p("r.html"));
  CHECK(r.rc == 0);
  const std::string html = test::slurp(d.p("r.html"));
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("&lt;script&gt;") != std::string::npos);
  r = run_amdahl("report " + d.run + " --format markdown");
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("## amdahl report", 0) == 0);
  r = run_amdahl("report " + d.run + " --format csv");
  CHECK(r.rc == 0);
  CHECK(r.out.rfind("step,start_ns,span_ns,", 0) == 0);
  r = run_amdahl("report " + d.run + " --format pdf");
  CHECK(r.rc == 1);
}

TEST_CASE("export --chrome") {
  Dir d;
  auto r = run_amdahl("export " + d.run + " --chrome " + d.p("t.json"));
  CHECK(r.rc == 0);
  CHECK(r.err.find("trace events") != std::string::npos);
  const auto j = nlohmann::json::parse(test::slurp(d.p("t.json")));
  CHECK(j["traceEvents"].size() > 50);
  r = run_amdahl("export " + d.run + " --chrome " + d.p("t2.json") + " --max-events 40");
  CHECK(r.rc == 0);
  CHECK(r.err.find("amdahl: note: ") != std::string::npos);
  CHECK(r.err.find("dropped") != std::string::npos);
  CHECK(nlohmann::json::parse(test::slurp(d.p("t2.json")))["otherData"]["events"].get<int>() <= 40);
  r = run_amdahl("export " + d.run + " --chrome " + d.p("t3.json") + " --window 9:3");
  CHECK(r.rc == 1);
  CHECK(one_error_line(r));
  r = run_amdahl("export " + d.corrupt + " --chrome " + d.p("t4.json"));
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(!fs::exists(d.p("t4.json")));
  r = run_amdahl("export " + d.p("missing.amdahl") + " --chrome " + d.p("t5.json"));
  CHECK(r.rc == 2);
  r = run_amdahl("export " + d.run);
  CHECK(r.rc == 1);
}

TEST_CASE("import a Kineto trace, then report and export it") {
  Dir d;
  auto r = run_amdahl("import " + d.kineto + " -o " + d.p("k.amdahl"));
  CHECK(r.rc == 0);
  CHECK(r.err.find("imported 12 ranges") != std::string::npos);
  r = run_amdahl("report " + d.p("k.amdahl") + " --format json");
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["steps"] == 2);
  double disk = -1;
  for (const auto& s : j["stages"])
    if (s["name"] == "disk_io") disk = s["fraction"].get<double>();
  CHECK(disk == doctest::Approx(3000.0 / 8100.0).epsilon(0.01));
  CHECK(run_amdahl("export " + d.p("k.amdahl") + " --chrome " + d.p("k.json")).rc == 0);
  // Refuses to replace without --force; bad inputs.
  r = run_amdahl("import " + d.kineto + " -o " + d.p("k.amdahl"));
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(run_amdahl("import " + d.kineto + " -o " + d.p("k.amdahl") + " --force").rc == 0);
  r = run_amdahl("import " + d.corrupt + " -o " + d.p("bad.amdahl"));
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(!fs::exists(d.p("bad.amdahl")));
  CHECK(run_amdahl("import " + d.kineto).rc == 1);
}

// Issue 18, crashes: a 1.2 MB trace whose args nest 200 000 deep killed `amdahl import` with
// SIGSEGV. Now one error line naming the limit, exit 2, no output file.
TEST_CASE("import: a trace nested past the depth limit is refused with one line, not a crash") {
  Dir d;
  const std::string deep = d.p("deep.json");
  {
    std::ofstream f(deep);
    f << "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"step\",\"ts\":1,\"dur\":5,\"args\":";
    for (int i = 0; i < 200'000; ++i) f << "{\"a\":";
    f << "1";
    for (int i = 0; i < 200'000; ++i) f << "}";
    f << "}]}";
  }
  const auto r = run_amdahl("import " + deep + " -o " + d.p("deep.amdahl"));
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(r.err.find("deeper than 64 levels") != std::string::npos);
  CHECK(!fs::exists(d.p("deep.amdahl")));
}

TEST_CASE("diff two runs") {
  Dir d;
  auto r = run_amdahl("diff " + d.run + " " + d.faster);
  CHECK(r.rc == 0);
  CHECK(r.out.find("1.27x faster") != std::string::npos);
  r = run_amdahl("diff " + d.run + " " + d.faster + " --format json");
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  bool faster = false;
  for (const auto& s : j["stages"])
    if (s["name"] == "disk_io") faster = s["verdict"] == "faster";
  CHECK(faster);
  r = run_amdahl("diff " + d.run + " " + d.corrupt);
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(run_amdahl("diff " + d.run).rc == 1);
}
