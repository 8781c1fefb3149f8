// The Markdown report (GitHub-flavoured): verdict, stage table, projections, per-step
// statistics, what-if, notes. Every profile-derived string goes through markdown_cell.
#include <algorithm>
#include <cmath>

#include "amdahl/report/escape.hpp"
#include "amdahl/report/renderers.hpp"
#include "render_common.hpp"

namespace amdahl::report {

std::string render_markdown(const analysis::Report& r, const std::optional<analysis::WhatIf>& whatif,
                            const RenderOptions& options) {
  using detail::fixed;
  using detail::ms;
  using detail::pct;
  const auto vis = detail::visible_stages(r);
  std::string m;
  m += "## amdahl report";
  if (!options.source.empty()) m += ": " + markdown_cell(options.source);
  m += "\n\n**" + markdown_cell(r.verdict) + "**\n\n" + markdown_cell(detail::window_line(r)) + ".\n\n";
  m += "| stage | exposed ms | share | host total ms | hidden ms | 2x | 10x | limit |\n";
  m += "|:--|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const std::size_t i : vis) {
    const auto& s = r.stages[i];
    if (s.is_other) {
      m += "| *other* | " + ms(s.exposed_ns) + " | " + pct(s.fraction) + " | | | | | |\n";
      continue;
    }
    m += "| " + markdown_cell(s.name) + " | " + ms(s.exposed_ns) + " | " + pct(s.fraction) + " | " + ms(s.total_ns) +
         " | " + ms(s.hidden_ns) + " | " + detail::speedup(s.speedup_2x) + " | " + detail::speedup(s.speedup_10x) +
         " | " + detail::speedup(s.speedup_limit) + " |\n";
  }
  if (r.steps > 0) {
    m += "\n### Per-step exposed time (ms)\n\n| stage | mean | median | p95 | stddev | min | max |\n"
         "|:--|--:|--:|--:|--:|--:|--:|\n";
    const auto row = [&](const std::string& name, const analysis::StatsSummary& s) {
      m += "| " + name + " | " + ms(s.mean) + " | " + ms(s.median) + " | " + ms(s.p95) + " | " + ms(s.stddev) +
           " | " + ms(s.min) + " | " + ms(s.max) + " |\n";
    };
    row("**step length**", r.step_ns);
    for (const std::size_t i : vis)
      row(r.stages[i].is_other ? "*other*" : markdown_cell(r.stages[i].name), r.stages[i].per_step_exposed_ns);
  }
  if (whatif && (!whatif->requests.empty() || whatif->target)) {
    const auto& w = *whatif;
    m += "\n### What-if\n\n| change | classic | 95% interval | simulated | 95% interval |\n|:--|--:|--:|--:|--:|\n| ";
    for (std::size_t k = 0; k < w.requests.size(); ++k)
      m += (k ? ", " : "") + markdown_cell(w.requests[k].stage) + " x" + fixed(w.requests[k].factor, 2);
    m += " | " + detail::speedup(w.naive_speedup) + " | " + fixed(w.naive_interval.low, 3) + "-" +
         fixed(w.naive_interval.high, 3) + " | " + detail::speedup(w.simulated_speedup) + " | " +
         fixed(w.simulated_interval.low, 3) + "-" + fixed(w.simulated_interval.high, 3) + " |\n";
    if (!w.bottleneck_line.empty()) m += "\n" + markdown_cell(w.bottleneck_line) + "\n";
    if (w.target) {
      m += "\nFor " + fixed(*w.target, 2) + "x overall, each stage alone needs:\n\n| stage | share | factor | limit |\n"
           "|:--|--:|--:|--:|\n";
      for (const auto& t : w.target_rows)
        m += "| " + markdown_cell(t.stage) + " | " + pct(t.fraction) + " | " +
             (t.factor && std::isfinite(*t.factor) ? fixed(*t.factor, 2) + "x" : std::string("none suffices")) +
             " | " + detail::speedup(t.limit) + " |\n";
    }
  }
  if (!r.notes.empty() || !r.diagnostics.empty()) {
    m += "\n<details><summary>Notes and diagnostics</summary>\n\n";
    for (const auto& n : r.notes) m += "- " + markdown_cell(n) + "\n";
    for (const auto& d : r.diagnostics)
      m += "- diagnostic " + markdown_cell(d.key) + " (pid " + std::to_string(d.pid) + "): " +
           std::to_string(d.count) + " " + markdown_cell(d.detail) + "\n";
    m += "\n</details>\n";
  }
  return m;
}

}  // namespace amdahl::report
