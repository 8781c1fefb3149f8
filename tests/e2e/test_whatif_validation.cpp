// End to end, the validation: for a serial cpu_pipeline run, `amdahl whatif --speedup
// cpu_preprocess=2` must agree within 3% with the measured speedup of a real run with half the
// preprocessing cost (each run's ms/step from its own profile's wall_ns / steps).
#include <cmath>
#include <string>

#include "e2e_support.hpp"

namespace {

using namespace amdahl::e2e;

struct Init {
  Init() { require_built({cpu_pipeline_bin(), amdahl_bin(), collector_lib()}); }
} init;

std::vector<std::string> serial_run(const std::string& preprocess_ms) {
  return cpu_pipeline_cmd({"--steps", "20", "--warmup-steps", "2", "--loader-threads", "0",
                           "--cost", "sleep", "--io-ms", "5", "--preprocess-ms", preprocess_ms,
                           "--h2d-ms", "3", "--compute-ms", "12"});
}

bool is_interval(const nlohmann::json& j) {
  return j.is_array() && j.size() == 2 && j[0].is_number() && j[1].is_number() &&
         j[0].get<double>() <= j[1].get<double>();
}

}  // namespace

TEST_CASE("whatif cpu_preprocess=2 predicts the measured speedup of halving preprocessing") {
  ScratchDir scratch;
  const std::string base = profile("base", serial_run("10"), scratch);
  const std::string improved = profile("improved", serial_run("5"), scratch);

  const nlohmann::json w = run_json(
      {amdahl_bin(), "whatif", base, "--speedup", "cpu_preprocess=2", "--format", "json"},
      scratch);
  INFO("whatif: " << w.dump(2));
  REQUIRE(w["naive_speedup"].is_number());
  REQUIRE(w["simulated_speedup"].is_number());
  CHECK(is_interval(w["naive_interval"]));
  CHECK(is_interval(w["simulated_interval"]));

  const double base_ms = ms_per_step(w.contains("wall_ns") ? w : report_json(base, scratch));
  const double improved_ms = ms_per_step(report_json(improved, scratch));
  const double measured = base_ms / improved_ms;
  const double naive = w["naive_speedup"].get<double>();
  INFO("base " << base_ms << " ms/step, improved " << improved_ms << " ms/step, measured "
               << measured << "x, naive " << naive << "x");
  // Ground truth 30 ms -> 25 ms per step: 1.2x.
  CHECK(measured == doctest::Approx(1.2).epsilon(0.03));
  CHECK(std::abs(naive / measured - 1.0) <= 0.03);
  // Serial: the interval is about the projection, so it must contain the point estimate.
  CHECK(w["naive_interval"][0].get<double>() <= naive * 1.0001);
  CHECK(w["naive_interval"][1].get<double>() >= naive * 0.9999);
}

TEST_CASE("whatif with a speedup of 1 projects no change") {
  ScratchDir scratch;
  const std::string base = profile("base1", serial_run("10"), scratch);
  const nlohmann::json w = run_json(
      {amdahl_bin(), "whatif", base, "--speedup", "gpu_compute=1", "--format", "json"}, scratch);
  INFO("whatif: " << w.dump(2));
  REQUIRE(w["naive_speedup"].is_number());
  CHECK(w["naive_speedup"].get<double>() == doctest::Approx(1.0).epsilon(0.001));
}
