// What-if renderings: JSON (the report's fields plus naive/simulated speedups and intervals,
// simulation details with bounds and the bottleneck move, curves, target factors) and text.
#include "amdahl/render/renderers.hpp"
#include <cmath>
#include <string>

#include "amdahl/analysis/whatif.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

using detail::fixed;
using detail::left;
using detail::num;

// "1.5x": three significant digits (printf's %.3g), or the unbounded word.
std::string times(double v) { return std::isfinite(v) ? detail::general(v, 3) + "x" : detail::kUnboundedSpeedup; }

nlohmann::json share(const StageShare& s) {
  return {{"stage", s.stage.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.stage)}, {"fraction", s.fraction}};
}

// The head of the text output for --workers: the structural change, no classic figure, the
// simulated one.
std::string workers_text(const Report& report, const WhatIf& w, const char* bound) {
  const WorkersSummary& s = *w.workers;
  std::string out;
  std::string stages;
  for (const auto& x : s.stages) stages += (stages.empty() ? "" : ", ") + x;
  const double wall = static_cast<double>(report.wall_ns);
  const std::string workers = std::to_string(s.workers);
  if (s.from_lanes > 0)
    out += "what if: " + workers + " loader workers instead of the run's " + std::to_string(s.from_lanes) +
           " loader thread(s) (" + std::to_string(s.batches_in_window) + " items of " + stages +
           " in the window, dealt round-robin)";
  else
    out += "what if: " + workers + " loader workers (prefetch " + std::to_string(s.prefetch) +
           " per worker) build the batches instead of the driving thread (" + std::to_string(s.batches_in_window) +
           " batches of " + stages + ", " + fixed(wall > 0 ? 100.0 * s.moved_ns_in_window / wall : 0.0, 1) +
           "% of the window)";
  for (const auto& r : w.requests) out += ", and " + r.stage + " " + times(r.factor);
  out += "\n";
  out += "classic Amdahl: no figure (moving work onto new threads is a structural change, not a stage made faster)\n";
  out += "with " + workers + " loader workers: " + times(w.simulated_speedup) + " simulated (95% interval " +
         times(w.simulated_interval.low) + " .. " + times(w.simulated_interval.high) +
         "; replay of the restructured dependency graph)" + bound + "\n";
  if (s.from_lanes == 0 && std::isfinite(s.speedup_low) && std::isfinite(s.speedup_high))
    out += "  range: " + times(s.speedup_low) + " .. " + times(s.speedup_high) + " for a worker's per-batch cost of " +
           fixed(s.cost_high, 2) + "x .. " + fixed(s.cost_low, 2) + "x the inline time (" +
           (s.intra_op_measured   ? "from the profile's CPU times"
            : s.intra_op_spinning ? "the high end assumed: a spinning thread pool hides the CPU work"
                                  : "the high end assumed: the profile has no CPU times") +
           "; see the notes)\n";
  out += "window: " + fixed(wall / 1e6, 1) + " ms -> " + fixed(w.simulated_wall_ns / 1e6, 1) + " ms (simulated)\n";
  if (w.bottleneck_line) out += to_text(w.bottleneck_line) + "\n";
  return out;
}

}  // namespace

nlohmann::json whatif_to_json(const Report& report, const WhatIf& w) {
  nlohmann::json j = report_to_json(report);
  nlohmann::json reqs = nlohmann::json::array();
  for (const auto& r : w.requests) reqs.push_back({{"stage", r.stage}, {"factor", r.factor}});
  j["speedups"] = std::move(reqs);
  j["naive_speedup"] = num(w.naive_speedup);
  j["simulated_speedup"] = num(w.simulated_speedup);
  j["naive_interval"] = {num(w.naive_interval.low), num(w.naive_interval.high)};
  j["simulated_interval"] = {num(w.simulated_interval.low), num(w.simulated_interval.high)};
  if (w.workers) {  // a structural what-if (restructure.hpp): its figures are the replay's
    const WorkersSummary& s = *w.workers;
    j["workers"] = s.workers;
    j["prefetch"] = s.prefetch;
    j["restructure"] = {{"kind", s.from_lanes > 0 ? "redistributed_loaders" : "loader_workers"},
                        {"from_lanes", s.from_lanes},
                        {"workers", s.workers},
                        {"prefetch", s.prefetch},
                        {"stages", s.stages},
                        {"batches", s.batches},
                        {"batches_in_window", s.batches_in_window},
                        {"steps", s.steps},
                        {"moved_ns_in_window", num(std::round(s.moved_ns_in_window))},
                        {"loading_ns_in_window", num(std::round(s.loading_ns_in_window))},
                        {"classic", "no figure: classic Amdahl cannot express moving work onto new threads"}};
    if (s.from_lanes == 0) {
      j["workers_range"] = {num(s.speedup_low), num(s.speedup_high)};
      j["worker_cost"] = {{"low", s.cost_low}, {"high", s.cost_high}, {"point", s.cost_point},
                          {"intra_op", s.intra_op}, {"intra_op_measured", s.intra_op_measured},
                          {"intra_op_spinning", s.intra_op_spinning},
                          {"cpu_bound_speedup", num(s.cpu_bound_speedup)}, {"cpus_allowed", s.cpus_allowed},
                          {"main_cores_busy", s.main_cores_busy >= 0 ? nlohmann::json(s.main_cores_busy) : nlohmann::json(nullptr)}};
    }
  }
  j["projected_wall_ns"] = num(w.projected_wall_ns);
  j["simulated_wall_ns"] = num(w.simulated_wall_ns);
  nlohmann::json sim;
  sim["implemented"] = w.simulation_implemented;
  sim["method"] = w.workers ? "replay of the dependency graph restructured with synthetic loader workers, with the "
                              "stages' work scaled by 1/factor"
                 : w.simulation_implemented
                     ? "replay of the dependency graph with the stages' work scaled by 1/factor"
                     : "classic Amdahl on the exposed fractions (no dependency graph to replay)";
  const auto& b = w.bounds;
  sim["bounds"] = {{"any", b.any},
                   {"direction", b.any ? nlohmann::json(b.direction) : nlohmann::json(nullptr)},
                   {"projections", b.projections},
                   {"unlinked_waits", b.unlinked_waits},
                   {"linked_waits", b.linked_waits},
                   {"dropped_backward_edges", b.dropped_backward_edges},
                   {"unlinked_waits_on_path", b.unlinked_waits_on_path},
                   {"unlinked_wait_ns_on_path", num(std::round(b.unlinked_wait_ns_on_path))}};
  if (w.simulation_implemented) {
    nlohmann::json after = nlohmann::json::array();
    for (const auto& a : w.after_fractions) after.push_back({{"name", a.stage}, {"fraction", a.fraction}});
    sim["bottleneck"] = {{"before", share(w.bottleneck_before)},
                         {"after", share(w.bottleneck_after)},
                         {"moved", w.bottleneck_before.stage != w.bottleneck_after.stage},
                         {"line", to_text(w.bottleneck_line)}};
    sim["after_fractions"] = std::move(after);
  }
  j["simulation"] = std::move(sim);
  nlohmann::json curves = nlohmann::json::array();
  for (const auto& c : w.curves) {
    nlohmann::json pts = nlohmann::json::array();
    for (const auto& p : c.points) pts.push_back({{"factor", p.factor}, {"naive", num(p.naive)}, {"simulated", num(p.simulated)}});
    curves.push_back({{"stage", c.stage}, {"fraction", c.fraction}, {"amdahl_limit", num(c.amdahl_limit)},
                      {"simulated_limit", num(c.simulated_limit)}, {"points", std::move(pts)}});
  }
  j["curves"] = std::move(curves);
  if (w.target) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& t : w.target_rows)
      rows.push_back({{"stage", t.stage}, {"fraction", t.fraction},
                      {"factor_needed", t.factor ? num(*t.factor) : nlohmann::json(nullptr)},
                      {"achievable", w.workers ? nlohmann::json(nullptr) : nlohmann::json(t.factor.has_value())},
                      {"limit", w.workers ? nlohmann::json(nullptr) : num(t.limit)},
                      {"simulated_factor_needed", t.simulated_factor ? num(*t.simulated_factor) : nlohmann::json(nullptr)},
                      {"simulated_achievable", t.simulated_factor.has_value()},
                      {"simulated_limit", num(t.simulated_limit)}});
    j["target"] = {{"speedup", *w.target}, {"reachable", w.target_reachable()}, {"stages", std::move(rows)}};
  }
  auto notes = j["notes"];
  for (const auto& n : to_text(w.notes)) notes.push_back(n);
  j["notes"] = std::move(notes);
  return j;
}

std::string whatif_to_text(const Report& report, const WhatIf& w) {
  std::string out;
  const char* bound = w.bounds.any ? (w.bounds.direction == "lower" ? "  [lower bound]"
                                      : w.bounds.direction == "upper" ? "  [upper bound]" : "  [bound]")
                                   : "";
  if (w.workers) {
    out += workers_text(report, w, bound);
  } else if (!w.requests.empty()) {
    std::string what;
    for (const auto& r : w.requests) {
      const StageRow* s = report.find_stage(r.stage);
      what += (what.empty() ? "" : ", ") + r.stage + " " + times(r.factor) + " (exposed " +
              fixed(s ? s->fraction * 100.0 : 0.0, 1) + "%)";
    }
    out += "what if: " + what + "\n";
    out += "classic Amdahl: " + left(times(w.naive_speedup), 8) + " (95% interval " + times(w.naive_interval.low) +
           " .. " + times(w.naive_interval.high) + " over " + std::to_string(report.steps) + " steps)" + bound + "\n";
    if (w.simulation_implemented)
      out += "simulated:      " + left(times(w.simulated_speedup), 8) + " (95% interval " +
             times(w.simulated_interval.low) + " .. " + times(w.simulated_interval.high) +
             "; replay of the dependency graph)" + bound + "\n";
    else
      out += "simulated:      " + left(times(w.simulated_speedup), 8) + " (no dependency graph: same as classic)\n";
    out += "window: " + fixed(static_cast<double>(report.wall_ns) / 1e6, 1) + " ms -> " +
           fixed(w.projected_wall_ns / 1e6, 1) + " ms (classic), " + fixed(w.simulated_wall_ns / 1e6, 1) +
           " ms (simulated)\n";
    if (w.bottleneck_line) out += to_text(w.bottleneck_line) + "\n";
  }
  if (w.target) {
    out += "\nfactor each stage alone needs for " + times(*w.target) + " overall:\n";
    out += "  " + left("stage", 16) + " " + detail::right("exposed", 8) + "  " + left("classic", 28) + " simulated\n";
    for (const auto& t : w.target_rows) {
      if (t.fraction <= 0 && !(t.simulated_factor && w.simulation_implemented)) continue;
      const std::string classic = w.workers ? "n/a (structural change)"
                                  : t.factor ? "needs " + times(*t.factor)
                                             : "none suffices (limit " + times(t.limit) + ")";
      const std::string sim = t.simulated_factor ? "needs " + times(*t.simulated_factor)
                                                 : "none suffices (limit " + times(t.simulated_limit) + ")";
      out += "  " + left(t.stage, 16) + " " + detail::right(fixed(t.fraction * 100.0, 1), 7) + "%  " +
             left(classic, 28) + " " + sim + "\n";
    }
    if (w.target_rows.empty()) {
      out += "  no stage has time in the window: no factor of one reaches " + times(*w.target) + "\n";
    } else if (!w.target_reachable()) {
      const TargetRow* best = &w.target_rows.front();
      for (const auto& t : w.target_rows)
        if (t.simulated_limit > best->simulated_limit) best = &t;
      out += "  no stage alone reaches " + times(*w.target) + ", however much faster: the closest, " + best->stage +
             ", gives at most " + times(best->simulated_limit) + " (simulated, the stage removed)\n";
    }
  }
  std::vector<std::string> notes = to_text(report.notes);
  for (auto& n : to_text(w.notes)) notes.push_back(std::move(n));
  out += "\nnotes:\n";
  for (const auto& n : notes) out += "  - " + n + "\n";
  return out;
}

}  // namespace amdahl::render
