// Issue 18, class 10 (rules), through the built binary. `amdahl profile --stages RULES` saved
// rules that do not parse into the profile, after which every report of it exited 1 and
// `report --stages` could not override them. Now the rule file is checked before the command
// runs, a rule file on the command line wins over saved rules that do not parse, and without
// one the error line says to pass --stages.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../analysis/profile_builder.hpp"
#include "amdahl/format/profile_store.hpp"
#include "../support/cli_support.hpp"

namespace fs = std::filesystem;
using namespace amdahl;
using test::run_amdahl;

namespace {

struct Dir : test::CliTempDir {
  Dir() : CliTempDir("amdahl_rules") {}
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(p(name)) << text;
    return p(name);
  }
};

// 5 steps of 10 ms: 4 ms disk_io, then 3 ms in `fetch_thing` (default domain: mapped by rules).
format::Profile fixture(const std::string& saved_rules) {
  test::ProfileBuilder b;
  for (int i = 0; i < 5; ++i) {
    const double t = i * 10.0;
    b.stage(1, "step", t, t + 10);
    b.stage(1, "disk_io", t, t + 4);
    b.range(1, "", "fetch_thing", t + 4, t + 7);
  }
  if (!saved_rules.empty()) b.profile.meta["stage_rules"] = saved_rules;
  return b.profile;
}

bool one_error_line(const test::CmdResult& r) {
  return r.err.rfind("amdahl: error: ", 0) == 0 && r.err.find('\n') == r.err.size() - 1;
}

std::vector<std::string> stage_names(const nlohmann::json& j) {
  std::vector<std::string> out;
  for (const auto& s : j["stages"]) out.push_back(s["name"].get<std::string>());
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST_CASE("profile --stages with a rule that does not parse is refused before the command runs") {
  Dir d;
  const std::string bad = d.write("bad.rules", "fetch_* -> loading\nno arrow on this line\n");
  const auto r = run_amdahl("profile --stages " + bad + " -o " + d.p("p.amdahl") + " -- touch " + d.p("ran"));
  CAPTURE(r.err);
  CHECK(r.rc == 1);
  CHECK(one_error_line(r));
  CHECK(r.err.find("bad.rules:2") != std::string::npos);
  CHECK_FALSE(fs::exists(d.p("ran")));  // the command did not run
  CHECK_FALSE(fs::exists(d.p("p.amdahl")));
}

TEST_CASE("saved rules that do not parse: --stages FILE wins; without it one line says to pass --stages") {
  Dir d;
  const std::string prof = d.p("saved_bad.amdahl");
  format::save_profile(fixture("fetch_* -> loading\nthis is not a rule\n"), prof, true);
  const std::string good = d.write("good.rules", "fetch_thing -> fetching\n");

  for (const std::string cmd : {"report ", "whatif --target 1.2x ", "stages "}) {
    CAPTURE(cmd);
    const auto r = run_amdahl(cmd + prof);
    CAPTURE(r.err);
    CHECK(r.rc == 2);
    CHECK(one_error_line(r));
    CHECK(r.err.find("saved in the profile") != std::string::npos);
    CHECK(r.err.find("--stages") != std::string::npos);
  }

  const auto rep = run_amdahl("report " + prof + " --stages " + good + " --format json");
  CAPTURE(rep.err);
  REQUIRE(rep.rc == 0);
  const auto j = nlohmann::json::parse(rep.out);
  CHECK(has(stage_names(j), "fetching"));
  CHECK_FALSE(has(stage_names(j), "loading"));
  bool noted = false;
  for (const auto& n : j["notes"]) noted = noted || n.get<std::string>().find("saved in the profile are invalid") != std::string::npos;
  CHECK(noted);
  CHECK(run_amdahl("whatif " + prof + " --stages " + good + " --speedup fetching=2").rc == 0);
  CHECK(run_amdahl("diff " + prof + " " + prof + " --stages " + good).rc == 0);
  CHECK(run_amdahl("validate " + prof + " " + prof + " --stages " + good).rc == 0);
  // An empty rule file is a rule file too: the defaults decide, the saved rules stay out.
  const std::string empty = d.write("empty.rules", "# nothing\n");
  CHECK(run_amdahl("report " + prof + " --stages " + empty).rc == 0);
}

TEST_CASE("valid saved rules still apply; a rule on the command line comes first") {
  Dir d;
  const std::string prof = d.p("saved_ok.amdahl");
  format::save_profile(fixture("fetch_* -> loading\n"), prof, true);
  const auto saved = nlohmann::json::parse(run_amdahl("report " + prof + " --format json").out);
  CHECK(has(stage_names(saved), "loading"));
  const std::string good = d.write("good.rules", "fetch_thing -> fetching\n");
  const auto over = nlohmann::json::parse(run_amdahl("report " + prof + " --stages " + good + " --format json").out);
  CHECK(has(stage_names(over), "fetching"));
  CHECK_FALSE(has(stage_names(over), "loading"));
}
