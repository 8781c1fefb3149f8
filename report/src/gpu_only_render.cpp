// The GPU-only report as HTML, Markdown and CSV (the same figures as gpu_only_to_text).
#include "amdahl/report/gpu_only_render.hpp"

#include <cinttypes>
#include <cstdio>

#include "amdahl/report/escape.hpp"

namespace amdahl::report {
namespace {

std::string ms(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(ns) / 1e6);
  return buf;
}

std::string pct(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * share);
  return buf;
}

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string meta(const analysis::GpuOnlyReport& r, const char* key) {
  const auto it = r.meta.find(key);
  return it == r.meta.end() ? std::string() : it->second;
}

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
  char buf[256];
  std::snprintf(buf, sizeof buf, "Run %s ms; GPU active %s ms (first to last operation); kernels %s ms, copies and "
                "sets %s ms (sums of durations).", ms(r.run.end_ns - r.run.start_ns).c_str(),
                ms(r.active.end_ns - r.active.start_ns).c_str(), ms(r.kernel_ns).c_str(), ms(r.copy_ns).c_str());
  return buf;
}

std::string html_table(const Row& head, const std::vector<Row>& rows) {
  std::string h = "<table><tr>";
  const auto cell = [&h](const char* tag, const std::string& text) {
    h.append("<").append(tag).append(">").append(html_escape(text)).append("</").append(tag).append(">");
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
  for (const auto& c : head) m.append(" ").append(markdown_cell(c)).append(" |");
  m += "\n|:--|";
  for (std::size_t i = 1; i < head.size(); ++i) m += "--:|";
  m += "\n";
  for (const auto& row : rows) {
    m += "|";
    for (const auto& c : row) m.append(" ").append(markdown_cell(c)).append(" |");
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
  if (!source.empty()) h += " - " + html_escape(source);
  h += "</title><style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}"
       "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;"
       "text-align:right}td:first-child,th:first-child{text-align:left;word-break:break-all}"
       ".verdict{font-size:1.2em;font-weight:600;padding:.5em;background:#f4f4f4}.hint{background:#fff6d5;"
       "padding:.5em}</style></head><body><main>\n<h1>amdahl report: GPU only</h1><p>";
  if (!source.empty()) h += "profile <b>" + html_escape(source) + "</b><br>";
  if (const std::string c = meta(r, "command"); !c.empty()) h += "command <code>" + html_escape(c) + "</code><br>";
  h += "no step or stage ranges: the host stages are unknown</p>\n";
  h += "<div class=\"verdict\">" + html_escape(r.verdict) + "</div>\n";
  h += "<p>" + html_escape(summary_line(r)) + "</p>\n";
  h += "<h2>GPU busy and idle</h2>" + html_table(kDeviceHead, device_rows(r));
  h += "<h2>Kernels and copies</h2>" + html_table(kOpHead, op_rows(r));
  h += "<h2>Top kernels by time</h2>" + html_table(kKernelHead, kernel_rows(r));
  h += "<p class=\"hint\">" + html_escape(r.how_to_get_stages) + "</p>\n";
  if (!r.notes.empty()) {
    h += "<h2>Notes</h2><ul>";
    for (const auto& n : r.notes) h += "<li>" + html_escape(n) + "</li>";
    h += "</ul>\n";
  }
  if (!r.diagnostics.empty()) {
    h += "<h2>Diagnostics</h2><ul>";
    for (const auto& d : r.diagnostics)
      h += "<li>" + html_escape(d.key) + ": " + std::to_string(d.count) +
           (d.detail.empty() ? "" : " &mdash; " + html_escape(d.detail)) + "</li>";
    h += "</ul>\n";
  }
  return h + "</main></body></html>\n";
}

std::string render_gpu_only_markdown(const analysis::GpuOnlyReport& r, const std::string& source) {
  std::string m = "## amdahl report (GPU only)";
  if (!source.empty()) m += ": " + markdown_cell(source);
  m += "\n\n**" + markdown_cell(r.verdict) + "**\n\n" + markdown_cell(summary_line(r)) + "\n\n";
  m += "### GPU busy and idle\n\n" + md_table(kDeviceHead, device_rows(r));
  m += "\n### Kernels and copies\n\n" + md_table(kOpHead, op_rows(r));
  m += "\n### Top kernels by time\n\n" + md_table(kKernelHead, kernel_rows(r));
  m.append("\n").append(markdown_cell(r.how_to_get_stages)).append("\n");
  for (const auto& n : r.notes) m.append("\n* ").append(markdown_cell(n));
  if (!r.notes.empty()) m += "\n";
  return m;
}

std::string render_gpu_only_csv(const analysis::GpuOnlyReport& r) {
  std::string c = "kernel,count,total_ns,share_of_kernel_time\r\n";
  for (const auto& k : r.top_kernels) {
    char buf[96];
    std::snprintf(buf, sizeof buf, ",%zu,%" PRId64 ",%.6f\r\n", k.count, k.total_ns, share(k.total_ns, r.kernel_ns));
    c += csv_cell(k.name) + buf;
  }
  return c;
}

}  // namespace amdahl::report
