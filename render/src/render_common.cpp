// Helpers shared by the renderers (see render_common.hpp).
#include "render_common.hpp"

#include <algorithm>
#include <cmath>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/next_actions.hpp"
#include "amdahl/analysis/projections.hpp"

namespace amdahl::render::detail {

std::vector<std::pair<double, double>> classic_curve(double fraction, double max_factor, int n) {
  std::vector<std::pair<double, double>> pts;
  const double p = std::clamp(fraction, 0.0, 1.0);
  for (int i = 0; i < n; ++i) {
    const double f = std::pow(max_factor, static_cast<double>(i) / (n - 1));
    pts.emplace_back(f, analysis::amdahl_speedup(p, f));
  }
  return pts;
}

analysis::Guidance guidance_for(const analysis::Report& r, const std::optional<analysis::WhatIf>& whatif,
                                const std::string& source) {
  if (r.guidance.projections.computed) return r.guidance;
  analysis::Guidance g;
  analysis::ProjectionOptions po;
  po.curves = whatif && !whatif->curves.empty() ? &whatif->curves : nullptr;
  g.projections = analysis::compute_projections(r, po);
  g.next_actions = analysis::next_actions(r, g.projections, source.empty() ? "PROFILE" : source);
  return g;
}

std::string window_line(const analysis::Report& r) {
  std::string s;
  if (r.steps > 0) {
    s = std::to_string(r.steps) + " analysed step" + (r.steps == 1 ? "" : "s") + " of " +
        std::to_string(r.total_steps) + " (" + std::to_string(r.warmup - r.fill_steps) + " warm-up" +
        (r.fill_steps > 0 ? ", " + std::to_string(r.fill_steps) + " pipeline fill" : std::string()) +
        (r.drain_steps > 0 ? ", " + std::to_string(r.drain_steps) + " drain" : std::string()) + " excluded), window " +
        ms(static_cast<double>(r.wall_ns)) + " ms, mean step " + ms(r.step_ns.mean) + " ms";
  } else {
    s = "no steps: the window is the whole run, " + ms(static_cast<double>(r.wall_ns)) + " ms";
  }
  return s;
}

}  // namespace amdahl::render::detail
