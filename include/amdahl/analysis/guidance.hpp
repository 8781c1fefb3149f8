// What `amdahl report` adds to the breakdown so that every output tells one story (issue 19):
// per stage the classic Amdahl projection beside the overlap-aware replay (the headline where
// the run can be replayed), the factor a stage needs for a target from the replay, the user's
// own what-if, and the ranked next actions. Plain data, held by the Report; computed by
// add_guidance (projections.hpp), rendered by the text, JSON, HTML and Markdown reports.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/factor_search.hpp"
#include "amdahl/analysis/finding.hpp"
#include "amdahl/analysis/next_check.hpp"

namespace amdahl::analysis {

// Whole-run speedups with one stage k times faster.
struct SpeedupPoints {
  double x2 = 1, x4 = 1, x10 = 1, limit = 1;  // limit: the stage's work removed
};

struct StageProjection {
  std::string stage;
  double fraction = 0;             // exposed share
  // The share classic Amdahl scales: what `--speedup STAGE=K` scales (a stage with GPU
  // operations: its GPU part), as `amdahl whatif`'s naive_speedup.
  double classic_share = 0;
  SpeedupPoints classic;           // 1 / ((1 - p) + p / k), p = classic_share
  std::optional<SpeedupPoints> replay;  // nullopt: classic only (Projections::classic_only_reason)
  // The factor this stage alone needs for Projections::target, from the replay when there is
  // one (else classic); Reached with `target_factor`, or BeyondSearch / NotReachable.
  TargetOutcome target_outcome = TargetOutcome::NotReachable;
  std::optional<double> target_factor;
};

struct Projections {
  bool computed = false;
  bool replay = false;              // the replay figures are there and are the headline
  std::optional<Finding> classic_only_reason;  // when !replay: why (findings::ClassicOnly)
  double target = 1.25;             // "factor needed for T overall"
  double max_factor = 1e3;          // the target search's range is [1, max_factor]
  bool replay_lower_bounds = false;  // unlinked waits on the critical path keep their length
  std::size_t replays = 0;           // replays run for these figures
  std::vector<StageProjection> stages;  // stages with time, in report order (not `other`)
};

// The user's own what-if (`amdahl report --whatif STAGE=K`): what `amdahl whatif --speedup`
// gives for the same factors.
struct UserWhatIf {
  std::vector<std::pair<std::string, double>> speedups;  // (stage or stage:host, factor)
  double classic = 1;
  double replay = 1;
  bool replayed = false;  // false: `replay` repeats the classic figure (no graph)
  double replay_low = 1, replay_high = 1;  // 95% bootstrap interval
  std::optional<Finding> bottleneck_line;  // the what-if's (findings::BottleneckMove)
  bool bounds = false;
};

// One ranked suggestion, with what checks it.
struct NextAction {
  std::string kind;     // input, compute, launch, transfer, communication, stage, unannotated, window
  std::string stage;    // the stage it is about ("" when none)
  Finding text;         // one sentence (MarkSteps ... Balanced in finding.hpp)
  Check check;          // the amdahl command that checks it (next_check.hpp), on `profile`
  std::string profile;  // the profile as the user named it ("PROFILE" when unknown)
  std::optional<double> speedup;  // the replayed (or classic) whole-run speedup it stands for
  std::string basis;    // "replay", "classic" or "" (no figure)
};

struct Guidance {
  Projections projections;
  std::optional<UserWhatIf> user_whatif;
  std::vector<NextAction> next_actions;  // at most 3, best first
};

}  // namespace amdahl::analysis
