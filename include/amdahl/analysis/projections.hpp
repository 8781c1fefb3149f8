// Computing the guidance of a report (guidance.hpp): per stage the classic Amdahl figures and
// the replay's (what `amdahl whatif --speedup STAGE=K` computes, on the same graph), the factor
// for a target from the replay, the user's what-if, and the ranked next actions.
#pragma once

#include <string>
#include <vector>

#include "amdahl/analysis/guidance.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"

namespace amdahl::analysis {

struct ProjectionOptions {
  double target = 1.25;
  double max_factor = 1e3;
  // Replays cost time in proportion to the graph's nodes. Past this many node-replays in all,
  // the remaining (smaller) stages keep classic figures only, with a note (a 10-million-event
  // profile has ~15 million nodes: about 13 replays; `amdahl whatif` gives any one).
  double node_replay_budget = 2e8;
  // Curves already replayed (compute_whatif's, for the HTML charts): their 2x, 4x, 10x and
  // limit are reused instead of replayed again. May be null.
  const std::vector<StageCurve>* curves = nullptr;
};

// The projection table. Replay figures where the report has a dependency graph it used
// (exposed_basis "critical_path"); else classic only, with the reason.
Projections compute_projections(const Report& report, const ProjectionOptions& options = {});

// The user's what-if line from a computed what-if.
UserWhatIf summarize_user_whatif(const WhatIf& whatif);

struct GuidanceInputs {
  std::string profile_arg = "PROFILE";  // the profile as the user named it (for the commands)
  const WhatIf* user_whatif = nullptr;  // `report --whatif` (null: none)
  ProjectionOptions projection;
};

// Fills report.guidance: projections, the user's what-if, the next actions (next_actions.hpp).
void add_guidance(Report& report, const GuidanceInputs& inputs);

}  // namespace amdahl::analysis
