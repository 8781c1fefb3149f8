// The ranked "what to do next" list (next_actions.hpp).
#include "amdahl/analysis/next_actions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "amdahl/analysis/projections.hpp"
#include "amdahl/analysis/restructure.hpp"
#include "amdahl/analysis/stage_rules.hpp"

namespace amdahl::analysis {
namespace {

constexpr double kWorthwhile = 1.02;    // an action must give at least 2% by its figure
constexpr std::size_t kFewSteps = 5;    // fewer analysed steps: profile more first
constexpr double kWorkersNodeLimit = 5e6;  // the --workers replay copies the graph: not past this

std::string pct(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", f * 100.0);
  return buf;
}

std::string times(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", s);
  return buf;
}

bool is_input(const std::string& s) { return s == "disk_io" || s == "cpu_preprocess" || s == kDataLoadingStage; }

// The whole-run speedup with the stage 2x faster, and what that figure is.
std::pair<double, std::string> at_2x(const StageProjection& s) {
  if (s.replay) return {s.replay->x2, "replay"};
  return {s.classic.x2, "classic"};
}

std::string limit_clause(const StageProjection& s) {
  const double lim = s.replay ? s.replay->limit : s.classic.limit;
  if (!std::isfinite(lim) || lim > 1e6) return "";
  return ", at most " + times(lim) + " with the stage taking no time";
}

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
  std::string names;
  std::vector<std::string> stages;
  for (const auto* s : in) {
    names += (names.empty() ? "" : ", ") + s->stage;
    stages.push_back(s->stage);
  }
  const std::string head = "input (" + names + ") holds " + pct(share) + " of the step time";
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
      std::string cmd = "amdahl whatif " + prof + " --workers " + std::to_string(n);
      bool default_stages = true;
      for (const auto& s : stages) default_stages = default_stages && (s == "disk_io" || s == "cpu_preprocess");
      if (!default_stages) {
        std::string list;
        for (const auto& s : stages) list += (list.empty() ? "" : ",") + s;
        cmd += " --worker-stages " + shell_arg(list);
      }
      Candidate c;
      c.gain = w.simulated_speedup;
      c.share = share;
      c.action = {"input", in.front()->stage,
                  head + ": more DataLoader workers (" + std::to_string(n) + " loader workers give " +
                      times(w.simulated_speedup) + " by replay" +
                      (lanes.on_driver ? ", the loading moved off the training thread" : "") + ")",
                  cmd, w.simulated_speedup, "replay"};
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
  c.action = {"input", top->stage,
              head + ": faster loading (" + top->stage + " 2x faster gives " + times(g) + " by " + basis +
                  limit_clause(*top) + "; more workers, a faster format or caching)",
              "amdahl whatif " + prof + " --speedup " + shell_arg(top->stage + "=2"), g, basis};
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
  c.action = {"launch", best->name,
              "the host side of " + best->name + " (launching GPU work, library host code) holds " + pct(share) +
                  " of the step time: CUDA graphs, torch.compile or larger batches cut it (2x less host time gives " +
                  times(g) + " by " + basis + "; a faster GPU shortens none of it)",
              "amdahl whatif " + prof + " --speedup " + shell_arg(best->name + ":host=2"), g, basis};
  return c;
}

Candidate stage_action(const StageProjection& s, const std::string& prof) {
  const auto [g, basis] = at_2x(s);
  Candidate c;
  c.gain = g;
  c.share = s.fraction;
  std::string kind = "stage", what;
  const std::string head = s.stage + " holds " + pct(s.fraction) + " of the step time";
  if (s.stage == "gpu_compute") {
    kind = "compute";
    what = "GPU compute (" + pct(s.fraction) + " of the step time): a faster GPU or AMP (2x faster kernels give " +
           times(g) + " by " + basis + limit_clause(s) + ")";
  } else if (s.stage == "h2d" || s.stage == "d2h") {
    kind = "transfer";
    what = head + ": pinned memory and non_blocking copies on a side stream overlap it with compute (2x faster " +
           "copies give " + times(g) + " by " + basis + limit_clause(s) + ")";
  } else if (s.stage == "communication") {
    kind = "communication";
    what = head + ": overlap it with the backward pass (gradient bucketing) or use a faster interconnect (2x " +
           "faster gives " + times(g) + " by " + basis + limit_clause(s) + ")";
  } else {
    what = head + ": 2x faster gives " + times(g) + " by " + basis + limit_clause(s);
  }
  c.action = {kind, s.stage, what, "amdahl whatif " + prof + " --speedup " + shell_arg(s.stage + "=2"), g, basis};
  return c;
}

}  // namespace

std::vector<NextAction> next_actions(const Report& r, const Projections& p, const std::string& profile_arg) {
  const std::string prof = shell_arg(profile_arg);
  std::vector<NextAction> out;
  // First what makes the figures doubtful.
  if (r.steps == 0) {
    out.push_back({"window", "",
                   "no step ranges: the figures cover the whole run, set-up included; mark each training step "
                   "with a `step` range (docs/annotation-guide.md), or let `amdahl profile` annotate PyTorch",
                   "amdahl stages " + prof, std::nullopt, ""});
  } else if (r.steps < kFewSteps) {
    const auto src = r.meta.find("source");
    const auto cmd = r.meta.find("command");
    const bool imported = src != r.meta.end() && src->second == "kineto";
    const std::string head = "window too short: only " + std::to_string(r.steps) +
                             " analysed step(s), so one slow step moves every figure; ";
    if (imported)  // the profile is an import: its command is the import (amdahl import TRACE)
      out.push_back({"window", "", head + "record more steps with the PyTorch profiler (its schedule's active steps), "
                                          "then import the trace again",
                     cmd != r.meta.end() ? cmd->second + " -o " + prof + " --force" : "amdahl import TRACE -o " + prof,
                     std::nullopt, ""});
    else
      out.push_back({"window", "", head + "profile more steps",
                     "amdahl profile -o " + prof + " -- " + (cmd != r.meta.end() ? cmd->second : std::string("COMMAND")),
                     std::nullopt, ""});
  }
  if (!r.stages.empty() && r.verdict.rfind("unannotated", 0) == 0) {
    out.push_back({"unannotated", "",
                   pct(r.stages.back().fraction) + " of the step time is in no stage: annotate it (stage ranges, or "
                   "a --stages rule file for the range names it already has) before trusting the other figures",
                   "amdahl stages " + prof, std::nullopt, ""});
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
    out.push_back({"balanced", "",
                   "no single stage 2x faster gives 2% or more: the time is spread out; see what a target needs",
                   "amdahl whatif " + prof + " --target 1.1", std::nullopt, ""});
  }
  return out;
}

}  // namespace amdahl::analysis
