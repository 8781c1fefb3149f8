// analyze(): runs the pipeline (rules -> timeline -> steps -> GPU attribution -> exposure ->
// statistics and projections) and assembles a Report with its notes and verdict.
#include "amdahl/analysis/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/errors.hpp"

namespace amdahl::analysis {
namespace {

std::string pct(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", f * 100.0);
  return buf;
}

}  // namespace

const StageRow* Report::find_stage(const std::string& name) const {
  for (const auto& s : stages)
    if (!s.is_other && s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> Report::stage_names() const {
  std::vector<std::string> out;
  for (const auto& s : stages)
    if (!s.is_other) out.push_back(s.name);
  return out;
}

StageRules rules_for(const format::Profile& profile, const AnalysisOptions& options) {
  std::vector<StageRule> rules = options.user_rules;
  auto it = profile.meta.find("stage_rules");
  if (it != profile.meta.end() && !it->second.empty()) {
    auto saved = parse_stage_rules(it->second, "profile stage_rules");
    rules.insert(rules.end(), saved.begin(), saved.end());
  }
  return StageRules(std::move(rules), options.step_name);
}

std::string verdict_line(const std::vector<StageRow>& stages, bool per_step) {
  struct Group { std::string label, what; double share = 0; std::vector<const StageRow*> rows; };
  std::vector<Group> groups = {{"input", "data loading", 0, {}},
                               {"transfer", "host-device copying", 0, {}},
                               {"compute", "GPU compute", 0, {}},
                               {"communication", "communication", 0, {}}};
  auto group_of = [&](const std::string& name) -> Group& {
    if (name == "disk_io" || name == "cpu_preprocess") return groups[0];
    if (name == "h2d" || name == "d2h") return groups[1];
    if (name == "gpu_compute") return groups[2];
    if (name == "communication") return groups[3];
    groups.push_back({name, "'" + name + "'", 0, {}});
    return groups.back();
  };
  double other = 0;
  for (const auto& s : stages) {
    if (s.is_other) { other = s.fraction; continue; }
    if (s.fraction <= 0) continue;
    Group& g = group_of(s.name);
    g.share += s.fraction;
    g.rows.push_back(&s);
  }
  const Group* top = nullptr;
  for (const auto& g : groups)
    if (!top || g.share > top->share) top = &g;
  const std::string of = per_step ? " of each step" : " of the run";
  if (other >= 0.3 && (!top || other > top->share))
    return "unannotated: " + pct(other) + of + " is in no stage; add stage ranges to see what it is";
  if (!top || top->share <= 0) return "no stage time in the window";
  std::string detail;
  if (top->rows.size() > 1) {
    detail = " (";
    for (std::size_t i = 0; i < top->rows.size(); ++i)
      detail += (i ? ", " : "") + top->rows[i]->name + " " + pct(top->rows[i]->fraction);
    detail += ")";
  }
  if (top->share >= 0.3)
    return top->label + " bound: " + pct(top->share) + of + " is exposed " + top->what + detail;
  return "no dominant stage: the largest exposed share is " + top->what + " at " + pct(top->share) + detail;
}

Report analyze(const format::Profile& profile, const AnalysisOptions& options) {
  const auto& rs = profile.records;
  const StageRules rules = rules_for(profile, options);
  const Timeline tl = build_timeline(rs, rules);
  const StepSelection sel = select_steps(tl, options.warmup);
  const auto op_stages = attribute_gpu_ops(tl);

  Report r;
  r.meta = profile.meta;
  r.step_name = options.step_name;
  r.window = sel.window;
  r.wall_ns = sel.window.end_ns - sel.window.start_ns;
  r.steps = sel.has_steps ? sel.steps.size() : 0;
  r.total_steps = sel.total_steps;
  r.warmup = sel.warmup;
  r.warmup_auto = sel.warmup_auto;
  const Lane& drv = tl.lanes[sel.driving_lane];
  r.driving_pid = drv.pid;
  r.driving_tid = drv.tid;
  r.driving_name = drv.name;
  r.notes = sel.notes;
  r.exposure = compute_exposure(tl, sel, op_stages);
  r.gpu = summarize_gpu(tl, op_stages, sel.window);

  const std::size_t n = tl.stage_names.size();
  const double wall = static_cast<double>(r.wall_ns);
  for (std::size_t i = 0; i <= n; ++i) {
    StageRow row;
    row.is_other = i == n;
    row.name = row.is_other ? std::string(kOtherStage) : tl.stage_names[i];
    row.canonical = !row.is_other && is_canonical_stage(row.name);
    row.exposed_ns = r.exposure.exposed_ns[i];
    row.total_ns = row.is_other ? row.exposed_ns : r.exposure.total_ns[i];
    row.hidden_ns = std::max(0.0, row.total_ns - row.exposed_ns);
    row.fraction = row.exposed_ns / wall;
    if (sel.has_steps) {
      StageStats st;
      for (const auto& span : r.exposure.span_exposed) st.add(span[i]);
      row.per_step_exposed_ns = st.summary();
    }
    if (!row.is_other) {
      const double p = std::clamp(row.fraction, 0.0, 1.0);
      row.speedup_2x = amdahl_speedup(p, 2);
      row.speedup_4x = amdahl_speedup(p, 4);
      row.speedup_10x = amdahl_speedup(p, 10);
      row.speedup_limit = amdahl_limit(p);
      row.gpu_busy_ns = r.gpu.busy_ns_by_stage[i];
    }
    r.stages.push_back(std::move(row));
  }
  // `other` is the exact remainder, so the fractions sum to 1.
  double staged = 0;
  for (std::size_t i = 0; i < n; ++i) staged += r.stages[i].fraction;
  r.stages[n].fraction = std::max(0.0, 1.0 - staged);

  if (sel.has_steps) {
    StageStats st;
    for (double s : r.exposure.span_ns) st.add(s);
    r.step_ns = st.summary();
  }

  // Notes: say what the figures are and where they are bounds.
  r.notes.push_back("exposed time is the driving thread's view (its stages plus its waits charged to the work "
                    "waited on); the dependency-graph critical path is not implemented yet");
  const auto& w = r.exposure.waits;
  if (r.exposure.bounds) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%zu of %zu waits on the driving thread (%.1f ms) have no produce/consume link: charged to the "
                  "other threads' stages in proportion to their totals, so those exposed figures and their "
                  "projections are bounds, not estimates",
                  w.wait_ranges - w.linked_waits, w.wait_ranges, w.fallback_ns / 1e6);
    r.notes.push_back(buf);
  }
  if (w.unattributed_ns > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.1f ms of waits had no work to charge and count as 'other'",
                  w.unattributed_ns / 1e6);
    r.notes.push_back(buf);
  }
  for (std::size_t i = 0; i < n; ++i)
    if (r.stages[i].exposed_ns > r.stages[i].total_ns + 0.5) {
      r.notes.push_back("'" + r.stages[i].name + "' has more exposed than host time (waits on its GPU or producer "
                        "work were charged to it); its hidden time shows 0");
    }
  if (!r.gpu.present) r.notes.push_back("no GPU records in the profile");
  else if (r.gpu.by_fallback > 0)
    r.notes.push_back(std::to_string(r.gpu.by_fallback) + " GPU ops in the window had no launching stage and were "
                      "attributed by kind (HtoD -> h2d, DtoH -> d2h, NCCL -> communication, else gpu_compute)");
  if (!r.warmup_auto || r.warmup > 0)
    r.notes.push_back(std::to_string(r.warmup) + " warm-up step(s) excluded (" +
                      (r.warmup_auto ? "automatic" : "--warmup") + ")");

  for (const auto& d : rs.diagnostics)
    r.diagnostics.push_back({d.pid, rs.str(d.key), d.count, rs.str(d.detail)});
  r.verdict = verdict_line(r.stages, sel.has_steps);
  return r;
}

}  // namespace amdahl::analysis
