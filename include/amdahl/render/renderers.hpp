// The renderings of what the analysis computed, for people and tools: JSON and text of the
// report, the what-ifs, the ranks, validate and diff; one self-contained offline HTML page with
// inline SVG charts, Markdown for pull requests and notebooks, and CSV of the per-step table.
// Every profile-derived name is escaped for its context. The GPU-only report: gpu_only_render.hpp;
// the guidance's pieces: guidance_render.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/path_explanation.hpp"
#include "amdahl/analysis/profile_diff.hpp"
#include "amdahl/analysis/rank_whatif.hpp"
#include "amdahl/analysis/ranks.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/validate.hpp"
#include "amdahl/analysis/whatif.hpp"

namespace amdahl::render {

// --- JSON and text ---------------------------------------------------------------------------
nlohmann::json report_to_json(const analysis::Report& report);
std::string report_to_text(const analysis::Report& report);
// Without the notes (`amdahl whatif` prints the table, then the what-if and all the notes).
std::string report_to_text(const analysis::Report& report, bool with_notes);

nlohmann::json whatif_to_json(const analysis::Report& report, const analysis::WhatIf& whatif);
std::string whatif_to_text(const analysis::Report& report, const analysis::WhatIf& whatif);

// JSON: `rank_projection` {from_ranks, to_ranks, bytes, bandwidth_gbps, bandwidth_measured,
// measured_collective_ns, fixed_ns, projected_collective_ns, factor, model, step_ns,
// projected_step_ns} and `straggler_fixed` {rank, step_ns, fixed_step_ns, speedup}.
void add_rank_whatif_json(nlohmann::json& j, const analysis::Report& report, const analysis::RankWhatIf& rw,
                          const analysis::WhatIf* w);
std::string rank_whatif_text(const analysis::Report& report, const analysis::RankWhatIf& rw, const analysis::WhatIf* w);

nlohmann::json ranks_to_json(const analysis::RankAnalysis& ranks, const std::vector<std::string>& stage_names);
// The text section ("" when there is nothing to show).
std::string ranks_to_text(const analysis::RankAnalysis& ranks, const std::vector<std::string>& stage_names);

nlohmann::json path_explanation_to_json(const analysis::PathExplanation& e);

nlohmann::json validation_to_json(const analysis::Report& base, const analysis::Report& improved,
                                  const analysis::Validation& v);
std::string validation_to_text(const analysis::Report& base, const analysis::Report& improved,
                               const analysis::Validation& v);

nlohmann::json diff_to_json(const analysis::ProfileDiff& diff);
std::string diff_to_text(const analysis::ProfileDiff& diff, const std::string& name_a = "a",
                         const std::string& name_b = "b");

// --- HTML, Markdown, CSV ---------------------------------------------------------------------

struct RenderOptions {
  std::string source;  // the profile's path, shown in the header (may be empty)
};

// The whole page: verdict, stage breakdown (overall bar and per-step columns), speedup curves
// per stage with their Amdahl limits, the what-if table (and the requested what-if when given),
// per-step statistics, GPU summary, notes and diagnostics. No script, no external resource.
std::string render_html(const analysis::Report& report, const std::optional<analysis::WhatIf>& whatif = std::nullopt,
                        const RenderOptions& options = {});

// GitHub-flavoured Markdown: verdict, stage table, projections, per-step statistics, notes.
std::string render_markdown(const analysis::Report& report,
                            const std::optional<analysis::WhatIf>& whatif = std::nullopt,
                            const RenderOptions& options = {});

// CSV, one row per analysed step: step number, start and span (ns, relative to the window
// start), then exposed ns per stage (stages with any time, then `other`). Header row first.
// Without steps: one row for the whole window.
std::string render_csv_steps(const analysis::Report& report);

}  // namespace amdahl::render
