// End to end: a pipelined cpu_pipeline run (one loader thread, 10 ms of loading per batch, the
// driver's 15 ms of h2d + gpu_compute) must report the loader's stages as mostly hidden, the
// driver's stages as the exposed time, and ms/step set by the driver.
#include <cmath>
#include <string>

#include "e2e_support.hpp"

namespace {

using namespace amdahl::e2e;

struct Init {
  Init() { require_built({cpu_pipeline_bin(), amdahl_bin(), collector_lib()}); }
} init;

}  // namespace

TEST_CASE("pipelined cpu_pipeline: loader stages are hidden behind the driver") {
  ScratchDir scratch;
  const std::string prof = profile(
      "pipelined",
      cpu_pipeline_cmd({"--steps", "20", "--warmup-steps", "2", "--loader-threads", "1",
                        "--queue-depth", "2", "--cost", "sleep", "--io-ms", "4",
                        "--preprocess-ms", "6", "--h2d-ms", "3", "--compute-ms", "12"}),
      scratch);
  const nlohmann::json rep = report_json(prof, scratch);
  INFO("report: " << rep.dump(2));

  CHECK(ms_per_step(rep) == doctest::Approx(15.0).epsilon(0.05));
  const auto steps = rep["steps"].get<double>();
  const double wall = rep["wall_ns"].get<double>();

  // The driver's stages carry the step: 3/15 and 12/15.
  CHECK(std::abs(stage(rep, "h2d")["fraction"].get<double>() - 0.2) <= 0.03);
  CHECK(std::abs(stage(rep, "gpu_compute")["fraction"].get<double>() - 0.8) <= 0.03);

  // The loader's stages ran (about 4 + 6 ms per analysed step) but are almost all hidden.
  double loader_exposed = 0;
  for (const std::string name : {"disk_io", "cpu_preprocess"}) {
    const nlohmann::json s = stage(rep, name);
    const double per_batch_ns = (name == "disk_io" ? 4.0 : 6.0) * 1e6;
    INFO("stage " << s.dump());
    CHECK(s["total_ns"].get<double>() >= 0.7 * per_batch_ns * steps);
    CHECK(s["hidden_ns"].get<double>() >= 0.9 * s["total_ns"].get<double>());
    loader_exposed += s["exposed_ns"].get<double>();
  }
  CHECK(loader_exposed <= 0.05 * wall);

  // Issue 19: classic Amdahl says GPU compute 10x gives 1 / (0.2 + 0.08) = 3.57x; the replay
  // (the report's headline, what `whatif --speedup gpu_compute=10` gives) knows the loader's
  // 10 ms then hold the step: about 15 / 10 = 1.5x.
  REQUIRE(rep["projections"]["headline"] == "replay");
  nlohmann::json g;
  for (const auto& s : rep["projections"]["stages"])
    if (s["stage"] == "gpu_compute") g = s;
  REQUIRE(g.is_object());
  const nlohmann::json w =
      run_json({amdahl_bin(), "whatif", prof, "--speedup", "gpu_compute=10", "--format", "json"}, scratch);
  CHECK(g["replay"]["10x"].get<double>() == doctest::Approx(w["simulated_speedup"].get<double>()).epsilon(1e-9));
  CHECK(g["classic"]["10x"].get<double>() == doctest::Approx(w["naive_speedup"].get<double>()).epsilon(1e-9));
  CHECK(g["classic"]["10x"].get<double>() == doctest::Approx(3.57).epsilon(0.1));
  CHECK(g["replay"]["10x"].get<double>() == doctest::Approx(1.5).epsilon(0.1));
  CHECK(g["replay"]["limit"].get<double>() < 0.6 * g["classic"]["limit"].get<double>());
}
