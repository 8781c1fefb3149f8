// The critical path of a replayed run: walk back from the window's end along the edge that
// determined each node's start (or a wait's end), charging each stretch of time to the stage
// of the work on it (gaps, launch overhead and waits that did not wait go to `other`).
#include <algorithm>
#include <limits>

#include "amdahl/analysis/replay.hpp"

namespace amdahl::analysis {
namespace {
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
}

CriticalPath critical_path(const ReplayGraph& g, const ReplayResult& r) {
  const std::size_t other = g.stage_names.size();
  CriticalPath cp;
  cp.exposed_ns.assign(other + 1, 0.0);
  const std::size_t spans = g.span_first_node.size();
  cp.span_exposed.assign(spans, std::vector<double>(other + 1, 0.0));
  cp.host_exposed_ns.assign(other + 1, 0.0);
  cp.lane_ns.assign(g.lanes.size(), 0.0);
  std::vector<std::int64_t> bounds;  // replayed span starts, then the window end
  for (std::uint32_t nd : g.span_first_node) bounds.push_back(r.start_ns[nd]);
  const std::int64_t w0 = bounds.front();
  const std::int64_t w1 = r.end_ns[g.window_end_node];
  bounds.push_back(w1);

  // Charges [a, b) to `label`; returns the clipped length.
  auto charge = [&](std::int64_t a, std::int64_t b, std::size_t label) -> double {
    a = std::max(a, w0);
    b = std::min(b, w1);
    if (b <= a) return 0.0;
    const double len = static_cast<double>(b - a);
    cp.exposed_ns[label] += len;
    // Spans partition [w0, w1]: split [a, b) across them.
    auto it = std::upper_bound(bounds.begin(), bounds.end(), a);
    std::size_t s = it == bounds.begin() ? 0 : static_cast<std::size_t>(it - bounds.begin()) - 1;
    while (a < b && s < spans) {
      const std::int64_t e = std::min(b, bounds[s + 1]);
      if (e > a) cp.span_exposed[s][label] += static_cast<double>(e - a);
      a = e;
      ++s;
    }
    return len;
  };
  // A node's own time on the path, also by lane, launch calls and host parts of GPU stages.
  auto charge_node = [&](const ReplayNode& n, std::size_t label) {
    const double len = charge(r.start_ns[&n - g.nodes.data()], r.end_ns[&n - g.nodes.data()], label);
    cp.lane_ns[n.lane] += len;
    if (n.kind == NodeKind::Launch && label == other) cp.launch_ns += len;
    if ((n.kind == NodeKind::Work || n.kind == NodeKind::Launch) && label < other && label < g.stage_on_gpu.size() &&
        g.stage_on_gpu[label] && !g.lanes[n.lane].gpu)
      cp.host_exposed_ns[label] += len;
  };
  auto charge_edge = [&](std::uint32_t e, std::int64_t a, std::int64_t b) {
    const auto k = static_cast<std::size_t>(g.edges[e].kind);
    cp.edge_count[k] += 1;
    cp.edge_ns[k] += charge(a, b, other);
  };
  // Launch calls inside a stage's ranges are that stage's (its host part); outside, `other`.
  auto label_of = [&](const ReplayNode& n) -> std::size_t {
    if ((n.kind == NodeKind::Work || n.kind == NodeKind::GpuOp || n.kind == NodeKind::Launch) && n.stage >= 0 &&
        static_cast<std::size_t>(n.stage) < other)
      return static_cast<std::size_t>(n.stage);
    return other;
  };

  auto has_join = [&](std::uint32_t i) {
    for (std::uint32_t k = g.edge_begin[i]; k < g.edge_begin[i + 1]; ++k)
      if (g.edges[k].join) return true;
    return false;
  };

  std::uint32_t node = g.window_end_node;
  bool at_end = true;
  std::uint32_t lane = g.nodes[node].lane;
  // Every step moves strictly back through events; bound the walk defensively anyway.
  for (std::size_t guard = 0; guard < 4 * g.nodes.size() + 8; ++guard) {
    const ReplayNode& n = g.nodes[node];
    if (n.lane != lane) { ++cp.lane_switches; lane = n.lane; }
    if (at_end) {
      ++cp.nodes_on_path;
      const std::uint32_t e = r.end_binding[node];
      if (n.kind == NodeKind::Wait && e == kNone && r.end_ns[node] > r.start_ns[node] && !has_join(node)) {
        ++cp.unlinked_waits_on_path;
        cp.unlinked_wait_ns_on_path += static_cast<double>(std::min(r.end_ns[node], w1) - std::max(r.start_ns[node], w0));
      }
      if (n.kind == NodeKind::Wait && e != kNone) {
        const std::uint32_t from = g.edges[e].from;
        charge_edge(e, r.end_ns[from], r.end_ns[node]);  // wake-up latency
        if (r.end_ns[from] <= w0) break;
        node = from;
        continue;
      }
      charge_node(n, label_of(n));
      if (r.start_ns[node] <= w0) break;
      at_end = false;
    } else {
      const std::uint32_t e = r.start_binding[node];
      if (e == kNone) {
        charge(w0, r.start_ns[node], other);  // an anchored start: nothing before it is known
        break;
      }
      const std::uint32_t from = g.edges[e].from;
      charge_edge(e, r.end_ns[from], r.start_ns[node]);  // gap (launch latency, delay)
      if (r.end_ns[from] <= w0) break;
      node = from;
      at_end = true;
    }
  }
  return cp;
}

}  // namespace amdahl::analysis
