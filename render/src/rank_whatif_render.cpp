// The data-parallel what-ifs (analysis/rank_whatif.hpp) as JSON and text.
#include "amdahl/analysis/rank_whatif.hpp"
#include "amdahl/render/finding_text.hpp"
#include "amdahl/render/renderers.hpp"
#include "numbers.hpp"

#include <string>

namespace amdahl::render {
using namespace analysis;
namespace {

double others_step_ns(const RankAnalysis& ra) {
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < ra.rows.size(); ++i) {
    if (ra.straggler && i == *ra.straggler) continue;
    sum += ra.rows[i].step_ns;
    ++n;
  }
  return n > 0 ? sum / static_cast<double>(n) : 0;
}

double step_ns(const Report& r) { return r.steps > 0 ? static_cast<double>(r.wall_ns) / static_cast<double>(r.steps) : 0; }

}  // namespace

void add_rank_whatif_json(nlohmann::json& j, const Report& report, const RankWhatIf& rw, const WhatIf* w) {
  if (rw.projection) {
    const RankProjection& p = *rw.projection;
    const double step = step_ns(report);
    j["rank_projection"] = {{"from_ranks", p.from_ranks},
                            {"to_ranks", p.to_ranks},
                            {"bytes", p.bytes},
                            {"bandwidth_gbps", p.bytes_per_s / 1e9},
                            {"bandwidth_measured", p.bandwidth_measured},
                            {"measured_collective_ns", p.measured_ns},
                            {"fixed_ns", p.fixed_ns},
                            {"projected_collective_ns", p.projected_ns},
                            {"factor", p.factor},
                            {"model", to_text(p)},
                            {"step_ns", step},
                            {"projected_step_ns", w != nullptr && w->simulated_speedup > 0
                                                      ? nlohmann::json(step / w->simulated_speedup)
                                                      : nlohmann::json(nullptr)}};
  }
  if (rw.straggler_fixed && report.ranks.straggler) {
    const RankAnalysis& ra = report.ranks;
    const double before = others_step_ns(ra);
    j["straggler_fixed"] = {{"rank", ra.rows[*ra.straggler].rank},
                            {"late_stage", ra.late_stage},
                            {"step_ns", before},
                            {"fixed_step_ns", ra.fixed_step_ns},
                            {"speedup", ra.fixed_step_ns > 0 ? before / ra.fixed_step_ns : 1.0},
                            {"method", "estimate: the other ranks' step less the exposed time they waited for the "
                                       "straggler's arrival at each collective"}};
  }
}

std::string rank_whatif_text(const Report& report, const RankWhatIf& rw, const WhatIf* w) {
  std::string out;
  using detail::fixed;
  if (rw.projection) {
    const RankProjection& p = *rw.projection;
    const double step = step_ns(report);
    out += "\nprojection to " + std::to_string(p.to_ranks) + " ranks:\n  model: " + to_text(p) + "\n";
    if (w != nullptr && w->simulated_speedup > 0) {
      out += "  " + std::to_string(p.from_ranks) + " rank" + (p.from_ranks == 1 ? "" : "s") + ": " +
             fixed(step / 1e6, 2) + " ms/step -> " + std::to_string(p.to_ranks) + " ranks: " +
             fixed(step / w->simulated_speedup / 1e6, 2) + " ms/step (simulated, " +
             detail::general(w->simulated_speedup, 3) + "x per rank)\n";
    }
  }
  if (rw.straggler_fixed && report.ranks.straggler) {
    const RankAnalysis& ra = report.ranks;
    const double before = others_step_ns(ra);
    out += "\nstraggler fixed (rank " + std::to_string(ra.rows[*ra.straggler].rank) + "'s " +
           (ra.late_stage.empty() ? std::string("delay") : ra.late_stage) + " as the others'): " + fixed(before / 1e6, 2) +
           " -> " + fixed(ra.fixed_step_ns / 1e6, 2) + " ms/step, " +
           fixed(ra.fixed_step_ns > 0 ? before / ra.fixed_step_ns : 1.0, 2) +
           "x (estimate: the other ranks' step less the exposed time they waited for its arrival)\n";
  }
  return out;
}

}  // namespace amdahl::render
