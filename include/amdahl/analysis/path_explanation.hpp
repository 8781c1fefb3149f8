// What holds the critical path, in words and numbers: its time by lane (GPU streams, host
// threads), launch calls and gaps (by the kind of edge crossed), and the host's waits on the
// GPU in the window by what released them (a full launch queue, an implicit sync, an explicit
// sync, an event). The report and the what-if print it (in words: render's to_text); the JSON
// carries the numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "amdahl/analysis/replay.hpp"

namespace amdahl::analysis {

// A lane of the critical path (render words it: "GPU work on gpu0/stream7", "host work on thread
// 'python'", "host work on thread tid 12").
struct PathPart {
  bool gpu = false;
  std::string lane;      // the lane's name ("" for a host thread without one)
  std::uint64_t id = 0;  // host: the OS tid
  double ns = 0;
  double fraction = 0;  // of the path's length
};

// Host waits in the window by the kind of the join that ended them.
struct HostWaits {
  std::size_t count = 0;
  double ns = 0;
};

struct PathExplanation {
  double path_ns = 0;
  std::vector<PathPart> lanes;  // largest first
  double launch_ns = 0;         // launch calls on the path (host lanes)
  double gap_ns = 0;            // time between nodes: launch latency, wake-ups, recorded delays
  double gap_ns_by_edge[kEdgeKinds] = {};       // per EdgeKind: the gaps on the edges crossed
  std::size_t edges_by_kind[kEdgeKinds] = {};  // per EdgeKind: edges the path crossed
  HostWaits waits[kEdgeKinds];  // per EdgeKind (QueueFull, ImplicitSync, Completion, Event, ProduceConsume)
  std::size_t queue_depth = 0;  // median ops in flight when a launch call blocked
};

PathExplanation explain_path(const ReplayGraph& graph, const CriticalPath& path);

}  // namespace amdahl::analysis
