// validate's JSON and text renderings (the figures: analysis/validate.hpp).
#include <cmath>
#include <cstdio>

#include "amdahl/analysis/restructure.hpp"
#include "amdahl/analysis/validate.hpp"
#include "amdahl/render/renderers.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

using detail::num;

}  // namespace

nlohmann::json validation_to_json(const Report& base, const Report& improved, const Validation& v) {
  nlohmann::json j;
  auto run = [](const Report& r) {
    return nlohmann::json{{"wall_ns", r.wall_ns}, {"steps", r.steps},
                          {"ms_per_step", static_cast<double>(r.wall_ns) / 1e6 / static_cast<double>(r.steps)},
                          {"exposed_basis", r.exposed_basis}, {"verdict", to_text(r.verdict)}};
  };
  j["base"] = run(base);
  j["improved"] = run(improved);
  j["measured_speedup"] = num(v.measured_speedup);
  j["predicted_naive"] = num(v.predicted_naive);
  j["predicted_simulated"] = num(v.predicted_simulated);
  j["naive_error"] = num(v.naive_error);
  j["simulated_error"] = num(v.simulated_error);
  j["naive_interval"] = {num(v.naive_interval.low), num(v.naive_interval.high)};
  j["simulated_interval"] = {num(v.simulated_interval.low), num(v.simulated_interval.high)};
  j["simulation_implemented"] = v.simulation_implemented;
  if (v.workers > 0) {
    j["workers"] = v.workers;
    j["structure"] = {{"kind", "loader_workers"}, {"workers", v.workers}, {"prefetch", LoaderWorkers{}.prefetch},
                      {"predicted_stage_factors_only", num(v.predicted_stage_factors_only)},
                      {"stage_factors_only_error", num(v.stage_factors_only_error)}};
  }
  j["bounds"] = {{"any", v.bounds.any}, {"direction", v.bounds.any ? nlohmann::json(v.bounds.direction) : nlohmann::json(nullptr)},
                 {"projections", v.bounds.projections}};
  auto share = [](const StageShare& s) {
    return nlohmann::json{{"stage", s.stage.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.stage)},
                          {"fraction", s.fraction}};
  };
  j["bottleneck"] = {{"line", to_text(v.bottleneck_line)}, {"before", share(v.bottleneck_before)},
                     {"after", share(v.bottleneck_after)},
                     {"moved", v.bottleneck_before.stage != v.bottleneck_after.stage}};
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& c : v.stages) {
    nlohmann::json row = {{"name", c.stage}, {"base_ms_per_step", c.base_ms_per_step},
                          {"improved_ms_per_step", c.improved_ms_per_step}, {"factor", num(c.factor)},
                          {"used", c.used}, {"why_not", c.why}};
    if (c.host_factor > 0)  // a GPU stage: factor is its GPU part's, this its host part's
      row["host"] = {{"base_ms_per_step", c.host_base_ms_per_step}, {"improved_ms_per_step", c.host_improved_ms_per_step},
                     {"factor", num(c.host_factor)}, {"used", c.host_used}};
    rows.push_back(std::move(row));
  }
  j["stages"] = std::move(rows);
  j["notes"] = to_text(v.notes);
  return j;
}

std::string validation_to_text(const Report& base, const Report& improved, const Validation& v) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "base:     %.3f ms/step over %zu steps\nimproved: %.3f ms/step over %zu steps\n\n",
                v.base_ms_per_step, base.steps, v.improved_ms_per_step, improved.steps);
  out += buf;
  std::snprintf(buf, sizeof buf, "%-16s %14s %14s %9s  %s\n", "stage", "base ms/step", "improved", "factor", "used");
  out += buf;
  out += std::string(70, '-') + "\n";
  for (const auto& c : v.stages) {
    std::snprintf(buf, sizeof buf, "%-16s %14.3f %14.3f %8.3fx  %s\n", c.stage.c_str(), c.base_ms_per_step,
                  c.improved_ms_per_step, std::isfinite(c.factor) ? c.factor : 0.0,
                  c.used ? "yes" : ("no: " + c.why).c_str());
    out += buf;
    if (c.host_factor > 0) {
      std::snprintf(buf, sizeof buf, "  %-14s %14.3f %14.3f %8.3fx  %s\n", "host part", c.host_base_ms_per_step,
                    c.host_improved_ms_per_step, c.host_factor, c.host_used ? "yes" : "no: changed too little");
      out += buf;
    }
  }
  out += "\n";
  std::snprintf(buf, sizeof buf, "%-22s %9s %12s\n", "speedup", "value", "error");
  out += buf;
  std::snprintf(buf, sizeof buf, "%-22s %8.3fx %12s\n", "measured", v.measured_speedup, "");
  out += buf;
  std::snprintf(buf, sizeof buf, "%-22s %8.3fx %+11.2f%%\n", "predicted (classic)", v.predicted_naive, v.naive_error * 100);
  out += buf;
  std::snprintf(buf, sizeof buf, "%-22s %8.3fx %+11.2f%%%s\n", "predicted (simulated)", v.predicted_simulated,
                v.simulated_error * 100, v.simulation_implemented ? "" : "  (no graph: classic)");
  out += buf;
  if (v.workers > 0) {
    std::snprintf(buf, sizeof buf, "  (simulated: the base run with %zu loader workers; with the stage factors alone %.3fx, %+.2f%%)\n",
                  v.workers, v.predicted_stage_factors_only, v.stage_factors_only_error * 100);
    out += buf;
  }
  if (v.bottleneck_line) out.append("\n").append(to_text(v.bottleneck_line)).append("\n");
  if (!v.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& n : to_text(v.notes)) out += "  - " + n + "\n";
  }
  return out;
}

}  // namespace amdahl::render
