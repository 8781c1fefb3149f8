// Report -> JSON. Always: wall_ns, steps, stages[{name, exposed_ns, fraction, total_ns,
// hidden_ns}]; plus per-step statistics, projections, GPU summary, notes and diagnostics.
#include "amdahl/render/renderers.hpp"
#include "amdahl/analysis/ranks.hpp"
#include <algorithm>
#include <cmath>

#include "amdahl/render/guidance_render.hpp"
#include "amdahl/analysis/path_explanation.hpp"
#include "amdahl/analysis/verdict_guard.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/render/finding_text.hpp"
#include "json_common.hpp"
#include "numbers.hpp"

namespace amdahl::render {
using namespace analysis;
namespace {

std::int64_t ns(double v) { return static_cast<std::int64_t>(std::llround(v)); }

using detail::num;

nlohmann::json stats_json(const StatsSummary& s) {
  return {{"count", s.count}, {"mean_ns", s.mean},     {"median_ns", s.median}, {"p95_ns", s.p95},
          {"stddev_ns", s.stddev}, {"min_ns", s.min}, {"max_ns", s.max}, {"exact_percentiles", s.exact_percentiles}};
}

}  // namespace

nlohmann::json report_to_json(const Report& r) {
  nlohmann::json j;
  j["wall_ns"] = r.wall_ns;
  j["steps"] = r.steps;
  j["total_steps"] = r.total_steps;
  j["warmup_steps"] = r.warmup;
  if (r.steps > 0) j["first_step"] = r.first_step;  // 0-based, as --gpu-steps counts
  j["warmup"] = r.warmup_auto ? "auto" : "explicit";
  if (r.gpu_sampling) {  // docs/json-schema.md: GPU traced in windows; the figures above are the window's
    const GpuSampling& g = *r.gpu_sampling;
    j["gpu_sampling"] = {{"windows", g.windows},           {"traced_steps", g.traced_steps},
                         {"run_steps", g.run_steps},       {"analysed_window", g.used_window},
                         {"run_warmup_steps", g.run_warmup}, {"run_step_mean_ms", g.run_step_mean_ms},
                         {"run_step_median_ms", g.run_step_median_ms}, {"touched_steps", g.touched_steps}};
    if (g.window_cost_share) {
      j["gpu_sampling"]["touched_step_median_ms"] = g.touched_step_median_ms;
      j["gpu_sampling"]["untouched_step_median_ms"] = g.untouched_step_median_ms;
      j["gpu_sampling"]["window_cost_share"] = *g.window_cost_share;
    }
  }
  j["steady_state"] = {{"fill_steps", r.fill_steps}, {"drain_steps", r.drain_steps}};
  j["step_name"] = r.step_name;
  j["window"] = {{"start_ns", r.window.start_ns}, {"end_ns", r.window.end_ns}};
  j["driving_thread"] = {{"pid", r.driving_pid}, {"tid", r.driving_tid}, {"name", r.driving_name}};
  j["exposed_basis"] = r.exposed_basis;
  j["bounds"] = r.exposure.bounds;

  // Integer ns that add up exactly: `other` takes the rounding remainder.
  nlohmann::json stages = nlohmann::json::array();
  std::int64_t staged = 0;
  for (const auto& s : r.stages) {
    nlohmann::json o;
    o["name"] = s.name;
    o["kind"] = s.is_other ? "other" : (s.canonical ? "canonical" : "user");
    const std::int64_t exposed = s.is_other ? r.wall_ns - staged : ns(s.exposed_ns);
    if (!s.is_other) staged += exposed;
    o["exposed_ns"] = exposed;
    o["fraction"] = s.fraction;
    o["total_ns"] = s.is_other ? exposed : ns(s.total_ns);
    o["hidden_ns"] = s.is_other ? 0 : ns(s.hidden_ns);
    if (r.steps > 0) o["per_step_exposed"] = stats_json(s.per_step_exposed_ns);
    if (!s.is_other) {
      o["amdahl"] = {{"2x", num(s.speedup_2x)}, {"4x", num(s.speedup_4x)}, {"10x", num(s.speedup_10x)},
                     {"limit", num(s.speedup_limit)}};
      if (r.gpu.present) o["gpu_busy_ns"] = s.gpu_busy_ns;
      o["on_gpu"] = s.on_gpu;
      if (s.on_gpu) {  // the host part and the GPU part of its exposed time
        o["exposed_host_ns"] = ns(s.exposed_host_ns);
        o["exposed_gpu_ns"] = ns(s.exposed_gpu_ns);
      }
    }
    stages.push_back(std::move(o));
  }
  j["stages"] = std::move(stages);
  if (r.steps > 0) j["step_stats"] = stats_json(r.step_ns);

  // The driving thread's view (the fallback basis), kept for comparison.
  {
    nlohmann::json dv;
    const Exposure& d = r.driving_view;
    const double wall = static_cast<double>(r.wall_ns);
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < r.stages.size() && i < d.exposed_ns.size(); ++i) {
      const bool other = i + 1 == r.stages.size();
      const double total = other ? d.exposed_ns[i] : (i < d.total_ns.size() ? d.total_ns[i] : 0.0);
      rows.push_back({{"name", r.stages[i].name}, {"exposed_ns", ns(d.exposed_ns[i])},
                      {"fraction", wall > 0 ? d.exposed_ns[i] / wall : 0.0}, {"total_ns", ns(total)},
                      {"hidden_ns", ns(std::max(0.0, total - d.exposed_ns[i]))}});
    }
    dv["stages"] = std::move(rows);
    dv["bounds"] = d.bounds;
    j["driving_thread_view"] = std::move(dv);
  }
  if (r.graph) {
    const ReplayGraph& g = *r.graph;
    j["critical_path"] = {{"nodes_on_path", r.path.nodes_on_path},
                          {"lane_switches", r.path.lane_switches},
                          {"unlinked_waits_on_path", r.path.unlinked_waits_on_path},
                          {"unlinked_wait_ns_on_path", ns(r.path.unlinked_wait_ns_on_path)},
                          {"graph", {{"lanes", g.lanes.size()}, {"nodes", g.nodes.size()}, {"edges", g.edges.size()},
                                     {"linked_waits", g.linked_waits}, {"unlinked_waits", g.unlinked_waits},
                                     {"gpu_joins", g.gpu_joins},
                                     {"dropped_backward_edges", g.dropped_backward_edges},
                                     {"inferred_stream_edges", g.inferred_stream_edges},
                                     {"queue_full_waits", g.queue_full_waits},
                                     {"queue_full_wait_ns", g.queue_full_wait_ns},
                                     {"implicit_sync_waits", g.implicit_sync_waits},
                                     {"implicit_sync_wait_ns", g.implicit_sync_wait_ns},
                                     {"queue_depth", g.queue_depth},
                                     {"event_joins", g.event_joins}}}};
    j["critical_path"]["explanation"] = path_explanation_to_json(r.explanation);
  }

  const auto& w = r.exposure.waits;
  j["waits"] = {{"wait_ranges", w.wait_ranges}, {"linked", w.linked_waits}, {"linked_ns", ns(w.linked_ns)},
                {"fallback_ns", ns(w.fallback_ns)}, {"gpu_wait_ns", ns(w.gpu_wait_ns)},
                {"unattributed_ns", ns(w.unattributed_ns)}};

  nlohmann::json gpu;
  gpu["present"] = r.gpu.present;
  gpu["ops"] = r.gpu.ops;
  gpu["ops_in_window"] = r.gpu.ops_in_window;
  gpu["attributed_by_correlation"] = r.gpu.by_correlation;
  gpu["attributed_by_kind"] = r.gpu.by_fallback;
  gpu["busy_ns"] = r.gpu.busy_ns;
  gpu["idle_ns"] = r.gpu.idle_ns;
  nlohmann::json devs = nlohmann::json::array();
  for (const auto& d : r.gpu.devices)
    devs.push_back({{"pid", d.pid}, {"device", d.device}, {"busy_ns", d.busy_ns}, {"idle_ns", d.idle_ns}});
  gpu["devices"] = std::move(devs);
  nlohmann::json by_stage = nlohmann::json::array();
  for (const auto& s : r.stages)
    if (!s.is_other && s.gpu_busy_ns > 0) by_stage.push_back({{"name", s.name}, {"busy_ns", s.gpu_busy_ns}});
  gpu["busy_by_stage"] = std::move(by_stage);
  gpu["launch_delay"] = stats_json(r.gpu.launch_delay_ns.summary());
  j["gpu"] = std::move(gpu);
  {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < r.stage_mapping.size() && i < 200; ++i) {
      const StageMappingRow& m = r.stage_mapping[i];
      rows.push_back({{"domain", m.domain}, {"name", m.name}, {"target", m.target}, {"rule", m.rule},
                      {"pattern", m.pattern}, {"ranges", m.ranges}, {"total_ns", m.total_ns}});
    }
    j["stage_mapping"] = std::move(rows);
    j["stage_mapping_names"] = r.stage_mapping.size();
  }
  if (r.cpu.known) {
    nlohmann::json rows = nlohmann::json::array();
    for (const StageCpu& c : r.cpu.stages)
      rows.push_back({{"stage", c.stage}, {"driving_process", c.driving_process}, {"ranges", c.ranges},
                      {"wall_ns", c.wall_ns}, {"thread_cpu_ns", c.thread_cpu_ns}, {"process_cpu_ns", c.process_cpu_ns},
                      {"on_cpu", c.on_cpu()}, {"cores_busy", c.cores_busy()}});
    j["cpu"] = {{"cpus_allowed", r.cpu.cpus_allowed}, {"cpus_online", r.cpu.cpus_online},
                {"main_cores_busy", r.cpu.main_cores_busy >= 0 ? nlohmann::json(r.cpu.main_cores_busy) : nlohmann::json(nullptr)},
                {"stages", std::move(rows)}};
  }

  if (!r.ranks.rows.empty()) j["ranks"] = ranks_to_json(r.ranks, r.stage_names());  // ranks.hpp
  j["verdict"] = to_text(r.verdict);
  const double idle_share = gpu_idle_share(r.gpu, r.wall_ns);  // no device busy (verdict_guard.hpp)
  j["gpu"]["any_busy_ns"] = r.gpu.any_busy_ns;
  j["gpu"]["idle_share"] = idle_share >= 0 ? nlohmann::json(idle_share) : nlohmann::json(nullptr);
  if (r.guidance.projections.computed) {  // amdahl report (guidance.hpp)
    j["projections"] = projections_to_json(r.guidance.projections);
    j["next_actions"] = next_actions_to_json(r.guidance.next_actions);
    j["user_whatif"] = r.guidance.user_whatif ? user_whatif_to_json(*r.guidance.user_whatif) : nlohmann::json(nullptr);
  }
  detail::add_report_tail(j, to_text(r.notes), r.diagnostics, r.meta);
  return j;
}

nlohmann::json path_explanation_to_json(const PathExplanation& e) {
  nlohmann::json j;
  j["text"] = to_text(e);
  j["path_ns"] = std::llround(e.path_ns);
  nlohmann::json lanes = nlohmann::json::array();
  for (const auto& p : e.lanes) lanes.push_back({{"what", to_text(p)}, {"ns", std::llround(p.ns)}, {"fraction", p.fraction}});
  j["lanes"] = std::move(lanes);
  j["launch_ns"] = std::llround(e.launch_ns);
  j["gap_ns"] = std::llround(e.gap_ns);
  nlohmann::json waits = nlohmann::json::object();
  for (std::size_t k = 0; k < kEdgeKinds; ++k)
    if (e.waits[k].count > 0)
      waits[edge_kind_name(static_cast<EdgeKind>(k))] = {{"count", e.waits[k].count}, {"ns", std::llround(e.waits[k].ns)}};
  j["host_waits"] = std::move(waits);
  nlohmann::json edges = nlohmann::json::object();
  for (std::size_t k = 0; k < kEdgeKinds; ++k)
    if (e.edges_by_kind[k] > 0)
      edges[edge_kind_name(static_cast<EdgeKind>(k))] = {{"count", e.edges_by_kind[k]}, {"gap_ns", std::llround(e.gap_ns_by_edge[k])}};
  j["edges_on_path"] = std::move(edges);
  j["queue_full_waits"] = e.waits[static_cast<std::size_t>(EdgeKind::QueueFull)].count;
  j["queue_depth"] = e.queue_depth;
  return j;
}

}  // namespace amdahl::render
