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
  if (added.empty()) return stats;

  // Merge the new joins into the incoming-edge lists (edges grouped by `to`).
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
  g.linked_waits += added.size();
  return stats;
}

}  // namespace amdahl::analysis
