// The report's and whatif's JSON fields, text output, verdicts, bootstrap reproducibility,
// unknown stages, and per-step statistics.
#include <doctest/doctest.h>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/bootstrap.hpp"
#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/stage_stats.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "amdahl/render/finding_text.hpp"
#include "amdahl/render/renderers.hpp"
#include "profile_builder.hpp"

using namespace amdahl::analysis;
using namespace amdahl::render;
using amdahl::test::ms;
using amdahl::test::ProfileBuilder;

namespace {
// Serial: per step ~50 ms disk_io (+-1 ms jitter) + 60 ms gpu_compute.
ProfileBuilder serial(int steps = 12) {
  ProfileBuilder b;
  double t = 0;
  for (int k = 0; k < steps; ++k) {
    const double io = 50 + (k % 3) - 1;
    b.stage(1, "step", t, t + io + 60).stage(1, "disk_io", t, t + io).stage(1, "gpu_compute", t + io, t + io + 60);
    t += io + 60;
  }
  b.profile.meta["command"] = "train.py";
  b.profile.records.diagnostics.push_back({1, b.s("unbalanced_pop"), 3, b.s("pop without push")});
  return b;
}
}  // namespace

TEST_CASE("report JSON has the documented fields (docs/architecture.md)") {
  const Report r = analyze(serial().profile);
  const auto j = report_to_json(r);
  for (const char* k : {"wall_ns", "steps", "stages", "gpu", "notes", "diagnostics", "verdict", "step_stats"})
    CHECK_MESSAGE(j.contains(k), k);
  CHECK(j["steps"] == 11);
  std::int64_t sum_exposed = 0;
  double sum_fraction = 0;
  for (const auto& s : j["stages"]) {
    for (const char* k : {"name", "exposed_ns", "fraction", "total_ns", "hidden_ns"}) CHECK_MESSAGE(s.contains(k), k);
    sum_exposed += s["exposed_ns"].get<std::int64_t>();
    sum_fraction += s["fraction"].get<double>();
  }
  CHECK(sum_exposed == j["wall_ns"].get<std::int64_t>());
  CHECK(sum_fraction == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(j["stages"].back()["name"] == "other");
  CHECK(j["diagnostics"][0]["key"] == "unbalanced_pop");
  CHECK(j["profile"]["command"] == "train.py");
  CHECK(j["gpu"]["present"] == false);
}

TEST_CASE("report text and verdict") {
  const Report r = analyze(serial().profile);
  const std::string text = report_to_text(r);
  CHECK(text.find("disk_io") != std::string::npos);
  CHECK(text.find("verdict: ") != std::string::npos);
  CHECK(text.find("unbalanced_pop") != std::string::npos);
  CHECK(to_text(r.verdict).rfind("compute bound: 55% of each step is exposed GPU compute", 0) == 0);

  std::vector<StageRow> rows(3);
  rows[0].name = "disk_io"; rows[0].fraction = 0.30;
  rows[1].name = "cpu_preprocess"; rows[1].fraction = 0.13;
  rows[2].name = "other"; rows[2].is_other = true; rows[2].fraction = 0.57;
  CHECK(to_text(verdict_line(rows, true)).rfind("unannotated: 57%", 0) == 0);
  rows[2].fraction = 0.2;
  rows.insert(rows.begin() + 2, StageRow{});
  rows[2].name = "gpu_compute"; rows[2].fraction = 0.37;
  CHECK(to_text(verdict_line(rows, true)) ==
        "input bound: 43% of each step is exposed data loading (disk_io 30%, cpu_preprocess 13%)");
  rows[0].fraction = 0.1; rows[1].fraction = 0.1; rows[2].fraction = 0.25;
  CHECK(to_text(verdict_line(rows, true)).rfind("no dominant stage", 0) == 0);
}

TEST_CASE("verdict: the host parts of GPU stages and launch calls are one group, beside many user stages") {
  // A GPU stage mostly host part, then user stages (each a group of its own: the group list
  // grows while the host parts are added to the launch group).
  std::vector<StageRow> rows(1);
  rows[0].name = "gpu_compute"; rows[0].on_gpu = true; rows[0].fraction = 0.40;
  rows[0].exposed_host_ns = 30; rows[0].exposed_gpu_ns = 10;
  for (int i = 0; i < 20; ++i) {
    StageRow u;
    u.name = "user" + std::to_string(i);
    u.fraction = 0.01;
    rows.push_back(u);
  }
  StageRow other;
  other.name = "other"; other.is_other = true; other.fraction = 0.40;
  rows.push_back(other);
  CHECK(to_text(verdict_line(rows, true, 0.2)) ==
        "launch bound (host overhead): 50% of each step is exposed host time launching GPU work (gpu_compute host "
        "part 30%, launch calls outside stages 20%); a faster GPU shortens none of it");
  CHECK(to_text(verdict_line(rows, true, 0.0)).rfind("unannotated: 40%", 0) == 0);
}

TEST_CASE("whatif: numbers, fields, reproducible interval, unknown stage") {
  const Report r = analyze(serial().profile);
  const double p = r.find_stage("disk_io")->fraction;
  const WhatIf w = compute_whatif(r, {{"disk_io", 10.0}}, 3.0);
  CHECK(w.naive_speedup == doctest::Approx(1.0 / ((1 - p) + p / 10)));
  // Serial: the replay agrees with classic Amdahl, and it is a real replay.
  CHECK(w.simulated_speedup == doctest::Approx(w.naive_speedup).epsilon(1e-3));
  CHECK(w.simulation_implemented);
  CHECK(r.exposed_basis == "critical_path");
  CHECK(w.simulated_interval.low <= w.simulated_speedup * 1.0001);
  CHECK(w.simulated_interval.high >= w.simulated_speedup * 0.9999);
  CHECK_FALSE(w.bounds.any);
  CHECK(w.naive_interval.low <= w.naive_speedup);
  CHECK(w.naive_interval.high >= w.naive_speedup);
  CHECK(w.naive_interval.high > w.naive_interval.low);  // jitter gives a real interval
  const WhatIf again = compute_whatif(r, {{"disk_io", 10.0}}, 3.0);
  CHECK(again.naive_interval.low == w.naive_interval.low);
  CHECK(again.naive_interval.high == w.naive_interval.high);

  const auto j = whatif_to_json(r, w);
  for (const char* k : {"wall_ns", "steps", "stages", "naive_speedup", "simulated_speedup", "naive_interval",
                        "simulated_interval", "simulation", "target"})
    CHECK_MESSAGE(j.contains(k), k);
  CHECK(j["naive_interval"].size() == 2);
  CHECK(j["simulation"]["implemented"] == true);
  CHECK(j["simulation"]["bounds"]["any"] == false);
  CHECK(j.contains("driving_thread_view"));
  CHECK(j["exposed_basis"] == "critical_path");
  REQUIRE(j["curves"].size() == 2);  // disk_io and gpu_compute have work
  for (const auto& c : j["curves"]) {
    double prev = 0;
    for (const auto& pt : c["points"]) {
      CHECK(pt["simulated"].get<double>() >= prev - 1e-9);  // more speed never hurts
      prev = pt["simulated"].get<double>();
    }
    CHECK(c["simulated_limit"].get<double>() >= prev - 1e-9);
  }
  // 3x overall is beyond either stage's limit (1/(1-p) < 2.3).
  int rows = 0;
  for (const auto& row : j["target"]["stages"]) {
    if (row["fraction"].get<double>() <= 0) continue;
    ++rows;
    CHECK(row["achievable"] == false);
    CHECK(row["factor_needed"].is_null());
    CHECK(row["simulated_achievable"] == false);
    CHECK(row["simulated_factor_needed"].is_null());
  }
  CHECK(rows == 2);
  const WhatIf t = compute_whatif(r, {}, 1.5);
  bool found = false;
  for (const auto& row : t.target_rows)
    if (row.stage == "gpu_compute") {
      found = true;
      REQUIRE(row.factor);
      CHECK(amdahl_speedup(row.fraction, *row.factor) == doctest::Approx(1.5));
      REQUIRE(row.simulated_factor);  // bisection over replays lands on the target
      CHECK(*row.simulated_factor == doctest::Approx(*row.factor).epsilon(0.01));
    }
  CHECK(found);

  CHECK_THROWS_AS(compute_whatif(r, {{"gpu", 2.0}}, std::nullopt), InputError);
  try {  // the typed problem: the stage asked for and the stages there are
    compute_whatif(r, {{"gpu", 2.0}}, std::nullopt);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "unknown_stage");
    REQUIRE(e.problem() != nullptr);
    const auto* unknown = std::get_if<problems::UnknownStage>(e.problem());
    REQUIRE(unknown != nullptr);
    CHECK(unknown->stage == "gpu");
    CHECK(unknown->known == r.stage_names());
  }
  CHECK_THROWS_AS(compute_whatif(r, {{"h2d", 2.0}, {"h2d", 3.0}}, std::nullopt), UsageError);
  try {
    compute_whatif(r, {{"h2d", 2.0}, {"h2d", 3.0}}, std::nullopt);
  } catch (const UsageError& e) {
    const auto* twice = e.problem() ? std::get_if<problems::StageGivenTwice>(e.problem()) : nullptr;
    REQUIRE(twice != nullptr);
    CHECK(twice->stage == "h2d");
    CHECK_FALSE(twice->host);
  }
  CHECK(compute_whatif(r, {{"h2d", 2.0}}, std::nullopt).naive_speedup == doctest::Approx(1.0));  // absent stage
  CHECK(whatif_to_text(r, w).find("classic Amdahl") != std::string::npos);
}

TEST_CASE("StageStats: exact percentiles and moments") {
  StageStats s;
  for (int i = 1; i <= 100; ++i) s.add(i);
  const auto sum = s.summary();
  CHECK(sum.count == 100);
  CHECK(sum.mean == doctest::Approx(50.5));
  CHECK(sum.median == doctest::Approx(50.5));
  CHECK(sum.p95 == doctest::Approx(95.05));
  CHECK(sum.min == 1);
  CHECK(sum.max == 100);
  CHECK(sum.stddev == doctest::Approx(28.866).epsilon(1e-3));  // population stddev
  CHECK(sum.exact_percentiles);
  StageStats copy = s;
  copy.add(1000);
  CHECK(s.summary().count == 100);
  CHECK(copy.summary().max == 1000);
  StageStats big;
  for (int i = 0; i < 20000; ++i) big.add(i % 1000);
  CHECK_FALSE(big.summary().exact_percentiles);
  CHECK(big.summary().median == doctest::Approx(500).epsilon(0.05));
  CHECK(StageStats().summary().count == 0);
}

TEST_CASE("bootstrap: constant steps give a zero-width interval") {
  std::vector<std::vector<double>> ex(20, {5.0, 5.0});
  std::vector<double> span(20, 10.0);
  auto iv = bootstrap_interval(ex, span, [](const std::vector<double>& f) { return amdahl_speedup(f[0], 2.0); });
  CHECK(iv.low == doctest::Approx(1.0 / 0.75));
  CHECK(iv.high == doctest::Approx(1.0 / 0.75));
}
