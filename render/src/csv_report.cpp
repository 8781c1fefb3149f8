// The per-step table as CSV: one row per analysed step, exposed ns per stage. Names go through
// csv_cell (quoting and formula-injection protection); numbers are written plainly.
#include <cmath>
#include <string>

#include "amdahl/text/escape.hpp"
#include "amdahl/render/renderers.hpp"
#include "render_common.hpp"

namespace amdahl::render {
namespace {

std::string integer(double v) { return std::to_string(static_cast<long long>(std::llround(v))); }

}  // namespace

std::string render_csv_steps(const analysis::Report& r) {
  const auto vis = detail::visible_stages(r);
  std::string c = "step,start_ns,span_ns";
  for (const std::size_t i : vis) {
    c += ',';
    c += text::csv_cell(r.stages[i].name + "_exposed_ns");
  }
  c += "\r\n";
  if (r.steps == 0 || r.exposure.span_exposed.empty()) {
    c += "all,0,";
    c += std::to_string(r.wall_ns);
    for (const std::size_t i : vis) {
      c += ',';
      c += integer(r.stages[i].exposed_ns);
    }
    c += "\r\n";
    return c;
  }
  double start = 0;
  for (std::size_t k = 0; k < r.exposure.span_exposed.size(); ++k) {
    const auto& span = r.exposure.span_exposed[k];
    const double len = k < r.exposure.span_ns.size() ? r.exposure.span_ns[k] : 0.0;
    c += std::to_string(r.first_step + k);  // 0-based, as --gpu-steps counts (docs/reports.md)
    c += ',';
    c += integer(start);
    c += ',';
    c += integer(len);
    for (const std::size_t i : vis) {
      c += ',';
      c += integer(i < span.size() ? span[i] : 0.0);
    }
    c += "\r\n";
    start += len;
  }
  return c;
}

}  // namespace amdahl::render
