// Helpers shared by the HTML, Markdown and CSV renderers: which stages to show, number
// formatting, and the classic speedup-versus-factor curve of one stage.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <optional>

#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "numbers.hpp"

namespace amdahl::render::detail {

// Indices into report.stages of the stages with any time (exposed, host or GPU), in order,
// then `other` (always last).
inline std::vector<std::size_t> visible_stages(const analysis::Report& r) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < r.stages.size(); ++i) {
    const auto& s = r.stages[i];
    if (s.is_other) continue;
    if (s.exposed_ns > 0.5 || s.total_ns > 0.5 || s.gpu_busy_ns > 0) out.push_back(i);
  }
  for (std::size_t i = 0; i < r.stages.size(); ++i)
    if (r.stages[i].is_other) out.push_back(i);
  return out;
}

// Factors 1 .. max_factor, log-spaced, `n` points.
std::vector<std::pair<double, double>> classic_curve(double fraction, double max_factor = 64, int n = 40);

// The report's guidance (guidance.hpp): its own when `amdahl report` computed it, else computed
// here from the report (replays reuse `whatif`'s curves when given), so that a renderer never
// shows a classic figure without the replay beside it.
analysis::Guidance guidance_for(const analysis::Report& r, const std::optional<analysis::WhatIf>& whatif,
                                const std::string& source);

// A one-line summary of the window: "12 steps, 1.23 s (mean step 102.5 ms)".
std::string window_line(const analysis::Report& r);

}  // namespace amdahl::render::detail
