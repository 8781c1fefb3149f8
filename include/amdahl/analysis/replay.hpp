// The overlap-aware model: the run as a dependency graph (docs/architecture.md, replay),
// replayed with some stages scaled, and its critical path. Host lanes are cut into work and
// wait nodes; GPU streams hold one node per operation. Edges: program order on every lane,
// launch (API call -> GPU op), completion (GPU op -> the blocking call that waited for it),
// produce -> consume (marks with the same item), and consume -> a blocked producer's put.
// Each edge carries the delay observed on it, so a replay with every factor 1 reproduces the
// recording exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "amdahl/analysis/gpu_attribution.hpp"
#include "amdahl/analysis/steps.hpp"
#include "amdahl/analysis/timeline.hpp"

namespace amdahl::analysis {

enum class NodeKind : std::uint8_t {
  Work,     // has a duration that scaling may change (stage time, or `other`, never scaled)
  Launch,   // time inside a CUDA API call that is not a wait: launch overhead, never scaled
  Wait,     // a consequence: ends when its joins allow (queue waits, blocking CUDA calls)
  GpuOp,    // a kernel, copy or set on a GPU stream
};

// 32 bytes (a 10-million-event profile has ~15 million nodes): the stage is kept in 16 bits.
struct ReplayNode {
  std::int64_t start_ns = 0;  // recorded
  std::int64_t end_ns = 0;    // recorded
  std::int64_t base_ns = 0;   // Wait: time it takes when nothing holds it back
  std::uint32_t lane = 0;     // index into ReplayGraph::lanes
  std::int16_t stage = kLabelOther;  // Work / GpuOp: its StageId (kLabelOther: none)
  NodeKind kind = NodeKind::Work;
};
static_assert(sizeof(ReplayNode) == 32);

// Why an edge exists (docs/analysis.md, "Replay rules"): what the report says holds the path.
enum class EdgeKind : std::uint8_t {
  ProgramOrder = 0,  // the next node of the same host thread or GPU stream
  Launch,            // API call -> the GPU op it launched
  Completion,        // GPU op -> the explicit blocking sync (cudaStreamSynchronize...) that waited for it
  QueueFull,         // GPU op -> a launch call blocked on a full launch queue (freed by that op's retirement)
  ImplicitSync,      // GPU op -> a non-sync call that waited for it (pageable copy, cudaFree, allocator)
  Event,             // the op before a cudaEventRecord -> the wait on that event (exact, from event records)
  ProduceConsume,    // produce mark -> consume of the same item; consume -> a producer blocked on a full queue
  Inferred,          // inferred: a cross-stream wait with no event record, a helper thread's idle gap
  Structural,        // added by a structural what-if (restructure.hpp)
};
inline constexpr std::size_t kEdgeKinds = 9;
const char* edge_kind_name(EdgeKind k);

// The most nodes a graph can hold (node ids in an edge's `to` have 27 bits).
inline constexpr std::uint32_t kMaxReplayNodes = (1u << 27) - 1;

// `to` may start (Work/Launch/GpuOp) or end (Wait) no earlier than `from` ends + weight_ns.
// 16 bytes: a 10-million-event profile has ~20 million edges.
struct ReplayEdge {
  std::int64_t weight_ns = 0;
  std::uint32_t from = 0;
  std::uint32_t to : 27 = 0;
  std::uint32_t kind : 4 = 0;  // EdgeKind
  std::uint32_t join : 1 = 0;  // 1: constrains the end of a Wait node; 0: the start of `to`
  EdgeKind edge_kind() const { return static_cast<EdgeKind>(kind); }
};
static_assert(sizeof(ReplayEdge) == 16);

// The edge `from` -> `to` (see ReplayEdge), built in one place.
inline ReplayEdge make_edge(std::uint32_t from, std::uint32_t to, std::int64_t weight_ns, bool join,
                            EdgeKind kind) {
  ReplayEdge e;
  e.weight_ns = weight_ns;
  e.from = from;
  e.to = to & kMaxReplayNodes;
  e.kind = static_cast<std::uint32_t>(kind) & 0xfu;
  e.join = join ? 1u : 0u;
  return e;
}

struct ReplayLane {
  bool gpu = false;
  std::uint32_t pid = 0;
  std::uint64_t id = 0;       // host: OS tid; GPU: (device << 32) | stream
  std::size_t timeline_lane = 0;  // host lanes: index into Timeline::lanes
  std::string name;
};

struct ReplayGraph {
  std::vector<ReplayLane> lanes;
  std::vector<ReplayNode> nodes;
  // Incoming edges of node i: edges[edge_begin[i] .. edge_begin[i + 1]).
  std::vector<std::uint32_t> edge_begin;
  std::vector<ReplayEdge> edges;
  std::vector<std::string> stage_names;  // StageId -> name (from the Timeline)
  // The analysis window on the driving lane: the node starting at the first analysed step and
  // one node starting at every later step start; the node ending at the window end.
  std::vector<std::uint32_t> span_first_node;  // per span (step), the node starting it
  std::uint32_t window_end_node = 0;          // the node whose end is the window end
  Interval window;
  // Honest limits: waits that could not be linked to what they waited for are replayed with
  // their recorded duration, which makes projections through them bounds, not estimates.
  std::size_t unlinked_waits = 0;
  std::size_t linked_waits = 0;
  std::size_t gpu_joins = 0;
  std::size_t dropped_backward_edges = 0;  // edges that pointed back in time (clock noise)
  // GPU ops whose start neither their stream nor their launch explains, linked to the op that
  // ended just before on another stream of the device (a cross-stream event wait, inferred:
  // CUPTI's activity records do not say which event an op waited for).
  std::size_t inferred_stream_edges = 0;
  // Implicit waits (docs/analysis.md): non-sync CUDA calls that blocked until a GPU op retired,
  // each cut into its typical cost (Launch) and the rest (a Wait joined to that op).
  std::size_t queue_full_waits = 0;     // launch calls blocked on a full launch queue
  std::int64_t queue_full_wait_ns = 0;
  std::size_t implicit_sync_waits = 0;  // copies, memsets, frees, allocations that waited for the GPU
  std::int64_t implicit_sync_wait_ns = 0;
  std::size_t queue_depth = 0;          // median ops in flight when a launch call blocked (0: none)
  std::size_t event_joins = 0;          // waits joined to their exact event record
  // Per stage: 1 when the stage has GPU operations. Such a stage is made faster on the GPU: a
  // factor scales its GPU operations, not the host time inside its ranges (launching, library
  // host code), which a faster GPU does not shorten.
  std::vector<char> stage_on_gpu;
  // Events (2i = start of node i, 2i+1 = its end) in an order that respects every edge; filled
  // by prepare_replay() (replay() computes it on the fly when empty).
  std::vector<std::uint32_t> event_order;
};

// Computes graph.event_order once, so that replays need no dependency sort of their own.
void prepare_replay(ReplayGraph& graph);

// Work per stage (host work nodes and GPU ops, every lane), clipped to `window`; `other` last.
std::vector<double> stage_work_ns(const ReplayGraph& graph, Interval window);

// `inputs_read`, when given, is called once the timeline, its records and the op stages are no
// longer read (before the edges are flattened): a caller that owns them may release them there.
ReplayGraph build_replay_graph(const Timeline& timeline, const std::vector<GpuOpStage>& gpu_op_stages,
                               const StepSelection& selection, const std::function<void()>& inputs_read = {});

struct ReplayResult {
  std::vector<std::int64_t> start_ns;  // replayed, per node
  std::vector<std::int64_t> end_ns;
  // Per node, the edge (index into ReplayGraph::edges) that determined its start, and for a
  // Wait the join edge that determined its end; ~0u: anchored start / the wait's own base.
  std::vector<std::uint32_t> start_binding;
  std::vector<std::uint32_t> end_binding;
  std::int64_t window_ns = 0;          // replayed window length
  std::vector<std::int64_t> span_ns;   // replayed length of every span (step)
};

// factors[stage] > 0: that stage's work and GPU ops take duration / factor. Missing entries: 1.
// A stage with GPU operations (stage_on_gpu) is made faster on the GPU only: its host part
// (work and launch calls inside its ranges) is scaled by host_factors[stage] (missing: 1).
ReplayResult replay(const ReplayGraph& graph, const std::vector<double>& factors,
                    const std::vector<double>& host_factors = {});

struct CriticalPath {
  // Time on the critical path per stage, then `other` last (index stage_names.size()); sums to
  // the window length.
  std::vector<double> exposed_ns;
  std::vector<std::vector<double>> span_exposed;  // [span][stage or other]
  // The host part of stages with GPU operations (their host work on the path; included in
  // exposed_ns), per stage, `other` last (always 0).
  std::vector<double> host_exposed_ns;
  // What the path is made of: time per lane (GPU streams and host threads, index into
  // ReplayGraph::lanes), the time of launch calls outside every stage (in `other`; inside a
  // stage's ranges they are its host part), and per edge kind the edges it crossed and the time
  // charged on them (launch latency, wake-ups, delays).
  std::vector<double> lane_ns;
  double launch_ns = 0;
  std::size_t edge_count[kEdgeKinds] = {};
  double edge_ns[kEdgeKinds] = {};
  std::size_t nodes_on_path = 0;
  std::size_t lane_switches = 0;
  // Waits on the path whose end no join explains (no produce/consume or GPU link): they keep
  // their recorded length in every replay, so projections through them are bounds.
  std::size_t unlinked_waits_on_path = 0;
  double unlinked_wait_ns_on_path = 0;
};

CriticalPath critical_path(const ReplayGraph& graph, const ReplayResult& result);

}  // namespace amdahl::analysis
