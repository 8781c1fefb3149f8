// `amdahl diff A B`: the ratio is b/a, labelled so, in the text and the JSON; --fail-if-slower
// PCT exits 3 when B's step is more than PCT% slower than A's (a CI gate), 0 otherwise.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "cli_fixture.hpp"

using namespace amdahl;

// run: 9.5 ms steps, disk_io 3 ms; faster: 7.5 ms steps, disk_io 1 ms.
TEST_CASE("diff: the b/a column and step_ratio are b over a") {
  test::CliDir d("amdahl_cli_diff_ratio");
  auto r = test::run_amdahl("diff " + d.faster + " " + d.run);  // b is the slower run
  REQUIRE(r.rc == 0);
  CAPTURE(r.out);
  CHECK(r.out.find("b takes 1.27x the time of a: 1.27x slower") != std::string::npos);
  const std::size_t head = r.out.find("\nstage ");
  REQUIRE(head != std::string::npos);
  const std::string header = r.out.substr(head, r.out.find('\n', head + 1) - head);
  CHECK(header.find(" b/a ") != std::string::npos);
  CHECK(header.find("ratio") == std::string::npos);
  CHECK(header.find("a/b") == std::string::npos);
  // disk_io 1 ms -> 3 ms: b/a = 3.00x.
  const std::size_t row = r.out.find("\ndisk_io ");
  REQUIRE(row != std::string::npos);
  CHECK(r.out.substr(row, r.out.find('\n', row + 1) - row).find(" 3.00x ") != std::string::npos);
  const auto j = nlohmann::json::parse(test::run_amdahl("diff " + d.faster + " " + d.run + " --format json").out);
  CHECK(j["step_ratio"].get<double>() == doctest::Approx(9.5 / 7.5).epsilon(0.01));
  CHECK(j["speedup"].get<double>() == doctest::Approx(7.5 / 9.5).epsilon(0.01));
  for (const auto& s : j["stages"])
    if (s["name"] == "disk_io") CHECK(s["ratio"].get<double>() == doctest::Approx(3.0).epsilon(0.01));
}

TEST_CASE("diff --fail-if-slower PCT: exit 3 past the limit, 0 within it or when faster") {
  test::CliDir d("amdahl_cli_diff_gate");
  // b 26.7% slower than a.
  auto r = test::run_amdahl("diff " + d.faster + " " + d.run + " --fail-if-slower 10");
  CHECK(r.rc == 3);
  CHECK(!r.out.empty());  // the diff itself is still printed
  CHECK(r.err.find("amdahl: b is 26.7% slower per step than a, more than --fail-if-slower 10.0%") !=
        std::string::npos);
  r = test::run_amdahl("diff " + d.faster + " " + d.run + " --fail-if-slower 30");
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  r = test::run_amdahl("diff " + d.run + " " + d.faster + " --fail-if-slower 0");  // b is faster
  CHECK(r.rc == 0);
  r = test::run_amdahl("diff " + d.faster + " " + d.run + " --fail-if-slower 10 --format json -o " + d.p("d.json"));
  CHECK(r.rc == 3);
  CHECK(nlohmann::json::parse(test::slurp(d.p("d.json")))["step_ratio"].get<double>() > 1.2);
  r = test::run_amdahl("diff " + d.faster + " " + d.run + " --fail-if-slower -5");
  CHECK(r.rc == 1);
}
