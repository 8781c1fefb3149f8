// validate: measured per-stage factors between two runs, predictions from the base run alone
// (classic and replay), measured speedup, relative errors (rendered by render/: validation_render.cpp).
#include "amdahl/analysis/validate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/restructure.hpp"

namespace amdahl::analysis {
namespace {

double ms_per_step(const Report& r) {
  return static_cast<double>(r.wall_ns) / 1e6 / static_cast<double>(r.steps);
}

// The base run loads inline on its driving thread, the improved run on N other threads: the
// change is structural (loader workers), not a faster stage. Predict with the base run
// restructured onto N workers (N: the most threads loading at once); a loading stage keeps a
// factor only for what its work per item changed (its per-thread factor over the threads that
// did it).
void predict_with_workers(const Report& base, const Report& improved, const ValidateOptions& options,
                          const std::vector<SpeedupRequest>& requests, const WhatIfOptions& wo, Validation& v) {
  if (!base.graph || !improved.graph) return;
  const LoaderWorkers defaults;
  const LoadingLanes b = loading_lanes(*base.graph, defaults.stages);
  const LoadingLanes i = loading_lanes(*improved.graph, defaults.stages);
  if (!b.on_driver || b.other_lanes != 0 || i.on_driver || i.other_lanes == 0) return;
  LoaderWorkers lw;
  lw.workers = i.other_lanes;
  std::vector<SpeedupRequest> reqs;
  for (const auto& r : requests) {
    const bool loading_stage = std::find(lw.stages.begin(), lw.stages.end(), r.stage) != lw.stages.end();
    if (!loading_stage) { reqs.push_back(r); continue; }
    // work_per_step divided the loading by every thread that did it (workers made anew each
    // epoch included): undo that to get the change of the work per item.
    const double per_item = r.factor / static_cast<double>(std::max<std::size_t>(1, i.distinct_other_lanes));
    if (options.all_stages || std::abs(per_item - 1.0) >= options.min_change) reqs.push_back({r.stage, per_item});
  }
  WhatIf w;
  try {
    w = compute_whatif_with_workers(base, reqs, std::nullopt, lw, wo);
  } catch (const std::exception& e) {
    const Problem* problem = problem_of(e);
    v.notes.push_back(findings::RestructureFailed{e.what(), problem ? std::optional<Problem>(*problem) : std::nullopt});
    return;
  }
  v.workers = lw.workers;
  v.predicted_stage_factors_only = v.predicted_simulated;
  v.stage_factors_only_error = v.simulated_error;
  v.predicted_simulated = w.simulated_speedup;
  v.simulated_interval = w.simulated_interval;
  v.simulated_error = v.predicted_simulated / v.measured_speedup - 1.0;
  v.bottleneck_line = w.bottleneck_line;
  v.bottleneck_after = w.bottleneck_after;
  v.notes.push_back(findings::ValidatedWorkers{lw.workers, v.predicted_stage_factors_only, v.stage_factors_only_error});
}

}  // namespace

Validation validate_runs(const Report& base, const Report& improved, const ValidateOptions& options) {
  if (base.steps == 0) throw InputError("validate: the base run has no analysed steps (ms/step is undefined)");
  if (improved.steps == 0) throw InputError("validate: the improved run has no analysed steps (ms/step is undefined)");
  Validation v;
  v.base_ms_per_step = ms_per_step(base);
  v.improved_ms_per_step = ms_per_step(improved);
  v.measured_speedup = v.base_ms_per_step / v.improved_ms_per_step;

  // Work per step of a stage: per item on producer threads when the graph has it (report.hpp).
  auto per_step_ms = [](const Report& r, const std::string& name) -> double {
    for (std::size_t i = 0; i + 1 < r.stages.size(); ++i) {
      if (r.stages[i].name != name) continue;
      if (i < r.work_per_step_ns.size()) return r.work_per_step_ns[i] / 1e6;
      return r.stages[i].total_ns / 1e6 / static_cast<double>(r.steps);
    }
    return 0.0;
  };
  std::vector<SpeedupRequest> requests;
  for (const auto& s : base.stages) {
    if (s.is_other) continue;
    StageChange c;
    c.stage = s.name;
    c.base_ms_per_step = per_step_ms(base, s.name);
    if (c.base_ms_per_step <= 0) continue;
    c.improved_ms_per_step = per_step_ms(improved, s.name);
    if (c.improved_ms_per_step <= 0) {
      c.factor = std::numeric_limits<double>::infinity();
      c.why = findings::AbsentFromImproved{};
    } else {
      c.factor = c.base_ms_per_step / c.improved_ms_per_step;
      if (!options.all_stages && std::abs(c.factor - 1.0) < options.min_change) {
        c.why = findings::ChangedTooLittle{static_cast<int>(options.min_change * 100 + 0.5)};
      } else {
        c.used = true;
        requests.push_back({c.stage, c.factor});
      }
    }
    // The host part of a GPU stage: measured and scaled apart from its GPU part.
    const auto idx = static_cast<std::size_t>(&s - base.stages.data());
    const StageRow* is = improved.find_stage(s.name);
    const auto iidx = is ? static_cast<std::size_t>(is - improved.stages.data()) : improved.stages.size();
    if (s.on_gpu && idx < base.host_work_per_step_ns.size() && base.host_work_per_step_ns[idx] > 0 &&
        iidx < improved.host_work_per_step_ns.size() && improved.host_work_per_step_ns[iidx] > 0) {
      c.host_base_ms_per_step = base.host_work_per_step_ns[idx] / 1e6;
      c.host_improved_ms_per_step = improved.host_work_per_step_ns[iidx] / 1e6;
      c.host_factor = c.host_base_ms_per_step / c.host_improved_ms_per_step;
      if (options.all_stages || std::abs(c.host_factor - 1.0) >= options.min_change) {
        c.host_used = true;
        requests.push_back({c.stage, c.host_factor, true});
      }
    }
    v.stages.push_back(std::move(c));
  }
  // Waits on the GPU per step (explicit syncs, calls that synchronize, event waits): more of
  // them in the improved run (AMP's GradScaler checks for inf every step) is a change of
  // structure the base run cannot show.
  auto syncs_per_step = [](const Report& r) {
    if (!r.graph || r.steps == 0) return 0.0;
    std::size_t n = 0;
    for (EdgeKind k : {EdgeKind::Completion, EdgeKind::ImplicitSync, EdgeKind::Event})
      n += r.explanation.waits[static_cast<std::size_t>(k)].count;
    return static_cast<double>(n) / static_cast<double>(r.steps);
  };
  const double base_syncs = syncs_per_step(base), improved_syncs = syncs_per_step(improved);
  if (improved_syncs >= base_syncs + 0.5) {
    v.notes.push_back(findings::ExtraSyncs{improved_syncs, base_syncs});
  }
  for (const auto& s : improved.stages)
    if (!s.is_other && s.total_ns > 0 && !base.find_stage(s.name))
      v.notes.push_back(findings::NewStage{s.name});
  for (const auto& c : v.stages)
    if (!c.used && !std::isfinite(c.factor))
      v.notes.push_back(findings::AbsentStage{c.stage});
  if (requests.empty()) v.notes.push_back(findings::NoStageChanged{});

  WhatIfOptions wo = options.whatif;
  wo.curves = false;
  const WhatIf w = compute_whatif(base, requests, std::nullopt, wo);
  v.predicted_naive = w.naive_speedup;
  v.predicted_simulated = w.simulated_speedup;
  v.naive_interval = w.naive_interval;
  v.simulated_interval = w.simulated_interval;
  v.simulation_implemented = w.simulation_implemented;
  v.bounds = w.bounds;
  v.bottleneck_line = w.bottleneck_line;
  v.bottleneck_before = w.bottleneck_before;
  v.bottleneck_after = w.bottleneck_after;
  v.naive_error = v.predicted_naive / v.measured_speedup - 1.0;
  v.simulated_error = v.predicted_simulated / v.measured_speedup - 1.0;
  v.notes.insert(v.notes.end(), w.notes.begin(), w.notes.end());
  if (options.structure) predict_with_workers(base, improved, options, requests, wo, v);
  return v;
}

}  // namespace amdahl::analysis
