// analyze(): runs the pipeline (rules -> timeline -> steps -> GPU attribution -> driving-thread
// exposure -> replay graph and critical path -> statistics and projections) and assembles a
// Report with its notes and verdict.
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/verdict_guard.hpp"
#include "amdahl/analysis/helper_lanes.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "amdahl/analysis/amdahl_law.hpp"
#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/record_checks.hpp"
#include "amdahl/text/escape.hpp"

namespace amdahl::analysis {
namespace {

// Frees a container's memory: `v = {}` would pick operator=(initializer_list), which empties
// a vector but keeps its capacity.
template <class T>
void release(T& v) {
  T().swap(v);
}

// Report::work_per_step_ns (see report.hpp).
std::vector<double> work_per_step(const ReplayGraph& g, const Timeline& tl, const StepSelection& sel,
                                  std::vector<double>& host_out) {
  const Lane& drv = tl.lanes[sel.driving_lane];
  std::vector<std::int64_t> items;  // consumed on the driving lane in the window
  for (const auto& m : drv.consumes)
    if (m.ts_ns >= sel.window.start_ns && m.ts_ns <= sel.window.end_ns) items.push_back(m.item);
  std::sort(items.begin(), items.end());
  // Per timeline lane: the interval its work is counted over.
  std::vector<Interval> span(tl.lanes.size(), sel.window);
  for (std::size_t l = 0; l < tl.lanes.size(); ++l) {
    if (l == sel.driving_lane || tl.lanes[l].produces.empty() || items.empty()) continue;
    const auto& pr = tl.lanes[l].produces;
    std::optional<std::size_t> first, last;
    for (std::size_t k = 0; k < pr.size(); ++k)
      if (std::binary_search(items.begin(), items.end(), pr[k].item)) {
        if (!first) first = k;
        last = k;
      }
    if (!first) continue;
    span[l].start_ns = *first > 0 ? pr[*first - 1].ts_ns : tl.lanes[l].first_ns;
    span[l].end_ns = pr[*last].ts_ns;
  }
  const std::size_t other = g.stage_names.size();
  // Host work is divided by the number of host threads that did the stage's work (its
  // parallelism), so that "4 loader threads instead of 1" reads as a 4x faster loader stage.
  std::vector<double> host(other, 0.0), gpu(other, 0.0), launch(other, 0.0);
  std::vector<std::vector<char>> lanes_with(other, std::vector<char>(g.lanes.size(), 0));
  for (const ReplayNode& n : g.nodes) {
    if ((n.kind != NodeKind::Work && n.kind != NodeKind::GpuOp && n.kind != NodeKind::Launch) || n.stage < 0 ||
        static_cast<std::size_t>(n.stage) >= other)
      continue;
    if (n.kind == NodeKind::Launch) {  // launch calls: the host part of a GPU stage
      const std::int64_t a = std::max(n.start_ns, sel.window.start_ns), e = std::min(n.end_ns, sel.window.end_ns);
      if (e > a) launch[static_cast<std::size_t>(n.stage)] += static_cast<double>(e - a);
      continue;
    }
    const ReplayLane& lane = g.lanes[n.lane];
    const Interval w = lane.gpu ? sel.window : span[lane.timeline_lane];
    const std::int64_t a = std::max(n.start_ns, w.start_ns), e = std::min(n.end_ns, w.end_ns);
    if (e <= a) continue;
    const auto k = static_cast<std::size_t>(n.stage);
    if (lane.gpu) {
      gpu[k] += static_cast<double>(e - a);
    } else {
      host[k] += static_cast<double>(e - a);
      lanes_with[k][n.lane] = 1;
    }
  }
  std::vector<double> out(other, 0.0);
  host_out.assign(other, 0.0);
  for (std::size_t k = 0; k < other; ++k) {
    if (k < g.stage_on_gpu.size() && g.stage_on_gpu[k])
      host_out[k] = (host[k] + launch[k]) / static_cast<double>(sel.steps.size());
    std::size_t threads = 0;
    for (char c : lanes_with[k]) threads += c ? 1 : 0;
    // A stage with GPU operations is measured by its GPU work (what a factor scales in the
    // replay); a host-only stage by its host work.
    const bool on_gpu = k < g.stage_on_gpu.size() && g.stage_on_gpu[k];
    out[k] = (on_gpu ? gpu[k] : host[k] / static_cast<double>(std::max<std::size_t>(1, threads))) /
             static_cast<double>(sel.steps.size());
  }
  return out;
}

// Builds the replay graph over the window, checks that the unscaled replay reproduces it, and
// makes the critical path the basis of r.exposure. Returns why not (nullopt on success).
// The timeline's lanes and the GPU op stages are released once the graph has read them (the
// rest of the analysis needs only tl.stage_names and the lanes' marks), and so are the big
// record tables when the analysis owns them (`owned`; the diagnostics and strings stay): a
// 10-million-event profile must fit in 2 GB.
std::optional<findings::DrivingThreadBasis> build_critical_path(Report& r, Timeline& tl, const StepSelection& sel,
                                std::vector<GpuOpStage>& op_stages, format::RecordSet* owned) {
  StepSelection s = sel;
  if (s.steps.empty()) {  // no steps: the whole window is one span
    s.steps = {sel.window};
    s.spans = {sel.window};
  }
  std::shared_ptr<ReplayGraph> g;
  try {
    // Before the graph's edges are flattened (its peak), what it no longer needs goes: the big
    // record tables when the analysis owns them, the timeline's segments, the op stages.
    auto free_inputs = [&] {
      if (owned) {
        release(owned->ranges);
        release(owned->marks);
        release(owned->api_calls);
        release(owned->gpu_ops);
        release(owned->syncs);
      }
      for (Lane& l : tl.lanes) release(l.segments);
      release(tl.range_class);
      release(tl.api_of_op);
      release(op_stages);
    };
    g = std::make_shared<ReplayGraph>(build_replay_graph(tl, op_stages, s, free_inputs));
  } catch (const InputError& e) {
    return findings::DrivingThreadBasis{e.what()};
  }
  if (g->nodes.empty() || g->span_first_node.empty()) return findings::DrivingThreadBasis{"empty graph"};
  // Unannotated CUDA helper threads (PyTorch's autograd thread): their idle gaps wait for the
  // driving thread instead of pinning their launches to the recorded times (helper_lanes.hpp).
  const HelperIdleStats idle = link_helper_idle(*g, helper_lane_flags(*g, tl, sel.driving_lane), sel.driving_lane);
  if (idle.idle_waits > 0) {
    r.notes.push_back(findings::HelperIdleWaits{idle.idle_waits, idle.idle_ns});
  }
  if (idle.driver_waits > 0) {
    r.notes.push_back(findings::DriverWaitsOnHelpers{idle.driver_waits, idle.driver_wait_ns});
  }
  // Loader threads (a thread pool's workers): their idle gaps between tasks wait for the
  // driving thread's submission instead of counting as `other` work (helper_lanes.hpp).
  const LoaderIdleStats pool = link_loader_idle(*g, tl, loader_lane_flags(*g, tl, sel.driving_lane), sel.driving_lane);
  if (pool.idle_waits > 0) {
    r.notes.push_back(findings::LoaderIdleWaits{pool.idle_waits, pool.idle_ns, pool.lanes, pool.released});
  }
  std::vector<double> per_step, host_per_step;
  if (sel.has_steps) per_step = work_per_step(*g, tl, sel, host_per_step);
  release(tl.lanes);
  release(tl.lane_of);
  release(op_stages);
  prepare_replay(*g);
  const ReplayResult base = replay(*g, std::vector<double>(tl.stage_names.size(), 1.0));
  const double wall = static_cast<double>(sel.window.end_ns - sel.window.start_ns);
  if (wall <= 0 || std::abs(static_cast<double>(base.window_ns) - wall) > 0.005 * wall) {
    return findings::DrivingThreadBasis{"", true, static_cast<double>(base.window_ns), wall};
  }
  CriticalPath cp = critical_path(*g, base);
  Exposure e;
  e.other_index = tl.stage_names.size();
  std::vector<double> work = stage_work_ns(*g, sel.window);
  e.total_ns.assign(work.begin(), work.end() - 1);
  e.exposed_ns = cp.exposed_ns;
  // Spans: the critical path's rows, scaled so each sums to its recorded span exactly (the
  // replay reproduces the recording within 0.5%; this removes the residue).
  e.span_ns = r.driving_view.span_ns;
  if (sel.has_steps && cp.span_exposed.size() == e.span_ns.size()) {
    e.span_exposed = cp.span_exposed;
    for (std::size_t k = 0; k < e.span_exposed.size(); ++k) {
      double sum = 0;
      for (double x : e.span_exposed[k]) sum += x;
      if (sum > 0)
        for (double& x : e.span_exposed[k]) x *= e.span_ns[k] / sum;
    }
  } else {
    e.span_exposed = r.driving_view.span_exposed;
  }
  double sum = 0;
  for (double x : e.exposed_ns) sum += x;
  if (sum > 0)
    for (double& x : e.exposed_ns) x *= wall / sum;
  r.work_per_step_ns = std::move(per_step);
  r.host_work_per_step_ns = std::move(host_per_step);
  e.waits = r.driving_view.waits;
  e.bounds = cp.unlinked_waits_on_path > 0;
  r.exposure = std::move(e);
  r.explanation = explain_path(*g, cp);
  r.path = std::move(cp);
  r.graph = std::move(g);
  r.exposed_basis = "critical_path";
  return std::nullopt;
}

}  // namespace

const StageRow* Report::find_stage(const std::string& name) const {
  for (const auto& s : stages)
    if (!s.is_other && s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> Report::stage_names() const {
  std::vector<std::string> out;
  for (const auto& s : stages)
    if (!s.is_other) out.push_back(s.name);
  return out;
}

namespace {

std::vector<StageRule> saved_rules(const format::Profile& profile) {
  auto it = profile.meta.find("stage_rules");
  if (it == profile.meta.end() || it->second.empty()) return {};
  return parse_stage_rules(it->second, "profile stage_rules");
}

}  // namespace

std::optional<std::string> invalid_saved_rules(const format::Profile& profile) {
  try {
    saved_rules(profile);
  } catch (const UsageError& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

StageRules rules_for(const format::Profile& profile, const AnalysisOptions& options) {
  std::vector<StageRule> rules = options.user_rules;
  if (const auto bad = invalid_saved_rules(profile)) {
    if (!options.user_rules_given)
      throw InputError(problems::SavedRulesInvalid{*bad});
  } else {
    auto saved = saved_rules(profile);
    rules.insert(rules.end(), saved.begin(), saved.end());
  }
  return StageRules(std::move(rules), options.step_name);
}

Finding verdict_line(const std::vector<StageRow>& stages, bool per_step, double launch_fraction) {
  using findings::ShareOf;
  using findings::StageGroup;
  std::vector<findings::ExposedGroup> groups = {{StageGroup::input, "", 0, {}},
                                                {StageGroup::transfer, "", 0, {}},
                                                {StageGroup::compute, "", 0, {}},
                                                {StageGroup::communication, "", 0, {}},
                                                {StageGroup::launch, "", 0, {}}};
  auto group_of = [&](const std::string& name) -> findings::ExposedGroup& {
    if (name == "disk_io" || name == "cpu_preprocess" || name == kDataLoadingStage) return groups[0];
    if (name == "h2d" || name == "d2h") return groups[1];
    if (name == "gpu_compute") return groups[2];
    if (name == "communication") return groups[3];
    groups.push_back({StageGroup::user_stage, name, 0, {}});
    return groups.back();
  };
  constexpr std::size_t kLaunch = 4;  // an index: group_of() may grow the vector
  double other = 0;
  for (const auto& s : stages) {
    if (s.is_other) { other = s.fraction; continue; }
    if (s.fraction <= 0) continue;
    // A stage with GPU operations: its GPU part is the stage's, its host part (work and launch
    // calls inside its ranges) is host overhead that a faster GPU does not shorten.
    const double whole = s.exposed_host_ns + s.exposed_gpu_ns;
    const double gpu_share = s.on_gpu && whole > 0 ? s.fraction * s.exposed_gpu_ns / whole : s.fraction;
    const double host_share = s.fraction - gpu_share;
    if (gpu_share > 0) {
      findings::ExposedGroup& g = group_of(s.name);
      g.share += gpu_share;
      g.rows.push_back({s.name, gpu_share, ShareOf::stage});
    }
    if (host_share > 0) {
      groups[kLaunch].share += host_share;
      groups[kLaunch].rows.push_back({s.name, host_share, ShareOf::host_part});
    }
  }
  launch_fraction = std::clamp(launch_fraction, 0.0, other);
  if (launch_fraction > 0) {
    groups[kLaunch].share += launch_fraction;
    groups[kLaunch].rows.push_back({"", launch_fraction, ShareOf::launch_calls});
    other -= launch_fraction;
  }
  const findings::ExposedGroup* top = nullptr;
  for (const auto& g : groups)
    if (!top || g.share > top->share) top = &g;
  if (other >= 0.3 && (!top || other > top->share)) return findings::Unannotated{other, per_step};
  if (!top || top->share <= 0) return findings::NoStageTime{};
  if (top->share >= 0.3) return findings::GroupBound{*top, per_step};
  return findings::NoDominantStage{*top};
}

namespace {

// analyze(); `owned` (the profile's records, when the caller gave them up) may be emptied of
// its big tables once they have been read.
Report analyze_profile(const format::Profile& profile, const AnalysisOptions& options, format::RecordSet* owned) {
  const auto& rs = profile.records;
  const StageRules rules = rules_for(profile, options);
  // Counted before the big tables may go (below): records that end before they start.
  std::vector<ProfileDiagnostic> impossible = impossible_record_diagnostics(rs);
  Timeline tl = build_timeline(rs, rules);
  const StepSelection sel = select_steps(tl, options.warmup);
  auto op_stages = attribute_gpu_ops(tl);

  Report r;
  r.meta = profile.meta;
  r.step_name = options.step_name;
  r.window = sel.window;
  r.wall_ns = sel.window.end_ns - sel.window.start_ns;
  r.steps = sel.has_steps ? sel.steps.size() : 0;
  r.total_steps = sel.total_steps;
  r.warmup = sel.warmup;
  r.first_step = sel.first_step;
  r.gpu_sampling = sel.sampling;
  r.warmup_auto = sel.warmup_auto;
  r.fill_steps = sel.fill_steps;
  r.drain_steps = sel.drain_steps;
  r.cpu = measure_cpu_use(tl, sel.driving_lane, sel.window);
  r.stage_mapping = stage_mapping(rs, rules);
  const Lane& drv = tl.lanes[sel.driving_lane];
  r.driving_pid = drv.pid;
  r.driving_tid = drv.tid;
  r.driving_name = drv.name;
  // Notes the profile carries (meta 'notes', one per line: `amdahl import` says there what its
  // stages and steps stand for), then the analysis's own.
  if (const auto it = profile.meta.find("notes"); it != profile.meta.end()) {
    std::string_view rest = it->second;
    while (!rest.empty()) {
      const std::size_t nl = rest.find('\n');
      const std::string_view line = rest.substr(0, nl);
      if (!line.empty()) r.notes.push_back(findings::ProfileNote{std::string(line)});
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    }
  }
  r.notes.insert(r.notes.end(), sel.notes.begin(), sel.notes.end());
  if (drv.nested_steps > 0)
    r.notes.push_back(findings::NestedSteps{drv.nested_steps});
  r.driving_view = compute_exposure(tl, sel, op_stages);
  r.exposure = r.driving_view;
  r.gpu = summarize_gpu(tl, op_stages, sel.window);
  r.ranks = analyze_ranks(tl, sel.window, sel.has_steps ? sel.warmup : 0);  // before the segments go
  const std::optional<findings::DrivingThreadBasis> graph_failure = build_critical_path(r, tl, sel, op_stages, owned);

  const std::size_t n = tl.stage_names.size();
  const double wall = static_cast<double>(r.wall_ns);
  for (std::size_t i = 0; i <= n; ++i) {
    StageRow row;
    row.is_other = i == n;
    row.name = row.is_other ? std::string(kOtherStage) : tl.stage_names[i];
    row.canonical = !row.is_other && is_canonical_stage(row.name);
    row.exposed_ns = r.exposure.exposed_ns[i];
    row.total_ns = row.is_other ? row.exposed_ns : r.exposure.total_ns[i];
    row.hidden_ns = std::max(0.0, row.total_ns - row.exposed_ns);
    row.fraction = row.exposed_ns / wall;
    if (sel.has_steps) {
      StageStats st;
      for (const auto& span : r.exposure.span_exposed) st.add(span[i]);
      row.per_step_exposed_ns = st.summary();
    }
    row.on_gpu = !row.is_other && r.graph && i < r.graph->stage_on_gpu.size() && r.graph->stage_on_gpu[i];
    row.exposed_host_ns = row.exposed_ns;
    if (row.on_gpu && r.exposed_basis == "critical_path" && r.path.exposed_ns[i] > 0) {
      const double scale = row.exposed_ns / r.path.exposed_ns[i];  // the exposure's rescaling
      row.exposed_host_ns = std::min(row.exposed_ns, r.path.host_exposed_ns[i] * scale);
      row.exposed_gpu_ns = row.exposed_ns - row.exposed_host_ns;
    } else if (row.on_gpu) {
      row.exposed_host_ns = 0;
      row.exposed_gpu_ns = row.exposed_ns;
    }
    if (!row.is_other) {
      const double p = std::clamp(row.fraction, 0.0, 1.0);
      row.speedup_2x = amdahl_speedup(p, 2);
      row.speedup_4x = amdahl_speedup(p, 4);
      row.speedup_10x = amdahl_speedup(p, 10);
      row.speedup_limit = amdahl_limit(p);
      row.gpu_busy_ns = r.gpu.busy_ns_by_stage[i];
    }
    r.stages.push_back(std::move(row));
  }
  // `other` is the exact remainder, so the fractions sum to 1.
  double staged = 0;
  for (std::size_t i = 0; i < n; ++i) staged += r.stages[i].fraction;
  r.stages[n].fraction = std::max(0.0, 1.0 - staged);

  if (sel.has_steps) {
    StageStats st;
    for (double s : r.exposure.span_ns) st.add(s);
    r.step_ns = st.summary();
  }

  // Notes: say what the figures are and where they are bounds.
  if (options.user_rules_given)
    if (const auto bad = invalid_saved_rules(profile))
      r.notes.push_back(findings::InvalidSavedRules{*bad});
  if (r.exposed_basis == "critical_path") {
    r.notes.push_back(findings::CriticalPathBasis{});
    if (r.path.unlinked_waits_on_path > 0)
      r.notes.push_back(findings::UnlinkedPathWaits{r.path.unlinked_waits_on_path, r.path.unlinked_wait_ns_on_path});
    if (r.graph->dropped_backward_edges > 0)
      r.notes.push_back(findings::DroppedBackwardEdges{r.graph->dropped_backward_edges});
    if (r.graph->inferred_stream_edges > 0)
      r.notes.push_back(findings::InferredStreamEdges{r.graph->inferred_stream_edges});
  } else {
    r.notes.push_back(graph_failure.value_or(findings::DrivingThreadBasis{}));
  }
  const auto& w = r.driving_view.waits;
  if (r.exposed_basis != "critical_path" && r.exposure.bounds) {
    r.notes.push_back(findings::UnlinkedDrivingWaits{w.wait_ranges - w.linked_waits, w.wait_ranges, w.fallback_ns});
  }
  if (r.exposed_basis != "critical_path" && w.unattributed_ns > 0)
    r.notes.push_back(findings::UnattributedWaits{w.unattributed_ns});
  for (std::size_t i = 0; i < n; ++i)
    if (r.exposed_basis != "critical_path" && r.stages[i].exposed_ns > r.stages[i].total_ns + 0.5)
      r.notes.push_back(findings::ExposedOverHost{r.stages[i].name});
  if (!r.gpu.present) r.notes.push_back(findings::NoGpuRecords{});
  else if (r.gpu.by_fallback > 0)
    r.notes.push_back(findings::GpuOpsByKind{r.gpu.by_fallback});
  if (!r.warmup_auto || r.warmup > 0) r.notes.push_back(findings::WarmupExcluded{r.warmup - r.fill_steps, r.warmup_auto});

  for (const auto& d : rs.diagnostics)
    r.diagnostics.push_back({d.pid, text::display_name(rs.str(d.key)), d.count, text::display_name(rs.str(d.detail))});
  for (auto& d : impossible) r.diagnostics.push_back(std::move(d));
  double launch_fraction = 0;
  if (r.exposed_basis == "critical_path" && wall > 0) {
    double path_sum = 0;
    for (double x : r.path.exposed_ns) path_sum += x;
    if (path_sum > 0) launch_fraction = r.path.launch_ns / path_sum;
  }
  // Never a compute-bound headline for a GPU that idles most of the window (verdict_guard.hpp).
  r.verdict = guard_verdict(verdict_line(r.stages, sel.has_steps, launch_fraction), r.stages, r.gpu, r.wall_ns,
                            sel.has_steps);
  return r;
}

}  // namespace

Report analyze(const format::Profile& profile, const AnalysisOptions& options) {
  return analyze_profile(profile, options, nullptr);
}

Report analyze(format::Profile&& profile, const AnalysisOptions& options) {
  return analyze_profile(profile, options, &profile.records);
}

}  // namespace amdahl::analysis
