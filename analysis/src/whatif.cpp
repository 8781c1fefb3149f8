// What-if: the classic projection and the replay of the dependency graph with
// bootstrap intervals; where the bottleneck moves; curves; target factors; bounds.
#include "amdahl/analysis/whatif.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/errors.hpp"

namespace amdahl::analysis {

findings::BottleneckMove bottleneck_move(const std::string& verb, std::size_t workers,
                                         std::vector<std::pair<std::string, double>> changes, const WhatIf& w,
                                         bool per_step) {
  findings::BottleneckMove m;
  m.verb = verb;
  m.workers = workers;
  m.changes = std::move(changes);
  m.before_stage = w.bottleneck_before.stage;
  m.before_fraction = w.bottleneck_before.fraction;
  m.after_stage = w.bottleneck_after.stage;
  m.after_fraction = w.bottleneck_after.fraction;
  m.per_step = per_step;
  return m;
}

bool WhatIf::target_reachable() const {
  for (const auto& t : target_rows)
    if ((t.factor && !workers) || t.simulated_factor) return true;
  return false;
}

double simulated_speedup(const Report& report, const std::vector<double>& factors) {
  if (!report.graph) throw InputError("no dependency graph to replay");
  const ReplayResult r = replay(*report.graph, factors);
  return r.window_ns > 0 ? static_cast<double>(report.wall_ns) / static_cast<double>(r.window_ns)
                         : std::numeric_limits<double>::infinity();
}

namespace {

constexpr double kRemoved = 1e9;  // a factor that leaves nothing of a stage's work

// The largest stage (not `other`) in a critical path's shares.
StageShare top_stage(const std::vector<std::string>& names, const std::vector<double>& exposed) {
  double sum = 0;
  for (double x : exposed) sum += x;
  StageShare best;
  for (std::size_t i = 0; i < names.size() && i < exposed.size(); ++i)
    if (sum > 0 && exposed[i] / sum > best.fraction) best = {names[i], exposed[i] / sum};
  return best;
}

// Smallest factor for stage `idx` whose replay reaches `target` (bisection in log space;
// the replayed speedup does not decrease with the factor). nullopt when none suffices.
std::optional<double> simulated_factor_for(const Report& report, std::size_t idx, double target, double limit) {
  if (limit < target * (1 - 1e-9)) return std::nullopt;
  std::vector<double> f(report.stage_names().size(), 1.0);
  auto at = [&](double k) { f[idx] = k; return simulated_speedup(report, f); };
  double lo = 1e-3, hi = kRemoved;
  if (at(lo) >= target) return lo;
  if (at(1.0) >= target) hi = 1.0; else lo = 1.0;
  for (int it = 0; it < 60 && hi / lo > 1.0005; ++it) {
    const double mid = std::sqrt(lo * hi);
    if (at(mid) >= target) hi = mid; else lo = mid;
  }
  return hi;
}

}  // namespace

namespace {

// One --speedup request resolved to its stage's index.
struct Factor {
  std::size_t idx;
  double k;
  bool host;
};

// Step 1: the requests checked against the profile's stages.
std::vector<Factor> resolve_factors(const Report& report, const std::vector<std::string>& names,
                                    const std::vector<SpeedupRequest>& requests) {
  std::set<std::string> seen;
  std::vector<Factor> factors;
  for (const auto& req : requests) {
    std::size_t idx = names.size();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == req.stage) idx = i;
    if (idx == names.size()) throw InputError(problems::UnknownStage{req.stage, names});
    const std::string key = req.host ? req.stage + ":host" : req.stage;
    if (!seen.insert(key).second) throw UsageError(problems::StageGivenTwice{req.stage, req.host});
    if (req.host && !report.stages[idx].on_gpu) throw UsageError(problems::HostPartWithoutGpu{req.stage});
    factors.push_back({idx, req.factor, req.host});
  }
  return factors;
}

// The classic projection of a set of stage fractions. A GPU stage's factor scales its GPU part,
// or its host part: the share of the stage's exposed time that part holds.
struct ClassicProjection {
  const Report* report;
  const std::vector<Factor>* factors;

  double part_share(const Factor& f) const {
    const StageRow& s = report->stages[f.idx];
    const double whole = s.exposed_host_ns + s.exposed_gpu_ns;
    if (!s.on_gpu || whole <= 0) return 1.0;
    return (f.host ? s.exposed_host_ns : s.exposed_gpu_ns) / whole;
  }
  double operator()(const std::vector<double>& fractions) const {
    std::vector<StageSpeedup> v;
    for (const auto& f : *factors) v.push_back({std::clamp(fractions[f.idx] * part_share(f), 0.0, 1.0), f.k});
    return amdahl_speedup(v);
  }
};

// The bootstrap draws resamples x steps indices: with very many steps, fewer resamples keep it
// to ~2e7 draws (at least 200 resamples; a ratio of sums over >10^4 steps varies little).
WhatIfOptions bounded_bootstrap(const WhatIfOptions& options, std::size_t steps) {
  WhatIfOptions opts = options;
  if (steps > 0 && opts.bootstrap.resamples * steps > 20'000'000)
    opts.bootstrap.resamples = std::max<std::size_t>(200, 20'000'000 / steps);
  return opts;
}

// Without a dependency graph the simulated figures repeat the classic ones.
void without_replay(WhatIf& w, const Report& report) {
  w.simulated_speedup = w.naive_speedup;
  w.simulated_interval = w.naive_interval;
  w.simulated_wall_ns = w.projected_wall_ns;
  w.simulation_implemented = false;
  w.notes.push_back(findings::NoReplay{});
  if (report.exposure.bounds) {
    w.bounds.any = true;
    w.bounds.direction = "unknown";
    w.bounds.projections = {"naive_speedup", "simulated_speedup"};
    w.notes.push_back(findings::NoReplayBounds{});
  }
}

// The replayed speed-up's interval: resampled step spans, the ratio of their recorded to their
// replayed length (with the classic interval from the same draws when `joint`).
void replay_intervals(WhatIf& w, const Report& report, const ReplayResult& rr, const ClassicProjection& project,
                      const WhatIfOptions& opts, bool per_step, bool joint) {
  if (!per_step || rr.span_ns.size() != report.exposure.span_ns.size()) {
    w.simulated_interval = {w.simulated_speedup, w.simulated_speedup};
    return;
  }
  std::vector<std::vector<double>> replayed(rr.span_ns.size());
  for (std::size_t k = 0; k < rr.span_ns.size(); ++k) replayed[k] = {static_cast<double>(rr.span_ns[k])};
  auto ratio = [](const std::vector<double>& q) {
    return q[0] > 0 ? 1.0 / q[0] : std::numeric_limits<double>::infinity();
  };
  if (joint) {
    const auto both = bootstrap_intervals({{&report.exposure.span_exposed, &report.exposure.span_ns, project},
                                           {&replayed, &report.exposure.span_ns, ratio}},
                                          opts.bootstrap);
    w.naive_interval = both[0];
    w.simulated_interval = both[1];
  } else {
    w.simulated_interval = bootstrap_interval(replayed, report.exposure.span_ns, ratio, opts.bootstrap);
  }
}

// Where the bottleneck goes, and the stage shares of the replayed critical path.
void bottleneck_moves(WhatIf& w, const Report& report, const std::vector<std::string>& names,
                      const CriticalPath& after, const std::vector<SpeedupRequest>& requests, bool per_step) {
  w.bottleneck_before = top_stage(names, report.path.exposed_ns);
  w.bottleneck_after = top_stage(names, after.exposed_ns);
  double sum = 0;
  for (double x : after.exposed_ns) sum += x;
  for (std::size_t i = 0; i < after.exposed_ns.size(); ++i)
    w.after_fractions.push_back({i < names.size() ? names[i] : std::string(kOtherStage),
                                 sum > 0 ? after.exposed_ns[i] / sum : 0.0});
  if (requests.empty()) return;
  std::vector<std::pair<std::string, double>> changes;
  for (const auto& r : requests) changes.emplace_back(r.host ? r.stage + ":host" : r.stage, r.factor);
  w.bottleneck_line = bottleneck_move("after", 0, std::move(changes), w, per_step);
}

// Honest limits: waits nothing explains keep their recorded length in every replay.
void replay_bounds(WhatIf& w, const Report& report, const ReplayGraph& g, const CriticalPath& after,
                   const std::vector<Factor>& factors) {
  SimulationBounds& b = w.bounds;
  b.unlinked_waits = g.unlinked_waits;
  b.linked_waits = g.linked_waits;
  b.dropped_backward_edges = g.dropped_backward_edges;
  b.unlinked_waits_on_path = std::max(report.path.unlinked_waits_on_path, after.unlinked_waits_on_path);
  b.unlinked_wait_ns_on_path = std::max(report.path.unlinked_wait_ns_on_path, after.unlinked_wait_ns_on_path);
  if (b.unlinked_waits_on_path == 0) return;
  b.any = true;
  bool faster = false, slower = false;
  for (const auto& x : factors) (x.k >= 1 ? faster : slower) = true;
  b.direction = faster && slower ? "unknown" : (slower ? "upper" : "lower");
  const std::string dir = b.direction == "unknown" ? "bound" : b.direction + " bound";
  b.projections = {"simulated_speedup (" + dir + ")", "simulated_interval (" + dir + ")",
                   "naive_speedup (" + dir + ")", "curves (lower bounds for factors > 1)",
                   "target factors (upper bounds on the factor needed)"};
  w.notes.push_back(findings::UnlinkedReplayWaits{b.unlinked_waits_on_path, b.unlinked_wait_ns_on_path, b.direction});
}

// Curves: every stage with work in the window, classic and replayed, at each factor.
std::vector<StageCurve> stage_curves(const Report& report, const std::vector<std::string>& names,
                                     const std::vector<double>& curve_factors) {
  std::vector<StageCurve> curves;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (report.stages[i].total_ns <= 0 && report.stages[i].exposed_ns <= 0) continue;
    StageCurve c;
    c.stage = names[i];
    c.fraction = report.stages[i].fraction;
    const double p = std::clamp(c.fraction, 0.0, 1.0);
    c.amdahl_limit = amdahl_limit(p);
    std::vector<double> fi(names.size(), 1.0);
    for (double k : curve_factors) {
      fi[i] = k;
      c.points.push_back({k, amdahl_speedup(p, k), simulated_speedup(report, fi)});
    }
    fi[i] = kRemoved;
    c.simulated_limit = simulated_speedup(report, fi);
    curves.push_back(std::move(c));
  }
  return curves;
}

// The factor each stage alone would need for an overall `target`, classic and replayed.
std::vector<TargetRow> target_rows(const Report& report, const std::vector<std::string>& names, double target) {
  std::vector<TargetRow> rows;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const StageRow& s = report.stages[i];
    if (s.total_ns <= 0 && s.exposed_ns <= 0) continue;  // no time: no factor of it changes anything
    const double p = std::clamp(s.fraction, 0.0, 1.0);
    TargetRow row{s.name, s.fraction, factor_for_target(p, target), amdahl_limit(p), std::nullopt, 1.0};
    if (report.graph) {
      std::vector<double> fi(names.size(), 1.0);
      fi[i] = kRemoved;
      row.simulated_limit = simulated_speedup(report, fi);
      row.simulated_factor = simulated_factor_for(report, i, target, row.simulated_limit);
    } else {
      row.simulated_factor = row.factor;
      row.simulated_limit = row.limit;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

WhatIf compute_whatif(const Report& report, const std::vector<SpeedupRequest>& requests,
                      std::optional<double> target, const WhatIfOptions& options) {
  WhatIf w;
  w.requests = requests;
  w.target = target;
  const auto names = report.stage_names();
  const std::vector<Factor> factors = resolve_factors(report, names, requests);
  if (target && (!(*target > 1) || !std::isfinite(*target)))
    throw UsageError("the target must be an overall speed-up above 1 (1x or less needs no change)");

  // The classic projection, with its interval from resampled steps.
  const ClassicProjection project{&report, &factors};
  std::vector<double> fractions;
  for (const auto& s : report.stages) fractions.push_back(s.fraction);
  w.naive_speedup = project(fractions);
  w.projected_wall_ns = static_cast<double>(report.wall_ns) / w.naive_speedup;
  const WhatIfOptions opts = bounded_bootstrap(options, report.steps);
  const bool per_step = report.steps > 0 && report.exposure.span_ns.size() == report.exposure.span_exposed.size() &&
                        !report.exposure.span_ns.empty();
  // With a replay of as many spans, both intervals come from one sequence of draws below.
  const bool joint = per_step && report.graph && report.graph->span_first_node.size() == report.exposure.span_ns.size();
  if (per_step) {
    if (!joint)
      w.naive_interval = bootstrap_interval(report.exposure.span_exposed, report.exposure.span_ns, project,
                                            opts.bootstrap);
  } else {
    w.naive_interval = {w.naive_speedup, w.naive_speedup};
    w.notes.push_back(findings::NoStepIntervals{});
  }

  // The replay of the dependency graph with the factors applied.
  if (!report.graph) {
    without_replay(w, report);
  } else {
    const ReplayGraph& g = *report.graph;
    std::vector<double> f(names.size(), 1.0), hf(names.size(), 1.0);
    for (const auto& x : factors) (x.host ? hf : f)[x.idx] = x.k;
    const ReplayResult rr = replay(g, f, hf);
    w.simulation_implemented = true;
    w.simulated_wall_ns = static_cast<double>(rr.window_ns);
    w.simulated_speedup = rr.window_ns > 0 ? static_cast<double>(report.wall_ns) / w.simulated_wall_ns
                                           : std::numeric_limits<double>::infinity();
    replay_intervals(w, report, rr, project, opts, per_step, joint);
    const CriticalPath after = critical_path(g, rr);
    bottleneck_moves(w, report, names, after, requests, report.steps > 0);
    replay_bounds(w, report, g, after, factors);
    if (options.curves) w.curves = stage_curves(report, names, options.curve_factors);
  }
  if (target) w.target_rows = target_rows(report, names, *target);
  return w;
}

}  // namespace amdahl::analysis
