// `amdahl stages` as JSON and as a text table (stages_render.hpp), and its entry in the
// dispatch (render.hpp).
#include "amdahl/render/stages_render.hpp"

#include <algorithm>
#include <stdexcept>

#include "amdahl/render/render.hpp"
#include "numbers.hpp"

namespace amdahl::render {
namespace {

using analysis::StageMappingRow;

// `s` left-aligned in `width` bytes, whole when longer.
std::string padded(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}
// `s` right-aligned in `width` bytes, whole when longer.
std::string right_aligned(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

// One row's cells as printed: the domain "(default)" when none, the total in ms with one
// decimal, the rule with ": pattern" when it has one.
struct Cells {
  std::string name, domain, stage, total_ms, ranges, rule;
};

Cells cells_of(const StageMappingRow& m) {
  return {m.name,
          m.domain.empty() ? "(default)" : m.domain,
          m.target,
          detail::fixed(m.total_ns / 1e6, 1),
          std::to_string(m.ranges),
          m.pattern.empty() ? m.rule : m.rule + ": " + m.pattern};
}

}  // namespace

nlohmann::json stage_mapping_row_json(const StageMappingRow& m) {
  return {{"domain", m.domain}, {"name", m.name},       {"target", m.target},    {"rule", m.rule},
          {"pattern", m.pattern}, {"ranges", m.ranges}, {"total_ns", m.total_ns}};
}

nlohmann::json stage_mapping_to_json(const std::vector<StageMappingRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const StageMappingRow& m : rows) out.push_back(stage_mapping_row_json(m));
  return nlohmann::json{{"stage_mapping", std::move(out)}};
}

std::string stage_mapping_to_text(const std::vector<StageMappingRow>& rows) {
  std::vector<Cells> table;
  table.reserve(rows.size());
  for (const StageMappingRow& m : rows) table.push_back(cells_of(m));
  // Each column as wide as before the table moved here, or as its longest cell.
  std::size_t name_w = 40, domain_w = 13, stage_w = 16, ms_w = 10, ranges_w = 10;
  for (const Cells& c : table) {
    name_w = std::max(name_w, c.name.size());
    domain_w = std::max(domain_w, c.domain.size());
    stage_w = std::max(stage_w, c.stage.size());
    ms_w = std::max(ms_w, c.total_ms.size());
    ranges_w = std::max(ranges_w, c.ranges.size());
  }
  // The header's figure labels sit two columns left of the figures, as the CLI always printed them.
  std::string out = padded("name", name_w) + " " + padded("domain", domain_w) + " -> " + padded("stage", stage_w) +
                    " " + right_aligned("total ms", ms_w - 2) + " " + right_aligned("ranges", ranges_w) + "  rule\n";
  for (const Cells& c : table)
    out += padded(c.name, name_w) + " " + padded(c.domain, domain_w) + " -> " + padded(c.stage, stage_w) + " " +
           right_aligned(c.total_ms, ms_w) + " " + right_aligned(c.ranges, ranges_w) + "  " + c.rule + "\n";
  return out;
}

std::string render(const std::vector<StageMappingRow>& rows, Format format) {
  if (format == Format::Json) return json_text(stage_mapping_to_json(rows));
  if (format != Format::Text) throw std::invalid_argument("the stage mapping has only text and JSON renderings");
  return stage_mapping_to_text(rows);
}

}  // namespace amdahl::render
