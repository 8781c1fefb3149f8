// The diff of two runs of the same program (two machines, two settings): per stage, exposed and
// total time per step in each run, the change (absolute and ratio), whether the stage got
// faster or slower, and how much of the step's change it accounts for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/report.hpp"

namespace amdahl::analysis {

struct StageDiff {
  std::string name;               // `other` last
  bool in_a = false, in_b = false;  // the stage has any time in that run
  double exposed_a_ns = 0, exposed_b_ns = 0;  // per step (per run without steps)
  double total_a_ns = 0, total_b_ns = 0;      // host total, same basis
  double fraction_a = 0, fraction_b = 0;
  double change_ns = 0;                 // exposed b - a
  std::optional<double> ratio;          // exposed b / a; nullopt when a is 0
  double share_of_step_change = 0;      // change_ns / step change (0 when the step did not change)
  std::string verdict;                  // faster, slower, unchanged, new, gone
};

struct ProfileDiff {
  bool per_step = true;  // false: a run has no steps, figures are per whole window
  double step_a_ns = 0, step_b_ns = 0;  // mean step (window / steps), or the window
  std::size_t steps_a = 0, steps_b = 0;
  double speedup = 1;  // step_a / step_b (> 1: b is faster); JSON step_ratio = 1 / speedup = b / a
  std::vector<StageDiff> stages;
  Finding summary;  // findings::DiffSummary
  std::vector<Finding> notes;
};

// A stage counts as changed when its exposed time per step moved by at least 5% of itself and
// by at least 1% of run a's step; otherwise `unchanged`.
ProfileDiff diff_reports(const Report& a, const Report& b);

}  // namespace amdahl::analysis
