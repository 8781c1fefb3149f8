// Inline SVG charts for the HTML report: a stage palette, a 100% stacked bar, per-step stacked
// columns, and speedup-versus-factor curves with their limits. Every label given to these
// functions is escaped here; the output is a complete <svg> element, no script, no network.
#pragma once

#include <string>
#include <vector>

namespace amdahl::render {

// A stable colour per stage: canonical stages have fixed colours, `other` is grey, user
// stages cycle through a palette by `index`.
std::string stage_color(const std::string& stage, std::size_t index);

struct BarPart {
  std::string label;
  std::string color;
  double value = 0;  // >= 0
};

// One horizontal bar, parts proportional to their values (sum normalised to 100%), with a
// legend below. Parts with value <= 0 are omitted.
std::string svg_stacked_bar(const std::vector<BarPart>& parts, int width = 920);

struct ColumnSeries {
  std::string label;
  std::string color;
  std::vector<double> values;  // one per column (step), >= 0
};

// Stacked columns, one per step, heights in the values' unit (`unit` on the y axis).
// Many steps: columns get thinner (min 1 px); over `width` columns they are merged in even
// buckets (means), and the caption says so.
std::string svg_step_columns(const std::vector<ColumnSeries>& series, const std::string& unit,
                             std::size_t first_step_number, int width = 920, int height = 260);

struct CurveSeries {
  std::string label;
  std::string color;
  std::vector<std::pair<double, double>> points;  // (factor, speedup), factor >= 1
  bool dashed = false;
  double limit = 0;  // > 0 and finite: drawn as a thin horizontal line with this colour
};

// Speedup versus factor, x logarithmic from 1 to max factor, y linear from 1.
std::string svg_curves(const std::vector<CurveSeries>& series, int width = 920, int height = 320);

struct RankBar {
  std::string label;           // "rank 2", left of the bar
  std::vector<BarPart> parts;  // segments in `unit`, drawn in order
  bool marked = false;         // the straggler: outlined, with `mark` after the bar
};

// One horizontal stacked bar per rank on a shared axis in `unit` (not normalised: a slower rank
// has a longer bar), each bar a <g class="rank-bar">, and one legend of the segment labels.
std::string svg_rank_bars(const std::vector<RankBar>& bars, const std::string& unit, const std::string& mark,
                          int width = 920);

}  // namespace amdahl::render
