// The whole analysis of one profile: stage table (exposed, total, hidden, fractions, per-step
// statistics, classic Amdahl projections), steps, GPU summary, verdict, notes and diagnostics;
// and its renderings as JSON (DESIGN.md fields) and as a text table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/attribution.hpp"
#include "amdahl/analysis/gpu_attribution.hpp"
#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/analysis/stage_stats.hpp"
#include "amdahl/analysis/steps.hpp"
#include "amdahl/format/profile_store.hpp"

namespace amdahl::analysis {

struct AnalysisOptions {
  std::vector<StageRule> user_rules;  // --stages FILE rules (tried before the profile's own)
  std::string step_name = "step";
  std::optional<std::size_t> warmup;  // nullopt: automatic
};

struct StageRow {
  std::string name;
  bool canonical = false;
  bool is_other = false;
  double exposed_ns = 0, total_ns = 0, hidden_ns = 0, fraction = 0;
  StatsSummary per_step_exposed_ns;  // over the analysed step spans
  double speedup_2x = 1, speedup_4x = 1, speedup_10x = 1, speedup_limit = 1;
  std::int64_t gpu_busy_ns = 0;
};

struct ProfileDiagnostic {
  std::uint32_t pid = 0;
  std::string key;
  std::uint64_t count = 0;
  std::string detail;
};

struct Report {
  std::int64_t wall_ns = 0;
  Interval window;
  std::size_t steps = 0, total_steps = 0, warmup = 0;
  bool warmup_auto = true;
  std::string step_name;
  std::uint32_t driving_pid = 0;
  std::uint64_t driving_tid = 0;
  std::string driving_name;
  std::vector<StageRow> stages;  // index = StageId; the last row is `other`
  StatsSummary step_ns;          // step span lengths
  Exposure exposure;             // per-span figures (bootstrap, whatif)
  GpuSummary gpu;
  std::string verdict;
  std::vector<std::string> notes;
  std::vector<ProfileDiagnostic> diagnostics;
  std::map<std::string, std::string> meta;

  const StageRow* find_stage(const std::string& name) const;  // not `other`
  std::vector<std::string> stage_names() const;                // not `other`
};

// The rules a profile is analysed with: `options.user_rules`, then the profile's meta
// 'stage_rules' text (if any), then the defaults. Throws UsageError on a bad rule.
StageRules rules_for(const format::Profile& profile, const AnalysisOptions& options);

// Throws InputError when the profile has nothing to analyse.
Report analyze(const format::Profile& profile, const AnalysisOptions& options = {});

// The verdict line from the stage rows (thresholds: docs/analysis.md).
std::string verdict_line(const std::vector<StageRow>& stages, bool per_step);

nlohmann::json report_to_json(const Report& report);
std::string report_to_text(const Report& report);

}  // namespace amdahl::analysis
