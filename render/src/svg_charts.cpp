// Inline SVG charts (stacked bar, per-step columns, speedup curves) for the HTML report.
#include "amdahl/render/svg_charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "amdahl/text/escape.hpp"
#include "numbers.hpp"

namespace amdahl::render {
namespace {

using detail::fixed;

std::string px(double v) { return fixed(v, 1); }

// A "nice" tick step for a range of `span` with about `n` ticks.
double nice_step(double span, int n) {
  if (!(span > 0)) return 1;
  const double raw = span / n;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / mag;
  const double m = r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10;
  return m * mag;
}

std::string tick_label(double v) {
  if (std::fabs(v - std::round(v)) < 1e-9) return fixed(v, 0);
  if (std::fabs(v * 10 - std::round(v * 10)) < 1e-9) return fixed(v, 1);
  return fixed(v, 2);
}

// Legend rows: swatch + label, wrapped to `width`; returns the SVG and advances `y`.
std::string legend(const std::vector<std::pair<std::string, std::string>>& items, int width, double& y) {
  std::string out;
  double x = 4;
  for (const auto& [label, color] : items) {
    const double w = 22 + 7.0 * static_cast<double>(label.size()) + 16;
    if (x + w > width && x > 4) {
      x = 4;
      y += 20;
    }
    out += "<rect x=\"" + px(x) + "\" y=\"" + px(y - 10) + "\" width=\"12\" height=\"12\" rx=\"2\" fill=\"" +
           text::html_escape(color) + "\"/>";
    out += "<text x=\"" + px(x + 17) + "\" y=\"" + px(y) + "\" class=\"lg\">" + text::html_escape(label) + "</text>";
    x += w;
  }
  y += 20;
  return out;
}

std::string svg_open(int width, double height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" + std::to_string(width) +
         "\" height=\"" + px(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " + px(height) +
         "\"><title>" + text::html_escape(title) + "</title>";
}

}  // namespace

std::string stage_color(const std::string& stage, std::size_t index) {
  static const std::map<std::string, std::string> fixed = {
      {"disk_io", "#d95f02"},       {"cpu_preprocess", "#e6ab02"}, {"h2d", "#1b9e77"},
      {"gpu_compute", "#3a6fd8"},   {"d2h", "#66a61e"},            {"communication", "#7570b3"},
      {"other", "#b8b8b8"},         {"wait", "#8c8c8c"}};
  static const char* const cycle[] = {"#e7298a", "#a6761d", "#17becf", "#bcbd22", "#9467bd", "#8c564b",
                                      "#ff7f0e", "#2ca02c"};
  const auto it = fixed.find(stage);
  if (it != fixed.end()) return it->second;
  return cycle[index % (sizeof cycle / sizeof cycle[0])];
}

std::string svg_stacked_bar(const std::vector<BarPart>& parts, int width) {
  double total = 0;
  for (const auto& p : parts)
    if (p.value > 0) total += p.value;
  std::vector<std::pair<std::string, std::string>> items;
  std::string body;
  const double bar_w = width - 8;
  double x = 4;
  for (const auto& p : parts) {
    if (!(p.value > 0) || !(total > 0)) continue;
    const double share = p.value / total;
    const double w = share * bar_w;
    const std::string label = p.label + " " + fixed(share * 100, 1) + "%";
    body += "<rect x=\"" + px(x) + "\" y=\"4\" width=\"" + px(w) + "\" height=\"34\" fill=\"" +
            text::html_escape(p.color) + "\"><title>" + text::html_escape(label) + "</title></rect>";
    const std::string inside = fixed(share * 100, 0) + "%";
    if (w > 38)
      body += "<text x=\"" + px(x + w / 2) + "\" y=\"26\" class=\"in\" text-anchor=\"middle\">" + inside + "</text>";
    items.emplace_back(label, p.color);
    x += w;
  }
  double y = 60;
  const std::string lg = legend(items, width, y);
  return svg_open(width, y, "stage breakdown of the window") + body + lg + "</svg>";
}

std::string svg_step_columns(const std::vector<ColumnSeries>& series, const std::string& unit,
                             std::size_t first_step_number, int width, int height) {
  std::size_t n = 0;
  for (const auto& s : series) n = std::max(n, s.values.size());
  const double left = 58, right = 10, top = 10, bottom = 34;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  // Bucket columns when there are more than pixels.
  const std::size_t max_cols = static_cast<std::size_t>(std::max(1.0, plot_w / 2));
  const std::size_t bucket = n > max_cols ? (n + max_cols - 1) / max_cols : 1;
  const std::size_t cols = n == 0 ? 0 : (n + bucket - 1) / bucket;
  std::vector<std::vector<double>> v(series.size(), std::vector<double>(cols, 0.0));
  for (std::size_t s = 0; s < series.size(); ++s)
    for (std::size_t c = 0; c < cols; ++c) {
      double sum = 0;
      std::size_t k = 0;
      for (std::size_t i = c * bucket; i < std::min(n, (c + 1) * bucket); ++i, ++k)
        sum += i < series[s].values.size() ? std::max(0.0, series[s].values[i]) : 0.0;
      v[s][c] = k ? sum / static_cast<double>(k) : 0;
    }
  double ymax = 0;
  for (std::size_t c = 0; c < cols; ++c) {
    double sum = 0;
    for (std::size_t s = 0; s < series.size(); ++s) sum += v[s][c];
    ymax = std::max(ymax, sum);
  }
  const double step = nice_step(ymax, 5);
  const double ytop = ymax > 0 ? std::ceil(ymax / step) * step : 1;
  std::string body;
  for (double t = 0; t <= ytop + step * 1e-9; t += step) {
    const double y = top + plot_h - t / ytop * plot_h;
    body += "<line x1=\"" + px(left) + "\" x2=\"" + px(left + plot_w) + "\" y1=\"" + px(y) + "\" y2=\"" + px(y) +
            "\" class=\"grid\"/>";
    body += "<text x=\"" + px(left - 6) + "\" y=\"" + px(y + 4) + "\" class=\"ax\" text-anchor=\"end\">" +
            tick_label(t) + "</text>";
  }
  body += "<text x=\"12\" y=\"" + px(top + plot_h / 2) + "\" class=\"ax\" transform=\"rotate(-90 12 " +
          px(top + plot_h / 2) + ")\" text-anchor=\"middle\">" + text::html_escape(unit) + "</text>";
  const double colw = cols ? plot_w / static_cast<double>(cols) : plot_w;
  const double barw = std::max(1.0, colw * (cols > 60 ? 1.0 : 0.8));
  for (std::size_t c = 0; c < cols; ++c) {
    double y = top + plot_h;
    const double x = left + static_cast<double>(c) * colw + (colw - barw) / 2;
    const std::size_t first = first_step_number + c * bucket;
    for (std::size_t s = 0; s < series.size(); ++s) {
      if (!(v[s][c] > 0)) continue;
      const double h = v[s][c] / ytop * plot_h;
      y -= h;
      body += "<rect x=\"" + px(x) + "\" y=\"" + px(y) + "\" width=\"" + px(barw) + "\" height=\"" + px(h) +
              "\" fill=\"" + text::html_escape(series[s].color) + "\"><title>" +
              text::html_escape((bucket > 1 ? "steps " + std::to_string(first) + "-" +
                                            std::to_string(first + bucket - 1) + " (mean) "
                                      : "step " + std::to_string(first) + " ") +
                          series[s].label + ": " + detail::general(v[s][c], 3) + " " + unit) +
              "</title></rect>";
    }
  }
  // x ticks: about 8 step numbers.
  const std::size_t xt = std::max<std::size_t>(1, cols / 8);
  for (std::size_t c = 0; c < cols; c += xt) {
    const double x = left + (static_cast<double>(c) + 0.5) * colw;
    body += "<text x=\"" + px(x) + "\" y=\"" + px(top + plot_h + 16) + "\" class=\"ax\" text-anchor=\"middle\">" +
            std::to_string(first_step_number + c * bucket) + "</text>";
  }
  body += "<text x=\"" + px(left + plot_w / 2) + "\" y=\"" + px(top + plot_h + 30) +
          "\" class=\"ax\" text-anchor=\"middle\">step" +
          (bucket > 1 ? " (" + std::to_string(bucket) + " steps per column, mean)" : std::string()) + "</text>";
  body += "<line x1=\"" + px(left) + "\" x2=\"" + px(left) + "\" y1=\"" + px(top) + "\" y2=\"" + px(top + plot_h) +
          "\" class=\"axis\"/><line x1=\"" + px(left) + "\" x2=\"" + px(left + plot_w) + "\" y1=\"" +
          px(top + plot_h) + "\" y2=\"" + px(top + plot_h) + "\" class=\"axis\"/>";
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& s : series) items.emplace_back(s.label, s.color);
  double y = height + 18;
  const std::string lg = legend(items, width, y);
  return svg_open(width, y, "exposed time per step") + body + lg + "</svg>";
}

std::string svg_curves(const std::vector<CurveSeries>& series, int width, int height) {
  const double left = 52, right = 96, top = 12, bottom = 36;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  double xmax = 2, ymax = 1.1;
  for (const auto& s : series) {
    for (const auto& [f, sp] : s.points) {
      if (std::isfinite(f)) xmax = std::max(xmax, f);
      if (std::isfinite(sp)) ymax = std::max(ymax, sp);
    }
    if (s.limit > 0 && std::isfinite(s.limit)) ymax = std::max(ymax, s.limit);
  }
  const double ystep = nice_step(ymax - 1, 5);
  const double ytop = 1 + std::ceil((ymax - 1) / ystep) * ystep;
  const auto X = [&](double f) { return left + std::log(std::max(1.0, f)) / std::log(xmax) * plot_w; };
  const auto Y = [&](double s) { return top + plot_h - (std::min(s, ytop) - 1) / (ytop - 1) * plot_h; };
  std::string body;
  for (double t = 1; t <= ytop + ystep * 1e-9; t += ystep) {
    body += "<line x1=\"" + px(left) + "\" x2=\"" + px(left + plot_w) + "\" y1=\"" + px(Y(t)) + "\" y2=\"" +
            px(Y(t)) + "\" class=\"grid\"/><text x=\"" + px(left - 6) + "\" y=\"" + px(Y(t) + 4) +
            "\" class=\"ax\" text-anchor=\"end\">" + tick_label(t) + "x</text>";
  }
  for (double f = 1; f <= xmax * (1 + 1e-9); f *= 2) {
    body += "<line x1=\"" + px(X(f)) + "\" x2=\"" + px(X(f)) + "\" y1=\"" + px(top) + "\" y2=\"" +
            px(top + plot_h) + "\" class=\"grid\"/><text x=\"" + px(X(f)) + "\" y=\"" + px(top + plot_h + 16) +
            "\" class=\"ax\" text-anchor=\"middle\">" + tick_label(f) + "x</text>";
  }
  body += "<text x=\"" + px(left + plot_w / 2) + "\" y=\"" + px(top + plot_h + 31) +
          "\" class=\"ax\" text-anchor=\"middle\">stage made k times faster (log scale)</text>";
  body += "<text x=\"12\" y=\"" + px(top + plot_h / 2) + "\" class=\"ax\" transform=\"rotate(-90 12 " +
          px(top + plot_h / 2) + ")\" text-anchor=\"middle\">whole-run speedup</text>";
  for (const auto& s : series) {
    const std::string color = text::html_escape(s.color);
    if (s.limit > 0 && std::isfinite(s.limit)) {
      body += "<line x1=\"" + px(left) + "\" x2=\"" + px(left + plot_w) + "\" y1=\"" + px(Y(s.limit)) +
              "\" y2=\"" + px(Y(s.limit)) + "\" stroke=\"" + color +
              "\" stroke-width=\"1\" stroke-dasharray=\"2 3\" opacity=\"0.8\"/>";
      body += "<text x=\"" + px(left + plot_w + 4) + "\" y=\"" + px(Y(s.limit) + 4) + "\" class=\"ax\" fill=\"" +
              color + "\">limit " + fixed(s.limit, 2) + "x</text>";
    }
    std::string pts;
    for (const auto& [f, sp] : s.points) {
      if (!std::isfinite(f) || !std::isfinite(sp)) continue;
      pts += px(X(f)) + "," + px(Y(sp)) + " ";
    }
    if (!pts.empty())
      body += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"2.2\"" +
              (s.dashed ? " stroke-dasharray=\"6 4\"" : "") + " points=\"" + pts + "\"><title>" +
              text::html_escape(s.label) + "</title></polyline>";
  }
  body += "<line x1=\"" + px(left) + "\" x2=\"" + px(left) + "\" y1=\"" + px(top) + "\" y2=\"" + px(top + plot_h) +
          "\" class=\"axis\"/><line x1=\"" + px(left) + "\" x2=\"" + px(left + plot_w) + "\" y1=\"" +
          px(top + plot_h) + "\" y2=\"" + px(top + plot_h) + "\" class=\"axis\"/>";
  std::vector<std::pair<std::string, std::string>> items;
  for (const auto& s : series) items.emplace_back(s.label, s.color);
  double y = height + 16;
  const std::string lg = legend(items, width, y);
  return svg_open(width, y, "speedup versus factor") + body + lg + "</svg>";
}

std::string svg_rank_bars(const std::vector<RankBar>& bars, const std::string& unit, const std::string& mark,
                          int width) {
  const double left = 64, right = 110, top = 8, row_h = 30, bar_h = 20;
  const double plot_w = width - left - right;
  double xmax = 0;
  for (const auto& b : bars) {
    double sum = 0;
    for (const auto& p : b.parts) sum += p.value > 0 ? p.value : 0;
    xmax = std::max(xmax, sum);
  }
  const double step = nice_step(xmax, 6);
  const double xtop = xmax > 0 ? std::ceil(xmax / step) * step : 1;
  const double plot_h = row_h * static_cast<double>(bars.size());
  const auto X = [&](double v) { return left + v / xtop * plot_w; };
  std::string body;
  for (double t = 0; t <= xtop + step * 1e-9; t += step) {
    body += "<line x1=\"" + px(X(t)) + "\" x2=\"" + px(X(t)) + "\" y1=\"" + px(top) + "\" y2=\"" +
            px(top + plot_h) + "\" class=\"grid\"/><text x=\"" + px(X(t)) + "\" y=\"" + px(top + plot_h + 16) +
            "\" class=\"ax\" text-anchor=\"middle\">" + tick_label(t) + "</text>";
  }
  body += "<text x=\"" + px(left + plot_w / 2) + "\" y=\"" + px(top + plot_h + 31) +
          "\" class=\"ax\" text-anchor=\"middle\">" + text::html_escape(unit) + "</text>";
  std::vector<std::pair<std::string, std::string>> items;
  for (std::size_t k = 0; k < bars.size(); ++k) {
    const auto& b = bars[k];
    const double y = top + row_h * static_cast<double>(k) + (row_h - bar_h) / 2;
    body += "<g class=\"rank-bar\"><text x=\"" + px(left - 8) + "\" y=\"" + px(y + bar_h / 2 + 4) +
            "\" class=\"lg\" text-anchor=\"end\"" + (b.marked ? " font-weight=\"700\"" : "") + ">" +
            text::html_escape(b.label) + "</text>";
    double x = 0;
    for (const auto& p : b.parts) {
      if (!(p.value > 0)) continue;
      body += "<rect x=\"" + px(X(x)) + "\" y=\"" + px(y) + "\" width=\"" + px(X(x + p.value) - X(x)) +
              "\" height=\"" + px(bar_h) + "\" fill=\"" + text::html_escape(p.color) + "\"><title>" +
              text::html_escape(b.label + " " + p.label + ": " + fixed(p.value, 2) + " " + unit) + "</title></rect>";
      x += p.value;
      const bool seen = std::any_of(items.begin(), items.end(), [&](const auto& it) { return it.first == p.label; });
      if (!seen) items.emplace_back(p.label, p.color);
    }
    if (b.marked)
      body += "<rect x=\"" + px(X(0) - 1.5) + "\" y=\"" + px(y - 1.5) + "\" width=\"" + px(X(x) - X(0) + 3) +
              "\" height=\"" + px(bar_h + 3) + "\" fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\"/>" +
              "<text x=\"" + px(X(x) + 8) + "\" y=\"" + px(y + bar_h / 2 + 4) +
              "\" class=\"lg\" style=\"fill:#c0392b;font-weight:700\">" + text::html_escape(mark) + "</text>";
    body += "</g>";
  }
  body += "<line x1=\"" + px(left) + "\" x2=\"" + px(left) + "\" y1=\"" + px(top) + "\" y2=\"" +
          px(top + plot_h) + "\" class=\"axis\"/>";
  double y = top + plot_h + 54;
  const std::string lg = legend(items, width, y);
  return svg_open(width, y, "each rank's step by stage") + body + lg + "</svg>";
}

}  // namespace amdahl::render
