// The English of every finding (finding_text.hpp).
#include "amdahl/render/finding_text.hpp"

#include <cmath>
#include <string>

#include "amdahl/render/problem_text.hpp"
#include "numbers.hpp"
#include "words.hpp"

namespace amdahl::render {
namespace {

using namespace analysis::findings;

std::string n(std::size_t v) { return std::to_string(v); }
// Nanoseconds as milliseconds with one decimal: "12.3".
std::string ms1(double ns) { return detail::fixed(ns / 1e6, 1); }
// Nanoseconds as milliseconds with two decimals: "12.35".
std::string ms2(double ns) { return detail::fixed(ns / 1e6, 2); }
// A speedup or factor with two decimals: "1.25x".
std::string times2(double v) { return detail::fixed(v, 2) + "x"; }
// Nanoseconds as "1.25 s" from a second up, else "12.3 ms".
std::string seconds_or_ms(double ns) { return ns >= 1e9 ? detail::fixed(ns / 1e9, 2) + " s" : ms1(ns) + " ms"; }
using detail::joined;

// --- the report ----------------------------------------------------------------------------------
std::string text(const ProfileNote& f) { return f.text; }
std::string text(const HelperIdleWaits& f) {
  return n(f.gaps) + " idle gaps (" + ms1(f.ns) +
         " ms) of threads with CUDA calls but no ranges (e.g. PyTorch's autograd thread) are replayed as waits on "
         "the driving thread";
}
std::string text(const DriverWaitsOnHelpers& f) {
  return n(f.stretches) + " stretches (" + ms1(f.ns) +
         " ms) of the driving thread with no CUDA call of its own ended as a helper thread's CUDA work ended (e.g. "
         "backward() waiting for PyTorch's autograd thread): replayed as waits on it";
}
std::string text(const LoaderIdleWaits& f) {
  return n(f.gaps) + " idle gaps (" + ms1(f.ns) + " ms) between the tasks of " + n(f.lanes) +
         " loader thread(s) with no wait ranges of their own (e.g. a thread pool's workers) are replayed as waits: " +
         n(f.released) + " released by the driving thread's submission, the rest keep their recorded length";
}
std::string text(const NestedSteps& f) {
  return std::to_string(f.count) +
         " step ranges of the driving thread overlap an earlier step range (two sources of steps, e.g. the "
         "program's own `step` range and the one --torch opens): the first of each overlap is the step";
}
std::string text(const InvalidSavedRules& f) {
  return "the stage rules saved in the profile are invalid (" + f.why +
         "); they were left out: --stages FILE and the defaults decided the stages";
}
std::string text(const CriticalPathBasis&) {
  return "exposed time is time on the critical path of the run's dependency graph (replayed at factor 1); "
         "the driving thread's view is in driving_thread_view";
}
std::string text(const UnlinkedPathWaits& f) {
  return n(f.waits) + " waits on the critical path (" + ms1(f.ns) +
         " ms) have no produce/consume or GPU link: they count as 'other' and keep their length in replays, so "
         "projections through them are bounds, not estimates";
}
std::string text(const DroppedBackwardEdges& f) {
  return n(f.edges) + " dependency edges pointed back in time (clock noise) and were dropped";
}
std::string text(const InferredStreamEdges& f) {
  return n(f.ops) +
         " GPU ops waited for work on another stream; each is linked to the op that ended last before it on another "
         "stream of its device (inferred: the profile has no event records)";
}
// Why the dependency graph could not be used.
std::string graph_failure(const DrivingThreadBasis& f) {
  return f.replay_mismatch ? "its unscaled replay gives " + detail::fixed(f.replay_ns / 1e6, 3) + " ms for a " +
                                 detail::fixed(f.window_ns / 1e6, 3) + " ms window"
                           : f.why;
}
std::string text(const DrivingThreadBasis& f) {
  return "exposed time is the driving thread's view (its stages plus its waits charged to the work waited on): the "
         "dependency graph could not be used (" + graph_failure(f) + ")";
}
std::string text(const UnlinkedDrivingWaits& f) {
  return n(f.unlinked) + " of " + n(f.waits) + " waits on the driving thread (" + ms1(f.ns) +
         " ms) have no produce/consume link: charged to the other threads' stages in proportion to their totals, "
         "so those exposed figures and their projections are bounds, not estimates";
}
std::string text(const UnattributedWaits& f) {
  return ms1(f.ns) + " ms of waits had no work to charge and count as 'other'";
}
std::string text(const ExposedOverHost& f) {
  return "'" + f.stage +
         "' has more exposed than host time (waits on its GPU or producer work were charged to it); its hidden time "
         "shows 0";
}
std::string text(const NoGpuRecords&) { return "no GPU records in the profile"; }
std::string text(const GpuOpsByKind& f) {
  return n(f.ops) +
         " GPU ops in the window had no launching stage and were attributed by kind (HtoD -> h2d, DtoH -> d2h, "
         "NCCL -> communication, else gpu_compute)";
}
std::string text(const WarmupExcluded& f) {
  return n(f.steps) + " warm-up step(s) excluded (" + (f.automatic ? "automatic" : "--warmup") + ")";
}

// --- the report's verdict -----------------------------------------------------------------------
std::string of_each(bool per_step) { return per_step ? " of each step" : " of the run"; }
std::string group_label(const ExposedGroup& g) {
  switch (g.group) {
    case StageGroup::input: return "input";
    case StageGroup::transfer: return "transfer";
    case StageGroup::compute: return "compute";
    case StageGroup::communication: return "communication";
    case StageGroup::launch: return "launch";
    case StageGroup::user_stage: break;
  }
  return g.stage;
}
std::string group_what(const ExposedGroup& g) {
  switch (g.group) {
    case StageGroup::input: return "data loading";
    case StageGroup::transfer: return "host-device copying";
    case StageGroup::compute: return "GPU compute";
    case StageGroup::communication: return "communication";
    case StageGroup::launch: return "host time launching GPU work";
    case StageGroup::user_stage: break;
  }
  return "'" + g.stage + "'";
}
std::string share_label(const std::string& stage, ShareOf of) {
  switch (of) {
    case ShareOf::host_part: return stage + " host part";
    case ShareOf::launch_calls: return "launch calls outside stages";
    case ShareOf::stage: break;
  }
  return stage;
}
// " (disk_io 30%, cpu_preprocess 13%)" when the group has several rows, else "".
std::string group_rows(const ExposedGroup& g) {
  if (g.rows.size() < 2) return "";
  std::string t = " (";
  for (std::size_t i = 0; i < g.rows.size(); ++i)
    t += (i ? ", " : "") + share_label(g.rows[i].stage, g.rows[i].of) + " " + detail::pct_whole(g.rows[i].share);
  return t + ")";
}
std::string text(const Unannotated& f) {
  return "unannotated: " + detail::pct_whole(f.other_share) + of_each(f.per_step) +
         " is in no stage; add stage ranges to see what it is";
}
std::string text(const NoStageTime&) { return "no stage time in the window"; }
std::string text(const GroupBound& f) {
  const std::string head = detail::pct_whole(f.top.share) + of_each(f.per_step) + " is exposed " + group_what(f.top) +
                           group_rows(f.top);
  if (f.top.group == StageGroup::launch)
    return "launch bound (host overhead): " + head + "; a faster GPU shortens none of it";
  return group_label(f.top) + " bound: " + head;
}
std::string text(const NoDominantStage& f) {
  return "no dominant stage: the largest exposed share is " + group_what(f.top) + " at " +
         detail::pct_whole(f.top.share) + group_rows(f.top);
}
std::string text(const IdleGpuHostBound& f) {
  std::string t = "host bound: the GPU is idle " + detail::pct_whole(f.idle_share) +
                  " of the window, so the host side holds the run";
  if (f.largest_share > 0)
    t += "; the largest host share is " +
         (f.largest_is_other ? std::string("time in no stage ('other')")
                             : f.largest_stage + (f.largest_of == ShareOf::host_part ? "'s host part" : "")) +
         " (" + detail::pct_whole(f.largest_share) + of_each(f.per_step) + ")";
  return t + "; GPU compute holds " + detail::pct_whole(f.compute_share) + of_each(f.per_step) + " on the critical path";
}

// --- the step selection --------------------------------------------------------------------------
namespace {
// What the trace windows cost the run, read from its own steps (GpuSampling::window_cost_share).
std::string window_cost_text(const SampledSteps& f) {
  if (!f.window_cost_share) return "";
  const double pct = 100.0 * *f.window_cost_share;
  return "; the " + n(f.touched_steps) + " steps in or next to a window took a median " +
         detail::fixed(f.touched_median_ms, 1) + " ms against " + detail::fixed(f.untouched_median_ms, 1) +
         " ms for the others, so tracing them added " + (pct < 0.05 ? std::string("nothing measurable") : "about " + detail::fixed(pct, 1) + "%") +
         " to the run's step time (the windows' cost only, not the collector's cost between them)";
}
}  // namespace
std::string text(const SampledSteps& f) {
  return "sampled GPU figures: GPU activity was traced for " + n(f.traced_steps) + " of " + n(f.run_steps) +
         " steps in " + n(f.windows) +
         " window(s) (amdahl profile --gpu-sample / --gpu-steps); the stage breakdown, GPU figures and step "
         "statistics come from window " + n(f.used_window) + " (its " + n(f.window_steps) +
         " steps, less the warm-up); over all " + n(f.steps_after_warmup) + " steps after the warm-up a step took " +
         detail::fixed(f.step_mean_ms, 1) + " ms on average (median " + detail::fixed(f.step_median_ms, 1) + " ms)" +
         window_cost_text(f);
}
std::string text(const OneStep&) { return "only one step: no warm-up excluded"; }
std::string text(const SteadyState& f) {
  std::string t = "steady state: ";
  if (f.fill > 0)
    t += n(f.fill) + " step(s) after the warm-up excluded as the input pipeline's fill (" + std::to_string(f.backlog) +
         " batch(es) were ready when the first step began; the driving thread caught up with its loaders at the "
         "next step)";
  if (f.drain > 0)
    t += std::string(f.fill > 0 ? "; " : "") + n(f.drain) +
         " final step(s) excluded as its drain (they started after the loaders' last batch)";
  return t + "; --warmup N keeps them";
}
std::string text(const SameStepCounts&) {
  return "several threads have the same number of step ranges; the first is the driving thread";
}
std::string text(const SampledTime& f) {
  return "sampled GPU figures: GPU activity was traced in " + n(f.windows) +
         " time window(s) (amdahl profile --gpu-sample, a program without steps); the analysis keeps to the "
         "longest, " + detail::fixed(f.longest_ms, 1) + " ms";
}
std::string text(const NoSteps&) {
  return "no step ranges found: analysing the whole run of the longest-lived thread with stage ranges; no per-step "
         "statistics or intervals";
}

// --- the what-if ---------------------------------------------------------------------------------
std::string text(const NoReplay&) {
  return "no dependency graph could be replayed: simulated_speedup repeats the classic Amdahl figure";
}
std::string text(const NoReplayBounds&) {
  return "some waits had no produce/consume link, so the exposed fractions behind these projections are bounds, "
         "not estimates";
}
std::string text(const UnlinkedReplayWaits& f) {
  const std::string dir = f.direction == "unknown" ? "bound" : f.direction + " bound";
  return n(f.waits) + " waits on the critical path (" + ms1(f.ns) +
         " ms) are linked to nothing (no produce/consume marks or GPU link): they keep their recorded length in the "
         "replay, so simulated_speedup and naive_speedup are " + dir +
         "s, not estimates (add produce/consume marks to make them estimates)";
}
std::string text(const NoStepIntervals&) { return "no steps: the intervals are the point values (no steps to resample)"; }
std::string text(const WorkersFromLanes& f) {
  return "--workers " + n(f.workers) + ": the " + n(f.items) + " items (of " + joined(f.stages) +
         ") the window consumed from " + n(f.from_lanes) + " loader thread(s) dealt round-robin over " + n(f.workers) +
         " synthetic loader lanes in consume order; a worker's wait for its next index is released by the consume " +
         n(f.released_back) +
         " items back, a blocked put keeps its queue; classic Amdahl has no figure for this structural change "
         "(naive_speedup is null)";
}
std::string text(const WorkersInline& f) {
  return "--workers " + n(f.workers) + ": " + n(f.batches) + " batches of loading (" + joined(f.stages) + "; " +
         ms1(f.moved_ns) + " ms of the driving thread's time in the window) moved to " + n(f.workers) +
         " synthetic loader workers (batch k on worker k mod " + n(f.workers) + ", up to " + n(f.ahead) +
         " batches ahead); classic Amdahl has no figure for this structural change (naive_speedup is null)";
}
std::string text(const WorkersBatches& f) {
  return "--workers: " + n(f.runs) + " loading runs in " + n(f.steps) +
         " analysed steps; each run of loading work on the driving thread is treated as one batch";
}
std::string text(const WorkersCost& f) {
  const char* source =
      f.measured ? " (measured: process CPU over the loading ranges; pool threads that spin make it an upper end)"
      : f.spinning ? " (assumed: the process kept more than 2 cores busy while loading inline, a spinning thread pool "
                     "whose clocks cannot tell work from waiting; workers measured 0.9x to 1.36x the inline time per "
                     "batch on the H200, docs/validation.md)"
                   : " (assumed: the profile has no CPU times; workers measured 0.9x to 1.36x the inline time per "
                     "batch on the H200, docs/validation.md)";
  return "--workers " + n(f.workers) + ": a worker builds a batch in " + times2(f.low) + " .. " + times2(f.high) +
         " the driving thread's inline time (point: " + times2(f.point) +
         "): the high end is the CPU other threads spent during the inline loading, which a worker's one intra-op "
         "thread does itself" + source;
}
std::string text(const WorkersCoreBound& f) {
  return "--workers " + n(f.workers) + ": the cores bound the speedup to " + times2(f.bound) + " (" +
         std::to_string(f.cpus) + " CPUs allowed; the driving thread was on a CPU " +
         detail::fixed(100.0 * static_cast<double>(f.cpus) / f.bound, 0) + "%" +
         " of its steps: the same work spread over more threads cannot finish faster)" +
         (f.holds ? "; this bound holds the figure above" : "");
}
std::string text(const WorkersAssumptions&) {
  return "--workers assumes: workers build whole batches; the inter-process cost (pickling, shared memory) is not "
         "modelled beyond the range above";
}
std::string text(const BottleneckMove& f) {
  std::string line = f.verb + " ";
  if (f.workers > 0) line += n(f.workers) + " loader workers" + (f.changes.empty() ? "" : " and ");
  line += changes_text(f.changes);
  if (f.after_stage.empty())
    line += ", no stage holds time on the critical path";
  else
    line += ", " + f.after_stage + " holds " + detail::pct_whole(f.after_fraction) +
            (f.per_step ? " of the step" : " of the run") +
            (f.after_stage != f.before_stage ? " (the bottleneck moved)" : "");
  if (!f.before_stage.empty()) line += " (before: " + f.before_stage + " " + detail::pct_whole(f.before_fraction) + ")";
  return line;
}

// --- the guidance's next actions ----------------------------------------------------------------
// ", at most 3.00x with the stage taking no time", or "" when that limit is unbounded.
std::string limit_clause(double limit) {
  if (!std::isfinite(limit) || limit > 1e6) return "";
  return ", at most " + times2(limit) + " with the stage taking no time";
}
std::string by(double gain, const std::string& basis) { return times2(gain) + " by " + basis; }
std::string input_head(const std::vector<std::string>& stages, double share) {
  return "input (" + joined(stages) + ") holds " + detail::pct_whole(share) + " of the step time";
}
std::string text(const MarkSteps&) {
  return "no step ranges: the figures cover the whole run, set-up included; mark each training step with a `step` "
         "range (docs/annotation-guide.md), or let `amdahl profile` annotate PyTorch";
}
std::string text(const ProfileMoreSteps& f) {
  return "window too short: only " + n(f.steps) + " analysed step(s), so one slow step moves every figure; " +
         (f.imported ? "record more steps with the PyTorch profiler (its schedule's active steps), then import the "
                       "trace again"
                     : "profile more steps");
}
std::string text(const AnnotateOther& f) {
  return detail::pct_whole(f.share) +
         " of the step time is in no stage: annotate it (stage ranges, or a --stages rule file for the range names it "
         "already has) before trusting the other figures";
}
std::string text(const MoreLoaderWorkers& f) {
  return input_head(f.stages, f.share) + ": more DataLoader workers (" + n(f.workers) + " loader workers give " +
         by(f.gain, "replay") + (f.moved_off_driver ? ", the loading moved off the training thread" : "") + ")";
}
std::string text(const FasterLoading& f) {
  return input_head(f.stages, f.share) + ": faster loading (" + f.stage + " 2x faster gives " + by(f.gain, f.basis) +
         limit_clause(f.limit) + "; more workers, a faster format or caching)";
}
std::string text(const FasterHostSide& f) {
  return "the host side of " + f.stage + " (launching GPU work, library host code) holds " +
         detail::pct_whole(f.share) +
         " of the step time: CUDA graphs, torch.compile or larger batches cut it (2x less host time gives " +
         by(f.gain, f.basis) + "; a faster GPU shortens none of it)";
}
std::string text(const FasterStage& f) {
  const std::string gives = by(f.gain, f.basis) + limit_clause(f.limit);
  const std::string head = f.stage + " holds " + detail::pct_whole(f.share) + " of the step time";
  if (f.stage == "gpu_compute")
    return "GPU compute (" + detail::pct_whole(f.share) +
           " of the step time): a faster GPU or AMP (2x faster kernels give " + gives + ")";
  if (f.stage == "h2d" || f.stage == "d2h")
    return head + ": pinned memory and non_blocking copies on a side stream overlap it with compute (2x faster "
                  "copies give " + gives + ")";
  if (f.stage == "communication")
    return head + ": overlap it with the backward pass (gradient bucketing) or use a faster interconnect (2x faster "
                  "gives " + gives + ")";
  return head + ": 2x faster gives " + gives;
}
std::string text(const Balanced&) {
  return "no single stage 2x faster gives 2% or more: the time is spread out; see what a target needs";
}

// --- validate ------------------------------------------------------------------------------------
std::string text(const RestructureFailed& f) {
  return "the improved run loads on other threads, but the base run could not be restructured onto loader "
         "workers: " + (f.problem ? to_text(*f.problem) : f.why);
}
std::string text(const ValidatedWorkers& f) {
  return "the base run loads inline on its driving thread, the improved run on " + n(f.workers) +
         " other threads: predicted_simulated is the base run restructured onto " + n(f.workers) +
         " loader workers (whatif --workers " + n(f.workers) + "); with the measured stage factors alone the replay "
         "gives " + detail::fixed(f.stage_factors_only, 3) + "x (" + detail::signed_fixed(f.error * 100, 1) +
         "%); classic Amdahl has no figure for the structural change (predicted_naive uses the stage factors)";
}
std::string text(const ExtraSyncs& f) {
  return "the improved run waits on the GPU " + detail::fixed(f.improved, 1) + " times per step, the base run " +
         detail::fixed(f.base, 1) +
         ": a synchronization the base run does not have is not modelled (the prediction keeps the base run's)";
}
std::string text(const NewStage& f) {
  return "stage '" + f.stage + "' is new in the improved run: not modelled by the base run";
}
std::string text(const AbsentStage& f) { return "stage '" + f.stage + "' is absent from the improved run: not modelled"; }
std::string text(const NoStageChanged&) { return "no stage changed by at least the threshold: both predictions are 1x"; }
std::string text(const AbsentFromImproved&) { return "absent from the improved run"; }
std::string text(const ChangedTooLittle& f) { return "changed less than " + std::to_string(f.percent) + "%"; }

std::string text(const ClassicOnly& f) {
  return "the run's dependency graph could not be replayed" +
         (f.graph_failure ? " (" + graph_failure(*f.graph_failure) + ")" : std::string());
}

// --- the GPU-only report -------------------------------------------------------------------------
std::string text(const GpuBound& f) {
  return "GPU bound: the GPU is busy " + detail::pct_whole(f.busy_share) +
         " of the time from its first to its last operation; faster or fewer kernels shorten the run";
}
std::string text(const LaunchBound& f) {
  return "launch bound: the GPU is idle " + detail::pct_whole(f.idle_share) +
         " of the time from its first to its last operation, " + detail::pct_whole(f.short_gap_share) +
         " of that in gaps under " + detail::fixed(f.gap_ns / 1e3, 0) +
         " us between operations (the host issuing work too slowly: Python, dispatch, launches); a faster host gives "
         "at most " + times2(f.host_speedup_bound);
}
std::string text(const HostBound& f) {
  return "host bound: the GPU is idle " + detail::pct_whole(f.idle_share) +
         " of the time from its first to its last operation, " + detail::pct_whole(f.long_gap_share) +
         " of that in gaps of " + detail::fixed(f.gap_ns / 1e3, 0) +
         " us or more (host work between GPU work: input loading, Python, synchronisation); a faster host gives at "
         "most " + times2(f.host_speedup_bound);
}
std::string text(const TorchAnnotation& f) {
  if (f.state == "off") return "PyTorch annotation was switched off (--no-torch)";
  if (f.state == "missing") return "PyTorch annotation was asked for, but the amdahl_torch package was missing";
  if (f.state.rfind("unavailable", 0) == 0) return "PyTorch annotation was not possible: " + f.state;
  return "PyTorch annotation was on, but recorded no ranges (did the script import torch?)";
}
std::string text(const NoHostStages&) {
  return "host stages are unknown: the profile has no step and no stage ranges. For a PyTorch script run `amdahl "
         "profile --torch -- python3 train.py` (the default for Python commands); otherwise annotate with NVTX ranges "
         "in domain `amdahl` (docs/annotation-guide.md). Until then the GPU idle time is an upper bound of what input "
         "and host work cost.";
}
std::string text(const RunFromRecords&) {
  return "the run's start and end are not in the profile: the run is taken from the first to the last GPU or CUDA "
         "API record";
}
std::string text(const DevicesSummed& f) {
  return "busy and idle are summed over " + n(f.devices) + " devices (process, device); shares are of their summed time";
}

// --- ranks ---------------------------------------------------------------------------------------
std::string straggler_head(std::uint32_t rank, std::size_t times_last, std::size_t collectives, double lateness_ns) {
  return "rank " + std::to_string(rank) + " is the straggler: last to arrive at " + n(times_last) + " of " +
         n(collectives) + " collectives, " + ms2(lateness_ns) + " ms after the median rank on average; ";
}
std::string text(const NoCollective&) { return "no collective (communication range) is matched across the ranks"; }
std::string text(const NoStraggler& f) {
  return "no straggler: rank " + std::to_string(f.rank) + " was last at " + n(f.times_last) + " of " +
         n(f.collectives) + " collectives (" + ms2(f.lateness_ns) +
         " ms after the median rank on average), and the other ranks lost " + ms2(f.lost_ns) +
         " ms per step waiting for the last arrival";
}
std::string text(const StragglerOutsideStages& f) {
  return straggler_head(f.rank, f.times_last, f.collectives, f.lateness_ns) +
         "no stage of it takes longer than the other ranks' (the delay is outside the stages)";
}
std::string text(const StragglerStage& f) {
  return straggler_head(f.rank, f.times_last, f.collectives, f.lateness_ns) + "its " + f.stage + " takes " +
         ms2(f.stage_ns) + " ms per step against " + ms2(f.others_ns) + " ms on the other ranks (" +
         times2(f.others_ns > 0 ? f.stage_ns / f.others_ns : 0.0) + ")";
}

// --- diff ----------------------------------------------------------------------------------------
std::string text(const DiffWithoutSteps&) {
  return "a run has no steps: figures are for the whole analysis window of each run, not per step";
}
std::string text(const DiffSummary& f) {
  const std::string unit = f.per_step ? "step" : "window";
  std::string t = unit + " " + ms2(f.step_a_ns) + " ms -> " + ms2(f.step_b_ns) + " ms";
  if (std::fabs(f.speedup - 1) < 0.005)
    t += " (unchanged)";
  else
    t += " (b takes " + times2(1 / f.speedup) + " the time of a: " +
         (f.speedup > 1 ? times2(f.speedup) + " faster)" : times2(1 / f.speedup) + " slower)");
  if (!f.top_stage.empty())
    t += "; largest change: " + f.top_stage + " " + (f.top_change_ns < 0 ? "-" : "+") +
         ms2(std::fabs(f.top_change_ns)) + " ms exposed per " + unit + " (" + f.top_verdict + ")";
  return t;
}

}  // namespace

std::string to_text(const analysis::Finding& finding) {
  return std::visit([](const auto& f) { return text(f); }, finding);
}

std::vector<std::string> to_text(const std::vector<analysis::Finding>& findings) {
  std::vector<std::string> out;
  out.reserve(findings.size());
  for (const auto& f : findings) out.push_back(to_text(f));
  return out;
}

std::string to_text(const analysis::PathPart& p) {
  if (p.gpu) return "GPU work on " + p.lane;
  return "host work on thread " + (p.lane.empty() ? "tid " + std::to_string(p.id) : "'" + p.lane + "'");
}

std::string to_text(const analysis::PathExplanation& e) {
  using analysis::EdgeKind;
  using analysis::HostWaits;
  std::string t = "critical path:";
  std::size_t shown = 0;
  for (const auto& p : e.lanes) {
    if (shown == 3 || p.fraction < 0.02) break;
    t += (shown++ ? ", " : " ") + detail::pct_whole(p.fraction) + " " + to_text(p);
  }
  if (e.path_ns > 0 && e.launch_ns / e.path_ns >= 0.02) t += "; launch calls outside stages " + detail::pct_whole(e.launch_ns / e.path_ns);
  if (e.path_ns > 0 && e.gap_ns / e.path_ns >= 0.02) t += "; gaps (launch latency, wake-ups) " + detail::pct_whole(e.gap_ns / e.path_ns);
  const HostWaits& q = e.waits[static_cast<std::size_t>(EdgeKind::QueueFull)];
  if (q.count > 0) {
    t += "; the host waited on a full launch queue " + std::to_string(q.count) + " times (" + seconds_or_ms(q.ns);
    if (e.queue_depth > 0) t += ", about " + std::to_string(e.queue_depth) + " ops in flight";
    t += ")";
  }
  const HostWaits& s = e.waits[static_cast<std::size_t>(EdgeKind::ImplicitSync)];
  if (s.count > 0)
    t += "; " + std::to_string(s.count) + " calls that are not syncs waited for the GPU (" + seconds_or_ms(s.ns) + ")";
  const HostWaits& c = e.waits[static_cast<std::size_t>(EdgeKind::Completion)];
  const HostWaits& ev = e.waits[static_cast<std::size_t>(EdgeKind::Event)];
  if (c.count + ev.count > 0)
    t += "; explicit syncs " + std::to_string(c.count + ev.count) + " (" + seconds_or_ms(c.ns + ev.ns) + ")";
  return t;
}

std::string to_text(const analysis::RankProjection& p) {
  return "ring all-reduce: T(M) = F + 2(M-1)/M * B / bw with B = " + detail::fixed(p.bytes, 0) +
         " bytes per collective (measured), bw = " + detail::general(p.bytes_per_s / 1e9, 3) + " GB/s (" +
         (p.bandwidth_measured ? "measured: the collective's whole time taken as transfer" : "given") + "), F = " +
         detail::fixed(p.fixed_ns / 1e6, 3) + " ms fixed cost per collective (the measured " +
         detail::fixed(p.measured_ns / 1e6, 3) + " ms at " + n(p.from_ranks) + " rank" +
         (p.from_ranks == 1 ? "" : "s") + " less its modelled transfer); T(" + n(p.to_ranks) +
         ") = " + detail::fixed(p.projected_ns / 1e6, 3) + " ms, so communication is scaled by " +
         detail::general(p.factor, 3) +
         "x and the run replayed (compute per rank unchanged: the per-rank batch stays the same, weak scaling)";
}

std::string to_text(const std::optional<analysis::Finding>& finding) { return finding ? to_text(*finding) : ""; }

std::string changes_text(const std::vector<std::pair<std::string, double>>& changes) {
  std::string out;
  for (const auto& [stage, factor] : changes) out += (out.empty() ? "" : " and ") + stage + " " + detail::general(factor, 6) + "x";
  return out;
}

}  // namespace amdahl::render
