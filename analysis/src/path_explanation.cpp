// explain_path(): the critical path's time by lane, launch calls and gaps, and the host's
// waits on the GPU in the window by what released them (path_explanation.hpp).
#include "amdahl/analysis/path_explanation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace amdahl::analysis {
namespace {

std::string lane_label(const ReplayLane& l) {
  if (l.gpu) return "GPU work on " + l.name;
  const std::string who = l.name.empty() ? "tid " + std::to_string(l.id) : "'" + l.name + "'";
  return "host work on thread " + who;
}

std::string pct(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", f * 100.0);
  return buf;
}

std::string ms(double ns) {
  char buf[48];
  if (ns >= 1e9) std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  else std::snprintf(buf, sizeof buf, "%.1f ms", ns / 1e6);
  return buf;
}

}  // namespace

PathExplanation explain_path(const ReplayGraph& g, const CriticalPath& cp) {
  PathExplanation e;
  for (double x : cp.exposed_ns) e.path_ns += x;
  for (std::size_t k = 0; k < kEdgeKinds; ++k) {
    e.gap_ns += cp.edge_ns[k];
    e.gap_ns_by_edge[k] = cp.edge_ns[k];
    e.edges_by_kind[k] = cp.edge_count[k];
  }
  e.launch_ns = cp.launch_ns;
  for (std::size_t l = 0; l < cp.lane_ns.size() && l < g.lanes.size(); ++l)
    if (cp.lane_ns[l] > 0) e.lanes.push_back({lane_label(g.lanes[l]), cp.lane_ns[l], 0});
  std::sort(e.lanes.begin(), e.lanes.end(), [](const PathPart& a, const PathPart& b) { return a.ns > b.ns; });
  for (auto& p : e.lanes) p.fraction = e.path_ns > 0 ? p.ns / e.path_ns : 0;

  // Host waits in the window, by the kind of their first join edge.
  const Interval w = g.window;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const ReplayNode& n = g.nodes[i];
    if (n.kind != NodeKind::Wait || n.end_ns <= n.start_ns) continue;
    const std::int64_t a = std::max(n.start_ns, w.start_ns), b = std::min(n.end_ns, w.end_ns);
    if (b <= a) continue;
    for (std::uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k) {
      const ReplayEdge& ed = g.edges[k];
      if (!ed.join) continue;
      HostWaits& hw = e.waits[ed.kind];
      hw.count += 1;
      hw.ns += static_cast<double>(b - a);
      break;
    }
  }
  e.queue_depth = g.queue_depth;

  std::string t = "critical path:";
  std::size_t shown = 0;
  for (const auto& p : e.lanes) {
    if (shown == 3 || p.fraction < 0.02) break;
    t += (shown++ ? ", " : " ") + pct(p.fraction) + " " + p.what;
  }
  if (e.path_ns > 0 && e.launch_ns / e.path_ns >= 0.02) t += "; launch calls outside stages " + pct(e.launch_ns / e.path_ns);
  if (e.path_ns > 0 && e.gap_ns / e.path_ns >= 0.02) t += "; gaps (launch latency, wake-ups) " + pct(e.gap_ns / e.path_ns);
  const HostWaits& q = e.waits[static_cast<std::size_t>(EdgeKind::QueueFull)];
  if (q.count > 0) {
    t += "; the host waited on a full launch queue " + std::to_string(q.count) + " times (" + ms(q.ns);
    if (e.queue_depth > 0) t += ", about " + std::to_string(e.queue_depth) + " ops in flight";
    t += ")";
  }
  const HostWaits& s = e.waits[static_cast<std::size_t>(EdgeKind::ImplicitSync)];
  if (s.count > 0)
    t += "; " + std::to_string(s.count) + " calls that are not syncs waited for the GPU (" + ms(s.ns) + ")";
  const HostWaits& c = e.waits[static_cast<std::size_t>(EdgeKind::Completion)];
  const HostWaits& ev = e.waits[static_cast<std::size_t>(EdgeKind::Event)];
  if (c.count + ev.count > 0)
    t += "; explicit syncs " + std::to_string(c.count + ev.count) + " (" + ms(c.ns + ev.ns) + ")";
  e.text = t;
  return e;
}

}  // namespace amdahl::analysis
