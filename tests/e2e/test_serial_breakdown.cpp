// End to end: `amdahl profile` a serial cpu_pipeline run with known (sleep) stage costs, then
// `amdahl report --format json` must carry the documented fields (docs/architecture.md) and
// each stage's exposed fraction must match the ground truth within 3 percentage points.
#include <cmath>
#include <map>
#include <string>

#include "e2e_support.hpp"

namespace {

using namespace amdahl::e2e;

struct Init {
  Init() { require_built({cpu_pipeline_bin(), amdahl_bin(), collector_lib()}); }
} init;

}  // namespace

TEST_CASE("serial cpu_pipeline: report fractions match the configured costs") {
  ScratchDir scratch;
  const std::map<std::string, double> cost_ms = {
      {"disk_io", 5}, {"cpu_preprocess", 10}, {"h2d", 3}, {"gpu_compute", 12}};
  const double step_ms = 30;
  const std::string prof = profile(
      "serial",
      cpu_pipeline_cmd({"--steps", "20", "--warmup-steps", "2", "--loader-threads", "0", "--cost",
                        "sleep", "--io-ms", "5", "--preprocess-ms", "10", "--h2d-ms", "3",
                        "--compute-ms", "12"}),
      scratch);
  const nlohmann::json rep = report_json(prof, scratch);
  INFO("report: " << rep.dump(2));

  // The JSON contract (docs/architecture.md, "The command line").
  REQUIRE(rep["wall_ns"].is_number());
  REQUIRE(rep["steps"].is_number_integer());
  REQUIRE(rep["stages"].is_array());
  for (const auto& s : rep["stages"]) {
    CHECK(s["name"].is_string());
    CHECK(s["exposed_ns"].is_number());
    CHECK(s["fraction"].is_number());
    CHECK(s["total_ns"].is_number());
    CHECK(s["hidden_ns"].is_number());
  }

  // 22 steps recorded; warm-up exclusion may drop a few, never most.
  const auto steps = rep["steps"].get<std::int64_t>();
  CHECK(steps >= 15);
  CHECK(steps <= 22);
  CHECK(ms_per_step(rep) == doctest::Approx(step_ms).epsilon(0.03));

  double sum = 0;
  for (const auto& s : rep["stages"]) sum += s["fraction"].get<double>();
  CHECK(sum == doctest::Approx(1.0).epsilon(0.01));

  const double wall = rep["wall_ns"].get<double>();
  for (const auto& [name, ms] : cost_ms) {
    const nlohmann::json s = stage(rep, name);
    const double truth = ms / step_ms;
    INFO("stage " << name << ": fraction " << s["fraction"].get<double>() << ", truth " << truth);
    CHECK(std::abs(s["fraction"].get<double>() - truth) <= 0.03);
    // Serial: nothing is hidden, the exposed time is the fraction of the window.
    CHECK(s["hidden_ns"].get<double>() <= 0.03 * wall);
    CHECK(s["exposed_ns"].get<double>() / wall == doctest::Approx(s["fraction"].get<double>()).epsilon(0.01));
    CHECK(s["total_ns"].get<double>() >= s["exposed_ns"].get<double>() * 0.999);
  }
}
