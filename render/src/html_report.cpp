// The HTML report: one self-contained offline page (inline CSS and SVG, no script, no external
// resource). Every profile-derived string goes through html_escape.
#include <algorithm>
#include <cmath>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/render/guidance_render.hpp"
#include "amdahl/text/escape.hpp"
#include "amdahl/render/renderers.hpp"
#include "amdahl/render/svg_charts.hpp"
#include "amdahl/render/check_command.hpp"
#include "amdahl/render/finding_text.hpp"
#include "html_ranks.hpp"
#include "render_common.hpp"

namespace amdahl::render {
namespace {

using detail::fixed;
using detail::ms;
using detail::pct;

const char* const kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d2430;background:#f5f6f8;margin:0}
main{max-width:920px;margin:0 auto;padding:24px 28px 40px;background:#fff;min-height:100vh;box-shadow:0 0 12px rgba(0,0,0,.06)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:30px 0 8px;padding-bottom:4px;border-bottom:1px solid #e3e6eb}
.meta{color:#5b6473;font-size:12.5px;word-break:break-all}
.verdict{margin:16px 0 6px;padding:14px 16px;border-left:5px solid #3a6fd8;background:#eef3fd;font-size:17px;font-weight:600}
.verdict.warn{border-color:#d95f02;background:#fdf2ea}
.sub{color:#5b6473;margin:0 0 8px}
table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-size:13px}
th,td{padding:4px 8px;border-bottom:1px solid #eceef2;text-align:right;white-space:nowrap}
th{background:#f2f4f7;font-weight:600}th:first-child,td:first-child{text-align:left;white-space:normal;word-break:break-all}
table.proj td:first-child{min-width:10.5em;word-break:break-word}table.proj td.tgt{white-space:normal;text-align:left;min-width:11em}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px;vertical-align:baseline}
svg{display:block;max-width:100%;height:auto;margin:4px 0}
svg .grid{stroke:#e6e8ec;stroke-width:1}svg .axis{stroke:#8a93a2;stroke-width:1}
svg .ax{font-size:11px;fill:#5b6473}svg .lg{font-size:12px;fill:#1d2430}svg .in{font-size:12px;fill:#fff;font-weight:600}
ul.notes li{margin:3px 0;color:#333}
ol.next li{margin:5px 0}code{font-size:12.5px;background:#f2f4f7;padding:1px 4px;border-radius:3px;word-break:break-all}
.muted{color:#7a8391}
footer{margin-top:28px;font-size:12px;color:#7a8391}
)css";

std::string esc(const std::string& s) { return text::html_escape(s); }

std::string swatch(const std::string& color) {
  return "<span class=\"sw\" style=\"background:" + esc(color) + "\"></span>";
}

std::string meta_value(const analysis::Report& r, const std::string& key) {
  const auto it = r.meta.find(key);
  return it == r.meta.end() ? std::string() : it->second;
}

std::string stats_cells(const analysis::StatsSummary& s) {
  return "<td>" + ms(s.mean) + "</td><td>" + ms(s.median) + "</td><td>" + ms(s.p95) + "</td><td>" + ms(s.stddev) +
         "</td><td>" + ms(s.min) + "</td><td>" + ms(s.max) + "</td>";
}

std::string num_or_none(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? fixed(*v, 2) + "x" : std::string("none suffices");
}

// "What to do next": the ranked actions, each with the command that checks it.
std::string next_actions_html(const std::vector<analysis::NextAction>& actions) {
  if (actions.empty()) return "";
  std::string h = "<h2>What to do next</h2><ol class=\"next\">";
  for (const auto& a : actions)
    h += "<li>" + esc(to_text(a.text)) + "<br><span class=\"muted\">check:</span> <code>" + esc(to_command(a)) + "</code></li>";
  return h + "</ol>\n";
}

// The projection table: the replay (the headline where the run can be replayed) beside classic
// Amdahl, and the factor for the target from the replay (analysis/projections.hpp).
std::string projection_table_html(const analysis::Report& r, const analysis::Projections& p,
                                  const std::vector<std::size_t>& vis, const std::vector<std::string>& colors) {
  std::string h;
  h += p.replay ? "<p class=\"sub\"><b>Replay</b> (the headline): " + esc(kReplayMeaning) + ".<br>"
                : "<p class=\"sub\"><b>Classic Amdahl only</b>: " + esc(to_text(p.classic_only_reason)) + ".<br>";
  h += "<b>Classic Amdahl</b>: " + esc(kClassicMeaning) + ".</p>";
  h += "<table class=\"proj\"><tr><th rowspan=\"2\">stage</th><th rowspan=\"2\">share</th>";
  if (p.replay) h += "<th colspan=\"4\">replay (overlap-aware)</th>";
  h += "<th colspan=\"4\">classic Amdahl (serial)</th><th rowspan=\"2\">factor for " + fixed(p.target, 2) +
       "x overall (" + (p.replay ? "replay" : "classic") + ")</th></tr><tr>";
  for (int k = 0; k < (p.replay ? 2 : 1); ++k) h += "<th>2x</th><th>4x</th><th>10x</th><th>limit</th>";
  h += "</tr>";
  bool skipped = false;
  for (const std::size_t i : vis) {
    const auto& s = r.stages[i];
    if (s.is_other) continue;
    const analysis::StageProjection* sp = nullptr;
    for (const auto& x : p.stages)
      if (x.stage == s.name) sp = &x;
    if (!sp) continue;
    h += "<tr><td>" + swatch(colors[i]) + esc(s.name) + "</td><td>" + pct(s.fraction) + "</td>";
    if (p.replay) {
      if (sp->replay)
        h += "<td><b>" + detail::speedup(sp->replay->x2) + "</b></td><td><b>" + detail::speedup(sp->replay->x4) +
             "</b></td><td><b>" + detail::speedup(sp->replay->x10) + "</b></td><td><b>" +
             detail::speedup(sp->replay->limit) + "</b></td>";
      else
        h += "<td colspan=\"4\" class=\"muted\">not replayed (large profile)</td>";
      skipped = skipped || !sp->replay;
    }
    h += "<td>" + detail::speedup(sp->classic.x2) + "</td><td>" + detail::speedup(sp->classic.x4) + "</td><td>" +
         detail::speedup(sp->classic.x10) + "</td><td>" + detail::speedup(sp->classic.limit) + "</td><td class=\"tgt\">" +
         esc(target_text(*sp, p)) + (p.replay && !sp->replay ? " (classic)" : "") + "</td></tr>";
  }
  h += "</table>\n";
  if (skipped)
    h += "<p class=\"sub\">Not replayed: the profile is large, so replays were kept to the stages with the most "
         "exposed time; <code>amdahl whatif --speedup STAGE=K</code> replays any.</p>";
  if (p.replay_lower_bounds)
    h += "<p class=\"sub\">The replay figures are lower bounds: waits on the critical path are linked to nothing "
         "(see the notes).</p>";
  return h;
}

// The stages the page shows (detail::visible_stages) and their colours, indexed as report.stages.
struct Page {
  const analysis::Report& r;
  std::vector<std::size_t> vis;
  std::vector<std::string> colors;
};

Page page_of(const analysis::Report& r) {
  Page p{r, detail::visible_stages(r), std::vector<std::string>(r.stages.size())};
  for (std::size_t k = 0; k < p.vis.size(); ++k) p.colors[p.vis[k]] = stage_color(r.stages[p.vis[k]].name, k);
  return p;
}

// <!DOCTYPE html> to <main>: the title, the Content-Security-Policy (nothing external), the style.
std::string document_head(const RenderOptions& options) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
       "img-src data:\">";
  h += "<title>amdahl report";
  if (!options.source.empty()) h += " - " + esc(options.source);
  h += "</title><style>";
  h += kStyle;
  h += "</style></head><body><main>\n";
  return h;
}

// The title and the profile: path, command, host, date.
std::string header_html(const analysis::Report& r, const RenderOptions& options) {
  std::string h;
  h += "<h1>amdahl report</h1><div class=\"meta\">";
  if (!options.source.empty()) h += "profile <b>" + esc(options.source) + "</b><br>";
  const std::string command = meta_value(r, "command"), host = meta_value(r, "host"),
                    created = meta_value(r, "created");
  if (!command.empty()) h += "command <code>" + esc(command) + "</code><br>";
  if (!host.empty() || !created.empty()) h += "host " + esc(host) + (created.empty() ? "" : " &middot; " + esc(created));
  h += "</div>\n";
  return h;
}

// The verdict and the window line.
std::string verdict_html(const analysis::Report& r) {
  std::string h;
  using namespace analysis::findings;
  const bool warn = std::holds_alternative<Unannotated>(r.verdict) || std::holds_alternative<NoStageTime>(r.verdict) ||
                    std::holds_alternative<NoDominantStage>(r.verdict);
  h += "<div class=\"verdict" + std::string(warn ? " warn" : "") + "\">" + esc(to_text(r.verdict)) + "</div>";
  h += "<p class=\"sub\">" + esc(detail::window_line(r)) +
       ". A group of stages is named when it holds at least 30% of the exposed time (docs/analysis.md, "
       "&ldquo;Verdict&rdquo;).</p>\n";
  return h;
}

// "Where the time goes": the stacked bar and the stage table.
std::string breakdown_html(const Page& p) {
  std::string h;
  h += "<h2>Where the time goes</h2>";
  std::vector<BarPart> parts;
  for (const std::size_t i : p.vis) parts.push_back({p.r.stages[i].name, p.colors[i], p.r.stages[i].exposed_ns});
  h += svg_stacked_bar(parts);
  h += "<table><tr><th>stage</th><th>exposed ms</th><th>share</th><th>host total ms</th><th>hidden ms</th>";
  if (p.r.gpu.present) h += "<th>GPU busy ms</th>";
  h += "</tr>";
  for (const std::size_t i : p.vis) {
    const auto& s = p.r.stages[i];
    h += "<tr><td>" + swatch(p.colors[i]) + esc(s.name) + (s.is_other ? " <span class=\"muted\">(in no stage)</span>" : "") +
         "</td><td>" + ms(s.exposed_ns) + "</td><td>" + pct(s.fraction) + "</td><td>" +
         (s.is_other ? "&ndash;" : ms(s.total_ns)) + "</td><td>" + (s.is_other ? "&ndash;" : ms(s.hidden_ns)) + "</td>";
    if (p.r.gpu.present) h += "<td>" + (s.is_other ? std::string("&ndash;") : ms(static_cast<double>(s.gpu_busy_ns))) + "</td>";
    h += "</tr>";
  }
  h += "</table><p class=\"sub\">Exposed: time the step waited for the stage; hidden: stage work that overlapped "
       "with something else. Exposed shares and <i>other</i> sum to 100% of the window.</p>\n";
  return h;
}

// "Per step over time": the exposed time of each step by stage (nothing without steps).
std::string step_columns_html(const Page& p) {
  std::string h;
  if (p.r.steps > 0 && !p.r.exposure.span_exposed.empty()) {
    h += "<h2>Per step over time</h2>";
    std::vector<ColumnSeries> series;
    for (const std::size_t i : p.vis) {
      ColumnSeries cs{p.r.stages[i].name, p.colors[i], {}};
      for (const auto& span : p.r.exposure.span_exposed) cs.values.push_back(i < span.size() ? span[i] / 1e6 : 0.0);
      series.push_back(std::move(cs));
    }
    h += svg_step_columns(series, "exposed ms", p.r.first_step);
  }
  return h;
}

// "What if a stage were k times faster?": the replayed curves beside the classic ones when the
// what-if has curves, else the classic ones alone.
std::string curves_html(const Page& p, const std::optional<analysis::WhatIf>& whatif) {
  std::string h;
  h += "<h2>What if a stage were k times faster?</h2>";
  std::vector<CurveSeries> curves;
  const bool replay_curves = whatif && !whatif->curves.empty();
  const auto color_of = [&](const std::string& stage) {
    for (const std::size_t i : p.vis)
      if (p.r.stages[i].name == stage) return p.colors[i];
    return stage_color(stage, p.vis.size());
  };
  if (replay_curves) {
    for (const auto& c : whatif->curves) {
      if (c.fraction < 0.005 && c.simulated_limit < 1.005) continue;
      CurveSeries sim{c.stage + " replay", color_of(c.stage), {}, false, 0};
      CurveSeries classic{c.stage + " classic (" + pct(c.fraction) + ")", color_of(c.stage), {}, true,
                          c.amdahl_limit};
      for (const auto& pt : c.points) {
        sim.points.emplace_back(pt.factor, pt.simulated);
        classic.points.emplace_back(pt.factor, pt.naive);
      }
      curves.push_back(std::move(sim));
      curves.push_back(std::move(classic));
    }
  } else {
    for (const std::size_t i : p.vis) {
      const auto& s = p.r.stages[i];
      if (s.is_other || s.fraction < 0.005) continue;
      curves.push_back({s.name + " (" + pct(s.fraction) + ")", p.colors[i], detail::classic_curve(s.fraction), false,
                        s.speedup_limit});
    }
  }
  if (curves.empty()) {
    h += "<p class=\"muted\">No stage holds exposed time; nothing to project.</p>";
  } else {
    h += svg_curves(curves);
    if (replay_curves)
      h += "<p class=\"sub\">Solid: the overlap-aware projection (the run's dependency graph replayed with the "
           "stage scaled). Dashed: classic Amdahl S = 1 / ((1 &minus; p) + p / k) from the stage's exposed share p. "
           "Dotted lines: the classic limits 1 / (1 &minus; p).</p>";
    else
      h += "<p class=\"sub\">Classic Amdahl projection S = 1 / ((1 &minus; p) + p / k) from each stage's exposed "
           "share p; dotted lines are the limits 1 / (1 &minus; p) (the stage taking no time at all).</p>";
  }
  return h;
}

// "Requested what-if": the --whatif requests and --target rows, when any.
std::string requested_whatif_html(const analysis::WhatIf& w) {
  std::string h;
  h += "<h2>Requested what-if</h2><table><tr><th>change</th><th>replay speedup</th><th>95% interval</th>"
       "<th>replayed window ms</th><th>classic Amdahl</th><th>95% interval</th></tr><tr><td>";
  for (std::size_t k = 0; k < w.requests.size(); ++k)
    h += (k ? ", " : "") + esc(w.requests[k].stage) + (w.requests[k].host ? ":host" : "") + " &times;" +
         fixed(w.requests[k].factor, 2);
  if (w.requests.empty()) h += "<span class=\"muted\">none</span>";
  h += "</td><td><b>" + detail::speedup(w.simulated_speedup) + "</b>" +
       (w.simulation_implemented ? "" : " <span class=\"muted\">(no replay: = classic)</span>") + "</td><td>" +
       fixed(w.simulated_interval.low, 3) + " &ndash; " + fixed(w.simulated_interval.high, 3) + "</td><td>" +
       ms(w.simulated_wall_ns) + "</td><td>" + detail::speedup(w.naive_speedup) + "</td><td>" +
       fixed(w.naive_interval.low, 3) + " &ndash; " + fixed(w.naive_interval.high, 3) + "</td></tr></table>";
  if (w.bottleneck_line) h += "<p class=\"sub\">" + esc(to_text(w.bottleneck_line)) + "</p>";
  if (w.target) {
    h += "<table><tr><th>stage alone</th><th>share</th><th>factor for " + fixed(*w.target, 2) +
         "x (replay)</th><th>replay limit</th><th>classic factor</th><th>classic limit</th></tr>";
    for (const auto& t : w.target_rows)
      h += "<tr><td>" + esc(t.stage) + "</td><td>" + pct(t.fraction) + "</td><td><b>" +
           (t.simulated_factor ? num_or_none(t.simulated_factor) : std::string("not reachable by this stage alone")) +
           "</b></td><td>" + detail::speedup(t.simulated_limit) + "</td><td>" + num_or_none(t.factor) + "</td><td>" +
           detail::speedup(t.limit) + "</td></tr>";
    h += "</table>";
  }
  if (!w.notes.empty()) {
    h += "<ul class=\"notes\">";
    for (const auto& n : to_text(w.notes)) h += "<li>" + esc(n) + "</li>";
    h += "</ul>";
  }
  return h;
}

// "Per-step statistics" (nothing without steps).
std::string step_stats_html(const Page& p) {
  std::string h;
  if (p.r.steps > 0) {
    h += "<h2>Per-step statistics</h2><table><tr><th>exposed per step</th><th>mean ms</th><th>median</th>"
         "<th>p95</th><th>stddev</th><th>min</th><th>max</th></tr>";
    h += "<tr><td><b>step length</b></td>" + stats_cells(p.r.step_ns) + "</tr>";
    for (const std::size_t i : p.vis)
      h += "<tr><td>" + swatch(p.colors[i]) + esc(p.r.stages[i].name) + "</td>" + stats_cells(p.r.stages[i].per_step_exposed_ns) +
           "</tr>";
    h += "</table>";
    if (!p.r.step_ns.exact_percentiles) h += "<p class=\"sub\">Percentiles are P&sup2; estimates (many steps).</p>";
  }
  return h;
}

// "GPU": the devices' busy and idle time and the launch delay (nothing without GPU records).
std::string gpu_html(const analysis::Report& r) {
  std::string h;
  if (r.gpu.present) {
    h += "<h2>GPU</h2><p class=\"sub\">" + std::to_string(r.gpu.ops) + " operations, " +
         std::to_string(r.gpu.ops_in_window) + " in the window (" + std::to_string(r.gpu.by_correlation) +
         " attributed through their launching call, " + std::to_string(r.gpu.by_fallback) + " by kind).</p>";
    h += "<table><tr><th>device</th><th>busy ms</th><th>idle ms</th><th>busy share</th></tr>";
    for (const auto& d : r.gpu.devices) {
      const double tot = static_cast<double>(d.busy_ns + d.idle_ns);
      h += "<tr><td>pid " + std::to_string(d.pid) + " / GPU " + std::to_string(d.device) + "</td><td>" +
           ms(static_cast<double>(d.busy_ns)) + "</td><td>" + ms(static_cast<double>(d.idle_ns)) + "</td><td>" +
           (tot > 0 ? pct(static_cast<double>(d.busy_ns) / tot) : std::string("&ndash;")) + "</td></tr>";
    }
    h += "</table>";
    const auto ld = r.gpu.launch_delay_ns.summary();
    if (ld.count > 0)
      h += "<p class=\"sub\">Launch delay (op start &minus; API call start), " + std::to_string(ld.count) +
           " ops: median " + ms(ld.median) + " ms, p95 " + ms(ld.p95) + " ms, max " + ms(ld.max) + " ms.</p>";
  }
  return h;
}

// "Notes" and "Diagnostics".
std::string notes_html(const analysis::Report& r) {
  std::string h;
  h += "<h2>Notes</h2><ul class=\"notes\">";
  for (const auto& n : to_text(r.notes)) h += "<li>" + esc(n) + "</li>";
  if (r.exposure.bounds) h += "<li><b>Some figures are bounds, not estimates</b> (see above).</li>";
  h += "</ul>";
  h += "<h2>Diagnostics</h2>";
  if (r.diagnostics.empty()) {
    h += "<p class=\"muted\">None: no dropped records, unbalanced ranges or truncated processes.</p>";
  } else {
    h += "<table><tr><th>problem</th><th>pid</th><th>count</th><th>detail</th></tr>";
    for (const auto& d : r.diagnostics)
      h += "<tr><td>" + esc(d.key) + "</td><td>" + std::to_string(d.pid) + "</td><td>" + std::to_string(d.count) +
           "</td><td style=\"text-align:left;white-space:normal\">" + esc(d.detail) + "</td></tr>";
    h += "</table>";
  }
  return h;
}

}  // namespace

std::string render_html(const analysis::Report& r, const std::optional<analysis::WhatIf>& whatif,
                        const RenderOptions& options) {
  const Page p = page_of(r);
  const analysis::Guidance guidance = detail::guidance_for(r, whatif, options.source);
  std::string h;
  h.reserve(64 * 1024);
  h += document_head(options);
  h += header_html(r, options);
  h += verdict_html(r);
  h += next_actions_html(guidance.next_actions);
  h += breakdown_html(p);
  h += step_columns_html(p);
  h += detail::ranks_html(r, p.colors);  // data-parallel runs only (html_ranks.hpp)
  h += curves_html(p, whatif);
  h += projection_table_html(r, guidance.projections, p.vis, p.colors);
  if (whatif && (!whatif->requests.empty() || whatif->target)) h += requested_whatif_html(*whatif);
  h += step_stats_html(p);
  h += gpu_html(r);
  h += notes_html(r);
  h += "<footer>Generated by amdahl. Figures are defined in docs/analysis.md.</footer>\n</main></body></html>\n";
  return h;
}

}  // namespace amdahl::render
