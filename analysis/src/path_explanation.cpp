// explain_path(): the critical path's time by lane, launch calls and gaps, and the host's
// waits on the GPU in the window by what released them (path_explanation.hpp).
#include "amdahl/analysis/path_explanation.hpp"

#include <algorithm>
#include <cmath>

namespace amdahl::analysis {
namespace {

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
    if (cp.lane_ns[l] > 0) e.lanes.push_back({g.lanes[l].gpu, g.lanes[l].name, g.lanes[l].id, cp.lane_ns[l], 0});
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

  return e;
}

}  // namespace amdahl::analysis
