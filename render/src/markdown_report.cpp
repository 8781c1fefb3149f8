// The Markdown report (GitHub-flavoured): verdict, stage table, projections, per-step
// statistics, what-if, notes. Every profile-derived string goes through markdown_cell.
#include <algorithm>
#include <cmath>

#include "amdahl/render/guidance_render.hpp"
#include "amdahl/text/escape.hpp"
#include "amdahl/render/renderers.hpp"
#include "amdahl/render/check_command.hpp"
#include "amdahl/render/finding_text.hpp"
#include "render_common.hpp"

namespace amdahl::render {
namespace {

using detail::fixed;

// A command as a code span when it holds only plain characters; else as an escaped cell (a
// stage or path from the profile may hold markup or backticks, which a code span would keep).
std::string command_md(const std::string& s) {
  const bool plain = std::all_of(s.begin(), s.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f && c != '`' && c != '<' &&
           c != '>' && c != '&';
  });
  return plain ? "`" + s + "`" : text::markdown_cell(s);
}

// The projection table: replay (the headline) beside classic Amdahl; the target from the replay.
std::string projections_markdown(const analysis::Projections& p) {
  std::string m = "\n### Projections: the whole run with one stage k times faster\n\n";
  m += p.replay ? "- **" + text::markdown_cell("replay") + "** (the headline): " + text::markdown_cell(kReplayMeaning) + "\n"
                : "- **classic Amdahl only**: " + text::markdown_cell(to_text(p.classic_only_reason)) + "\n";
  m += "- **classic Amdahl**: " + text::markdown_cell(kClassicMeaning) + "\n\n";
  const std::string target = "for " + fixed(p.target, 2) + "x overall";
  if (p.replay) {
    m += "| stage | replay 2x | replay 4x | replay 10x | replay limit | classic 2x | classic 4x | classic 10x | "
         "classic limit | " + target + " |\n|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  } else {
    m += "| stage | classic 2x | classic 4x | classic 10x | classic limit | " + target +
         " |\n|:--|--:|--:|--:|--:|--:|\n";
  }
  for (const auto& s : p.stages) {
    m += "| " + text::markdown_cell(s.stage) + " | ";
    if (p.replay)
      m += s.replay ? "**" + detail::speedup(s.replay->x2) + "** | **" + detail::speedup(s.replay->x4) + "** | **" +
                          detail::speedup(s.replay->x10) + "** | **" + detail::speedup(s.replay->limit) + "** | "
                    : std::string("- | - | - | - | ");
    m += detail::speedup(s.classic.x2) + " | " + detail::speedup(s.classic.x4) + " | " + detail::speedup(s.classic.x10) +
         " | " + detail::speedup(s.classic.limit) + " | " + text::markdown_cell(target_text(s, p)) +
         (p.replay && !s.replay ? " (classic)" : "") + " |\n";
  }
  if (p.replay_lower_bounds) m += "\nThe replay figures are lower bounds: waits on the critical path are linked to nothing.\n";
  return m;
}

}  // namespace

std::string render_markdown(const analysis::Report& r, const std::optional<analysis::WhatIf>& whatif,
                            const RenderOptions& options) {
  using detail::ms;
  using detail::pct;
  const auto vis = detail::visible_stages(r);
  std::string m;
  m += "## amdahl report";
  if (!options.source.empty()) m += ": " + text::markdown_cell(options.source);
  m += "\n\n**" + text::markdown_cell(to_text(r.verdict)) + "**\n\n" + text::markdown_cell(detail::window_line(r)) + ".\n\n";
  const analysis::Guidance guidance = detail::guidance_for(r, whatif, options.source);
  m += "| stage | exposed ms | share | host total ms | hidden ms |\n";
  m += "|:--|--:|--:|--:|--:|\n";
  for (const std::size_t i : vis) {
    const auto& s = r.stages[i];
    if (s.is_other) {
      m += "| *other* | " + ms(s.exposed_ns) + " | " + pct(s.fraction) + " | | |\n";
      continue;
    }
    m += "| " + text::markdown_cell(s.name) + " | " + ms(s.exposed_ns) + " | " + pct(s.fraction) + " | " + ms(s.total_ns) +
         " | " + ms(s.hidden_ns) + " |\n";
  }
  m += projections_markdown(guidance.projections);
  if (!guidance.next_actions.empty()) {
    m += "\n### What to do next\n\n";
    for (std::size_t k = 0; k < guidance.next_actions.size(); ++k)
      m += std::to_string(k + 1) + ". " + text::markdown_cell(to_text(guidance.next_actions[k].text)) + " &mdash; check: " +
           command_md(to_command(guidance.next_actions[k])) + "\n";
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
      row(r.stages[i].is_other ? "*other*" : text::markdown_cell(r.stages[i].name), r.stages[i].per_step_exposed_ns);
  }
  if (whatif && (!whatif->requests.empty() || whatif->target)) {
    const auto& w = *whatif;
    m += "\n### What-if\n\n| change | replay | 95% interval | classic Amdahl | 95% interval |\n|:--|--:|--:|--:|--:|\n| ";
    for (std::size_t k = 0; k < w.requests.size(); ++k)
      m += (k ? ", " : "") + text::markdown_cell(w.requests[k].stage + (w.requests[k].host ? ":host" : "")) + " x" +
           fixed(w.requests[k].factor, 2);
    m += " | **" + detail::speedup(w.simulated_speedup) + "**" + (w.simulation_implemented ? "" : " (no replay)") +
         " | " + fixed(w.simulated_interval.low, 3) + "-" + fixed(w.simulated_interval.high, 3) + " | " +
         detail::speedup(w.naive_speedup) + " | " + fixed(w.naive_interval.low, 3) + "-" +
         fixed(w.naive_interval.high, 3) + " |\n";
    if (w.bottleneck_line) m += "\n" + text::markdown_cell(to_text(w.bottleneck_line)) + "\n";
    if (w.target) {
      m += "\nFor " + fixed(*w.target, 2) + "x overall, each stage alone needs:\n\n| stage | share | factor (replay) | "
           "replay limit | classic factor | classic limit |\n|:--|--:|--:|--:|--:|--:|\n";
      for (const auto& t : w.target_rows)
        m += "| " + text::markdown_cell(t.stage) + " | " + pct(t.fraction) + " | " +
             (t.simulated_factor ? fixed(*t.simulated_factor, 2) + "x" : std::string("not reachable by this stage alone")) +
             " | " + detail::speedup(t.simulated_limit) + " | " +
             (t.factor && std::isfinite(*t.factor) ? fixed(*t.factor, 2) + "x" : std::string("none suffices")) +
             " | " + detail::speedup(t.limit) + " |\n";
    }
  }
  if (!r.notes.empty() || !r.diagnostics.empty()) {
    m += "\n<details><summary>Notes and diagnostics</summary>\n\n";
    for (const auto& n : to_text(r.notes)) m += "- " + text::markdown_cell(n) + "\n";
    for (const auto& d : r.diagnostics)
      m += "- diagnostic " + text::markdown_cell(d.key) + " (pid " + std::to_string(d.pid) + "): " +
           std::to_string(d.count) + " " + text::markdown_cell(d.detail) + "\n";
    m += "\n</details>\n";
  }
  return m;
}

}  // namespace amdahl::render
