// Steps and the analysis window: the driving thread (the lane with the most step ranges),
// warm-up exclusion (explicit or automatic), and the window from the first analysed step's
// start to the last one's end; without steps, the whole run of the longest-lived lane that has
// stage ranges.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/finding.hpp"
#include "amdahl/analysis/timeline.hpp"

namespace amdahl::analysis {

// Sampled GPU tracing (`amdahl profile --gpu-sample`, or --gpu-steps FROM:TO): the GPU records
// exist only inside the trace windows; the analysis attributes the steps of one window (the one
// with the most whole steps, the later on a tie) and states it, and gives the step time of
// every step of the run (after the warm-up) beside it.
struct GpuSampling {
  std::size_t windows = 0;       // trace windows of the driving process
  std::size_t traced_steps = 0;  // steps wholly inside some window
  std::size_t run_steps = 0;     // all steps of the driving thread
  std::size_t used_window = 0;   // 1-based: the window analysed
  std::size_t run_warmup = 0;    // leading steps of the run left out of the run's step time
  double run_step_mean_ms = 0, run_step_median_ms = 0;  // every step after run_warmup
  // The windows' own cost, read inside the run (no second run, so no host drift between runs):
  // of the steps after run_warmup, those a window touches (the steps it holds, and one step
  // either side: the attach as it opens, the detach at the first launch after it closes)
  // against the others. window_cost_share: the touched steps' time over the others' median,
  // summed, as a share of the time of all steps after run_warmup (negative within noise).
  // Set only with at least one touched and 10 untouched steps after run_warmup.
  std::size_t touched_steps = 0;
  double touched_step_median_ms = 0, untouched_step_median_ms = 0;
  std::optional<double> window_cost_share;
};

struct StepSelection {
  std::size_t driving_lane = 0;
  bool has_steps = false;
  std::size_t total_steps = 0;   // step ranges on the driving lane
  std::size_t warmup = 0;        // leading steps excluded (the warm-up and the pipeline fill)
  bool warmup_auto = true;
  std::size_t fill_steps = 0;    // of `warmup`: steps that drained a loader backlog built at start-up
  std::size_t drain_steps = 0;   // trailing steps excluded: consumed after the loaders' last item
  std::vector<Interval> steps;   // the analysed steps, sorted
  // The number of the first analysed step: its index among the driving thread's step ranges,
  // from 0 at the run's first step (warm-up and steps outside a --gpu-steps window counted),
  // the numbering of `amdahl profile --gpu-steps` (docs/reports.md, "Step numbers").
  std::size_t first_step = 0;
  // The window cut into one span per analysed step: a span runs from its step's start to the
  // next step's start (the last one to its end), so spans partition the window exactly.
  std::vector<Interval> spans;
  Interval window;
  std::vector<Finding> notes;
  std::optional<GpuSampling> sampling;  // set when the profile has GPU trace windows
};

// Automatic warm-up: always the first step, then every following leading step longer than 3x
// the median step duration (stops at the first that is not). Fewer than 2 steps: none.
std::size_t auto_warmup(const std::vector<std::int64_t>& durations);

// The input pipeline's fill and drain, from produce/consume marks of loader lanes (other
// threads or processes) and the consume marks of the driving lane. `steps` are the steps left
// after the warm-up. Fill: when the driving thread catches up with its loaders (a consume
// leaves no produced item unconsumed) within the first half of the steps, the steps before
// that one drew on batches prefetched before the first step and are excluded; a run that never
// catches up (the loaders keep ahead: not input bound) loses none. Drain: steps that start
// after the loaders' last produce and consume an item (the loaders ran out: the remaining steps empty the queue),
// at most a quarter of the steps. Both 0 without loader marks.
struct PipelineEdges {
  std::size_t fill = 0;
  std::size_t drain = 0;
  double backlog_at_start = 0;  // items produced and not yet consumed when the first step began
};
PipelineEdges pipeline_edges(const Timeline& timeline, std::size_t driving_lane, const std::vector<Interval>& steps);

// The GPU trace windows of process `pid` (`gpu_trace_on` / `gpu_trace_off` marks in domain
// amdahl, left by `amdahl profile --gpu-steps`), in time order and never overlapping (an "on"
// while a window is open, an "off" while none is, are ignored); an open window ends at
// INT64_MAX. Empty when GPU activity was collected throughout.
std::vector<Interval> gpu_trace_windows(const format::RecordSet& rs, std::uint32_t pid);

// The steps of `steps` (sorted by start) that lie wholly inside a window, grouped by window (windows
// without a whole step are left out); and the index of the group the analysis uses: the one
// with the most steps, the later on a tie, among the windows that open after the first step
// starts -- a start-up window (`--gpu-sample` traces from CUDA's start to step SKIP) is used
// only when no other window holds a step. Pure.
struct WindowSteps {
  std::vector<std::vector<Interval>> groups;
  std::vector<bool> startup;  // per group: its window opened before the first step
  std::size_t chosen = 0;
};
WindowSteps steps_in_windows(const std::vector<Interval>& steps, const std::vector<Interval>& windows);

// Throws InputError when there is nothing to analyse or the warm-up leaves no step.
StepSelection select_steps(const Timeline& timeline, std::optional<std::size_t> warmup);

}  // namespace amdahl::analysis
