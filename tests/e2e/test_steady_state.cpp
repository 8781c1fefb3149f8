// End to end, issue 17: the steady state and the CPU clocks.
//  - cpu_pipeline with 2 loader threads, a queue of 8 and a slow first step (--first-step-ms:
//    the loaders fill the queue meanwhile): the first steps after it drain the prefetched
//    batches at the driving thread's pace (5 ms), the steady state runs at the loaders' pace
//    (2 threads x 20 ms a batch = 10 ms a step). The automatic window leaves the fill out and
//    says so; --warmup 1 keeps it (and its mean step is below the steady state).
//  - inline loading with real work: the report's CPU section (on-CPU share near 1 for work),
//    and `whatif --workers 2` takes its per-worker cost from the CPU times and is bounded by the
//    cores it may use.
#include <cmath>
#include <string>

#include "e2e_support.hpp"

namespace {

using namespace amdahl::e2e;

struct Init {
  Init() { require_built({cpu_pipeline_bin(), amdahl_bin(), collector_lib()}); }
} init;

}  // namespace

TEST_CASE("the automatic window leaves out the input pipeline's fill") {
  ScratchDir scratch;
  const std::string p = profile("fill", cpu_pipeline_cmd({"--steps", "50", "--warmup-steps", "0", "--loader-threads", "2",
                                                          "--queue-depth", "8", "--cost", "sleep", "--io-ms", "1",
                                                          "--preprocess-ms", "19", "--h2d-ms", "1", "--compute-ms", "4",
                                                          "--first-step-ms", "300"}),
                                scratch);
  const nlohmann::json r = report_json(p, scratch);
  INFO("report: " << r.dump(2));
  REQUIRE(r.contains("steady_state"));
  const auto fill = r["steady_state"]["fill_steps"].get<std::size_t>();
  // About 10 batches are ready when the first step ends (8 queued, 2 in hand) and the loaders
  // add one every 10 ms while the driving thread takes one every 5 ms: it catches up after about
  // 20 steps (10 + 20 x 0.5); the fill ends there.
  CHECK(fill >= 8);
  CHECK(fill <= 24);
  CHECK(r["warmup_steps"].get<std::size_t>() == fill + 1);  // the 305 ms first step + the fill
  CHECK(ms_per_step(r) == doctest::Approx(10.0).epsilon(0.08));
  bool noted = false;
  for (const auto& n : r["notes"]) noted |= n.get<std::string>().find("input pipeline's fill") != std::string::npos;
  CHECK(noted);
  // --warmup 1: the fill stays in the window, and the mean step is below the steady state.
  const nlohmann::json all = run_json({amdahl_bin(), "report", p, "--warmup", "1", "--format", "json"}, scratch);
  CHECK(all["steady_state"]["fill_steps"] == 0);
  CHECK(ms_per_step(all) < 0.93 * ms_per_step(r));
  // The text says what was left out.
  const RunResult t = run_ok({amdahl_bin(), "report", p}, scratch);
  CHECK(t.out.find("pipeline fill excluded") != std::string::npos);
}

TEST_CASE("a run that never waits for its loaders loses no step to a fill") {
  ScratchDir scratch;
  // Loading 2 x 5 ms per batch on 2 threads (5 ms a step) against a 12 ms driving thread.
  const std::string p = profile("gpu_bound", cpu_pipeline_cmd({"--steps", "30", "--warmup-steps", "0", "--loader-threads", "2",
                                                               "--queue-depth", "4", "--cost", "sleep", "--io-ms", "1",
                                                               "--preprocess-ms", "4", "--h2d-ms", "1", "--compute-ms", "11",
                                                               "--first-step-ms", "100"}),
                                scratch);
  const nlohmann::json r = report_json(p, scratch);
  CHECK(r["steady_state"]["fill_steps"] == 0);
  CHECK(ms_per_step(r) == doctest::Approx(12.0).epsilon(0.08));
}

TEST_CASE("CPU clocks: the report's CPU section and whatif --workers from them") {
  ScratchDir scratch;
  const std::string p = profile("work", cpu_pipeline_cmd({"--steps", "20", "--warmup-steps", "1", "--cost", "work",
                                                          "--io-ms", "2", "--preprocess-ms", "12", "--h2d-ms", "1",
                                                          "--compute-ms", "4"}),
                                scratch);
  const nlohmann::json r = report_json(p, scratch);
  INFO("report: " << r.dump(2));
  REQUIRE(r.contains("cpu"));
  const auto cpus = r["cpu"]["cpus_allowed"].get<double>();
  CHECK(cpus >= 1);
  bool seen = false;
  for (const auto& s : r["cpu"]["stages"]) {
    if (s["stage"] != "cpu_preprocess") continue;
    seen = true;
    CHECK(s["driving_process"] == true);
    CHECK(s["ranges"].get<int>() >= 19);
    CHECK(s["on_cpu"].get<double>() > 0.3);  // real work (a loaded CI machine preempts some of it)
    CHECK(s["on_cpu"].get<double>() <= 1.05);
    CHECK(s["cores_busy"].get<double>() < 2.0);  // one thread: no pool
  }
  CHECK(seen);
  const nlohmann::json w = run_json({amdahl_bin(), "whatif", p, "--workers", "2", "--format", "json"}, scratch);
  INFO("whatif: " << w.dump(2));
  REQUIRE(w.contains("worker_cost"));
  CHECK(w["worker_cost"]["intra_op_measured"] == true);
  CHECK(w["worker_cost"]["intra_op_spinning"] == false);
  CHECK(w["worker_cost"]["intra_op"].get<double>() < 1.2);  // a single-threaded loader: nothing to take over
  // The cores bound: CPUs allowed x wall / the driving thread's CPU: at least the CPUs when it
  // was on a CPU all the time, more when it was preempted.
  REQUIRE(w["worker_cost"]["cpu_bound_speedup"].is_number());
  CHECK(w["worker_cost"]["cpu_bound_speedup"].get<double>() >= 0.95 * cpus);
  CHECK(w["simulated_speedup"].get<double>() <= w["worker_cost"]["cpu_bound_speedup"].get<double>() + 1e-9);
  REQUIRE(w["workers_range"].is_array());
  CHECK(w["workers_range"][0].get<double>() <= w["simulated_speedup"].get<double>() + 1e-9);
  CHECK(w["workers_range"][1].get<double>() >= w["simulated_speedup"].get<double>() - 1e-9);
}
