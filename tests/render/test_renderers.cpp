// HTML, Markdown and CSV renderings of a synthetic run whose names hold markup, quotes,
// newlines, control bytes and spreadsheet formulas.
#include <doctest/doctest.h>

#include <limits>
#include <sstream>
#include <stdexcept>

#include "amdahl/analysis/whatif.hpp"
#include "amdahl/render/render.hpp"
#include "amdahl/render/svg_charts.hpp"
#include "amdahl/render/finding_text.hpp"
#include "../../render/src/numbers.hpp"
#include "../support/report_fixture.hpp"

using namespace amdahl;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("render_html: self-contained, every profile name escaped") {
  const auto profile = test::report_fixture();
  const auto report = analysis::analyze(profile);
  const auto whatif = analysis::compute_whatif(report, {{"disk_io", 2}}, 1.2);
  const std::string h = render::render_html(report, whatif, {"run <1>.amdahl"});
  CHECK(h.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(h.find("</html>") != std::string::npos);
  // No script, no external resource.
  CHECK(h.find("<script") == std::string::npos);
  CHECK(count(h, "http:") + count(h, "https:") == count(h, "http://www.w3.org/2000/svg"));  // only the SVG namespace
  // The markup stage name shows escaped, never raw.
  CHECK(h.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;") != std::string::npos);
  CHECK(h.find("alert(\"x\")") == std::string::npos);
  CHECK(h.find("run &lt;1&gt;.amdahl") != std::string::npos);
  CHECK(h.find("buffer &lt;full&gt;") != std::string::npos);
  CHECK(h.find("python train.py &lt;script&gt;") != std::string::npos);
  // Control bytes never reach the page.
  CHECK(h.find('\x01') == std::string::npos);
  CHECK(h.find('\x7f') == std::string::npos);
  // The sections are there: verdict, charts, tables.
  CHECK(h.find(render::to_text(report.verdict).substr(0, 10)) != std::string::npos);
  CHECK(count(h, "<svg") >= 3);
  CHECK(h.find("Per-step statistics") != std::string::npos);
  CHECK(h.find("Requested what-if") != std::string::npos);
  CHECK(h.find("Diagnostics") != std::string::npos);
  CHECK(h.find("dropped_records") != std::string::npos);
  // One column per analysed step in the per-step chart.
  CHECK(count(h, "<title>step ") >= report.steps);
}

TEST_CASE("render_markdown: escaped cells, one row per stage") {
  const auto report = analysis::analyze(test::report_fixture());
  const std::string m = render::render_markdown(report);
  CHECK(m.find("&lt;script&gt;") != std::string::npos);
  CHECK(m.find("<script") == std::string::npos);
  CHECK(m.find("bad\\\\x0aname\\\\x01\\\\x7f") != std::string::npos);  // shown as bad\x0aname\x01\x7f (issue 18)
  CHECK(m.find("\\|\\*") != std::string::npos);    // | and * escaped
  CHECK(m.find("| disk\\_io |") != std::string::npos);
  // Every row of the stage table has as many unescaped pipes as its header (6; the projections
  // are a table of their own).
  const auto start = m.find("| stage | exposed ms");
  REQUIRE(start != std::string::npos);
  std::istringstream in(m.substr(start, m.find("\n\n", start) - start));
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::size_t pipes = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++pipes;
    CHECK(pipes == 6);
    ++rows;
  }
  CHECK(rows >= 7);  // header, separator, 6 stages, other
}

TEST_CASE("render_csv_steps: one row per step, formula names neutralised") {
  const auto report = analysis::analyze(test::report_fixture());
  const std::string c = render::render_csv_steps(report);
  std::istringstream in(c);
  std::string header;
  std::getline(in, header);
  CHECK(header.rfind("step,start_ns,span_ns,disk_io_exposed_ns", 0) == 0);
  CHECK(header.find(",'=cmd|' /C calc'!A0_exposed_ns") != std::string::npos);
  CHECK(header.find(",=") == std::string::npos);
  // The newline inside a stage name is quoted, so the header is one CSV record: count records
  // by lines that start with a step number.
  std::size_t rows = 0;
  std::string line;
  long long sum_span = 0;
  while (std::getline(in, line))
    if (!line.empty() && line[0] >= '0' && line[0] <= '9') {
      ++rows;
      const auto a = line.find(','), b = line.find(',', a + 1), e = line.find(',', b + 1);
      sum_span += std::stoll(line.substr(b + 1, e - b - 1));
    }
  CHECK(rows == report.steps);
  CHECK(sum_span == doctest::Approx(static_cast<double>(report.wall_ns)).epsilon(1e-6));
}

namespace {
// `ranks` processes of 6 steps each: compute on the driving thread, then an all-reduce on a
// communication thread that every rank leaves together while the driving thread waits; rank 2's
// compute is 1.6 times longer, so it arrives last at every collective.
format::Profile ranks_fixture(std::uint32_t ranks) {
  test::ProfileBuilder b;
  for (std::uint32_t k = 0; k < ranks; ++k) {
    const std::uint32_t pid = 100 + k;
    const double compute = k == 2 ? 8 : 5;
    for (int i = 0; i < 6; ++i) {
      const double t = i * 12.0;
      b.stage(1, "step", t, t + 12, pid);
      b.stage(1, "gpu_compute", t, t + compute, pid);
      b.stage(2, "communication", t + compute, t + 11, pid);
    }
    format::ProcessRec pr;
    pr.pid = pid;
    pr.rank = k;
    pr.command = b.s("train.py");
    b.profile.records.processes.push_back(pr);
  }
  return b.profile;
}
}  // namespace

TEST_CASE("render_html: a multi-rank profile has one stacked bar per rank, the straggler marked") {
  const auto report = analysis::analyze(ranks_fixture(4));
  REQUIRE(report.ranks.rows.size() == 4);
  INFO(render::to_text(report.ranks.line));
  REQUIRE(report.ranks.straggler);
  CHECK(report.ranks.rows[*report.ranks.straggler].rank == 2);
  const std::string h = render::render_html(report, std::nullopt, {"ranks.amdahl"});
  CHECK(h.find("<h2>Ranks</h2>") != std::string::npos);
  CHECK(count(h, "<g class=\"rank-bar\">") == 4);
  // The straggler's bar (rank 2) carries the mark, and only it.
  const auto bar2 = h.find(">rank 2</text>");
  REQUIRE(bar2 != std::string::npos);
  CHECK(count(h, ">straggler</text>") == 1);
  CHECK(h.find(">straggler</text>", bar2) < h.find(">rank 3</text>"));
  // Segments in the stage colours of the other charts.
  CHECK(h.find("rank 2 gpu_compute: 8.00 ms per step") != std::string::npos);
  CHECK(h.find("fill=\"" + render::stage_color("gpu_compute", 0) + "\"><title>rank 0 gpu_compute") !=
        std::string::npos);
}

TEST_CASE("render_html: a one-rank profile has no ranks chart") {
  const auto report = analysis::analyze(ranks_fixture(1));
  const std::string h = render::render_html(report, std::nullopt, {"one.amdahl"});
  CHECK(h.find("<h2>Ranks</h2>") == std::string::npos);
  CHECK(h.find("rank-bar") == std::string::npos);
  const std::string fixture = render::render_html(analysis::analyze(test::report_fixture()), std::nullopt, {"x"});
  CHECK(fixture.find("rank-bar") == std::string::npos);
}

TEST_CASE("render: one dispatch, each format the renderer of that format") {
  const auto report = analysis::analyze(test::report_fixture());
  const std::optional<analysis::WhatIf> whatif = analysis::compute_whatif(report, {{"disk_io", 2}}, std::nullopt);
  const render::RenderOptions ro{"run.amdahl"};
  using render::Format;
  CHECK(render::format_named("text") == Format::Text);
  CHECK(render::format_named("json") == Format::Json);
  CHECK(render::format_named("html") == Format::Html);
  CHECK(render::format_named("markdown") == Format::Markdown);
  CHECK(render::format_named("csv") == Format::Csv);
  CHECK_THROWS_AS(render::format_named("pdf"), std::invalid_argument);
  CHECK(render::render(report, Format::Text, whatif, ro) == render::report_to_text(report));
  CHECK(render::render(report, Format::Json, whatif, ro) == render::json_text(render::report_to_json(report)));
  CHECK(render::render(report, Format::Html, whatif, ro) == render::render_html(report, whatif, ro));
  CHECK(render::render(report, Format::Markdown, whatif, ro) == render::render_markdown(report, whatif, ro));
  CHECK(render::render(report, Format::Csv, whatif, ro) == render::render_csv_steps(report));
  // JSON text: schema_version first, newline-terminated.
  CHECK(render::render(report, Format::Json).rfind("{\n  \"schema_version\": 1,", 0) == 0);
  // A what-if has text and JSON only.
  const analysis::RankWhatIf none;
  const std::string t = render::render(report, whatif, none, Format::Text);
  CHECK(t == render::report_to_text(report, false) + "\n" + render::whatif_to_text(report, *whatif));
  CHECK(render::render(report, whatif, none, Format::Json) == render::json_text(render::whatif_to_json(report, *whatif)));
  CHECK_THROWS_AS(render::render(report, whatif, none, Format::Html), std::invalid_argument);
  const auto d = analysis::diff_reports(report, report);
  CHECK(render::render(d, Format::Text, "a", "b") == render::diff_to_text(d, "a", "b"));
  CHECK_THROWS_AS(render::render(d, Format::Csv, "a", "b"), std::invalid_argument);
}

TEST_CASE("render numbers: one home, one word for an unbounded speedup") {
  namespace d = render::detail;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Every format prints an unbounded speedup the same way (HTML and Markdown said "unbounded").
  CHECK(std::string(d::kUnboundedSpeedup) == "inf");
  CHECK(d::speedup(inf) == "inf");
  CHECK(d::speedup(nan) == "inf");
  CHECK(d::speedup(2e12) == "inf");
  CHECK(d::speedup(1.5) == "1.500x");
  CHECK(d::speedup_text(inf, 2) == "inf");
  CHECK(d::speedup_text(2e12, 2) == "2000000000000.00x");  // the text's: unbounded only when infinite
  CHECK(d::general(1.234, 3) == "1.23");
  CHECK(d::capped_speedup_text(2e12, 2) == "inf");
  CHECK(d::capped_speedup_text(1e12, 2) == "1000000000000.00x");
  // JSON: null where there is no number.
  CHECK(d::num(inf).is_null());
  CHECK(d::num(1e13) == 1e13);
  CHECK(d::num_below_1e12(1e12).is_null());
  CHECK(d::num_below_1e12(2.5) == 2.5);
  // Percentages and durations, each rounding under its own name.
  CHECK(d::pct(0.1234) == "12.3%");
  CHECK(d::pct_whole(0.1234) == "12%");
  CHECK(d::ms(50'000) == "0.0500");
  CHECK(d::ms(1'234'567) == "1.23");
  CHECK(d::ms(0) == "0.00");
  CHECK(d::ms_tenths(1'234'567) == "1.2");
  CHECK(d::share(1, 4) == 0.25);
  CHECK(d::share(1, 0) == 0.0);
  CHECK(d::fixed(2.25, 1) == "2.2");
  CHECK(d::fixed(1.5, 3) == "1.500");
}

TEST_CASE("report text: a range name past 40 bytes in the stage mapping ends in '~' (never cut silently)") {
  const auto profile = test::report_fixture();
  auto report = analysis::analyze(profile);
  analysis::StageMappingRow shortrow{"", std::string(40, 'a'), "disk_io", "rules.txt:1", "a", 3, 2e6};
  analysis::StageMappingRow longrow{"torch", std::string(60, 'b'), "cpu_preprocess", "rules.txt:2", "b", 1, 1e6};
  report.stage_mapping = {shortrow, longrow};
  const std::string t = render::render(report, render::Format::Text);
  CHECK(t.find("  " + std::string(40, 'a') + " -> disk_io") != std::string::npos);
  CHECK(t.find("  torch::" + std::string(32, 'b') + "~ -> cpu_preprocess") != std::string::npos);
  CHECK(t.find(std::string(33, 'b')) == std::string::npos);
}
