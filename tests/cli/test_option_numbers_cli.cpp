// Issue 18, class 9 (numbers), through the built binary: every number an option takes has a
// range (cli/src/option_checks.hpp), shown in --help; anything outside it, NaN and infinities
// included, is one `amdahl: error:` line and exit 1 before any work. A --target no stage can
// reach says so, and stages with no time are never listed as needing a factor.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>

#include <nlohmann/json.hpp>

#include "amdahl/format/profile_store.hpp"
#include "../support/cli_support.hpp"
#include "../support/report_fixture.hpp"

namespace fs = std::filesystem;
using namespace amdahl;
using test::run_amdahl;

namespace {

struct Dir : test::CliTempDir {
  std::string run, faster;
  Dir() : CliTempDir("amdahl_numbers") {
    run = p("run.amdahl");
    faster = p("faster.amdahl");
    format::save_profile(test::report_fixture(3, 4), run, true);
    format::save_profile(test::report_fixture(1, 4), faster, true);
  }
};

bool one_error_line(const test::CmdResult& r) {
  return r.err.rfind("amdahl: error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

}  // namespace

// Before: --speedup disk_io=1e-12 printed an infinite speedup and a negative window, 1e-11 a
// simulated figure outside its own interval, --target 0.9x "needs 0.001x" for stages with no
// time, --min-change nan ran, --max-events 0 printed a 300-digit range.
TEST_CASE("numbers outside their range are one error line, exit 1, before any work") {
  Dir d;
  const std::string& r = d.run;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"whatif " + r + " --speedup disk_io=1e-12", "--speedup"},
      {"whatif " + r + " --speedup disk_io=1e-11", "--speedup"},
      {"whatif " + r + " --speedup disk_io=0.001", "--speedup"},
      {"whatif " + r + " --speedup disk_io=0", "--speedup"},
      {"whatif " + r + " --speedup disk_io=-2", "--speedup"},
      {"whatif " + r + " --speedup disk_io=nan", "--speedup"},
      {"whatif " + r + " --speedup disk_io=inf", "--speedup"},
      {"whatif " + r + " --speedup disk_io=2e6", "--speedup"},
      {"whatif " + r + " --speedup gpu_compute:host=1e300", "--speedup"},
      {"whatif " + r + " --target 0.9x", "--target"},
      {"whatif " + r + " --target 1", "--target"},
      {"whatif " + r + " --target nan", "--target"},
      {"whatif " + r + " --target inf", "--target"},
      {"whatif " + r + " --target 1e7x", "--target"},
      {"whatif " + r + " --workers 0", "--workers"},
      {"whatif " + r + " --workers 5000", "--workers"},
      {"whatif " + r + " --workers nan", "--workers"},
      {"whatif " + r + " --workers 2 --prefetch 0", "--prefetch"},
      {"report " + r + " --warmup nan", "--warmup"},
      {"report " + r + " --warmup -1", "--warmup"},
      {"report " + r + " --warmup 99999999999999999999999", "--warmup"},
      {"diff " + r + " " + d.faster + " --warmup 1.5", "--warmup"},
      {"validate " + r + " " + d.faster + " --min-change nan", "--min-change"},
      {"validate " + r + " " + d.faster + " --min-change inf", "--min-change"},
      {"validate " + r + " " + d.faster + " --min-change -1", "--min-change"},
      {"validate " + r + " " + d.faster + " --min-change 101", "--min-change"},
      {"export " + r + " --chrome " + d.p("t.json") + " --max-events 0", "--max-events"},
      {"export " + r + " --chrome " + d.p("t.json") + " --max-events -1", "--max-events"},
      {"export " + r + " --chrome " + d.p("t.json") + " --max-events nan", "--max-events"},
      {"export " + r + " --chrome " + d.p("t.json") + " --max-events 1e12", "--max-events"},
      {"export " + r + " --chrome " + d.p("t.json") + " --window nan:5", "--window"},
      {"export " + r + " --chrome " + d.p("t.json") + " --window 1:inf", "--window"},
      {"profile -o " + d.p("p.amdahl") + " --gpu-steps 5:2 -- touch " + d.p("ran"), "--gpu-steps"},
      {"profile -o " + d.p("p.amdahl") + " --gpu-steps nan:3 -- touch " + d.p("ran"), "--gpu-steps"},
  };
  for (const auto& [args, option] : cases) {
    CAPTURE(args);
    const test::CmdResult res = run_amdahl(args);
    CAPTURE(res.err);
    CHECK(res.rc == 1);
    CHECK(one_error_line(res));
    CHECK(res.err.find(option) != std::string::npos);
    CHECK(res.err.size() < 300);  // no 300-digit range
    CHECK(res.out.empty());
  }
  CHECK_FALSE(fs::exists(d.p("t.json")));
  CHECK_FALSE(fs::exists(d.p("p.amdahl")));
  CHECK_FALSE(fs::exists(d.p("ran")));  // the command never ran
}

TEST_CASE("the ends of each range are accepted, and the figures stay inside their intervals") {
  Dir d;
  for (const char* k : {"0.01", "1e6", "1000000x"}) {
    CAPTURE(k);
    const test::CmdResult res = run_amdahl("whatif " + d.run + " --speedup disk_io=" + k + " --format json");
    REQUIRE(res.rc == 0);
    const auto j = nlohmann::json::parse(res.out);
    const double sim = j["simulated_speedup"].get<double>(), naive = j["naive_speedup"].get<double>();
    CHECK(std::isfinite(sim));
    CHECK(std::isfinite(naive));
    CHECK(sim > 0);
    CHECK(j["simulated_interval"][0].get<double>() <= sim * (1 + 1e-9));
    CHECK(j["simulated_interval"][1].get<double>() >= sim * (1 - 1e-9));
    CHECK(j["naive_interval"][0].get<double>() <= naive * (1 + 1e-9));
    CHECK(j["naive_interval"][1].get<double>() >= naive * (1 - 1e-9));
  }
  CHECK(run_amdahl("validate " + d.run + " " + d.faster + " --min-change 0").rc == 0);
  CHECK(run_amdahl("validate " + d.run + " " + d.faster + " --min-change 100").rc == 0);
  CHECK(run_amdahl("report " + d.run + " --warmup 0").rc == 0);
  CHECK(run_amdahl("export " + d.run + " --chrome " + d.p("t.json") + " --max-events 1").rc == 0);
  CHECK(run_amdahl("whatif " + d.run + " --target 1.01x").rc == 0);
}

TEST_CASE("--help shows each number's range") {
  Dir d;
  const std::string whatif = run_amdahl("whatif --help").out;
  CHECK(whatif.find("0.01") != std::string::npos);
  CHECK(whatif.find("1e+06") != std::string::npos);
  CHECK(whatif.find("4096") != std::string::npos);
  CHECK(run_amdahl("validate --help").out.find("[0, 100]") != std::string::npos);
  CHECK(run_amdahl("export --help").out.find("1000000000") != std::string::npos);
  CHECK(run_amdahl("report --help").out.find("1e9") != std::string::npos);
  CHECK(run_amdahl("profile --help").out.find("FROM < TO") != std::string::npos);
}

TEST_CASE("a target no stage reaches says so; stages with no time need no factor") {
  Dir d;
  const test::CmdResult text = run_amdahl("whatif " + d.run + " --target 50x");
  REQUIRE(text.rc == 0);
  CHECK(text.out.find("no stage alone reaches 50x") != std::string::npos);
  CHECK_FALSE(std::regex_search(text.out, std::regex("needs [0-9]")));  // no row needs a factor
  const test::CmdResult js = run_amdahl("whatif " + d.run + " --target 50x --format json");
  REQUIRE(js.rc == 0);
  const auto j = nlohmann::json::parse(js.out);
  CHECK(j["target"]["reachable"] == false);
  // h2d, d2h, communication... have no time in this run: no row for them.
  std::map<std::string, double> total;
  for (const auto& s : j["stages"]) total[s["name"].get<std::string>()] = s["total_ns"].get<double>();
  REQUIRE(total.count("h2d"));
  CHECK(total["h2d"] == 0);
  REQUIRE_FALSE(j["target"]["stages"].empty());
  for (const auto& row : j["target"]["stages"]) {
    CAPTURE(row.dump());
    CHECK(total[row["stage"].get<std::string>()] > 0);
  }
  // A reachable target: some stage needs a factor, reachable is true.
  const auto ok = nlohmann::json::parse(run_amdahl("whatif " + d.run + " --target 1.1x --format json").out);
  CHECK(ok["target"]["reachable"] == true);
}
