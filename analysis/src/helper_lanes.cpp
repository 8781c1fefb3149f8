// Idle time of unannotated CUDA helper threads (see helper_lanes.hpp): long gaps between the
// CUDA calls of a thread that has no ranges or marks of its own become waits joined to the
// driving thread, instead of fixed-length work.
#include "amdahl/analysis/helper_lanes.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace amdahl::analysis {

namespace {
constexpr std::uint32_t kNoNode = std::numeric_limits<std::uint32_t>::max();
}  // namespace

std::vector<char> helper_lane_flags(const ReplayGraph& g, const Timeline& tl, std::size_t driving_lane) {
  std::vector<char> helper(g.lanes.size(), 0);
  for (std::size_t i = 0; i < g.lanes.size(); ++i) {
    const ReplayLane& rl = g.lanes[i];
    if (rl.gpu) continue;
    const Lane* l = rl.timeline_lane < tl.lanes.size() ? &tl.lanes[rl.timeline_lane] : nullptr;
    if (l != nullptr && (l->pid != rl.pid || l->tid != rl.id)) l = nullptr;  // no timeline lane of its own
    if (l != nullptr && rl.timeline_lane == driving_lane) continue;
    const bool annotated =
        l != nullptr && (l->stage_ranges > 0 || !l->wait_ranges.empty() || !l->produces.empty() || !l->consumes.empty());
    helper[i] = annotated ? 0 : 1;
  }
  return helper;
}

namespace {

// A helper's own host work and launch calls (not its idle gaps) are the host part of the stage
// its GPU work belongs to: per helper lane, the stage of the most GPU ops it launched, if at
// least 90% of them have it (PyTorch's autograd thread: gpu_compute).
std::size_t attribute_helper_work(ReplayGraph& g, const std::vector<char>& helper) {
  const std::size_t stages = g.stage_names.size();
  std::vector<std::vector<std::size_t>> launched(g.lanes.size());
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i) {
    const ReplayNode& op = g.nodes[i];
    if (op.kind != NodeKind::GpuOp || op.stage < 0 || static_cast<std::size_t>(op.stage) >= stages) continue;
    for (std::uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e) {
      const ReplayEdge& ed = g.edges[e];
      if (ed.edge_kind() != EdgeKind::Launch) continue;
      const std::uint32_t lane = g.nodes[ed.from].lane;
      if (lane < helper.size() && helper[lane]) {
        auto& v = launched[lane];
        if (v.empty()) v.assign(stages, 0);
        ++v[static_cast<std::size_t>(op.stage)];
      }
    }
  }
  std::vector<std::int16_t> stage_of(g.lanes.size(), static_cast<std::int16_t>(kLabelOther));
  for (std::size_t l = 0; l < launched.size(); ++l) {
    const auto& v = launched[l];
    if (v.empty()) continue;
    std::size_t total = 0, best = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
      total += v[k];
      if (v[k] > v[best]) best = k;
    }
    if (total > 0 && v[best] * 10 >= total * 9) stage_of[l] = static_cast<std::int16_t>(best);
  }
  std::size_t relabelled = 0;
  for (ReplayNode& nd : g.nodes) {
    if (nd.lane >= stage_of.size() || stage_of[nd.lane] == kLabelOther || nd.stage != kLabelOther) continue;
    if (nd.kind != NodeKind::Work && nd.kind != NodeKind::Launch) continue;
    nd.stage = stage_of[nd.lane];
    ++relabelled;
  }
  return relabelled;
}

// Merges new edges (to, edge) into the graph's incoming-edge lists (edges grouped by `to`, each
// node's own edges first) and counts the joins among them as linked waits.
void merge_edges(ReplayGraph& g, std::vector<std::pair<std::uint32_t, ReplayEdge>> added) {
  if (added.empty()) return;
  std::stable_sort(added.begin(), added.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::size_t nn = g.nodes.size();
  std::vector<ReplayEdge> edges;
  edges.reserve(g.edges.size() + added.size());
  std::vector<std::uint32_t> begin(nn + 1, 0);
  std::size_t k = 0;  // `added` is in node order
  for (std::uint32_t i = 0; i < nn; ++i) {
    begin[i] = static_cast<std::uint32_t>(edges.size());
    for (std::uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e) edges.push_back(g.edges[e]);
    for (; k < added.size() && added[k].first == i; ++k) edges.push_back(added[k].second);
  }
  begin[nn] = static_cast<std::uint32_t>(edges.size());
  g.edges = std::move(edges);
  g.edge_begin = std::move(begin);
  g.event_order.clear();  // new edges: prepare_replay() orders the events again
  for (const auto& a : added) g.linked_waits += a.second.join ? 1 : 0;
}

}  // namespace

HelperIdleStats link_helper_idle(ReplayGraph& g, const std::vector<char>& helper, std::size_t driving_lane,
                                 std::int64_t min_gap_ns) {
  HelperIdleStats stats;
  if (std::find(helper.begin(), helper.end(), 1) == helper.end()) return stats;
  // The driving lane's nodes (consecutive ids, in time order).
  std::uint32_t drv = kNoNode;
  for (std::size_t i = 0; i < g.lanes.size(); ++i)
    if (!g.lanes[i].gpu && g.lanes[i].timeline_lane == driving_lane && helper[i] == 0) { drv = static_cast<std::uint32_t>(i); break; }
  if (drv == kNoNode) return stats;
  std::vector<std::uint32_t> drv_nodes;
  for (std::uint32_t n = 0; n < g.nodes.size(); ++n)
    if (g.nodes[n].lane == drv) drv_nodes.push_back(n);
  if (drv_nodes.empty()) return stats;

  std::vector<std::pair<std::uint32_t, ReplayEdge>> added;  // (to, edge)
  for (std::uint32_t n = 0; n < g.nodes.size(); ++n) {
    ReplayNode& nd = g.nodes[n];
    if (nd.lane >= helper.size() || !helper[nd.lane] || nd.kind != NodeKind::Work || nd.stage != kLabelOther) continue;
    if (nd.end_ns - nd.start_ns < min_gap_ns) continue;
    // The driving-lane node that ended last at or before this gap's end.
    auto it = std::upper_bound(drv_nodes.begin(), drv_nodes.end(), nd.end_ns,
                               [&](std::int64_t t, std::uint32_t m) { return t < g.nodes[m].end_ns; });
    if (it == drv_nodes.begin()) continue;  // before the driving thread's first node: keep it as work
    const std::uint32_t from = *std::prev(it);
    nd.kind = NodeKind::Wait;
    nd.stage = kLabelWait;
    nd.base_ns = 0;
    added.emplace_back(n, make_edge(from, n, nd.end_ns - g.nodes[from].end_ns, true, EdgeKind::Inferred));  // weight: the recorded delay
    ++stats.idle_waits;
    stats.idle_ns += static_cast<double>(nd.end_ns - nd.start_ns);
  }
  // The other direction: the driving thread blocked, with no CUDA call of its own, while a
  // helper launched its work (PyTorch's backward(): the training thread sleeps until the
  // autograd thread has launched the whole backward pass). A driving-lane work node of at least
  // min_gap_ns during which a helper's CUDA activity (a launch call or a wait on the GPU) ended
  // shortly before the node ended is a wait joined to that activity; the driving thread's own
  // work before the helper woke is kept as the wait's base. Replayed as fixed work, it kept the
  // recorded backward pass's length however fast the GPU became.
  std::vector<std::uint32_t> activity;  // helper nodes that are CUDA calls or waits on the GPU
  std::vector<std::uint32_t> woken;     // helper idle gaps turned into waits above, by start
  for (std::uint32_t n = 0; n < g.nodes.size(); ++n) {
    const ReplayNode& nd = g.nodes[n];
    if (nd.lane >= helper.size() || !helper[nd.lane]) continue;
    if (nd.kind == NodeKind::Launch || (nd.kind == NodeKind::Wait && nd.stage == kLabelGpuWait)) activity.push_back(n);
    if (nd.kind == NodeKind::Wait && nd.stage == kLabelWait) woken.push_back(n);
  }
  std::sort(activity.begin(), activity.end(), [&](std::uint32_t a, std::uint32_t b) { return g.nodes[a].end_ns < g.nodes[b].end_ns; });
  std::sort(woken.begin(), woken.end(), [&](std::uint32_t a, std::uint32_t b) { return g.nodes[a].start_ns < g.nodes[b].start_ns; });
  for (std::uint32_t n : drv_nodes) {
    ReplayNode& nd = g.nodes[n];
    if (nd.kind != NodeKind::Work || nd.end_ns - nd.start_ns < min_gap_ns) continue;
    auto it = std::upper_bound(activity.begin(), activity.end(), nd.end_ns,
                               [&](std::int64_t t, std::uint32_t m) { return t < g.nodes[m].end_ns; });
    if (it == activity.begin()) continue;
    const std::uint32_t from = *std::prev(it);
    const std::int64_t from_end = g.nodes[from].end_ns;
    if (from_end <= nd.start_ns || nd.end_ns - from_end > kHelperWakeNs) continue;
    // The driving thread's own work: until a helper that slept across the node's start woke.
    std::int64_t own = 0;
    auto w = std::upper_bound(woken.begin(), woken.end(), nd.start_ns,
                              [&](std::int64_t t, std::uint32_t m) { return t < g.nodes[m].start_ns; });
    if (w != woken.begin()) {
      const ReplayNode& gap = g.nodes[*std::prev(w)];
      if (gap.end_ns > nd.start_ns && gap.end_ns < from_end) own = gap.end_ns - nd.start_ns;
    }
    nd.kind = NodeKind::Wait;
    nd.stage = kLabelWait;
    nd.base_ns = own;
    added.emplace_back(n, make_edge(from, n, nd.end_ns - from_end, true, EdgeKind::Inferred));
    ++stats.driver_waits;
    stats.driver_wait_ns += static_cast<double>(nd.end_ns - nd.start_ns - own);
  }
  stats.helper_nodes_attributed = attribute_helper_work(g, helper);
  merge_edges(g, std::move(added));
  return stats;
}

namespace {

// The ReplayGraph lane of the timeline's driving lane (kNoNode if none).
std::uint32_t driving_graph_lane(const ReplayGraph& g, const Timeline& tl, std::size_t driving_lane) {
  if (driving_lane >= tl.lanes.size()) return kNoNode;
  const Lane& d = tl.lanes[driving_lane];
  for (std::size_t i = 0; i < g.lanes.size(); ++i)
    if (!g.lanes[i].gpu && g.lanes[i].timeline_lane == driving_lane && g.lanes[i].pid == d.pid && g.lanes[i].id == d.tid)
      return static_cast<std::uint32_t>(i);
  return kNoNode;
}

std::vector<char> loading_stage_flags(const ReplayGraph& g) {
  std::vector<char> loading(g.stage_names.size(), 0);
  for (std::size_t i = 0; i < g.stage_names.size(); ++i)
    loading[i] = g.stage_names[i] == "disk_io" || g.stage_names[i] == "cpu_preprocess" ? 1 : 0;
  return loading;
}

}  // namespace

std::vector<char> loader_lane_flags(const ReplayGraph& g, const Timeline& tl, std::size_t driving_lane) {
  std::vector<char> loader(g.lanes.size(), 0);
  const std::vector<char> loading = loading_stage_flags(g);
  std::vector<char> candidate(g.lanes.size(), 0);
  for (std::size_t i = 0; i < g.lanes.size(); ++i) {
    const ReplayLane& rl = g.lanes[i];
    if (rl.gpu || rl.timeline_lane >= tl.lanes.size() || rl.timeline_lane == driving_lane) continue;
    const Lane& l = tl.lanes[rl.timeline_lane];
    if (l.pid != rl.pid || l.tid != rl.id) continue;  // no timeline lane of its own
    candidate[i] = l.wait_ranges.empty() ? 1 : 0;      // a lane that annotates its waits keeps them
  }
  for (const ReplayNode& nd : g.nodes)
    if (nd.lane < candidate.size() && candidate[nd.lane] && nd.kind == NodeKind::Work && nd.stage >= 0 &&
        static_cast<std::size_t>(nd.stage) < loading.size() && loading[static_cast<std::size_t>(nd.stage)])
      loader[nd.lane] = 1;
  return loader;
}

LoaderIdleStats link_loader_idle(ReplayGraph& g, const Timeline& tl, const std::vector<char>& loader,
                                 std::size_t driving_lane, std::int64_t min_gap_ns) {
  LoaderIdleStats stats;
  if (std::find(loader.begin(), loader.end(), 1) == loader.end()) return stats;
  const std::uint32_t drv = driving_graph_lane(g, tl, driving_lane);
  if (drv == kNoNode) return stats;
  // What can release a task: the driving thread's own work and CUDA calls (its submissions run
  // there), not its waits (a consume is a consequence of a loader's work, not a cause of it).
  std::vector<std::uint32_t> drv_nodes;  // by end (a lane's nodes do not overlap)
  for (std::uint32_t n = 0; n < g.nodes.size(); ++n)
    if (g.nodes[n].lane == drv && g.nodes[n].kind != NodeKind::Wait) drv_nodes.push_back(n);
  if (drv_nodes.empty()) return stats;
  auto last_ending_by = [&](std::int64_t t) -> std::uint32_t {
    auto it = std::upper_bound(drv_nodes.begin(), drv_nodes.end(), t,
                               [&](std::int64_t v, std::uint32_t m) { return v < g.nodes[m].end_ns; });
    return it == drv_nodes.begin() ? kNoNode : *std::prev(it);
  };
  std::vector<char> counted(g.lanes.size(), 0);
  std::vector<std::pair<std::uint32_t, ReplayEdge>> added;
  // Task starts on loader lanes: (start, pid, node, the release that bound it or kNoNode).
  struct TaskStart { std::int64_t t; std::uint32_t pid, node, release; };
  std::vector<TaskStart> starts;
  auto is_task_work = [&](const ReplayNode& x) { return x.kind == NodeKind::Work && x.stage >= 0; };
  // A host lane's nodes are consecutive ids in time order.
  for (std::uint32_t n = 0; n + 1 < g.nodes.size(); ++n) {
    ReplayNode& nd = g.nodes[n];
    if (nd.lane >= loader.size() || !loader[nd.lane] || is_task_work(nd)) continue;
    const ReplayNode& next = g.nodes[n + 1];
    if (next.lane != nd.lane || !is_task_work(next)) continue;  // no task starts here
    starts.push_back({next.start_ns, g.lanes[nd.lane].pid, n + 1, kNoNode});
    if (nd.kind != NodeKind::Work || nd.stage != kLabelOther) continue;
    if (nd.end_ns - nd.start_ns < min_gap_ns) continue;  // the pool's own hand-over to a queued task
    // The previous task: the last stage work before the gap on the lane.
    std::uint32_t p = n;
    while (p > 0 && g.nodes[p - 1].lane == nd.lane && !is_task_work(g.nodes[p - 1])) --p;
    if (p == 0 || g.nodes[p - 1].lane != nd.lane) continue;  // before the lane's first task
    // With produce marks, tasks end at a produce: a gap with none since the previous task's
    // work is unannotated time inside a task, not idle time between two.
    const Lane& tlane = tl.lanes[g.lanes[nd.lane].timeline_lane];
    if (!tlane.produces.empty()) {
      const std::int64_t task_end = g.nodes[p - 1].end_ns;
      auto it = std::lower_bound(tlane.produces.begin(), tlane.produces.end(), task_end,
                                 [](const ItemMark& m, std::int64_t t) { return m.ts_ns < t; });
      if (it == tlane.produces.end() || it->ts_ns > nd.start_ns) continue;
    }
    // What released the next task: the driving thread's last own node that ended inside the
    // gap (its submission); none: the gap keeps its recorded length, not before the driving
    // thread's last node before it.
    std::uint32_t from = last_ending_by(nd.end_ns);
    const bool binding = from != kNoNode && g.nodes[from].end_ns > nd.start_ns;
    if (!binding) from = last_ending_by(nd.start_ns);
    if (from == kNoNode) continue;  // before the driving thread's first node: keep it as work
    nd.kind = NodeKind::Wait;
    nd.stage = kLabelWait;
    nd.base_ns = binding ? 0 : nd.end_ns - nd.start_ns;
    added.emplace_back(n, make_edge(from, n, binding ? nd.end_ns - g.nodes[from].end_ns : 0, true, EdgeKind::Inferred));
    ++stats.idle_waits;
    stats.idle_ns += static_cast<double>(nd.end_ns - nd.start_ns);
    if (binding) {
      ++stats.released;
      starts.back().release = from;
    }
    if (!counted[nd.lane]) { counted[nd.lane] = 1; ++stats.lanes; }
  }
  // A task that was already queued when its thread took it (no release of its own) was
  // submitted no earlier than the tasks of its pool that started before it (the queue is
  // first in, first out): it starts no earlier than the latest release among them (weight 0;
  // the recorded start is later, so the factor-1 replay is unchanged). Without it, a replay (or
  // --workers) lets a whole batch but its first item run ahead of the submission.
  std::stable_sort(starts.begin(), starts.end(), [](const TaskStart& a, const TaskStart& b) {
    return a.pid != b.pid ? a.pid < b.pid : a.t < b.t;
  });
  std::uint32_t latest = kNoNode, pid = 0;
  for (const TaskStart& st : starts) {
    if (latest != kNoNode && st.pid != pid) latest = kNoNode;
    pid = st.pid;
    if (st.release != kNoNode) {
      if (latest == kNoNode || g.nodes[st.release].end_ns >= g.nodes[latest].end_ns) latest = st.release;
      continue;
    }
    if (latest == kNoNode || g.nodes[latest].end_ns > st.t) continue;
    added.emplace_back(st.node, make_edge(latest, st.node, 0, false, EdgeKind::Inferred));
    ++stats.queued_after_release;
  }
  merge_edges(g, std::move(added));
  return stats;
}

}  // namespace amdahl::analysis
