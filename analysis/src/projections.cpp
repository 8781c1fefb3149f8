// The report's projection table: classic Amdahl beside the replay, per stage, and the factor
// each stage needs for a target from the replay (projections.hpp).
#include "amdahl/analysis/projections.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/next_actions.hpp"

namespace amdahl::analysis {
namespace {

constexpr double kRemoved = 1e9;  // the factor that leaves nothing of a stage (as whatif's limit)

bool shown(const StageRow& s) { return !s.is_other && (s.exposed_ns > 0.5 || s.total_ns > 0.5 || s.gpu_busy_ns > 0); }

// Why a report has no replay: its note that the graph could not be used says it.
findings::ClassicOnly fallback_reason(const Report& r) {
  for (const auto& n : r.notes)
    if (const auto* why = std::get_if<findings::DrivingThreadBasis>(&n)) return {*why};
  return {};
}

const StageCurve* curve_of(const ProjectionOptions& o, const std::string& stage) {
  if (!o.curves) return nullptr;
  for (const auto& c : *o.curves)
    if (c.stage == stage) return &c;
  return nullptr;
}

std::optional<double> curve_point(const StageCurve* c, double k) {
  if (!c) return std::nullopt;
  for (const auto& p : c->points)
    if (p.factor == k) return p.simulated;
  return std::nullopt;
}

}  // namespace

Projections compute_projections(const Report& r, const ProjectionOptions& o) {
  Projections p;
  p.computed = true;
  p.target = o.target;
  p.max_factor = o.max_factor;
  p.replay = r.graph && r.exposed_basis == "critical_path";
  if (!p.replay) p.classic_only_reason = fallback_reason(r);
  p.replay_lower_bounds = p.replay && r.path.unlinked_waits_on_path > 0;
  const auto names = r.stage_names();
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < names.size() && i < r.stages.size(); ++i)
    if (shown(r.stages[i])) idx.push_back(i);
  p.stages.resize(idx.size());
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const StageRow& s = r.stages[idx[k]];
    StageProjection& sp = p.stages[k];
    sp.stage = s.name;
    sp.fraction = s.fraction;
    const double whole = s.exposed_host_ns + s.exposed_gpu_ns;
    sp.classic_share = std::clamp(s.on_gpu && whole > 0 ? s.fraction * s.exposed_gpu_ns / whole : s.fraction, 0.0, 1.0);
    const double q = sp.classic_share;
    sp.classic = {amdahl_speedup(q, 2), amdahl_speedup(q, 4), amdahl_speedup(q, 10), amdahl_limit(q)};
  }
  if (!p.replay) {
    for (StageProjection& sp : p.stages) {
      const auto f = factor_for_target(sp.classic_share, o.target);
      sp.target_outcome = !f ? TargetOutcome::NotReachable
                             : (*f <= o.max_factor ? TargetOutcome::Reached : TargetOutcome::BeyondSearch);
      if (f && *f <= o.max_factor) sp.target_factor = *f;
    }
    return p;
  }
  // Replays: the stages with the most exposed time first, while the budget lasts.
  std::vector<std::size_t> order(idx.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p.stages[a].fraction > p.stages[b].fraction; });
  const double nodes = std::max<double>(1.0, static_cast<double>(r.graph->nodes.size()));
  double spent = 0;
  std::vector<double> f(names.size(), 1.0);
  for (const std::size_t k : order) {
    StageProjection& sp = p.stages[k];
    const std::size_t i = idx[k];
    const StageRow& s = r.stages[i];
    if (s.exposed_ns <= 0) {
      // Off the critical path: scaling its work leaves the path's chain as it was, so every
      // replay gives exactly the recorded window (1x), and no factor reaches a target > 1.
      sp.replay = SpeedupPoints{};
      sp.target_outcome = o.target <= 1 ? TargetOutcome::Reached : TargetOutcome::NotReachable;
      if (o.target <= 1) sp.target_factor = 1.0;
      continue;
    }
    const StageCurve* c = curve_of(o, s.name);
    auto replayed = [&](double factor) {
      if (auto v = curve_point(c, factor)) return *v;
      if (factor == kRemoved && c) return c->simulated_limit;
      f[i] = factor;
      const double v = simulated_speedup(r, f);
      f[i] = 1.0;
      ++p.replays;
      spent += nodes;
      return v;
    };
    const double need = 4 * nodes;  // at most four new replays for the table
    if (spent > 0 && spent + need > o.node_replay_budget && !c) continue;  // classic only (noted by renderers)
    SpeedupPoints pts;
    pts.x2 = replayed(2);
    pts.x4 = replayed(4);
    pts.x10 = replayed(10);
    pts.limit = replayed(kRemoved);
    sp.replay = pts;
    const FactorSearch fs = factor_for_speedup(
        [&](double factor) { return replayed(factor); }, o.target, pts.limit,
        {{2.0, pts.x2}, {4.0, pts.x4}, {10.0, pts.x10}},
        FactorSearchOptions{1.0, o.max_factor, 0.005, 40});
    sp.target_outcome = fs.outcome;
    sp.target_factor = fs.factor;
  }
  // Stages the budget left without a replay fall back to classic targets.
  for (StageProjection& sp : p.stages)
    if (!sp.replay) {
      const auto t = factor_for_target(sp.classic_share, o.target);
      sp.target_outcome = !t ? TargetOutcome::NotReachable
                             : (*t <= o.max_factor ? TargetOutcome::Reached : TargetOutcome::BeyondSearch);
      if (t && *t <= o.max_factor) sp.target_factor = *t;
    }
  return p;
}

UserWhatIf summarize_user_whatif(const WhatIf& w) {
  UserWhatIf u;
  for (const auto& req : w.requests) u.speedups.emplace_back(req.host ? req.stage + ":host" : req.stage, req.factor);
  u.classic = w.naive_speedup;
  u.replay = w.simulated_speedup;
  u.replayed = w.simulation_implemented;
  u.replay_low = w.simulated_interval.low;
  u.replay_high = w.simulated_interval.high;
  u.bottleneck_line = w.bottleneck_line;
  u.bounds = w.bounds.any;
  return u;
}

void add_guidance(Report& report, const GuidanceInputs& in) {
  report.guidance.projections = compute_projections(report, in.projection);
  if (in.user_whatif) report.guidance.user_whatif = summarize_user_whatif(*in.user_whatif);
  report.guidance.next_actions = next_actions(report, report.guidance.projections, in.profile_arg);
}

}  // namespace amdahl::analysis
