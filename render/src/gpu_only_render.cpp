// The GPU-only report (analysis/gpu_only.hpp) as JSON, text, HTML, Markdown and CSV.
#include "amdahl/render/gpu_only_render.hpp"

#include <string>

#include "amdahl/text/escape.hpp"
#include "amdahl/render/finding_text.hpp"
#include "json_common.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

using detail::left;
using detail::right;
using detail::share;
// The GPU-only report's figures: ms with one decimal, whole percentages.
std::string ms(std::int64_t ns) { return detail::ms_tenths(ns); }
std::string pct(double fraction) { return detail::pct_whole(fraction); }

std::string meta(const analysis::GpuOnlyReport& r, const char* key) {
  const auto it = r.meta.find(key);
  return it == r.meta.end() ? std::string() : it->second;
}

// "12.3 ms" (the text report's unit after the figure).
std::string ms_text(std::int64_t ns) { return ms(ns) + " ms"; }

// Rows of the three tables, cells not yet escaped.
using Row = std::vector<std::string>;

std::vector<Row> device_rows(const analysis::GpuOnlyReport& r) {
  std::vector<Row> rows;
  const std::int64_t run_ns = r.run.end_ns - r.run.start_ns;
  for (const auto& d : r.devices)
    rows.push_back({"pid " + std::to_string(d.pid) + " dev " + std::to_string(d.device), ms(d.busy_ns),
                    ms(d.idle_ns), pct(share(d.idle_ns, run_ns)),
                    pct(share(d.active_idle_ns, d.active.end_ns - d.active.start_ns)),
                    pct(share(d.short_gap_ns, d.active_idle_ns))});
  return rows;
}

std::vector<Row> op_rows(const analysis::GpuOnlyReport& r) {
  std::vector<Row> rows;
  for (const auto& o : r.ops) rows.push_back({o.kind, std::to_string(o.count), ms(o.total_ns), std::to_string(o.bytes)});
  return rows;
}

std::vector<Row> kernel_rows(const analysis::GpuOnlyReport& r) {
  std::vector<Row> rows;
  for (const auto& k : r.top_kernels)
    rows.push_back({k.name, std::to_string(k.count), ms(k.total_ns), pct(share(k.total_ns, r.kernel_ns))});
  return rows;
}

const Row kDeviceHead{"device", "busy ms", "idle ms (run)", "idle share (run)", "idle share (active)",
                      "of it in launch gaps"};
const Row kOpHead{"kind", "count", "time ms", "bytes"};
const Row kKernelHead{"kernel", "count", "total ms", "share of kernel time"};

std::string summary_line(const analysis::GpuOnlyReport& r) {
  return "Run " + ms(r.run.end_ns - r.run.start_ns) + " ms; GPU active " + ms(r.active.end_ns - r.active.start_ns) +
         " ms (first to last operation); kernels " + ms(r.kernel_ns) + " ms, copies and sets " + ms(r.copy_ns) +
         " ms (sums of durations).";
}

std::string html_table(const Row& head, const std::vector<Row>& rows) {
  std::string h = "<table><tr>";
  const auto cell = [&h](const char* tag, const std::string& text) {
    h.append("<").append(tag).append(">").append(text::html_escape(text)).append("</").append(tag).append(">");
  };
  for (const auto& c : head) cell("th", c);
  h += "</tr>";
  for (const auto& row : rows) {
    h += "<tr>";
    for (const auto& c : row) cell("td", c);
    h += "</tr>";
  }
  h += "</table>\n";
  return h;
}

std::string md_table(const Row& head, const std::vector<Row>& rows) {
  std::string m = "|";
  for (const auto& c : head) m.append(" ").append(text::markdown_cell(c)).append(" |");
  m += "\n|:--|";
  for (std::size_t i = 1; i < head.size(); ++i) m += "--:|";
  m += "\n";
  for (const auto& row : rows) {
    m += "|";
    for (const auto& c : row) m.append(" ").append(text::markdown_cell(c)).append(" |");
    m += "\n";
  }
  return m;
}

}  // namespace

std::string render_gpu_only_html(const analysis::GpuOnlyReport& r, const std::string& source) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
      "<title>amdahl report (GPU only)";
  if (!source.empty()) h += " - " + text::html_escape(source);
  h += "</title><style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}"
       "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
       "text-align:right}td:first-child,th:first-child{text-align:left;word-break:break-all}"
       ".verdict{font-size:1.2em;font-weight:600;padding:.5em;background:#f4f4f4}.hint{background:#fff6d5;"
       "padding:.5em}</style></head><body><main>\n<h1>amdahl report: GPU only</h1><p>";
  if (!source.empty()) h += "profile <b>" + text::html_escape(source) + "</b><br>";
  if (const std::string c = meta(r, "command"); !c.empty()) h += "command <code>" + text::html_escape(c) + "</code><br>";
  h += "no step or stage ranges: the host stages are unknown</p>\n";
  h += "<div class=\"verdict\">" + text::html_escape(to_text(r.verdict)) + "</div>\n";
  h += "<p>" + text::html_escape(summary_line(r)) + "</p>\n";
  h += "<h2>GPU busy and idle</h2>" + html_table(kDeviceHead, device_rows(r));
  h += "<h2>Kernels and copies</h2>" + html_table(kOpHead, op_rows(r));
  h += "<h2>Top kernels by time</h2>" + html_table(kKernelHead, kernel_rows(r));
  h += "<p class=\"hint\">" + text::html_escape(to_text(r.how_to_get_stages)) + "</p>\n";
  if (!r.notes.empty()) {
    h += "<h2>Notes</h2><ul>";
    for (const auto& n : to_text(r.notes)) h += "<li>" + text::html_escape(n) + "</li>";
    h += "</ul>\n";
  }
  if (!r.diagnostics.empty()) {
    h += "<h2>Diagnostics</h2><ul>";
    for (const auto& d : r.diagnostics)
      h += "<li>" + text::html_escape(d.key) + ": " + std::to_string(d.count) +
           (d.detail.empty() ? "" : " &mdash; " + text::html_escape(d.detail)) + "</li>";
    h += "</ul>\n";
  }
  return h + "</main></body></html>\n";
}

std::string render_gpu_only_markdown(const analysis::GpuOnlyReport& r, const std::string& source) {
  std::string m = "## amdahl report (GPU only)";
  if (!source.empty()) m += ": " + text::markdown_cell(source);
  m += "\n\n**" + text::markdown_cell(to_text(r.verdict)) + "**\n\n" + text::markdown_cell(summary_line(r)) + "\n\n";
  m += "### GPU busy and idle\n\n" + md_table(kDeviceHead, device_rows(r));
  m += "\n### Kernels and copies\n\n" + md_table(kOpHead, op_rows(r));
  m += "\n### Top kernels by time\n\n" + md_table(kKernelHead, kernel_rows(r));
  m.append("\n").append(text::markdown_cell(to_text(r.how_to_get_stages))).append("\n");
  for (const auto& n : to_text(r.notes)) m.append("\n* ").append(text::markdown_cell(n));
  if (!r.notes.empty()) m += "\n";
  return m;
}

std::string render_gpu_only_csv(const analysis::GpuOnlyReport& r) {
  std::string c = "kernel,count,total_ns,share_of_kernel_time\r\n";
  for (const auto& k : r.top_kernels) {
    c += text::csv_cell(k.name) + "," + std::to_string(k.count) + "," + std::to_string(k.total_ns) + "," +
         detail::fixed(share(k.total_ns, r.kernel_ns), 6) + "\r\n";
  }
  return c;
}

nlohmann::json gpu_only_to_json(const GpuOnlyReport& r) {
  nlohmann::json j;
  j["report_kind"] = "gpu_only";
  j["host_stages"] = "unknown";
  j["how_to_get_stages"] = to_text(r.how_to_get_stages);
  j["wall_ns"] = r.run.end_ns - r.run.start_ns;
  j["run"] = {{"start_ns", r.run.start_ns}, {"end_ns", r.run.end_ns}, {"source", r.run_source}};
  j["gpu_active"] = {{"start_ns", r.active.start_ns}, {"end_ns", r.active.end_ns}};
  j["steps"] = 0;
  j["stages"] = nlohmann::json::array();
  j["verdict"] = to_text(r.verdict);
  j["bound"] = r.bound;
  nlohmann::json g;
  g["busy_ns"] = r.busy_ns;
  g["idle_ns"] = r.idle_ns;
  g["idle_share_run"] = r.idle_share_run;
  g["active_ns"] = r.active_ns;
  g["active_idle_ns"] = r.active_idle_ns;
  g["idle_share_active"] = r.idle_share_active;
  g["launch_gap_threshold_ns"] = kLaunchGapNs;
  g["short_gap_ns"] = r.short_gap_ns;
  g["short_gap_share"] = r.short_gap_share;
  g["host_speedup_bound"] = r.host_speedup_bound;
  g["kernel_ns"] = r.kernel_ns;
  g["copy_ns"] = r.copy_ns;
  nlohmann::json devs = nlohmann::json::array();
  for (const auto& d : r.devices)
    devs.push_back({{"pid", d.pid}, {"device", d.device}, {"ops", d.ops}, {"busy_ns", d.busy_ns},
                    {"kernel_busy_ns", d.kernel_busy_ns}, {"copy_busy_ns", d.copy_busy_ns}, {"idle_ns", d.idle_ns},
                    {"active_start_ns", d.active.start_ns}, {"active_end_ns", d.active.end_ns},
                    {"active_idle_ns", d.active_idle_ns}, {"short_gap_ns", d.short_gap_ns},
                    {"short_gaps", d.short_gaps}, {"long_gaps", d.long_gaps}});
  g["devices"] = std::move(devs);
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : r.ops)
    ops.push_back({{"kind", o.kind}, {"count", o.count}, {"total_ns", o.total_ns}, {"bytes", o.bytes}});
  g["ops"] = std::move(ops);
  g["distinct_kernels"] = r.distinct_kernels;
  nlohmann::json tk = nlohmann::json::array();
  for (const auto& k : r.top_kernels)
    tk.push_back({{"name", k.name}, {"count", k.count}, {"total_ns", k.total_ns},
                  {"share_of_kernel_time", share(k.total_ns, r.kernel_ns)}});
  g["top_kernels"] = std::move(tk);
  g["launch_calls"] = {{"count", r.launch_calls}, {"total_ns", r.launch_call_ns}};
  j["gpu"] = std::move(g);
  detail::add_report_tail(j, to_text(r.notes), r.diagnostics, r.meta);
  return j;
}

std::string gpu_only_to_text(const GpuOnlyReport& r) {
  std::string o;
  auto line = [&](const std::string& s) { o += s + "\n"; };
  const std::int64_t run_ns = r.run.end_ns - r.run.start_ns;
  line("amdahl report: GPU only (no step or stage ranges)");
  line("run: " + ms_text(run_ns) + " (" + (r.run_source == "command" ? "the command's run" : "first to last record") +
       "); GPU active " + ms_text(r.active.end_ns - r.active.start_ns) + ", from its first to its last operation");
  line("");
  line("verdict: " + to_text(r.verdict));
  line("");
  line("GPU busy and idle");
  // One row of the devices table: the name, then five right-aligned cells.
  auto device_row = [&](const std::string& name, const std::string& busy, const std::string& idle,
                        const std::string& idle_share, const std::string& idle_active, const std::string& gaps) {
    line("  " + left(name, 16) + " " + right(busy, 12) + " " + right(idle, 12) + " " + right(idle_share, 12) + " " +
         right(idle_active, 12) + " " + right(gaps, 14));
  };
  device_row("device", "busy", "idle (run)", "idle share", "idle active", "launch gaps");
  for (const auto& d : r.devices) {
    const std::string name = "pid " + std::to_string(d.pid) + " dev " + std::to_string(d.device);
    const std::int64_t act = d.active.end_ns - d.active.start_ns;
    device_row(name, ms_text(d.busy_ns), ms_text(d.idle_ns), pct(share(d.idle_ns, run_ns)),
               pct(share(d.active_idle_ns, act)), pct(share(d.short_gap_ns, d.active_idle_ns)));
  }
  line("  busy " + ms_text(r.busy_ns) + " and idle " + ms_text(r.idle_ns) + " over the run (" + pct(r.idle_share_run) +
       " idle); idle " + pct(r.idle_share_active) + " of the active span, " + pct(r.short_gap_share) +
       " of that in gaps under " + detail::fixed(kLaunchGapNs / 1e3, 0) + " us");
  line("");
  line("kernels vs copies (sums of durations): kernels " + ms_text(r.kernel_ns) + ", copies and sets " +
       ms_text(r.copy_ns));
  line("  " + left("kind", 26) + " " + right("count", 10) + " " + right("time", 12) + " " + right("bytes", 14));
  for (const auto& op : r.ops)
    line("  " + left(op.kind, 26) + " " + right(std::to_string(op.count), 10) + " " + right(ms_text(op.total_ns), 12) +
         " " + right(std::to_string(op.bytes), 14));
  if (r.launch_calls > 0)
    line("  host launch calls: " + std::to_string(r.launch_calls) + ", " + ms_text(r.launch_call_ns) + " in all");
  line("");
  line("top kernels by time (" + std::to_string(r.top_kernels.size()) + " of " + std::to_string(r.distinct_kernels) +
       " distinct)");
  line("  " + right("total", 10) + " " + right("count", 8) + " " + right("share", 7) + "  kernel");
  for (const auto& k : r.top_kernels) {
    std::string name = k.name;
    if (name.size() > 100) name = name.substr(0, 97) + "...";
    line("  " + right(ms_text(k.total_ns), 10) + " " + right(std::to_string(k.count), 8) + " " +
         right(pct(share(k.total_ns, r.kernel_ns)), 7) + "  " + name);
  }
  line("");
  line(to_text(r.how_to_get_stages));
  for (const auto& n : to_text(r.notes)) line("note: " + n);
  if (!r.diagnostics.empty()) {
    line("");
    line("diagnostics:");
    for (const auto& d : r.diagnostics)
      line("  " + d.key + ": " + std::to_string(d.count) + (d.detail.empty() ? "" : " — " + d.detail));
  }
  return o;
}

}  // namespace amdahl::render
