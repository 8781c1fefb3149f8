// `amdahl report`'s guidance (issue 19): the replay beside classic Amdahl, targets from the
// replay, the user's --whatif, and "what to do next" (analysis/projections.hpp), computed once
// for every format.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"

namespace amdahl::cli {

// `--whatif STAGE=K` texts -> requests (UsageError on bad syntax; before the profile is read).
std::vector<analysis::SpeedupRequest> parse_whatif_requests(const std::vector<std::string>& texts);

// Fills report.guidance for `format` (text, json, html, markdown). Returns the what-if the HTML
// and Markdown renderers take: the curves (HTML) and the user's requests; nullopt when neither
// is needed. `profile_arg` is the profile as the user named it.
std::optional<analysis::WhatIf> add_report_guidance(analysis::Report& report, const std::string& format,
                                                    const std::string& profile_arg,
                                                    const std::vector<analysis::SpeedupRequest>& requests);

}  // namespace amdahl::cli
