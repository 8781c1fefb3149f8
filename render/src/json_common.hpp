// What the JSON of the report and of the GPU-only report share: the tail they end with.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/report.hpp"

namespace amdahl::render::detail {

// "notes", "diagnostics" [{pid, key, count, detail}] and "profile" (the profile's meta but its
// stage rules and notes: the notes are in "notes").
inline void add_report_tail(nlohmann::json& j, const std::vector<std::string>& notes,
                            const std::vector<analysis::ProfileDiagnostic>& diagnostics,
                            const std::map<std::string, std::string>& meta) {
  j["notes"] = notes;
  nlohmann::json diags = nlohmann::json::array();
  for (const auto& d : diagnostics)
    diags.push_back({{"pid", d.pid}, {"key", d.key}, {"count", d.count}, {"detail", d.detail}});
  j["diagnostics"] = std::move(diags);
  nlohmann::json profile = nlohmann::json::object();
  for (const auto& [k, v] : meta)
    if (k != "stage_rules" && k != "notes") profile[k] = v;
  j["profile"] = std::move(profile);
}

}  // namespace amdahl::render::detail
