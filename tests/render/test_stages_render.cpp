// `amdahl stages` rendered (render/src/stages_render.cpp): the text table is the one the CLI
// printed before it moved to render/ for names that fit its columns, and a longer name, domain or
// stage is printed whole with the columns kept aligned; the JSON rows; the dispatch's formats.
#include <doctest/doctest.h>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "amdahl/render/render.hpp"
#include "amdahl/render/stages_render.hpp"

using amdahl::analysis::StageMappingRow;
namespace render = amdahl::render;

namespace {

// The table as cli/src/stages_command.cpp printed it (names cut at 40 bytes, domains at 13).
std::string table_before_the_move(const std::vector<StageMappingRow>& rows) {
  std::string out = "name                                     domain        -> stage            total ms     ranges  rule\n";
  char buf[512];
  for (const auto& m : rows) {
    std::snprintf(buf, sizeof buf, "%-40.40s %-13.13s -> %-16s %10.1f %10zu  %s%s%s\n", m.name.c_str(),
                  m.domain.empty() ? "(default)" : m.domain.c_str(), m.target.c_str(), m.total_ns / 1e6, m.ranges,
                  m.rule.c_str(), m.pattern.empty() ? "" : ": ", m.pattern.c_str());
    out += buf;
  }
  return out;
}

std::vector<StageMappingRow> short_rows() {
  return {
      {"amdahl", "step", "step", "domain amdahl", "", 13, 128.8e6},
      {"", "enumerate(DataLoader)#_SingleProcessData", "data_loading", "profile stage_rules:7",
       "enumerate(dataloader)*", 3, 9.04e6},  // exactly 40 bytes
      {"torch", "aten::copy_", "ignore", "no rule", "", 1200, 0.0},
      {"a_13_byte_dom", "x", "sixteen_bytes_st", "rules.txt:3", "x*", 1234567890, 9.87654321e13},  // 10-byte figures
  };
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(text.substr(at, nl - at));
  return lines;
}

}  // namespace

TEST_CASE("stages text: the CLI's table, byte for byte, where every value fits its column") {
  const auto rows = short_rows();
  CHECK(render::stage_mapping_to_text(rows) == table_before_the_move(rows));
  CHECK(render::render(rows, render::Format::Text) == table_before_the_move(rows));
  CHECK(render::stage_mapping_to_text({}) == table_before_the_move({}));  // the header alone
}

TEST_CASE("stages text: a long name, domain or stage is printed whole and the columns stay aligned") {
  auto rows = short_rows();
  const std::string long_name = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";  // 59 bytes
  const std::string long_domain = "a_domain_of_twenty_four";
  const std::string long_stage = "a_stage_name_longer_than_sixteen";
  rows.push_back({"", long_name, "data_loading", "default (word 'load')", "*load*", 3, 9e6});
  rows.push_back({long_domain, "n", long_stage, "rules.txt:9", "n", 2, 1e6});
  rows.push_back({"", "many", "step", "rules.txt:1", "", 12345678901, 5e14});  // 11-byte figures
  const std::string text = render::stage_mapping_to_text(rows);
  CHECK(text.find(long_name + " ") != std::string::npos);
  CHECK(text.find(" " + long_domain + " -> " + long_stage + " ") != std::string::npos);
  const auto lines = lines_of(text);
  REQUIRE(lines.size() == rows.size() + 1);
  // Every column starts where its header does: the domain after the widest name, "->" after the
  // widest domain, the figures after the widest stage (the widest total, 500000000.0 ms, and
  // count, 12345678901, are 11 bytes), the rule after the figures. The header's figure labels sit two columns left of the
  // figures, as the CLI always printed them.
  const std::size_t domain_at = long_name.size() + 1;
  const std::size_t arrow_at = domain_at + long_domain.size();
  const std::size_t stage_at = arrow_at + 4;
  const std::size_t figures_at = stage_at + long_stage.size() + 1;
  const std::size_t ranges_end = figures_at + 11 + 1 + 11;
  const std::size_t rule_at = ranges_end + 2;
  CHECK(lines[0].compare(domain_at, 6, "domain") == 0);
  CHECK(lines[0].compare(arrow_at, 4, " -> ") == 0);
  CHECK(lines[0].compare(stage_at, 5, "stage") == 0);
  CHECK(lines[0].compare(figures_at + 11 - 2 - 8, 8, "total ms") == 0);
  CHECK(lines[0].compare(ranges_end - 2 - 6, 6, "ranges") == 0);
  CHECK(lines[0].substr(rule_at - 2) == "rule");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    INFO(lines[i]);
    const StageMappingRow& m = rows[i - 1];
    const std::string domain = m.domain.empty() ? "(default)" : m.domain;
    CHECK(lines[i].compare(0, m.name.size(), m.name) == 0);
    CHECK(lines[i][domain_at - 1] == ' ');
    CHECK(lines[i].compare(domain_at, domain.size(), domain) == 0);
    CHECK(lines[i].compare(arrow_at, 4, " -> ") == 0);
    CHECK(lines[i].compare(stage_at, m.target.size(), m.target) == 0);
    char ms[64];
    std::snprintf(ms, sizeof ms, "%.1f", m.total_ns / 1e6);
    const std::string total = ms, ranges = std::to_string(m.ranges);
    CHECK(lines[i].substr(figures_at + 11 - total.size() - 1, total.size() + 1) == " " + total);
    CHECK(lines[i].substr(ranges_end - ranges.size() - 1, ranges.size() + 3) == " " + ranges + "  ");
    CHECK(lines[i].compare(rule_at, m.rule.size(), m.rule) == 0);
  }
  // The short rows keep their text, only padded wider.
  CHECK(lines[1].rfind("step" + std::string(long_name.size() - 4, ' ') + " amdahl ", 0) == 0);
}

TEST_CASE("stages JSON: one object per name, schema_version first") {
  const auto rows = short_rows();
  const std::string text = render::render(rows, render::Format::Json);
  CHECK(text.rfind("{\n  \"schema_version\": 1,", 0) == 0);
  const auto j = nlohmann::json::parse(text);
  REQUIRE(j["stage_mapping"].size() == rows.size());
  const auto& second = j["stage_mapping"][1];
  CHECK(second["domain"] == "");
  CHECK(second["name"] == rows[1].name);
  CHECK(second["target"] == "data_loading");
  CHECK(second["rule"] == "profile stage_rules:7");
  CHECK(second["pattern"] == "enumerate(dataloader)*");
  CHECK(second["ranges"] == 3);
  CHECK(second["total_ns"].get<double>() == doctest::Approx(9.04e6));
  CHECK(render::stage_mapping_row_json(rows[0]) == j["stage_mapping"][0]);
}

TEST_CASE("stages: HTML, Markdown and CSV are not offered") {
  for (auto f : {render::Format::Html, render::Format::Markdown, render::Format::Csv})
    CHECK_THROWS_AS(render::render(short_rows(), f), std::invalid_argument);
}
