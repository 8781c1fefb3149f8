// The ranked "what to do next" list (next_actions.hpp).
#include "amdahl/analysis/next_actions.hpp"

#include <algorithm>
#include <cmath>

#include "amdahl/analysis/projections.hpp"
#include "amdahl/analysis/restructure.hpp"
#include "amdahl/analysis/stage_rules.hpp"

namespace amdahl::analysis {
namespace {

constexpr double kWorthwhile = 1.02;    // an action must give at least 2% by its figure
constexpr std::size_t kFewSteps = 5;    // fewer analysed steps: profile more first
constexpr double kWorkersNodeLimit = 5e6;  // the loader-workers replay copies the graph: not past this
constexpr double kFactor = 2;           // the factor a stage's action is checked with
constexpr double kBalancedTarget = 1.1; // a balanced run: the factors for 10% are the check

bool is_input(const std::string& s) { return s == "disk_io" || s == "cpu_preprocess" || s == kDataLoadingStage; }

// The whole-run speedup with the stage 2x faster, and what that figure is.
std::pair<double, std::string> at_2x(const StageProjection& s) {
  if (s.replay) return {s.replay->x2, "replay"};
  return {s.classic.x2, "classic"};
}

// The whole-run speedup with the stage taking no time.
double limit_of(const StageProjection& s) { return s.replay ? s.replay->limit : s.classic.limit; }

struct Candidate {
  NextAction action;
  double gain = 1;
  double share = 0;  // the exposed share it is about: breaks ties (two stages capped by one chain)
};

// Input stages: more loader workers (the structural what-if) when the graph allows it, else the
// stages made faster.
std::optional<Candidate> input_action(const Report& r, const Projections& p, const std::string& prof) {
  std::vector<const StageProjection*> in;
  double share = 0;
  for (const auto& s : p.stages)
    if (is_input(s.stage) && s.fraction > 0) {
      in.push_back(&s);
      share += s.fraction;
    }
  if (in.empty()) return std::nullopt;
  std::vector<std::string> stages;
  for (const auto* s : in) stages.push_back(s->stage);
  if (p.replay && r.graph && static_cast<double>(r.graph->nodes.size()) <= kWorkersNodeLimit) {
    const LoadingLanes lanes = loading_lanes(*r.graph, stages);
    const std::size_t n = lanes.on_driver ? 4 : std::max<std::size_t>(2, 2 * std::max<std::size_t>(1, lanes.other_lanes));
    try {
      LoaderWorkers lw;
      lw.workers = n;
      lw.stages = stages;
      WhatIfOptions wo;
      wo.curves = false;
      wo.bootstrap.resamples = 200;
      const WhatIf w = compute_whatif_with_workers(r, {}, std::nullopt, lw, wo);
      Candidate c;
      c.gain = w.simulated_speedup;
      c.share = share;
      c.action = {"input", in.front()->stage,
                  findings::MoreLoaderWorkers{stages, share, n, w.simulated_speedup, lanes.on_driver},
                  checks::MoreWorkers{n, stages}, prof, w.simulated_speedup, "replay"};
      return c;
    } catch (const std::exception&) {
      // No batches to move or no produce/consume links: the stages made faster instead.
    }
  }
  const StageProjection* top = *std::max_element(in.begin(), in.end(), [](auto* a, auto* b) { return a->fraction < b->fraction; });
  const auto [g, basis] = at_2x(*top);
  Candidate c;
  c.gain = g;
  c.share = share;
  c.action = {"input", top->stage, findings::FasterLoading{stages, share, top->stage, g, basis, limit_of(*top)},
              checks::StageFaster{top->stage, false, kFactor}, prof, g, basis};
  return c;
}

// The host part of the stages with GPU operations (launching, library host code).
std::optional<Candidate> launch_action(const Report& r, const Projections& p, const std::string& prof) {
  const StageRow* best = nullptr;
  for (const auto& s : r.stages)
    if (s.on_gpu && s.exposed_host_ns > 0 && (!best || s.exposed_host_ns > best->exposed_host_ns)) best = &s;
  if (!best || r.wall_ns <= 0) return std::nullopt;
  const double share = best->exposed_host_ns / static_cast<double>(r.wall_ns);
  if (share < 0.05) return std::nullopt;
  double g = 1;
  std::string basis = "replay";
  if (p.replay && r.graph) {
    const auto names = r.stage_names();
    std::vector<double> f(names.size(), 1.0), hf(names.size(), 1.0);
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == best->name) hf[i] = 2.0;
    const ReplayResult rr = replay(*r.graph, f, hf);
    g = rr.window_ns > 0 ? static_cast<double>(r.wall_ns) / static_cast<double>(rr.window_ns) : 1.0;
  } else {
    g = 1.0 / ((1 - share) + share / 2);
    basis = "classic";
  }
  Candidate c;
  c.gain = g;
  c.share = share;
  c.action = {"launch", best->name, findings::FasterHostSide{best->name, share, g, basis},
              checks::StageFaster{best->name, true, kFactor}, prof, g, basis};
  return c;
}

Candidate stage_action(const StageProjection& s, const std::string& prof) {
  const auto [g, basis] = at_2x(s);
  Candidate c;
  c.gain = g;
  c.share = s.fraction;
  std::string kind = "stage";
  if (s.stage == "gpu_compute") kind = "compute";
  else if (s.stage == "h2d" || s.stage == "d2h") kind = "transfer";
  else if (s.stage == "communication") kind = "communication";
  c.action = {kind, s.stage, findings::FasterStage{s.stage, s.fraction, g, basis, limit_of(s)},
              checks::StageFaster{s.stage, false, kFactor}, prof, g, basis};
  return c;
}

}  // namespace

std::vector<NextAction> next_actions(const Report& r, const Projections& p, const std::string& profile_arg) {
  const std::string& prof = profile_arg;
  std::vector<NextAction> out;
  // First what makes the figures doubtful.
  if (r.steps == 0) {
    out.push_back({"window", "", findings::MarkSteps{}, checks::ShowStages{}, prof, std::nullopt, ""});
  } else if (r.steps < kFewSteps) {
    const auto src = r.meta.find("source");
    const auto cmd = r.meta.find("command");
    const bool imported = src != r.meta.end() && src->second == "kineto";  // its command is the import
    const std::optional<std::string> command =
        cmd != r.meta.end() ? std::optional<std::string>(cmd->second) : std::nullopt;
    out.push_back({"window", "", findings::ProfileMoreSteps{r.steps, imported}, checks::Reprofile{imported, command},
                   prof, std::nullopt, ""});
  }
  if (!r.stages.empty() && std::holds_alternative<findings::Unannotated>(r.verdict)) {
    out.push_back({"unannotated", "", findings::AnnotateOther{r.stages.back().fraction}, checks::ShowStages{}, prof,
                   std::nullopt, ""});
  }
  std::vector<Candidate> cands;
  if (auto c = input_action(r, p, prof)) cands.push_back(*c);
  if (auto c = launch_action(r, p, prof)) cands.push_back(*c);
  for (const auto& s : p.stages)
    if (!is_input(s.stage) && s.fraction > 0) cands.push_back(stage_action(s, prof));
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
    return std::abs(a.gain - b.gain) > 1e-9 ? a.gain > b.gain : a.share > b.share;
  });
  for (const auto& c : cands) {
    if (out.size() >= 3) break;
    if (c.gain >= kWorthwhile) out.push_back(c.action);
  }
  if (out.empty()) {
    out.push_back({"balanced", "", findings::Balanced{}, checks::TargetSpeedup{kBalancedTarget}, prof, std::nullopt, ""});
  }
  return out;
}

}  // namespace amdahl::analysis
