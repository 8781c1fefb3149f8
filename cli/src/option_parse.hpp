// Option strings -> typed values for the analysis (issue 22 step 1: the CLI parses, the analysis
// takes typed values). Each throws analysis::UsageError (exit 1) with one line naming the option.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "amdahl/analysis/whatif.hpp"

namespace amdahl::cli {

// The two number readers every option goes through (no trimming: callers decide on spaces).
// A decimal: digits, '.', 'e', 'E', '+', '-' only, read whole by strtod (1e999 gives inf: the
// caller checks the range); nullopt otherwise.
std::optional<double> decimal_text(std::string_view s);
// A whole number of 1 to `max_digits` digits (at most 18: no overflow); nullopt otherwise.
std::optional<long long> whole_text(std::string_view s, std::size_t max_digits);

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
