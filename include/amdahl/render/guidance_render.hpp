// Rendering the report's guidance (guidance.hpp) as JSON and as text, and the wording shared
// with the HTML and Markdown reports (one definition of each figure).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/guidance.hpp"
#include "amdahl/analysis/report.hpp"

namespace amdahl::render {

// One line each: what the two projections are (printed after "replay: " / "classic Amdahl: ").
inline constexpr const char* kReplayMeaning =
    "the run's dependency graph replayed with the stage's work scaled (what `amdahl whatif --speedup STAGE=K` "
    "computes); overlap-aware: a hidden stage buys nothing and the bottleneck moves";
inline constexpr const char* kClassicMeaning =
    "1 / ((1 - p) + p / k) from the exposed share p of what K scales (a GPU stage: its GPU part); assumes the "
    "stages add up serially (no overlap)";

// "1.50x", "not reachable by this stage alone (replay limit 1.10x)", "more than 1000x".
std::string target_text(const analysis::StageProjection& s, const analysis::Projections& p);
// "replay" when this stage's figures are replayed, else "classic".
std::string target_basis(const analysis::StageProjection& s);

nlohmann::json projections_to_json(const analysis::Projections& p);
nlohmann::json next_actions_to_json(const std::vector<analysis::NextAction>& actions);
nlohmann::json user_whatif_to_json(const analysis::UserWhatIf& u);

// The text sections: the projection table, the user's what-if, "what to do next". Empty when
// the guidance was not computed.
std::string projections_to_text(const analysis::Projections& p);
std::string user_whatif_to_text(const analysis::UserWhatIf& u);
std::string next_actions_to_text(const std::vector<analysis::NextAction>& actions);

}  // namespace amdahl::render
