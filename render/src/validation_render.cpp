// validate's JSON and text renderings (the figures: analysis/validate.hpp).
#include <cmath>
#include <string>

#include "amdahl/analysis/restructure.hpp"
#include "amdahl/analysis/validate.hpp"
#include "amdahl/render/renderers.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

using detail::fixed;
using detail::left;
using detail::num;
using detail::right;
using detail::signed_fixed;

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
                          {"used", c.used}, {"why_not", to_text(c.why)}};
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
  out += "base:     " + fixed(v.base_ms_per_step, 3) + " ms/step over " + std::to_string(base.steps) +
         " steps\nimproved: " + fixed(v.improved_ms_per_step, 3) + " ms/step over " + std::to_string(improved.steps) +
         " steps\n\n";
  out += left("stage", 16) + " " + right("base ms/step", 14) + " " + right("improved", 14) + " " + right("factor", 9) +
         "  used\n";
  out += std::string(70, '-') + "\n";
  for (const auto& c : v.stages) {
    out += left(c.stage, 16) + " " + right(fixed(c.base_ms_per_step, 3), 14) + " " +
           right(fixed(c.improved_ms_per_step, 3), 14) + " " +
           right(fixed(std::isfinite(c.factor) ? c.factor : 0.0, 3), 8) + "x  " + (c.used ? "yes" : "no: " + to_text(c.why)) +
           "\n";
    if (c.host_factor > 0)
      out += "  " + left("host part", 14) + " " + right(fixed(c.host_base_ms_per_step, 3), 14) + " " +
             right(fixed(c.host_improved_ms_per_step, 3), 14) + " " + right(fixed(c.host_factor, 3), 8) + "x  " +
             (c.host_used ? "yes" : "no: changed too little") + "\n";
  }
  out += "\n";
  out += left("speedup", 22) + " " + right("value", 9) + " " + right("error", 12) + "\n";
  out += left("measured", 22) + " " + right(fixed(v.measured_speedup, 3), 8) + "x " + right("", 12) + "\n";
  out += left("predicted (classic)", 22) + " " + right(fixed(v.predicted_naive, 3), 8) + "x " +
         right(signed_fixed(v.naive_error * 100, 2), 11) + "%\n";
  out += left("predicted (simulated)", 22) + " " + right(fixed(v.predicted_simulated, 3), 8) + "x " +
         right(signed_fixed(v.simulated_error * 100, 2), 11) + "%" +
         (v.simulation_implemented ? "" : "  (no graph: classic)") + "\n";
  if (v.workers > 0)
    out += "  (simulated: the base run with " + std::to_string(v.workers) +
           " loader workers; with the stage factors alone " + fixed(v.predicted_stage_factors_only, 3) + "x, " +
           signed_fixed(v.stage_factors_only_error * 100, 2) + "%)\n";
  if (v.bottleneck_line) out.append("\n").append(to_text(v.bottleneck_line)).append("\n");
  if (!v.notes.empty()) {
    out += "\nnotes:\n";
    for (const auto& n : to_text(v.notes)) out += "  - " + n + "\n";
  }
  return out;
}

}  // namespace amdahl::render
