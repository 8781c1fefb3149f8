// `amdahl report --format html|markdown|csv`, `export --chrome`, `import`, `diff` through the
// built binary: outputs, one clear error line, exit codes (2 bad input, 1 usage).
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "amdahl/format/profile_store.hpp"
#include "../support/cli_support.hpp"
#include "../support/kineto_synth.hpp"
#include "../support/report_fixture.hpp"

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
  double disk = -1, loading = -1;
  for (const auto& s : j["stages"]) {
    if (s["name"] == "disk_io") disk = s["fraction"].get<double>();
    if (s["name"] == "data_loading") loading = s["fraction"].get<double>();
  }
  // The DataLoader range (3000 us a step): record_function("disk_io") 2000 us inside, the rest
  // data_loading.
  CHECK(disk == doctest::Approx(2000.0 / 8100.0).epsilon(0.01));
  CHECK(loading == doctest::Approx(1000.0 / 8100.0).epsilon(0.01));
  CHECK(run_amdahl("export " + d.p("k.amdahl") + " --chrome " + d.p("k.json")).rc == 0);
  // Refuses to replace without --force (a usage error, exit 1, as every command); bad inputs.
  r = run_amdahl("import " + d.kineto + " -o " + d.p("k.amdahl"));
  CHECK(r.rc == 1);
  CHECK(one_error_line(r));
  CHECK(run_amdahl("import " + d.kineto + " -o " + d.p("k.amdahl") + " --force").rc == 0);
  r = run_amdahl("import " + d.corrupt + " -o " + d.p("bad.amdahl"));
  CHECK(r.rc == 2);
  CHECK(one_error_line(r));
  CHECK(!fs::exists(d.p("bad.amdahl")));
  CHECK(run_amdahl("import " + d.kineto).rc == 1);
}

// `amdahl import` then `amdahl report --format json` on synthetic torch 2.x traces of a training
// loop over a DataLoader (kineto_synth.hpp): steps from the Optimizer.step ranges, the
// DataLoader's __next__ as data_loading (an input-bound verdict), the import's notes in the
// report; with num_workers=0 the same stage, and `whatif --workers` can move it onto workers.
TEST_CASE("import a DataLoader training trace, then report it as JSON") {
  Dir d;
  test::SynthTrace o;  // 4 workers, 6 optimizer steps, no prof.step()
  std::ofstream(d.p("w4.json")) << test::synth_kineto_trace(o);
  auto r = run_amdahl("import " + d.p("w4.json") + " -o " + d.p("w4.amdahl"));
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("6 steps from Optimizer.step ranges") != std::string::npos);
  r = run_amdahl("report " + d.p("w4.amdahl") + " --format json");
  REQUIRE(r.rc == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["total_steps"] == 6);
  CHECK(j["steps"] == 5);
  double loading = -1, disk = 0;
  for (const auto& s : j["stages"]) {
    if (s["name"] == "data_loading") loading = s["fraction"].get<double>();
    if (s["name"] == "disk_io") disk = s["fraction"].get<double>();
  }
  CHECK(loading == doctest::Approx(o.fetch_us / o.iteration_us()).epsilon(0.02));
  CHECK(disk == 0);
  CHECK(j["verdict"].get<std::string>().rfind("input bound: ", 0) == 0);
  bool split_note = false, other_note = false;
  for (const auto& n : j["notes"]) {
    const std::string s = n.get<std::string>();
    split_note |= s.find("cannot split this time into disk_io and cpu_preprocess") != std::string::npos;
    other_note |= s.rfind("other: ", 0) == 0 && s.find("aten::conv2d 15.0 ms") != std::string::npos;
  }
  CHECK(split_note);
  CHECK(other_note);
  CHECK(j["profile"]["kineto_steps"] == "Optimizer.step");
  CHECK(!j["profile"].contains("notes"));  // they are in "notes"
  // The text report prints them too.
  r = run_amdahl("report " + d.p("w4.amdahl"));
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("  - data_loading: the training thread's enumerate(DataLoader)#_MultiProcessingDataLoaderIter") !=
        std::string::npos);

  // num_workers=0: the same stage; its loading is work the structural what-if can move.
  o.workers = 0;
  o.first_fetch_us = o.fetch_us;
  std::ofstream(d.p("w0.json")) << test::synth_kineto_trace(o);
  REQUIRE(run_amdahl("import " + d.p("w0.json") + " -o " + d.p("w0.amdahl")).rc == 0);
  r = run_amdahl("whatif " + d.p("w0.amdahl") + " --workers 4 --worker-stages data_loading --format json");
  REQUIRE(r.rc == 0);
  const auto w = nlohmann::json::parse(r.out);
  CHECK(w["restructure"]["kind"] == "loader_workers");
  // Loading 30 ms of each 40.85 ms step moved onto 4 workers: the step is then bound by the
  // rest (10.85 ms) against 30/4 = 7.5 ms of loading per batch.
  CHECK(w["simulated_speedup"].get<double>() > 2.0);
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
