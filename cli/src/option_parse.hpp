// Option strings -> typed values for the analysis (issue 22 step 1: the CLI parses, the analysis
// takes typed values). Each throws analysis::UsageError (exit 1) with one line naming the option.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "amdahl/analysis/whatif.hpp"

namespace amdahl::cli {

// "2", "2x", "2X", "1.5x", "0.5" (slower). Throws UsageError on anything else, on <= 0, or on a
// non-finite number.
double parse_factor(std::string_view text);

// "STAGE=FACTOR", or "STAGE:host=FACTOR" for the host part of a GPU stage (--speedup, --whatif).
analysis::SpeedupRequest parse_speedup(std::string_view text);

// "4" -> 4 (1..4096). `what` names the option in the message.
std::size_t parse_count_option(const std::string& text, const char* what);

// "disk_io,cpu_preprocess" -> names (--worker-stages); throws on an empty list or an empty name.
std::vector<std::string> parse_stage_list(const std::string& text);

}  // namespace amdahl::cli
