// What-if renderings: JSON (the report's fields plus naive/simulated speedups and intervals,
// simulation details with bounds and the bottleneck move, curves, target factors) and text.
#include "amdahl/render/renderers.hpp"
#include <cmath>
#include <cstdio>

#include "amdahl/analysis/whatif.hpp"
#include "amdahl/render/finding_text.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

using detail::num;

std::string times(double v) { return detail::speedup_text(v, "%.3gx"); }

nlohmann::json share(const StageShare& s) {
  return {{"stage", s.stage.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.stage)}, {"fraction", s.fraction}};
}

// The head of the text output for --workers: the structural change, no classic figure, the
// simulated one.
std::string workers_text(const Report& report, const WhatIf& w, const char* bound) {
  const WorkersSummary& s = *w.workers;
  std::string out;
  char buf[512];
  std::string stages;
  for (const auto& x : s.stages) stages += (stages.empty() ? "" : ", ") + x;
  const double wall = static_cast<double>(report.wall_ns);
  if (s.from_lanes > 0)
    std::snprintf(buf, sizeof buf,
                  "what if: %zu loader workers instead of the run's %zu loader thread(s) (%zu items of %s in the "
                  "window, dealt round-robin)",
                  s.workers, s.from_lanes, s.batches_in_window, stages.c_str());
  else
    std::snprintf(buf, sizeof buf,
                  "what if: %zu loader workers (prefetch %zu per worker) build the batches instead of the driving thread "
                  "(%zu batches of %s, %.1f%% of the window)",
                  s.workers, s.prefetch, s.batches_in_window, stages.c_str(),
                  wall > 0 ? 100.0 * s.moved_ns_in_window / wall : 0.0);
  out += buf;
  for (const auto& r : w.requests) {
    std::snprintf(buf, sizeof buf, ", and %s %s", r.stage.c_str(), times(r.factor).c_str());
    out += buf;
  }
  out += "\n";
  out += "classic Amdahl: no figure (moving work onto new threads is a structural change, not a stage made faster)\n";
  std::snprintf(buf, sizeof buf, "with %zu loader workers: %s simulated (95%% interval %s .. %s; replay of the "
                "restructured dependency graph)%s\n",
                s.workers, times(w.simulated_speedup).c_str(), times(w.simulated_interval.low).c_str(),
                times(w.simulated_interval.high).c_str(), bound);
  out += buf;
  if (s.from_lanes == 0 && std::isfinite(s.speedup_low) && std::isfinite(s.speedup_high)) {
    std::snprintf(buf, sizeof buf,
                  "  range: %s .. %s for a worker's per-batch cost of %.2fx .. %.2fx the inline time (%s; see the notes)\n",
                  times(s.speedup_low).c_str(), times(s.speedup_high).c_str(), s.cost_high, s.cost_low,
                  s.intra_op_measured ? "from the profile's CPU times"
                  : s.intra_op_spinning ? "the high end assumed: a spinning thread pool hides the CPU work"
                                        : "the high end assumed: the profile has no CPU times");
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "window: %.1f ms -> %.1f ms (simulated)\n", wall / 1e6, w.simulated_wall_ns / 1e6);
  out += buf;
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
  char buf[512];
  const char* bound = w.bounds.any ? (w.bounds.direction == "lower" ? "  [lower bound]"
                                      : w.bounds.direction == "upper" ? "  [upper bound]" : "  [bound]")
                                   : "";
  if (w.workers) {
    out += workers_text(report, w, bound);
  } else if (!w.requests.empty()) {
    std::string what;
    for (const auto& r : w.requests) {
      const StageRow* s = report.find_stage(r.stage);
      std::snprintf(buf, sizeof buf, "%s%s %s (exposed %.1f%%)", what.empty() ? "" : ", ", r.stage.c_str(),
                    times(r.factor).c_str(), s ? s->fraction * 100.0 : 0.0);
      what += buf;
    }
    out += "what if: " + what + "\n";
    std::snprintf(buf, sizeof buf, "classic Amdahl: %-8s (95%% interval %s .. %s over %zu steps)%s\n",
                  times(w.naive_speedup).c_str(), times(w.naive_interval.low).c_str(),
                  times(w.naive_interval.high).c_str(), report.steps, bound);
    out += buf;
    if (w.simulation_implemented)
      std::snprintf(buf, sizeof buf, "simulated:      %-8s (95%% interval %s .. %s; replay of the dependency graph)%s\n",
                    times(w.simulated_speedup).c_str(), times(w.simulated_interval.low).c_str(),
                    times(w.simulated_interval.high).c_str(), bound);
    else
      std::snprintf(buf, sizeof buf, "simulated:      %-8s (no dependency graph: same as classic)\n",
                    times(w.simulated_speedup).c_str());
    out += buf;
    std::snprintf(buf, sizeof buf, "window: %.1f ms -> %.1f ms (classic), %.1f ms (simulated)\n",
                  static_cast<double>(report.wall_ns) / 1e6, w.projected_wall_ns / 1e6, w.simulated_wall_ns / 1e6);
    out += buf;
    if (w.bottleneck_line) out += to_text(w.bottleneck_line) + "\n";
  }
  if (w.target) {
    std::snprintf(buf, sizeof buf, "\nfactor each stage alone needs for %s overall:\n", times(*w.target).c_str());
    out += buf;
    std::snprintf(buf, sizeof buf, "  %-16s %8s  %-28s %s\n", "stage", "exposed", "classic", "simulated");
    out += buf;
    for (const auto& t : w.target_rows) {
      if (t.fraction <= 0 && !(t.simulated_factor && w.simulation_implemented)) continue;
      const std::string classic = w.workers ? "n/a (structural change)"
                                  : t.factor ? "needs " + times(*t.factor)
                                             : "none suffices (limit " + times(t.limit) + ")";
      const std::string sim = t.simulated_factor ? "needs " + times(*t.simulated_factor)
                                                 : "none suffices (limit " + times(t.simulated_limit) + ")";
      std::snprintf(buf, sizeof buf, "  %-16s %7.1f%%  %-28s %s\n", t.stage.c_str(), t.fraction * 100.0,
                    classic.c_str(), sim.c_str());
      out += buf;
    }
    if (w.target_rows.empty()) {
      out += "  no stage has time in the window: no factor of one reaches " + times(*w.target) + "\n";
    } else if (!w.target_reachable()) {
      const TargetRow* best = &w.target_rows.front();
      for (const auto& t : w.target_rows)
        if (t.simulated_limit > best->simulated_limit) best = &t;
      std::snprintf(buf, sizeof buf, "  no stage alone reaches %s, however much faster: the closest, %s, gives at most %s (simulated, the "
                    "stage removed)\n",
                    times(*w.target).c_str(), best->stage.c_str(), times(best->simulated_limit).c_str());
      out += buf;
    }
  }
  std::vector<std::string> notes = to_text(report.notes);
  for (auto& n : to_text(w.notes)) notes.push_back(std::move(n));
  out += "\nnotes:\n";
  for (const auto& n : notes) out += "  - " + n + "\n";
  return out;
}

}  // namespace amdahl::render
