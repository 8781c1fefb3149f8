// `amdahl stages`: every range name of the profile with the stage it went to, the rule that
// decided, its range count and total time (analysis/stage_mapping.hpp), as JSON and as a text
// table. The CLI calls them through render.hpp's dispatch.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/stage_mapping.hpp"

namespace amdahl::render {

// One row: {domain, name, target, rule, pattern, ranges, total_ns} (the report's
// "stage_mapping" rows have the same fields).
nlohmann::json stage_mapping_row_json(const analysis::StageMappingRow& row);

// {"stage_mapping": [one row per name]}.
nlohmann::json stage_mapping_to_json(const std::vector<analysis::StageMappingRow>& rows);

// A header line, then one line per name: name, domain ("(default)" when none), "->", stage,
// total ms (one decimal), ranges, then the rule (": pattern" when it has one). The name, domain,
// stage, total and ranges columns are 40, 13, 16, 10 and 10 bytes wide, or as wide as their
// longest value: every value is printed whole and the columns stay aligned.
std::string stage_mapping_to_text(const std::vector<analysis::StageMappingRow>& rows);

}  // namespace amdahl::render
