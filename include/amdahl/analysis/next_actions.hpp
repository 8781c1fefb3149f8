// "What to do next": 1-3 concrete actions ranked by what the replay says they give, each with
// the amdahl command that checks it (docs/reports.md, "What to do next").
#pragma once

#include <string>
#include <vector>

#include "amdahl/analysis/guidance.hpp"
#include "amdahl/analysis/report.hpp"

namespace amdahl::analysis {

// At most 3 actions, best first: a too-short window or an unannotated run first (their figures
// cannot be trusted or placed), then the stage groups by the whole-run speedup the replay gives
// them (input: more loader workers, the structural what-if, where the graph allows it; GPU compute:
// 2x faster kernels; the host side of GPU stages; copies; communication; user stages). An
// action worth less than 2% is left out. `profile_arg` is the profile as the user named it: each
// action keeps it for its check's command line (render/check_command.hpp).
std::vector<NextAction> next_actions(const Report& report, const Projections& projections,
                                     const std::string& profile_arg);

}  // namespace amdahl::analysis
