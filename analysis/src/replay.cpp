// Replays a ReplayGraph with some stages scaled: every node's start and end recomputed from its
// incoming edges in a dependency order (Kahn over start and end events, computed once by
// prepare_replay() or per call), scaled work taking duration / factor, waits ending when their
// joins allow. Pure function of the graph.
#include <algorithm>
#include <cmath>
#include <limits>

#include "amdahl/analysis/replay.hpp"

namespace amdahl::analysis {
namespace {
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
}

namespace {

// Events (2i = start of node i, 2i+1 = end) in dependency order: Kahn's algorithm over start and
// end events; what a cycle leaves (only possible through clock noise) goes last, in recorded
// order.
std::vector<std::uint32_t> event_order(const ReplayGraph& g) {
  const std::size_t n = g.nodes.size();
  std::vector<std::uint32_t> succ_begin(2 * n + 1, 0);
  std::vector<std::uint16_t> indeg(2 * n, 0);
  auto bump = [](std::uint16_t& d) { if (d < 0xffff) ++d; };
  for (std::size_t i = 0; i < n; ++i) {
    bump(indeg[2 * i + 1]);  // start -> end
    succ_begin[2 * i + 1] += 1;
    for (std::uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e) {
      const ReplayEdge& ed = g.edges[e];
      bump(indeg[2 * i + (ed.join ? 1 : 0)]);
      succ_begin[2 * static_cast<std::size_t>(ed.from) + 2] += 1;  // counts of event k are kept at k + 1
    }
  }
  for (std::size_t k = 0; k < 2 * n; ++k) succ_begin[k + 1] += succ_begin[k];
  // Fill successors from the back of each event's slice (no separate cursor array).
  std::vector<std::uint32_t> succ(succ_begin.back());
  {
    std::vector<std::uint32_t>& cursor = succ_begin;  // becomes the slice starts again
    for (std::size_t i = n; i-- > 0;) {
      for (std::uint32_t e = g.edge_begin[i + 1]; e-- > g.edge_begin[i];) {
        const ReplayEdge& ed = g.edges[e];
        succ[--cursor[2 * static_cast<std::size_t>(ed.from) + 2]] = static_cast<std::uint32_t>(2 * i + (ed.join ? 1 : 0));
      }
      succ[--cursor[2 * i + 1]] = static_cast<std::uint32_t>(2 * i + 1);
    }
  }
  // succ_begin[k + 1] now holds the start of event k's slice; its end is succ_begin[k + 2].
  std::vector<std::uint32_t> order;
  order.reserve(2 * n);
  for (std::size_t k = 0; k < 2 * n; ++k) if (indeg[k] == 0) order.push_back(static_cast<std::uint32_t>(k));
  for (std::size_t head = 0; head < order.size(); ++head) {
    const std::uint32_t ev = order[head];
    const std::uint32_t end = ev + 2 < succ_begin.size() ? succ_begin[ev + 2] : static_cast<std::uint32_t>(succ.size());
    for (std::uint32_t k = succ_begin[ev + 1]; k < end; ++k)
      if (--indeg[succ[k]] == 0) order.push_back(succ[k]);
  }
  if (order.size() < 2 * n) {
    std::vector<std::uint32_t> left;
    for (std::size_t k = 0; k < 2 * n; ++k) if (indeg[k] > 0) left.push_back(static_cast<std::uint32_t>(k));
    auto t = [&](std::uint32_t ev) { return ev % 2 == 0 ? g.nodes[ev / 2].start_ns : g.nodes[ev / 2].end_ns; };
    std::sort(left.begin(), left.end(), [&](std::uint32_t a, std::uint32_t b) { return t(a) != t(b) ? t(a) < t(b) : a < b; });
    order.insert(order.end(), left.begin(), left.end());
  }
  return order;
}

}  // namespace

const char* edge_kind_name(EdgeKind k) {
  switch (k) {
    case EdgeKind::ProgramOrder: return "program_order";
    case EdgeKind::Launch: return "launch";
    case EdgeKind::Completion: return "completion";
    case EdgeKind::QueueFull: return "queue_full";
    case EdgeKind::ImplicitSync: return "implicit_sync";
    case EdgeKind::Event: return "event";
    case EdgeKind::ProduceConsume: return "produce_consume";
    case EdgeKind::Inferred: return "inferred";
    case EdgeKind::Structural: return "structural";
  }
  return "unknown";
}

void prepare_replay(ReplayGraph& g) {
  if (g.event_order.size() != 2 * g.nodes.size()) g.event_order = event_order(g);
}

ReplayResult replay(const ReplayGraph& g, const std::vector<double>& factors, const std::vector<double>& host_factors) {
  const std::size_t n = g.nodes.size();
  ReplayResult r;
  r.start_ns.assign(n, 0);
  r.end_ns.assign(n, 0);
  r.start_binding.assign(n, kNone);
  r.end_binding.assign(n, kNone);

  auto factor_of = [](const std::vector<double>& f, std::size_t stage) {
    return stage < f.size() && f[stage] > 0 ? f[stage] : 1.0;
  };
  auto scaled = [&](const ReplayNode& nd) -> std::int64_t {
    const std::int64_t d = nd.end_ns - nd.start_ns;
    if (nd.stage < 0 || (nd.kind != NodeKind::Work && nd.kind != NodeKind::GpuOp && nd.kind != NodeKind::Launch)) return d;
    const auto st = static_cast<std::size_t>(nd.stage);
    const bool on_gpu = st < g.stage_on_gpu.size() && g.stage_on_gpu[st];
    double f = 1.0;
    if (nd.kind == NodeKind::GpuOp) f = factor_of(factors, st);
    else if (nd.kind == NodeKind::Launch || on_gpu) f = factor_of(host_factors, st);  // the host part
    else f = factor_of(factors, st);                                                 // a host-only stage
    return f != 1.0 ? std::llround(static_cast<double>(d) / f) : d;
  };
  auto evaluate = [&](std::uint32_t ev) {
    const std::size_t i = ev / 2;
    const ReplayNode& nd = g.nodes[i];
    if (ev % 2 == 0) {
      std::int64_t t = std::numeric_limits<std::int64_t>::min();
      std::uint32_t bind = kNone;
      for (std::uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e) {
        const ReplayEdge& ed = g.edges[e];
        if (ed.join) continue;
        const std::int64_t c = r.end_ns[ed.from] + ed.weight_ns;
        if (c > t) { t = c; bind = e; }
      }
      r.start_ns[i] = bind == kNone ? nd.start_ns : t;
      r.start_binding[i] = bind;
    } else {
      if (nd.kind == NodeKind::Wait) {
        std::int64_t t = r.start_ns[i] + nd.base_ns;
        std::uint32_t bind = kNone;
        for (std::uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e) {
          const ReplayEdge& ed = g.edges[e];
          if (!ed.join) continue;
          const std::int64_t c = r.end_ns[ed.from] + ed.weight_ns;
          if (c > t) { t = c; bind = e; }
        }
        r.end_ns[i] = std::max(t, r.start_ns[i]);
        r.end_binding[i] = bind;
      } else {
        r.end_ns[i] = r.start_ns[i] + scaled(nd);
      }
    }
  };
  if (g.event_order.size() == 2 * n) {
    for (std::uint32_t ev : g.event_order) evaluate(ev);
  } else {
    for (std::uint32_t ev : event_order(g)) evaluate(ev);
  }

  const std::int64_t w0 = r.start_ns[g.span_first_node.front()];
  const std::int64_t w1 = r.end_ns[g.window_end_node];
  r.window_ns = w1 - w0;
  for (std::size_t s = 0; s < g.span_first_node.size(); ++s) {
    const std::int64_t a = r.start_ns[g.span_first_node[s]];
    const std::int64_t b = s + 1 < g.span_first_node.size() ? r.start_ns[g.span_first_node[s + 1]] : w1;
    r.span_ns.push_back(b - a);
  }
  return r;
}

}  // namespace amdahl::analysis
