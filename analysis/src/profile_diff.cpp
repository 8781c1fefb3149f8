// The diff of two analysed runs (see profile_diff.hpp).
#include "amdahl/analysis/profile_diff.hpp"

#include <algorithm>
#include <cmath>

namespace amdahl::analysis {
namespace {

const StageRow* find_row(const Report& r, const std::string& name) {
  for (const auto& s : r.stages)
    if (s.name == name) return &s;
  return nullptr;
}

bool has_time(const StageRow* s) { return s && (s->exposed_ns > 0.5 || s->total_ns > 0.5); }

}  // namespace

ProfileDiff diff_reports(const Report& a, const Report& b) {
  ProfileDiff d;
  d.steps_a = a.steps;
  d.steps_b = b.steps;
  d.per_step = a.steps > 0 && b.steps > 0;
  const double na = d.per_step ? static_cast<double>(a.steps) : 1.0;
  const double nb = d.per_step ? static_cast<double>(b.steps) : 1.0;
  if (!d.per_step)
    d.notes.push_back(findings::DiffWithoutSteps{});
  d.step_a_ns = static_cast<double>(a.wall_ns) / na;
  d.step_b_ns = static_cast<double>(b.wall_ns) / nb;
  d.speedup = d.step_b_ns > 0 ? d.step_a_ns / d.step_b_ns : 1.0;
  const double step_change = d.step_b_ns - d.step_a_ns;

  // Stage order: a's stages, then b's new ones, then `other`.
  std::vector<std::string> names;
  for (const auto* r : {&a, &b})
    for (const auto& s : r->stages)
      if (!s.is_other && std::find(names.begin(), names.end(), s.name) == names.end() &&
          (has_time(find_row(a, s.name)) || has_time(find_row(b, s.name))))
        names.push_back(s.name);
  names.emplace_back(kOtherStage);

  for (const auto& name : names) {
    const auto* ra = find_row(a, name);
    const auto* rb = find_row(b, name);
    StageDiff s;
    s.name = name;
    s.in_a = has_time(ra);
    s.in_b = has_time(rb);
    if (ra) {
      s.exposed_a_ns = ra->exposed_ns / na;
      s.total_a_ns = ra->total_ns / na;
      s.fraction_a = ra->fraction;
    }
    if (rb) {
      s.exposed_b_ns = rb->exposed_ns / nb;
      s.total_b_ns = rb->total_ns / nb;
      s.fraction_b = rb->fraction;
    }
    s.change_ns = s.exposed_b_ns - s.exposed_a_ns;
    if (s.exposed_a_ns > 0) s.ratio = s.exposed_b_ns / s.exposed_a_ns;
    s.share_of_step_change = std::fabs(step_change) > 0 ? s.change_ns / step_change : 0.0;
    const bool big = std::fabs(s.change_ns) >= 0.05 * std::max(s.exposed_a_ns, s.exposed_b_ns) &&
                     std::fabs(s.change_ns) >= 0.01 * d.step_a_ns;
    if (!s.in_a && s.in_b) s.verdict = "new";
    else if (s.in_a && !s.in_b) s.verdict = "gone";
    else if (!big) s.verdict = "unchanged";
    else s.verdict = s.change_ns < 0 ? "faster" : "slower";
    d.stages.push_back(std::move(s));
  }

  // Summary: the step change and the stage that moved it most.
  findings::DiffSummary sum{d.per_step, d.step_a_ns, d.step_b_ns, d.speedup, "", "", 0};
  const StageDiff* top = nullptr;
  for (const auto& s : d.stages)
    if (!top || std::fabs(s.change_ns) > std::fabs(top->change_ns)) top = &s;
  if (top && top->verdict != "unchanged") {
    sum.top_stage = top->name;
    sum.top_verdict = top->verdict;
    sum.top_change_ns = top->change_ns;
  }
  d.summary = std::move(sum);
  return d;
}

}  // namespace amdahl::analysis
