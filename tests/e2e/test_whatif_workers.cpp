// End to end, issue 4's structural what-if: profile cpu_pipeline with the loading inline
// (--loader-threads 0) and with 4 loader threads (queue depth 4: 8 batches ahead, PyTorch's
// prefetch_factor 2 x 4 workers); `amdahl whatif <serial> --workers 4` must predict the measured
// speedup of the 4-thread run (each run's ms/step from its own profile) within 5%, for a pair
// that stays input bound with 4 threads and for one that becomes compute bound; `amdahl validate`
// on the pair sees the change of structure and predicts the same way. A profile with loader
// threads already (1 -> 4, 4 -> 1) has its items redistributed over the new number of lanes.
#include <cmath>
#include <string>

#include "e2e_support.hpp"

namespace {

using namespace amdahl::e2e;

struct Init {
  Init() { require_built({cpu_pipeline_bin(), amdahl_bin(), collector_lib()}); }
} init;

struct Costs {
  std::string io, pre, h2d, compute;
};

std::vector<std::string> run_with(const Costs& c, const std::string& threads) {
  return cpu_pipeline_cmd({"--steps", "40", "--warmup-steps", "2", "--loader-threads", threads,
                           "--queue-depth", "4", "--cost", "sleep", "--io-ms", c.io,
                           "--preprocess-ms", c.pre, "--h2d-ms", c.h2d, "--compute-ms", c.compute});
}

struct Outcome {
  double measured = 0, predicted = 0;
  nlohmann::json whatif, validate;
};

Outcome attempt(const Costs& c, ScratchDir& scratch, const std::string& tag);

// Timing on a shared machine: cpu_pipeline's sleep pacing keeps each step's total but, when the
// machine is loaded, lets one stage's overshoot shorten the next stage's recorded range, which
// moves a projection that depends on one stage's length (the compute-bound pair). Up to 3
// attempts (a pair of runs each); the first within 5% of the measured speedup is kept.
Outcome predict_and_measure(const Costs& c, ScratchDir& scratch, const std::string& tag) {
  Outcome o;
  for (int k = 0; k < 3; ++k) {
    o = attempt(c, scratch, tag + "_" + std::to_string(k));
    const double v = o.validate["simulated_error"].get<double>();
    if (std::abs(o.predicted / o.measured - 1.0) <= 0.05 && std::abs(v) <= 0.05) break;
  }
  return o;
}

Outcome attempt(const Costs& c, ScratchDir& scratch, const std::string& tag) {
  const std::string serial = profile(tag + "_w0", run_with(c, "0"), scratch);
  const std::string threaded = profile(tag + "_w4", run_with(c, "4"), scratch);
  Outcome o;
  o.whatif = run_json({amdahl_bin(), "whatif", serial, "--workers", "4", "--format", "json"}, scratch);
  const double serial_ms = ms_per_step(o.whatif);
  const double threaded_ms = ms_per_step(report_json(threaded, scratch));
  o.measured = serial_ms / threaded_ms;
  REQUIRE(o.whatif["simulated_speedup"].is_number());
  o.predicted = o.whatif["simulated_speedup"].get<double>();
  // validate sees the change of structure (inline -> 4 loader threads) and predicts the same way.
  o.validate = run_json({amdahl_bin(), "validate", serial, threaded, "--format", "json"}, scratch);
  std::printf("%s: validate predicts %.3fx (%+.1f%%), with the stage factors alone %.3fx\n", tag.c_str(),
              o.validate["predicted_simulated"].get<double>(), 100.0 * o.validate["simulated_error"].get<double>(),
              o.validate["structure"]["predicted_stage_factors_only"].get<double>());
  std::printf("%s: serial %.2f ms/step, 4 threads %.2f ms/step, measured %.3fx, --workers 4 predicts %.3fx (%+.1f%%)\n",
              tag.c_str(), serial_ms, threaded_ms, o.measured, o.predicted, 100.0 * (o.predicted / o.measured - 1));
  return o;
}

}  // namespace

TEST_CASE("whatif --workers 4 predicts 4 loader threads: still input bound") {
  ScratchDir scratch;
  // Loading 4 + 44 = 48 ms a batch over 4 threads = 12 ms > the driving thread's 1 + 8 ms.
  const Outcome o = predict_and_measure({"4", "44", "1", "8"}, scratch, "input_bound");
  INFO("whatif: " << o.whatif.dump(2));
  CHECK(o.whatif["workers"] == 4);
  CHECK(o.whatif["prefetch"] == 2);
  CHECK(o.whatif["naive_speedup"].is_null());
  CHECK(o.whatif["restructure"]["batches_in_window"].get<int>() == o.whatif["steps"].get<int>());
  // Ground truth 57 ms -> 12 ms a step (4.75x), less the ramp before the pipeline fills.
  CHECK(o.measured == doctest::Approx(4.75).epsilon(0.08));
  CHECK(std::abs(o.predicted / o.measured - 1.0) <= 0.05);
  CHECK(o.validate["workers"] == 4);
  CHECK(std::abs(o.validate["simulated_error"].get<double>()) <= 0.05);
  // Still input bound: cpu_preprocess (on the workers) holds most of the path after the move.
  CHECK(o.whatif["simulation"]["bottleneck"]["after"]["stage"] == "cpu_preprocess");
}

TEST_CASE("whatif --workers 4 predicts 4 loader threads: the bottleneck moves to compute") {
  ScratchDir scratch;
  // Loading 2 + 20 = 22 ms over 4 threads = 5.5 ms < the driving thread's 1 + 8 ms.
  const Outcome o = predict_and_measure({"2", "20", "1", "8"}, scratch, "compute_bound");
  INFO("whatif: " << o.whatif.dump(2));
  // Ground truth 31 ms -> 9 ms a step (3.44x).
  CHECK(o.measured == doctest::Approx(31.0 / 9.0).epsilon(0.08));
  CHECK(std::abs(o.predicted / o.measured - 1.0) <= 0.05);
  CHECK(o.validate["workers"] == 4);
  CHECK(std::abs(o.validate["simulated_error"].get<double>()) <= 0.05);
  CHECK(o.whatif["simulation"]["bottleneck"]["after"]["stage"] == "gpu_compute");
  CHECK(o.whatif["simulation"]["bottleneck"]["moved"] == true);
}

TEST_CASE("whatif --workers: text output, combination with --speedup, and the loader-thread profile") {
  ScratchDir scratch;
  const Costs c{"2", "20", "1", "8"};
  const std::string serial = profile("text_w0", run_with(c, "0"), scratch);
  const RunResult t = run_ok({amdahl_bin(), "whatif", serial, "--workers", "4"}, scratch);
  INFO(t.out);
  CHECK(t.out.find("with 4 loader workers: ") != std::string::npos);
  CHECK(t.out.find("classic Amdahl: no figure") != std::string::npos);
  // --speedup on top: compute 2x faster moves the limit back to the loaders (22/4 = 5.5 ms).
  const nlohmann::json both = run_json({amdahl_bin(), "whatif", serial, "--workers", "4", "--speedup",
                                        "gpu_compute=2", "--format", "json"}, scratch);
  const nlohmann::json alone = run_json({amdahl_bin(), "whatif", serial, "--workers", "4", "--format", "json"}, scratch);
  CHECK(both["simulated_speedup"].get<double>() > alone["simulated_speedup"].get<double>() * 1.2);
  // Usage errors.
  CHECK(run({amdahl_bin(), "whatif", serial, "--workers", "0"}, scratch).exit_code == 1);
  CHECK(run({amdahl_bin(), "whatif", serial, "--prefetch", "2"}, scratch).exit_code == 1);
}

TEST_CASE("whatif --workers on a profile that already has loader threads: their items are redistributed") {
  ScratchDir scratch;
  // Input bound at every thread count: 48 ms of loading a batch, 9 ms on the driving thread.
  const Costs c{"4", "44", "1", "8"};
  const std::string one = profile("lt1", run_with(c, "1"), scratch);
  const std::string four = profile("lt4", run_with(c, "4"), scratch);
  const double one_ms = ms_per_step(report_json(one, scratch));
  const double four_ms = ms_per_step(report_json(four, scratch));
  const double measured = one_ms / four_ms;
  const nlohmann::json w = run_json({amdahl_bin(), "whatif", one, "--workers", "4", "--format", "json"}, scratch);
  INFO("whatif: " << w.dump(2));
  const double predicted = w["simulated_speedup"].get<double>();
  std::printf("loader threads 1 -> 4: %.2f -> %.2f ms/step, measured %.3fx, --workers 4 predicts %.3fx (%+.1f%%)\n",
              one_ms, four_ms, measured, predicted, 100.0 * (predicted / measured - 1));
  CHECK(w["restructure"]["kind"] == "redistributed_loaders");
  CHECK(w["restructure"]["from_lanes"] == 1);
  CHECK(measured == doctest::Approx(4.0).epsilon(0.05));
  CHECK(std::abs(predicted / measured - 1.0) <= 0.05);
  // And back: 4 -> 1 thread; the same number of threads changes nothing.
  const nlohmann::json back = run_json({amdahl_bin(), "whatif", four, "--workers", "1", "--format", "json"}, scratch);
  const double back_pred = back["simulated_speedup"].get<double>();
  std::printf("loader threads 4 -> 1: measured %.3fx, --workers 1 predicts %.3fx (%+.1f%%)\n", 1.0 / measured,
              back_pred, 100.0 * (back_pred * measured - 1));
  CHECK(std::abs(back_pred * measured - 1.0) <= 0.05);
  const nlohmann::json same = run_json({amdahl_bin(), "whatif", four, "--workers", "4", "--format", "json"}, scratch);
  CHECK(same["simulated_speedup"].get<double>() == doctest::Approx(1.0).epsilon(0.02));
}
