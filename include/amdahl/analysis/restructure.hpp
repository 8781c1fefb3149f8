// Structural what-ifs: the replay graph transformed before it is replayed. Today one: the
// loading work that runs inline on the driving thread (num_workers=0, --loader-threads 0) moved
// onto N synthetic loader workers that build whole batches (batch k on worker k mod N) and run
// ahead of the trainer by a bounded prefetch (prefetch x N batches outstanding); the driving
// thread waits for each batch where it used to load it. Where the loading already runs on
// loader threads, their items are dealt round-robin over N lanes instead. See docs/analysis.md
// ("Structural what-if").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/replay.hpp"
#include "amdahl/analysis/whatif.hpp"

namespace amdahl::analysis {

struct LoaderWorkers {
  std::size_t workers = 0;   // N >= 1 synthetic loader lanes
  std::size_t prefetch = 2;  // batches in flight per worker (PyTorch's prefetch_factor)
  // The loading stages; a stage the profile does not have is ignored (none present: error).
  std::vector<std::string> stages = {"disk_io", "cpu_preprocess"};
  // Inline loading only: each moved batch's work takes this many times its recorded time on a
  // worker (a worker's per-batch cost relative to the driving thread's; 1 = as fast).
  double cost_factor = 1.0;
};

// WorkersSummary (what the transform did) is in whatif.hpp: WhatIf carries it.

struct RestructuredGraph {
  ReplayGraph graph;  // prepared for replay (event order computed)
  WorkersSummary summary;
};

// The transform. Batches: every maximal run of driving-lane nodes that starts and ends with
// work of a loading stage and holds only loading work, `other` work and zero-length waits in
// between (never across a step start). When the driving lane has none but loader threads do,
// their items (linked by produce/consume) are redistributed over N lanes; UsageError when they
// have no such links, InputError when there is no loading work at all.
RestructuredGraph move_loading_to_workers(const ReplayGraph& graph, const LoaderWorkers& options);

// Host lanes with work of `stages` (names) in the graph's window: on the driving lane, and on
// other lanes (the most of them loading at once: the span of a lane's loading work counts, so
// workers made anew each epoch are not counted twice). What `validate` uses to see a w0 -> wN
// change of structure.
struct LoadingLanes {
  bool on_driver = false;
  std::size_t other_lanes = 0;
  std::size_t distinct_other_lanes = 0;  // every lane that loaded in the window
};
LoadingLanes loading_lanes(const ReplayGraph& graph, const std::vector<std::string>& stages);

// compute_whatif on the restructured graph (plus any --speedup factors): simulated figures,
// bottleneck, curves and target factors are those of the run with N loader workers; the
// classic Amdahl figures are NaN (it has no figure for a structural change). w.workers is set.
WhatIf compute_whatif_with_workers(const Report& report, const std::vector<SpeedupRequest>& requests,
                                   std::optional<double> target, const LoaderWorkers& workers,
                                   const WhatIfOptions& options = {});

}  // namespace amdahl::analysis
