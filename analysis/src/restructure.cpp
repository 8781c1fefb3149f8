// Structural what-if --workers N: moves the driving thread's loading work (each batch's run of
// loading-stage nodes) onto N synthetic loader lanes, round-robin, with a bounded prefetch, and
// puts a wait for the batch in its place on the driving lane; then the usual what-if on the
// restructured graph. The graph's node ids are kept (moved nodes change lane), so step spans
// and the window stay where they were.
#include "amdahl/analysis/restructure.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <memory>
#include <set>

#include "amdahl/analysis/cpu_use.hpp"
#include "amdahl/analysis/errors.hpp"

namespace amdahl::analysis {
namespace {

// The restructured graph's incoming-edge lists (per node) flattened into its CSR.
void set_incoming(ReplayGraph& ng, const std::vector<std::vector<ReplayEdge>>& in) {
  const std::size_t nn = in.size();
  ng.edge_begin.assign(nn + 1, 0);
  for (std::size_t i = 0; i < nn; ++i) ng.edge_begin[i + 1] = ng.edge_begin[i] + static_cast<std::uint32_t>(in[i].size());
  ng.edges.clear();
  ng.edges.reserve(ng.edge_begin[nn]);
  for (const auto& v : in) ng.edges.insert(ng.edges.end(), v.begin(), v.end());
}

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// Sorts node ids into program order on their lane.
void program_order(const ReplayGraph& g, std::vector<std::uint32_t>& v) {
  std::sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) {
    const ReplayNode &x = g.nodes[a], &y = g.nodes[b];
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    if (x.end_ns != y.end_ns) return x.end_ns < y.end_ns;
    return a < b;
  });
}

// The loading already runs on loader threads (items handed over with produce/consume marks):
// their items are dealt round-robin, in the order the driving thread consumes them, onto N
// synthetic lanes. An item is what its thread did since its previous item's produce; a wait
// in it before its loading work (a worker's wait for its next index) is released by the
// consume of item k - prefetch x N, a wait after it (a blocked put) keeps its recorded join
// (the queue's capacity does not change).
RestructuredGraph redistribute_loaders(const ReplayGraph& g, const LoaderWorkers& o, const std::vector<char>& loading,
                                       WorkersSummary sum) {
  const std::size_t n = g.nodes.size();
  const std::uint32_t drv = g.nodes[g.span_first_node.front()].lane;
  auto is_loading = [&](const ReplayNode& nd) {
    return nd.kind == NodeKind::Work && nd.stage >= 0 && static_cast<std::size_t>(nd.stage) < loading.size() &&
           loading[static_cast<std::size_t>(nd.stage)];
  };
  // Loader lanes: host lanes other than the driving one with loading work.
  std::vector<char> loader(g.lanes.size(), 0);
  for (const ReplayNode& nd : g.nodes)
    if (nd.lane != drv && !g.lanes[nd.lane].gpu && is_loading(nd)) loader[nd.lane] = 1;
  std::vector<std::uint32_t> drv_seq;
  std::vector<std::vector<std::uint32_t>> lane_seq(g.lanes.size());
  for (std::uint32_t i = 0; i < n; ++i) {
    if (g.nodes[i].lane == drv) drv_seq.push_back(i);
    else if (loader[g.nodes[i].lane]) lane_seq[g.nodes[i].lane].push_back(i);
  }
  program_order(g, drv_seq);
  std::vector<std::uint32_t> drv_pos(n, kNone);
  for (std::size_t k = 0; k < drv_seq.size(); ++k) drv_pos[drv_seq[k]] = static_cast<std::uint32_t>(k);
  // Produce nodes: loader nodes with a join into a wait of the driving lane; the item's consume
  // is the last such wait (the zero-length wait at the consume mark).
  std::vector<std::uint32_t> consume_of(n, kNone);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (drv_pos[i] == kNone || g.nodes[i].kind != NodeKind::Wait) continue;
    for (std::uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e) {
      const ReplayEdge& ed = g.edges[e];
      if (!ed.join || !loader[g.nodes[ed.from].lane]) continue;
      if (consume_of[ed.from] == kNone || drv_pos[i] > drv_pos[consume_of[ed.from]]) consume_of[ed.from] = i;
    }
  }
  struct Item { std::vector<std::uint32_t> nodes; std::uint32_t consume; };
  std::vector<Item> items;
  std::vector<std::uint32_t> item_of(n, kNone);
  std::size_t from_lanes = 0;
  std::int64_t anchor_ns = std::numeric_limits<std::int64_t>::max();
  for (std::size_t l = 0; l < lane_seq.size(); ++l) {
    auto& v = lane_seq[l];
    if (v.empty()) continue;
    ++from_lanes;
    program_order(g, v);
    anchor_ns = std::min(anchor_ns, g.nodes[v.front()].start_ns);
    std::size_t begin = 0;
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (consume_of[v[k]] == kNone) continue;
      items.push_back({std::vector<std::uint32_t>(v.begin() + static_cast<std::ptrdiff_t>(begin),
                                                  v.begin() + static_cast<std::ptrdiff_t>(k + 1)),
                       consume_of[v[k]]});
      begin = k + 1;
    }
  }
  if (items.empty())
    throw UsageError(problems::WorkersLanesUnlinked{from_lanes});
  std::sort(items.begin(), items.end(), [&](const Item& a, const Item& b) { return drv_pos[a.consume] < drv_pos[b.consume]; });
  for (std::size_t k = 0; k < items.size(); ++k)
    for (std::uint32_t id : items[k].nodes) item_of[id] = static_cast<std::uint32_t>(k);
  sum.from_lanes = from_lanes;
  sum.batches = items.size();
  for (const Item& it : items) {
    const std::int64_t c = g.nodes[it.consume].end_ns;
    if (c < g.window.start_ns || c > g.window.end_ns) continue;
    ++sum.batches_in_window;
    for (std::uint32_t id : it.nodes) {
      const double d = static_cast<double>(g.nodes[id].end_ns - g.nodes[id].start_ns);
      sum.moved_ns_in_window += d;
      if (is_loading(g.nodes[id])) sum.loading_ns_in_window += d;
    }
  }

  RestructuredGraph out;
  ReplayGraph& ng = out.graph;
  ng.lanes = g.lanes;
  const auto first_worker_lane = static_cast<std::uint32_t>(ng.lanes.size());
  for (std::size_t w = 0; w < o.workers; ++w) {
    ReplayLane l;
    l.pid = g.lanes[drv].pid;
    l.id = (std::uint64_t{1} << 63) | w;
    l.timeline_lane = g.lanes[drv].timeline_lane;
    l.name = "loader-worker-" + std::to_string(w) + " (synthetic)";
    ng.lanes.push_back(std::move(l));
  }
  ng.nodes = g.nodes;
  for (std::size_t k = 0; k < items.size(); ++k)
    for (std::uint32_t id : items[k].nodes) ng.nodes[id].lane = first_worker_lane + static_cast<std::uint32_t>(k % o.workers);
  ReplayNode anchor;
  anchor.start_ns = anchor.end_ns = anchor_ns;
  anchor.lane = first_worker_lane;
  const auto anchor_id = static_cast<std::uint32_t>(ng.nodes.size());
  ng.nodes.push_back(anchor);
  const std::size_t nn = ng.nodes.size();
  std::vector<std::vector<ReplayEdge>> in(nn);
  const std::size_t ahead = o.prefetch * o.workers;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t k = item_of[i];
    // A wait of the item before its loading work: released by the consume k - prefetch x N.
    bool get_wait = false;
    if (k != kNone && g.nodes[i].kind == NodeKind::Wait) {
      bool after_loading = false;
      for (std::uint32_t id : items[k].nodes) {
        if (id == i) break;
        after_loading = after_loading || is_loading(g.nodes[id]);
      }
      get_wait = !after_loading;
    }
    bool joined_to_driver = false;
    for (std::uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e) {
      const ReplayEdge& ed = g.edges[e];
      const std::uint32_t fk = item_of[ed.from];
      // Program order between two items of an old loader lane: gone (the new lanes chain them).
      if (k != kNone && !ed.join && fk != k && g.nodes[ed.from].lane == g.nodes[i].lane) continue;
      // (A queue's take joined to the consume that let it go; a thread pool's idle gap joined to
      // the recorded submission keeps it: the program submits as it did.)
      if (get_wait && ed.join && g.nodes[ed.from].lane == drv && ed.edge_kind() == EdgeKind::ProduceConsume) {
        joined_to_driver = true;
        continue;
      }
      in[i].push_back(make_edge(ed.from, i, ed.weight_ns, ed.join != 0, ed.edge_kind()));
    }
    if (get_wait && joined_to_driver) {
      if (k >= ahead) in[i].push_back(make_edge(items[k - ahead].consume, i, 0, true, EdgeKind::Structural));
      ng.nodes[i].base_ns = 0;
    }
  }
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::uint32_t first = items[k].nodes.front();
    if (k >= o.workers) in[first].push_back(make_edge(items[k - o.workers].nodes.back(), first, 0, false, EdgeKind::Structural));
    else in[first].push_back(make_edge(anchor_id, first, 0, false, EdgeKind::Structural));
  }
  set_incoming(ng, in);
  ng.stage_names = g.stage_names;
  ng.span_first_node = g.span_first_node;
  ng.window_end_node = g.window_end_node;
  ng.window = g.window;
  ng.unlinked_waits = g.unlinked_waits;
  ng.linked_waits = g.linked_waits;
  ng.gpu_joins = g.gpu_joins;
  ng.dropped_backward_edges = g.dropped_backward_edges;
  ng.inferred_stream_edges = g.inferred_stream_edges;
  ng.stage_on_gpu = g.stage_on_gpu;
  prepare_replay(ng);
  out.summary = std::move(sum);
  return out;
}

}  // namespace

namespace {

// Whether a node is loading work (of a stage flagged in `loading`).
struct LoadingTest {
  const std::vector<char>* loading;
  bool operator()(const ReplayNode& nd) const {
    return nd.kind == NodeKind::Work && nd.stage >= 0 && static_cast<std::size_t>(nd.stage) < loading->size() &&
           (*loading)[static_cast<std::size_t>(nd.stage)];
  }
};

// Step 1: the loading stages present in the profile (flags by stage id; their names go into
// the summary). None: an input error naming what was asked and what there is.
std::vector<char> loading_stages(const ReplayGraph& g, const LoaderWorkers& o, WorkersSummary& sum) {
  std::vector<char> loading(g.stage_names.size(), 0);
  for (const auto& name : o.stages)
    for (std::size_t i = 0; i < g.stage_names.size(); ++i)
      if (g.stage_names[i] == name && !loading[i]) { loading[i] = 1; sum.stages.push_back(name); }
  if (sum.stages.empty()) throw InputError(problems::WorkersStagesAbsent{o.stages, g.stage_names});
  return loading;
}

// Step 2: the driving lane's nodes in program order.
std::vector<std::uint32_t> driving_sequence(const ReplayGraph& g, std::uint32_t drv) {
  std::vector<std::uint32_t> seq;
  for (std::uint32_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].lane == drv) seq.push_back(i);
  std::sort(seq.begin(), seq.end(), [&](std::uint32_t a, std::uint32_t b) {
    const ReplayNode &x = g.nodes[a], &y = g.nodes[b];
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    if (x.end_ns != y.end_ns) return x.end_ns < y.end_ns;
    return a < b;
  });
  return seq;
}

struct Batches {
  std::vector<std::vector<std::uint32_t>> nodes;  // per batch, its nodes in program order
  std::vector<std::uint32_t> batch_of;            // per graph node, its batch or kNone
};

// Step 3: batches, maximal runs [first loading node .. last loading node] of loading work,
// `other` work and zero-length waits on the driving lane; a batch never runs across a step start.
Batches find_batches(const ReplayGraph& g, const std::vector<std::uint32_t>& seq, const LoadingTest& is_loading) {
  const std::size_t n = g.nodes.size();
  std::vector<char> boundary(n, 0);
  for (std::uint32_t s : g.span_first_node) boundary[s] = 1;
  Batches out;
  out.batch_of.assign(n, kNone);
  for (std::size_t p = 0; p < seq.size();) {
    if (!is_loading(g.nodes[seq[p]])) { ++p; continue; }
    std::size_t last = p;
    std::size_t q = p + 1;
    for (; q < seq.size() && !boundary[seq[q]] && seq[q - 1] != g.window_end_node; ++q) {
      const ReplayNode& nd = g.nodes[seq[q]];
      if (is_loading(nd)) { last = q; continue; }
      const bool filler = (nd.kind == NodeKind::Work && nd.stage == kLabelOther) ||
                          (nd.kind == NodeKind::Wait && nd.start_ns == nd.end_ns && nd.stage == kLabelWait);
      if (!filler) break;
    }
    std::vector<std::uint32_t> b(seq.begin() + static_cast<std::ptrdiff_t>(p),
                                 seq.begin() + static_cast<std::ptrdiff_t>(last + 1));
    for (std::uint32_t id : b) out.batch_of[id] = static_cast<std::uint32_t>(out.nodes.size());
    out.nodes.push_back(std::move(b));
    p = last + 1;
  }
  return out;
}

// Step 4: what the batches that start in the analysis window hold.
void count_window_batches(const ReplayGraph& g, const Batches& batches, const LoadingTest& is_loading,
                          WorkersSummary& sum) {
  const Interval win = g.window;
  for (const auto& b : batches.nodes) {
    const ReplayNode& first = g.nodes[b.front()];
    if (first.start_ns < win.start_ns || first.start_ns >= win.end_ns) continue;
    ++sum.batches_in_window;
    sum.moved_ns_in_window += static_cast<double>(g.nodes[b.back()].end_ns - first.start_ns);
    for (std::uint32_t id : b)
      if (is_loading(g.nodes[id])) sum.loading_ns_in_window += static_cast<double>(g.nodes[id].end_ns - g.nodes[id].start_ns);
  }
  sum.batches = batches.nodes.size();
}

// The nodes of the new graph beyond the old ones: one wait per batch on the driving lane and
// one anchor (the workers' start).
struct MovedNodes {
  std::vector<std::uint32_t> wait_of;  // per batch
  std::uint32_t anchor = kNone;
};

// Step 5: the same nodes with each batch moved to a synthetic worker lane (round robin, its
// work scaled by the cost factor), a wait for each batch on the driving lane, and the anchor.
MovedNodes move_batches(const ReplayGraph& g, const LoaderWorkers& o, const Batches& batches, std::uint32_t drv,
                        ReplayGraph& ng) {
  ng.lanes = g.lanes;
  const auto first_worker_lane = static_cast<std::uint32_t>(ng.lanes.size());
  for (std::size_t w = 0; w < o.workers; ++w) {
    ReplayLane l;
    l.gpu = false;
    l.pid = g.lanes[drv].pid;
    l.id = (std::uint64_t{1} << 63) | w;  // synthetic: no OS thread has this id
    l.timeline_lane = g.lanes[drv].timeline_lane;
    l.name = "loader-worker-" + std::to_string(w) + " (synthetic)";
    ng.lanes.push_back(std::move(l));
  }
  ng.nodes = g.nodes;
  const std::size_t nb = batches.nodes.size();
  MovedNodes m;
  m.wait_of.resize(nb);
  for (std::size_t k = 0; k < nb; ++k) {
    const auto lane = first_worker_lane + static_cast<std::uint32_t>(k % o.workers);
    for (std::uint32_t id : batches.nodes[k]) {
      ReplayNode& nd = ng.nodes[id];
      nd.lane = lane;
      if (o.cost_factor != 1.0 && nd.kind == NodeKind::Work && nd.end_ns > nd.start_ns)
        nd.end_ns = nd.start_ns + std::llround(static_cast<double>(nd.end_ns - nd.start_ns) * o.cost_factor);
    }
    ReplayNode w;
    w.start_ns = g.nodes[batches.nodes[k].front()].start_ns;
    w.end_ns = g.nodes[batches.nodes[k].back()].end_ns;
    w.base_ns = 0;
    w.lane = drv;
    w.stage = kLabelWait;
    w.kind = NodeKind::Wait;
    m.wait_of[k] = static_cast<std::uint32_t>(ng.nodes.size());
    ng.nodes.push_back(w);
  }
  ReplayNode anchor;
  anchor.start_ns = anchor.end_ns = g.nodes[batches.nodes.front().front()].start_ns;
  anchor.lane = first_worker_lane;
  anchor.kind = NodeKind::Work;
  anchor.stage = kLabelOther;
  m.anchor = static_cast<std::uint32_t>(ng.nodes.size());
  ng.nodes.push_back(anchor);
  return m;
}

// Step 6: the incoming edges of every node of the new graph. The old edges, with an edge out of
// a moved node to a node outside its batch leaving from the batch's wait (what followed the
// loading on the driving lane now follows the wait for the batch), plus the workers' order
// (each worker's batches one after another) and the prefetch limit (a batch starts once the
// batch `prefetch x workers` before it was taken).
std::vector<std::vector<ReplayEdge>> rewire_edges(const ReplayGraph& g, const LoaderWorkers& o, const Batches& batches,
                                                  const MovedNodes& m, std::uint32_t drv, std::size_t nodes) {
  const std::size_t n = g.nodes.size();
  const auto& batch_of = batches.batch_of;
  std::vector<std::vector<ReplayEdge>> in(nodes);
  auto source = [&](std::uint32_t from, std::uint32_t to) {
    const std::uint32_t b = batch_of[from];
    if (b == kNone) return from;
    if (to < n && batch_of[to] == b) return from;
    return m.wait_of[b];
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t e = g.edge_begin[i]; e < g.edge_begin[i + 1]; ++e) {
      const ReplayEdge& ed = g.edges[e];
      const std::uint32_t b = batch_of[i];
      if (b != kNone && i == batches.nodes[b].front() && batch_of[ed.from] != b && g.nodes[ed.from].lane == drv && !ed.join) {
        // The driving lane's edge into the batch: now into the batch's wait.
        const std::uint32_t w = m.wait_of[b];
        in[w].push_back(make_edge(source(ed.from, w), w, ed.weight_ns, false, ed.edge_kind()));
        if (b == 0) in[m.anchor].push_back(make_edge(source(ed.from, m.anchor), m.anchor, ed.weight_ns, false, ed.edge_kind()));
        continue;
      }
      in[i].push_back(make_edge(source(ed.from, i), i, ed.weight_ns, ed.join != 0, ed.edge_kind()));
    }
  }
  const std::size_t nb = batches.nodes.size();
  const std::size_t ahead = o.prefetch * o.workers;
  for (std::size_t k = 0; k < nb; ++k) {
    const std::uint32_t first = batches.nodes[k].front(), last = batches.nodes[k].back();
    if (k >= o.workers) in[first].push_back(make_edge(batches.nodes[k - o.workers].back(), first, 0, false, EdgeKind::Structural));
    if (k >= ahead) in[first].push_back(make_edge(m.wait_of[k - ahead], first, 0, false, EdgeKind::Structural));
    else in[first].push_back(make_edge(m.anchor, first, 0, false, EdgeKind::Structural));
    in[m.wait_of[k]].push_back(make_edge(last, m.wait_of[k], 0, true, EdgeKind::Structural));
  }
  return in;
}

// Step 7: the new graph's spans, window and counts (a step that started with a moved node now
// starts with its batch's wait).
void finish_moved_graph(const ReplayGraph& g, const Batches& batches, const MovedNodes& m, ReplayGraph& ng) {
  const auto& batch_of = batches.batch_of;
  ng.stage_names = g.stage_names;
  ng.span_first_node = g.span_first_node;
  for (auto& s : ng.span_first_node)
    if (batch_of[s] != kNone) s = m.wait_of[batch_of[s]];
  ng.window_end_node = batch_of[g.window_end_node] != kNone ? m.wait_of[batch_of[g.window_end_node]] : g.window_end_node;
  ng.window = g.window;
  ng.unlinked_waits = g.unlinked_waits;
  ng.linked_waits = g.linked_waits + batches.nodes.size();
  ng.gpu_joins = g.gpu_joins;
  ng.dropped_backward_edges = g.dropped_backward_edges;
  ng.inferred_stream_edges = g.inferred_stream_edges;
  ng.stage_on_gpu = g.stage_on_gpu;
}

}  // namespace

RestructuredGraph move_loading_to_workers(const ReplayGraph& g, const LoaderWorkers& o) {
  if (o.workers < 1) throw UsageError("move_loading_to_workers: at least 1 worker is needed");
  if (o.prefetch < 1) throw UsageError("move_loading_to_workers: a prefetch of at least 1 batch is needed");
  if (g.span_first_node.empty() || g.nodes.empty()) throw InputError(problems::WorkersNoWindow{});
  RestructuredGraph out;
  WorkersSummary& sum = out.summary;
  sum.workers = o.workers;
  sum.prefetch = o.prefetch;
  sum.steps = g.span_first_node.size();

  const std::vector<char> loading = loading_stages(g, o, sum);
  const LoadingTest is_loading{&loading};
  const std::uint32_t drv = g.nodes[g.span_first_node.front()].lane;
  const Batches batches = find_batches(g, driving_sequence(g, drv), is_loading);
  count_window_batches(g, batches, is_loading, sum);
  if (sum.batches_in_window == 0) {
    // No loading on the driving lane in the window: loader threads of the program's own do it.
    const Interval win = g.window;
    std::set<std::uint32_t> other_lanes;
    for (const ReplayNode& nd : g.nodes)
      if (nd.lane != drv && is_loading(nd) && nd.end_ns > win.start_ns && nd.start_ns < win.end_ns) other_lanes.insert(nd.lane);
    if (!other_lanes.empty()) return redistribute_loaders(g, o, loading, std::move(sum));
    throw InputError(problems::WorkersNoLoadingWork{sum.stages});
  }

  ReplayGraph& ng = out.graph;
  const MovedNodes moved = move_batches(g, o, batches, drv, ng);
  set_incoming(ng, rewire_edges(g, o, batches, moved, drv, ng.nodes.size()));
  finish_moved_graph(g, batches, moved, ng);
  prepare_replay(ng);
  return out;
}

LoadingLanes loading_lanes(const ReplayGraph& g, const std::vector<std::string>& stages) {
  LoadingLanes out;
  if (g.span_first_node.empty() || g.nodes.empty()) return out;
  std::vector<char> loading(g.stage_names.size(), 0);
  for (const auto& name : stages)
    for (std::size_t i = 0; i < g.stage_names.size(); ++i)
      if (g.stage_names[i] == name) loading[i] = 1;
  const std::uint32_t drv = g.nodes[g.span_first_node.front()].lane;
  // Per other host lane, the span of its loading work in the window; the count is the most
  // spans open at once (workers made anew each epoch are not counted twice).
  constexpr std::int64_t kUnset = std::numeric_limits<std::int64_t>::min();
  std::vector<std::pair<std::int64_t, std::int64_t>> span(g.lanes.size(), {kUnset, kUnset});
  for (const ReplayNode& nd : g.nodes) {
    if (nd.kind != NodeKind::Work || nd.stage < 0 || static_cast<std::size_t>(nd.stage) >= loading.size() ||
        !loading[static_cast<std::size_t>(nd.stage)] || nd.end_ns <= g.window.start_ns || nd.start_ns >= g.window.end_ns)
      continue;
    if (nd.lane == drv) { out.on_driver = true; continue; }
    if (nd.lane >= span.size() || g.lanes[nd.lane].gpu) continue;
    auto& sp = span[nd.lane];
    if (sp.first == kUnset) sp = {nd.start_ns, nd.end_ns};
    sp.first = std::min(sp.first, nd.start_ns);
    sp.second = std::max(sp.second, nd.end_ns);
  }
  std::vector<std::pair<std::int64_t, int>> events;  // (time, +1 open / -1 close); closes first
  for (const auto& sp : span)
    if (sp.first != kUnset) {
      events.push_back({sp.first, 1});
      events.push_back({sp.second, -1});
      ++out.distinct_other_lanes;
    }
  std::sort(events.begin(), events.end());
  int open = 0, most = 0;
  for (const auto& e : events) most = std::max(most, open += e.second);
  out.other_lanes = static_cast<std::size_t>(most);
  return out;
}

WhatIf compute_whatif_with_workers(const Report& report, const std::vector<SpeedupRequest>& requests,
                                   std::optional<double> target, const LoaderWorkers& workers,
                                   const WhatIfOptions& options) {
  if (!report.graph)
    throw InputError(problems::WorkersNeedGraph{});
  // What a worker pays per batch: a range (cpu_use.hpp); the point at its geometric mean.
  const WorkerCostRange cost = worker_cost_range(report.cpu, workers.workers);
  auto run = [&](double factor) {
    LoaderWorkers o = workers;
    o.cost_factor = factor;
    RestructuredGraph rg = move_loading_to_workers(*report.graph, o);
    Report alt = report;
    alt.graph = std::make_shared<const ReplayGraph>(std::move(rg.graph));
    return std::make_pair(compute_whatif(alt, requests, target, options), std::move(rg.summary));
  };
  const double point = std::sqrt(cost.low * cost.high);
  auto [w, summary] = run(point);
  RestructuredGraph rg;
  rg.summary = std::move(summary);
  if (rg.summary.from_lanes == 0) {
    rg.summary.cost_low = cost.low;
    rg.summary.cost_high = cost.high;
    rg.summary.cost_point = point;
    rg.summary.intra_op = cost.intra_op;
    rg.summary.intra_op_measured = cost.measured;
    rg.summary.intra_op_spinning = cost.spinning;
    rg.summary.cpu_bound_speedup = cost.cpu_bound_speedup;
    rg.summary.main_cores_busy = report.cpu.main_cores_busy;
    rg.summary.cpus_allowed = report.cpu.cpus_allowed;
    const double cap = cost.cpu_bound_speedup;
    rg.summary.speedup_high = std::min(cap, cost.low == point ? w.simulated_speedup : run(cost.low).first.simulated_speedup);
    rg.summary.speedup_low = std::min(cap, cost.high == point ? w.simulated_speedup : run(cost.high).first.simulated_speedup);
    if (w.simulated_speedup > cap) {
      // The cores bound the run: the window scales to it.
      const double scale = w.simulated_speedup / cap;
      w.simulated_speedup = cap;
      w.simulated_wall_ns *= scale;
      w.simulated_interval.low = std::min(w.simulated_interval.low, cap);
      w.simulated_interval.high = std::min(w.simulated_interval.high, cap);
    }
  } else {
    // The loading already ran on loader threads: redistributed with its measured per-item costs.
    w = run(1.0).first;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  w.naive_speedup = nan;
  w.naive_interval = {nan, nan};
  w.projected_wall_ns = nan;
  for (auto& c : w.curves)
    for (auto& p : c.points) p.naive = nan;
  for (auto& t : w.target_rows) t.factor.reset();
  const WorkersSummary& s = rg.summary;
  // The bottleneck line, with the structural change named (the stages' factors only: the
  // loading's host part is not told apart here).
  std::vector<std::pair<std::string, double>> changes;
  for (const auto& r : requests) changes.emplace_back(r.stage, r.factor);
  w.bottleneck_line = bottleneck_move("with", s.workers, std::move(changes), w, report.steps > 0);
  if (s.from_lanes > 0)
    w.notes.push_back(findings::WorkersFromLanes{s.workers, s.batches_in_window, s.stages, s.from_lanes,
                                                 s.prefetch * s.workers});
  else
    w.notes.push_back(findings::WorkersInline{s.workers, s.batches_in_window, s.stages, s.moved_ns_in_window,
                                              s.prefetch * s.workers});
  if (s.from_lanes == 0 && report.steps > 0 && s.batches_in_window != report.steps)
    w.notes.push_back(findings::WorkersBatches{s.batches_in_window, report.steps});
  if (s.from_lanes == 0) {
    w.notes.push_back(findings::WorkersCost{s.workers, s.cost_low, s.cost_high, s.cost_point, s.intra_op_measured,
                                            s.intra_op_spinning});
    if (std::isfinite(s.cpu_bound_speedup))
      w.notes.push_back(findings::WorkersCoreBound{s.workers, s.cpu_bound_speedup, s.cpus_allowed,
                                                   w.simulated_speedup >= s.cpu_bound_speedup});
  }
  w.notes.push_back(findings::WorkersAssumptions{});
  w.workers = s;
  return w;
}

}  // namespace amdahl::analysis
