// The CI validation suite (issue 6 item 5): for each pair of cpu_pipeline runs (sleep costs,
// serial and pipelined, 1-4 loader threads, queue depth 1-8) in which one stage's cost (or the
// number of loader threads) changes,
// `amdahl validate base improved` must predict the measured speedup within 3% with the
// simulated (replay) model; pairs where the changed stage was hidden must show ~no speedup, and
// pairs where the bottleneck moves must show classic Amdahl overestimating. Prints the table;
// AMDAHL_VALIDATION_TABLE=FILE also writes it as markdown (docs/validation.md). A pair is
// measured up to 3 times when a busy machine stretches its sleeps unevenly (the table says how
// many times).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "../e2e/e2e_support.hpp"

namespace {

using namespace amdahl::e2e;

struct Init {
  Init() { require_built({cpu_pipeline_bin(), amdahl_bin(), collector_lib()}); }
} init;

// Exposed: the changed stage is on the critical path and stays the bottleneck (or the run is
// serial). Hidden: it is off the path, the run does not get faster. Moves: the bottleneck moves
// to another stage; Over: moves, and classic Amdahl (blind to the overlap) overestimates.
enum class Kind { Exposed, Hidden, Moves, Over };

struct Pair {
  std::string name;
  Kind kind;
  int loaders, depth;
  double io, pre, h2d, compute;  // base costs, ms per batch
  std::string stage;             // the one that changes ("loaders": the number of loader threads)
  double improved_ms;            // its cost in the improved run (or the improved loader count)
};

constexpr int kSteps = 24;
constexpr int kWarmup = 3;

std::vector<std::string> command(const Pair& p, bool improved) {
  auto cost = [&](const std::string& stage, double v) {
    return (improved && p.stage == stage) ? p.improved_ms : v;
  };
  auto fmt = [](double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  return cpu_pipeline_cmd({"--steps", std::to_string(kSteps), "--warmup-steps", std::to_string(kWarmup),
                           "--cost", "sleep", "--loader-threads",
                           std::to_string(improved && p.stage == "loaders" ? static_cast<int>(p.improved_ms) : p.loaders),
                           "--queue-depth",
                           std::to_string(p.depth), "--io-ms", fmt(cost("disk_io", p.io)), "--preprocess-ms",
                           fmt(cost("cpu_preprocess", p.pre)), "--h2d-ms", fmt(cost("h2d", p.h2d)),
                           "--compute-ms", fmt(cost("gpu_compute", p.compute))});
}

const char* kind_name(Kind k) {
  return k == Kind::Hidden ? "hidden" : k == Kind::Moves ? "moves" : k == Kind::Over ? "moves, classic over" : "exposed";
}

// The checks of one pair, defined once: the retry loop asks all(), the test case CHECKs each
// (a check that does not apply to the pair's kind holds).
struct PairChecks {
  bool simulation_implemented, simulated_within_3pct, hidden_without_speedup, bottleneck_moved,
      classic_overestimates;
  bool all() const {
    return simulation_implemented && simulated_within_3pct && hidden_without_speedup && bottleneck_moved &&
           classic_overestimates;
  }
};

PairChecks check_pair(const Pair& p, const nlohmann::json& v) {
  const double measured = v["measured_speedup"].get<double>();
  const double naive_err = v["naive_error"].get<double>();
  const double sim_err = v["simulated_error"].get<double>();
  const bool moves = p.kind == Kind::Moves || p.kind == Kind::Over;
  return {v["simulation_implemented"] == true, std::abs(sim_err) <= 0.03,
          p.kind != Kind::Hidden || std::abs(measured - 1.0) <= 0.03, !moves || v["bottleneck"]["moved"] == true,
          p.kind != Kind::Over || naive_err > sim_err + 0.03};
}

constexpr int kAttempts = 3;

}  // namespace

TEST_CASE("validation suite: simulated error <= 3% on every pair") {
  // name, kind, loaders, depth, io, pre, h2d, compute, stage, improved cost
  const std::vector<Pair> pairs = {
      {"serial preprocess 10->5", Kind::Exposed, 0, 1, 3, 10, 2, 12, "cpu_preprocess", 5},
      {"serial compute 12->4", Kind::Exposed, 0, 1, 3, 10, 2, 12, "gpu_compute", 4},
      {"serial disk_io 3->9 (slower)", Kind::Exposed, 0, 1, 3, 10, 2, 12, "disk_io", 9},
      {"L1 Q2 driver-bound, preprocess 10->5", Kind::Hidden, 1, 2, 3, 10, 2, 15, "cpu_preprocess", 5},
      {"L1 Q2 driver-bound, compute 15->5", Kind::Over, 1, 2, 3, 10, 2, 15, "gpu_compute", 5},
      {"L1 Q1 input-bound, h2d 3->1", Kind::Hidden, 1, 1, 5, 15, 3, 9, "h2d", 1},
      {"L1 Q4 input-bound, preprocess 15->6", Kind::Over, 1, 4, 5, 15, 3, 9, "cpu_preprocess", 6},
      {"L2 Q4 input-bound, preprocess 25->10", Kind::Over, 2, 4, 3, 25, 2, 8, "cpu_preprocess", 10},
      {"L2 Q3 input-bound, disk_io 8->1", Kind::Moves, 2, 3, 8, 14, 2, 7, "disk_io", 1},
      {"L3 Q1 driver-bound, compute 14->4", Kind::Over, 3, 1, 3, 27, 2, 14, "gpu_compute", 4},
      {"L4 Q8 driver-bound, compute 12->6", Kind::Over, 4, 8, 4, 40, 2, 12, "gpu_compute", 6},
      {"L4 Q8 driver-bound, preprocess 40->20", Kind::Hidden, 4, 8, 4, 40, 2, 12, "cpu_preprocess", 20},
      {"Q4 input-bound, loader threads 1->2", Kind::Exposed, 1, 4, 3, 25, 2, 8, "loaders", 2},
  };
  ScratchDir scratch;
  std::string table =
      "| pair | kind | loaders | depth | base ms/step | improved ms/step | measured | classic | simulated | "
      "classic error | simulated error | attempts |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  double worst = 0;
  int index = 0;
  for (const Pair& p : pairs) {
    ++index;
    // Sleep costs overshoot by a few per cent when the machine is busy (CI runs tests in
    // parallel), and a run whose stages overshot unevenly is a measurement off, not the model:
    // up to kAttempts pairs of runs, the first that meets every check kept; all are printed.
    nlohmann::json v;
    int attempts = 0;
    for (;;) {
      ++attempts;
      const std::string tag = std::to_string(index) + "_" + std::to_string(attempts);
      const std::string base = profile("base" + tag, command(p, false), scratch);
      const std::string improved = profile("improved" + tag, command(p, true), scratch);
      v = run_json({amdahl_bin(), "validate", base, improved, "--warmup", std::to_string(kWarmup), "--format", "json"},
                   scratch);
      if (check_pair(p, v).all() || attempts == kAttempts) break;
      std::printf("pair %s, attempt %d: simulated error %+.1f%%, measured %.3fx; measuring again\n", p.name.c_str(),
                  attempts, v["simulated_error"].get<double>() * 100, v["measured_speedup"].get<double>());
    }
    INFO("pair " << p.name << " (attempt " << attempts << "): " << v.dump(2));
    const double measured = v["measured_speedup"].get<double>();
    const double naive = v["predicted_naive"].get<double>();
    const double sim = v["predicted_simulated"].get<double>();
    const double naive_err = v["naive_error"].get<double>();
    const double sim_err = v["simulated_error"].get<double>();
    const PairChecks c = check_pair(p, v);  // the values are in the INFO above
    CHECK(c.simulation_implemented);
    CHECK(c.simulated_within_3pct);
    CHECK(c.hidden_without_speedup);
    CHECK(c.bottleneck_moved);
    CHECK(c.classic_overestimates);  // classic Amdahl overestimates where the bottleneck moved
    worst = std::max(worst, std::abs(sim_err));
    char row[512];
    std::snprintf(row, sizeof row, "| %s | %s | %d | %d | %.2f | %.2f | %.3fx | %.3fx | %.3fx | %+.1f%% | %+.1f%% | %d |\n",
                  p.name.c_str(), kind_name(p.kind), p.loaders, p.depth, v["base"]["ms_per_step"].get<double>(),
                  v["improved"]["ms_per_step"].get<double>(), measured, naive, sim, naive_err * 100, sim_err * 100, attempts);
    table += row;
    std::printf("%s", row);
    std::fflush(stdout);
  }
  std::printf("\n%s\nworst |simulated error| = %.2f%% (bound 3%%)\n", table.c_str(), worst * 100);
  if (const char* out = std::getenv("AMDAHL_VALIDATION_TABLE"); out && *out) std::ofstream(out) << table;
}
