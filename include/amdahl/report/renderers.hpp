// Report renderings for people and tools beyond text/JSON: one self-contained offline HTML
// page with inline SVG charts, Markdown for pull requests and notebooks, and CSV of the
// per-step table. Every profile-derived name is escaped for its context.
#pragma once

#include <optional>
#include <string>

#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"

namespace amdahl::report {

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

}  // namespace amdahl::report
