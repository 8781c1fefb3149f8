// The report's projection table (projections.hpp): replay figures are the what-if replays on
// the same graph; without a usable graph, classic only with the reason; the replay budget keeps
// big profiles to their largest stages.
#include <doctest/doctest.h>

#include "amdahl/analysis/projections.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "profile_builder.hpp"

using namespace amdahl;
using namespace amdahl::analysis;

namespace {

// Serial steps: disk_io 30, cpu_preprocess 20, gpu_compute 50 ms; a helper thread's h2d that
// overlaps (hidden, off the critical path).
format::Profile serial_profile() {
  test::ProfileBuilder b;
  for (int k = 0; k < 11; ++k) {
    const double t = 100.0 * k;
    b.stage(1, "step", t, t + 100)
        .stage(1, "disk_io", t, t + 30)
        .stage(1, "cpu_preprocess", t + 30, t + 50)
        .stage(1, "gpu_compute", t + 50, t + 100)
        .stage(2, "h2d", t + 10, t + 20);
  }
  return b.profile;
}

const StageProjection& row(const Projections& p, const std::string& stage) {
  for (const auto& s : p.stages)
    if (s.stage == stage) return s;
  FAIL("no row " << stage);
  return p.stages.front();
}

}  // namespace

TEST_CASE("projections: the replay figures are whatif's replays; a hidden stage gives exactly 1x") {
  const Report r = analyze(serial_profile());
  REQUIRE(r.graph);
  const Projections p = compute_projections(r);
  REQUIRE(p.replay);
  const auto names = r.stage_names();
  for (const auto& s : p.stages) {
    REQUIRE(s.replay);
    std::vector<double> f(names.size(), 1.0);
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == s.stage) f[i] = 4.0;
    CHECK(s.replay->x4 == doctest::Approx(simulated_speedup(r, f)).epsilon(1e-12));
  }
  // Serial run: replay and classic agree.
  CHECK(row(p, "gpu_compute").replay->x2 == doctest::Approx(row(p, "gpu_compute").classic.x2).epsilon(1e-3));
  CHECK(row(p, "gpu_compute").target_outcome == TargetOutcome::Reached);
  CHECK(*row(p, "gpu_compute").target_factor == doctest::Approx(0.5 / (0.8 - 0.5)).epsilon(0.006));
  // h2d ran beside the driving thread: off the critical path, 1x by replay, target not reachable.
  const auto& h = row(p, "h2d");
  CHECK(h.replay->limit == 1.0);
  CHECK(h.target_outcome == TargetOutcome::NotReachable);
  // disk_io (30%) reaches 1.25x at 0.3 / (0.8 - 0.7) = 3x.
  CHECK(*row(p, "disk_io").target_factor == doctest::Approx(3.0).epsilon(0.006));
  // The HTML's curves are reused: no new replay for 2x, 4x, 10x and the limit.
  WhatIfOptions wo;
  const WhatIf w = compute_whatif(r, {}, std::nullopt, wo);
  ProjectionOptions po;
  po.curves = &w.curves;
  const Projections reused = compute_projections(r, po);
  CHECK(reused.replays < p.replays);
  CHECK(row(reused, "disk_io").replay->x10 == doctest::Approx(row(p, "disk_io").replay->x10).epsilon(1e-12));
}

TEST_CASE("projections: without a usable graph, classic only and why") {
  Report r = analyze(serial_profile());
  r.graph.reset();
  r.exposed_basis = "driving_thread";
  r.notes.push_back(findings::DrivingThreadBasis{"empty graph"});
  const Projections p = compute_projections(r);
  CHECK_FALSE(p.replay);
  REQUIRE(p.classic_only_reason);
  const auto* why = std::get_if<findings::ClassicOnly>(&*p.classic_only_reason);
  REQUIRE(why);
  REQUIRE(why->graph_failure);
  CHECK(why->graph_failure->why == "empty graph");
  for (const auto& s : p.stages) CHECK_FALSE(s.replay);
  CHECK(*row(p, "gpu_compute").target_factor == doctest::Approx(0.5 / (0.8 - 0.5)).epsilon(1e-9));
  CHECK(p.replays == 0);
}

TEST_CASE("projections: the replay budget keeps the largest stages") {
  const Report r = analyze(serial_profile());
  ProjectionOptions po;
  po.node_replay_budget = 1;  // the first (largest) stage only
  const Projections p = compute_projections(r, po);
  CHECK(row(p, "gpu_compute").replay);
  CHECK_FALSE(row(p, "disk_io").replay);
  CHECK_FALSE(row(p, "cpu_preprocess").replay);
  // Without a replay, the target is classic Amdahl's.
  CHECK(*row(p, "disk_io").target_factor == doctest::Approx(3.0).epsilon(1e-9));
}
