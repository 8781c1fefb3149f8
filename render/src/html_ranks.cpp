// The HTML report's ranks section: the per-rank stacked bar and the per-rank table.
#include "html_ranks.hpp"

#include "amdahl/text/escape.hpp"
#include "amdahl/render/svg_charts.hpp"
#include "amdahl/render/finding_text.hpp"
#include "render_common.hpp"

namespace amdahl::render::detail {
namespace {

std::vector<RankBar> rank_bars(const analysis::Report& r, const std::vector<std::string>& colors) {
  const analysis::RankAnalysis& ra = r.ranks;
  std::vector<RankBar> bars;
  for (std::size_t k = 0; k < ra.rows.size(); ++k) {
    const analysis::RankRow& row = ra.rows[k];
    RankBar bar{"rank " + std::to_string(row.rank), {}, ra.straggler && *ra.straggler == k};
    for (std::size_t s = 0; s < row.lane_ns.size() && s < r.stages.size(); ++s) {
      if (r.stages[s].is_other) continue;
      const std::string color = s < colors.size() && !colors[s].empty() ? colors[s] : stage_color(r.stages[s].name, s);
      bar.parts.push_back({r.stages[s].name, color, row.lane_ns[s] / 1e6});
    }
    bar.parts.push_back({"wait", stage_color("wait", 0), row.lane_wait_ns / 1e6});
    bar.parts.push_back({"other", stage_color("other", 0), row.lane_other_ns / 1e6});
    bars.push_back(std::move(bar));
  }
  return bars;
}

}  // namespace

std::string ranks_html(const analysis::Report& r, const std::vector<std::string>& colors) {
  const analysis::RankAnalysis& ra = r.ranks;
  if (ra.rows.size() < 2) return "";
  std::string h = "<h2>Ranks</h2><p class=\"sub\">" + std::to_string(ra.world) +
                  " ranks side by side: each bar is one rank's driving thread, per step, by stage.</p>";
  if (ra.line) h += "<p>" + text::html_escape(to_text(ra.line)) + ".</p>";
  h += svg_rank_bars(rank_bars(r, colors), "ms per step", "straggler");
  h += "<table><tr><th>rank</th><th>pid</th><th>ms/step</th><th>communication ms</th><th>exposed ms</th>"
       "<th>hidden ms</th><th>late ms</th><th>last at</th></tr>";
  for (std::size_t k = 0; k < ra.rows.size(); ++k) {
    const analysis::RankRow& row = ra.rows[k];
    const bool straggler = ra.straggler && *ra.straggler == k;
    h += "<tr><td>" + std::string(straggler ? "<b>" : "") + std::to_string(row.rank) +
         (straggler ? " (straggler)</b>" : "") + "</td><td>" + std::to_string(row.pid) + "</td><td>" + ms(row.step_ns) +
         "</td><td>" + ms(row.comm_ns) + "</td><td>" + ms(row.comm_exposed_ns) + "</td><td>" + ms(row.comm_hidden_ns) +
         "</td><td>" + ms(row.lateness_ns) + "</td><td>" + std::to_string(row.times_last) + " of " +
         std::to_string(ra.collectives) + "</td></tr>";
  }
  h += "</table>";
  if (ra.straggler && ra.fixed_step_ns > 0)
    h += "<p class=\"sub\">Straggler fixed (estimate): " + ms(ra.fixed_step_ns) +
         " ms per step, the other ranks' step less the exposed time they waited for rank " +
         std::to_string(ra.rows[*ra.straggler].rank) + " (<code>amdahl whatif --straggler-fixed</code>).</p>";
  if (ra.collectives > 0 && ra.comm_bytes > 0)
    h += "<p class=\"sub\">" + std::to_string(ra.collectives) + " collectives matched across the ranks, " +
         std::to_string(ra.comm_bytes) + " bytes each, " + ms(ra.transfer_ns) +
         " ms (the last arrival's). Late: mean arrival at a collective after the median rank.</p>";
  return h + "\n";
}

}  // namespace amdahl::render::detail
