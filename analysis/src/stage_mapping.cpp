// Which range names went to which stage (see stage_mapping.hpp).
#include "amdahl/analysis/stage_mapping.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace amdahl::analysis {

std::vector<StageMappingRow> stage_mapping(const format::RecordSet& rs, const StageRules& rules) {
  // Distinct (domain, name) string ids first: classification once per name.
  std::map<std::pair<format::StrId, format::StrId>, std::pair<std::size_t, double>> seen;
  for (const format::RangeRec& r : rs.ranges) {
    auto& v = seen[{r.domain, r.name}];
    ++v.first;
    if (r.end_ns > r.start_ns) v.second += static_cast<double>(r.end_ns - r.start_ns);
  }
  auto str = [&](format::StrId id) -> std::string {
    return id < rs.strings.size() ? rs.strings[id] : std::string();
  };
  std::vector<StageMappingRow> out;
  out.reserve(seen.size());
  for (const auto& [key, v] : seen) {
    StageMappingRow row;
    row.domain = str(key.first);
    row.name = str(key.second);
    const StageRule* rule = nullptr;
    const RangeClass c = rules.classify(row.domain, row.name, &rule);
    row.target = c.role == RangeRole::Stage ? c.stage
                 : c.role == RangeRole::Step ? "step"
                 : c.role == RangeRole::Wait ? "wait"
                                             : "ignore";
    if (row.domain == kAmdahlDomain) row.rule = "domain amdahl";
    else if (rule != nullptr) {
      row.rule = rule->source;
      row.pattern = rule->pattern;
    } else {
      row.rule = "no rule";
    }
    row.ranges = v.first;
    row.total_ns = v.second;
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [](const StageMappingRow& a, const StageMappingRow& b) {
    if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
    return a.name < b.name;
  });
  return out;
}

}  // namespace amdahl::analysis
