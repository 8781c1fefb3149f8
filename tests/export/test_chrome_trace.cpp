// Chrome trace export: valid JSON (parsed back), tracks, launch and produce/consume flow pairs,
// windows and the event limit.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/export/chrome_trace.hpp"
#include "../support/report_fixture.hpp"

using namespace amdahl;
using nlohmann::json;

namespace {
json export_json(const format::Profile& p, const chrome::ChromeExportOptions& o, chrome::ChromeExportStats* st) {
  std::ostringstream out;
  *st = chrome::write_chrome_trace(p, out, o);
  return json::parse(out.str());  // throws on invalid JSON
}
}  // namespace

TEST_CASE("chrome export: parses back, has the tracks and the flow pairs") {
  const auto profile = test::report_fixture();
  chrome::ChromeExportStats st;
  const json j = export_json(profile, {}, &st);
  REQUIRE(j.contains("traceEvents"));
  const auto& ev = j["traceEvents"];
  std::size_t x_ranges = 0, api = 0, kernels = 0, instants = 0, meta = 0;
  std::map<std::uint64_t, std::vector<json>> flows;
  bool gpu_track_named = false, thread_named = false;
  for (const auto& e : ev) {
    const std::string ph = e["ph"];
    REQUIRE(e.contains("pid"));
    if (ph == "M") {
      ++meta;
      if (e["name"] == "process_name" && e["args"]["name"].get<std::string>().rfind("GPU 0", 0) == 0)
        gpu_track_named = true;
      if (e["name"] == "thread_name" && e["args"]["name"] == "main <thread>") thread_named = true;
      continue;
    }
    REQUIRE(e.contains("ts"));
    CHECK(e["ts"].get<double>() >= 0);
    if (ph == "X" && e["cat"] == "cuda_runtime") ++api;
    else if (ph == "X" && e["cat"] == "kernel") {
      ++kernels;
      CHECK(e["pid"].get<long long>() >= 0x70000000);  // a synthetic GPU pid
      CHECK(e["name"] == "gemm<\"x\">");
    } else if (ph == "X" && e["cat"].get<std::string>().rfind("nvtx", 0) == 0) ++x_ranges;
    else if (ph == "i") ++instants;
    else if (ph == "s" || ph == "f") flows[e["id"].get<std::uint64_t>()].push_back(e);
  }
  CHECK(gpu_track_named);
  CHECK(thread_named);
  CHECK(x_ranges == profile.records.ranges.size());
  CHECK(api == profile.records.api_calls.size());
  CHECK(kernels == profile.records.gpu_ops.size());
  // 6 launches + 6 produce->consume items, each an s/f pair with the same id, s before f.
  CHECK(st.launch_flows == 6);
  CHECK(st.item_flows == 6);
  CHECK(flows.size() == 12);
  for (const auto& [id, pair] : flows) {
    REQUIRE(pair.size() == 2);
    CHECK(pair[0]["ph"] == "s");
    CHECK(pair[1]["ph"] == "f");
    CHECK(pair[1]["bp"] == "e");
    CHECK(pair[0]["ts"].get<double>() <= pair[1]["ts"].get<double>());
    if (pair[0]["name"] == "item") CHECK(pair[0]["tid"] == 2);  // from the producer thread
  }
  CHECK(!st.trimmed);
  CHECK(st.note.empty());
  // Stage args come from the analyzer's rules.
  bool staged = false;
  for (const auto& e : ev)
    if (e["ph"] == "X" && e["name"] == "disk_io") staged = e["args"]["stage"] == "disk_io";
  CHECK(staged);
}

TEST_CASE("chrome export: --window keeps only the overlapping events") {
  const auto profile = test::report_fixture();
  chrome::ChromeExportOptions o;
  o.window_start_ns = 20'000'000;  // steps are 9 ms: keep 20..30 ms
  o.window_end_ns = 30'000'000;
  chrome::ChromeExportStats st;
  const json j = export_json(profile, o, &st);
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M") continue;
    const double ts = e["ts"].get<double>();
    const double end = e.contains("dur") ? ts + e["dur"].get<double>() : ts;
    CHECK(ts < 30'000.0);
    CHECK(end >= 20'000.0);
  }
  CHECK(st.events < chrome::write_chrome_trace(profile, *std::make_unique<std::ostringstream>(), {}).events);
}

TEST_CASE("chrome export: above the event limit the export is trimmed and says so") {
  const auto profile = test::report_fixture(3, 4, 60);
  chrome::ChromeExportOptions o;
  o.max_events = 100;
  chrome::ChromeExportStats st;
  const json j = export_json(profile, o, &st);
  CHECK(st.trimmed);
  CHECK(st.events <= 100);
  CHECK(st.candidate_events > 100);
  CHECK(st.note.find("dropped") != std::string::npos);
  CHECK(st.note.find("--window") != std::string::npos);
  CHECK(j["otherData"]["trimmed"] == true);
  // Flows are never half kept.
  std::map<std::uint64_t, int> ends;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "s" || e["ph"] == "f") ++ends[e["id"].get<std::uint64_t>()];
  for (const auto& [id, n] : ends) CHECK(n == 2);
}

TEST_CASE("chrome export: bad windows and empty profiles") {
  CHECK_THROWS_AS(chrome::parse_window_ms("12"), analysis::UsageError);
  CHECK_THROWS_AS(chrome::parse_window_ms("5:2"), analysis::UsageError);
  CHECK_THROWS_AS(chrome::parse_window_ms("a:b"), analysis::UsageError);
  CHECK_THROWS_AS(chrome::parse_window_ms(":"), analysis::UsageError);
  const auto w = chrome::parse_window_ms("1.5:");
  CHECK(*w.first == 1'500'000);
  CHECK(!w.second);
  std::ostringstream out;
  CHECK_THROWS_AS(chrome::write_chrome_trace(format::Profile{}, out), analysis::InputError);
}
