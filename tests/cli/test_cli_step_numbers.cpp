// Step numbers are 0-based everywhere, as `amdahl profile --gpu-steps FROM:TO` counts them (the
// driving thread's step ranges from the run's first): the CSV's step column, the HTML chart,
// the text report's window line and the JSON's first_step.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_fixture.hpp"

using namespace amdahl;

// The fixture has 6 steps; the automatic warm-up drops step 0, so steps 1 to 5 are analysed.
TEST_CASE("steps are numbered from 0 in CSV, HTML, text and JSON") {
  test::CliDir d("amdahl_cli_steps");
  auto r = test::run_amdahl("report " + d.run + " --format csv");
  REQUIRE(r.rc == 0);
  const std::size_t row1 = r.out.find("\r\n") + 2;
  CHECK(r.out.substr(row1, 4) == "1,0,");  // step 1 starts the window
  CHECK(r.out.find("\r\n5,") != std::string::npos);
  CHECK(r.out.find("\r\n6,") == std::string::npos);
  r = test::run_amdahl("report " + d.run + " --format csv --warmup 0");
  CHECK(r.out.substr(r.out.find("\r\n") + 2, 4) == "0,0,");

  const auto j = nlohmann::json::parse(test::run_amdahl("report " + d.run + " --format json").out);
  CHECK(j["first_step"] == 1);
  CHECK(j["steps"] == 5);
  CHECK(nlohmann::json::parse(test::run_amdahl("report " + d.run + " --format json --warmup 2").out)["first_step"] == 2);

  r = test::run_amdahl("report " + d.run);
  CHECK(r.out.find("steps 1 to 5 (from 0)") != std::string::npos);

  r = test::run_amdahl("report " + d.run + " --format html");  // the per-step chart's columns
  CHECK(r.out.find("<title>step 1 ") != std::string::npos);
  CHECK(r.out.find("<title>step 5 ") != std::string::npos);
  CHECK(r.out.find("<title>step 6 ") == std::string::npos);
}
