// What-if projections from a Report: parse STAGE=FACTOR requests, project the classic Amdahl
// speedup with a bootstrap interval over steps, and (for --target) the factor each stage alone
// would need. The overlap-aware replay is not implemented yet: `simulated` equals the classic
// figure and says so (`simulation_implemented` = false).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/bootstrap.hpp"
#include "amdahl/analysis/report.hpp"

namespace amdahl::analysis {

// "2", "2x", "2X", "1.5x", "0.5" (slower). Throws UsageError on anything else, on <= 0, or
// on a non-finite number.
double parse_factor(std::string_view text);

struct SpeedupRequest {
  std::string stage;
  double factor = 1;
};

// "STAGE=FACTOR". Throws UsageError on bad syntax.
SpeedupRequest parse_speedup(std::string_view text);

struct TargetRow {
  std::string stage;
  double fraction = 0;
  std::optional<double> factor;  // nullopt: no factor suffices
  double limit = 1;              // best possible with this stage alone
};

struct WhatIf {
  std::vector<SpeedupRequest> requests;
  double naive_speedup = 1;
  ConfidenceInterval naive_interval;
  double simulated_speedup = 1;
  ConfidenceInterval simulated_interval;
  bool simulation_implemented = false;
  double projected_wall_ns = 0;
  std::optional<double> target;
  std::vector<TargetRow> target_rows;
  std::vector<std::string> notes;
};

// Throws InputError for a stage the report does not know (listing the known ones), and
// UsageError for a stage named twice.
WhatIf compute_whatif(const Report& report, const std::vector<SpeedupRequest>& requests,
                      std::optional<double> target, const BootstrapOptions& options = {});

nlohmann::json whatif_to_json(const Report& report, const WhatIf& whatif);
std::string whatif_to_text(const Report& report, const WhatIf& whatif);

}  // namespace amdahl::analysis
