// Which range names went to which stage, by which rule, with their time: the report's "stage
// mapping" table and `amdahl stages`. One row per distinct (domain, name) of the profile's
// ranges, sorted by total time (descending).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/format/records.hpp"

namespace amdahl::analysis {

struct StageMappingRow {
  std::string domain;
  std::string name;
  std::string target;   // a stage name, or "step", "wait", "ignore"
  std::string rule;     // the deciding rule's source ("default (word 'read')", "rules.txt:3"),
                        // "domain amdahl" (named directly), or "no rule" (ignored)
  std::string pattern;  // the deciding rule's pattern ("" when none)
  std::size_t ranges = 0;
  double total_ns = 0;  // sum of the ranges' durations (nested ones counted too)
};

std::vector<StageMappingRow> stage_mapping(const format::RecordSet& records, const StageRules& rules);

}  // namespace amdahl::analysis
