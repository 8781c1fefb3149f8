// Findings: what the analysis tells the user beside its figures (the notes, verdicts and
// one-line summaries), as typed values. Each kind of finding is a struct whose fields are the
// values its sentence needs (stage names and free text as std::string, counts as integers,
// times and shares as double); `Finding` is the variant of all of them, so the alternative is
// the finding's code. The analysis only fills them in; the English lives in one place,
// render/src/finding_text.cpp (amdahl/render/finding_text.hpp: to_text), which builds each
// sentence with std::string, so no stage name is ever cut.
//
// Durations are in nanoseconds unless the name says otherwise; shares are fractions (0.25 for
// 25%).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "amdahl/analysis/problem.hpp"

namespace amdahl::analysis::findings {

// --- notes of the report (analyze) ---------------------------------------------------------------
// A note the profile carries (meta 'notes', one per line: `amdahl import` says there what its
// stages and steps stand for), word for word.
struct ProfileNote { std::string text; };
// Idle gaps of unannotated CUDA helper threads (PyTorch's autograd thread) replayed as waits.
struct HelperIdleWaits { std::size_t gaps = 0; double ns = 0; };
// Stretches of the driving thread that ended as a helper thread's CUDA work ended.
struct DriverWaitsOnHelpers { std::size_t stretches = 0; double ns = 0; };
// Idle gaps between the tasks of loader threads (a thread pool's workers) replayed as waits.
struct LoaderIdleWaits { std::size_t gaps = 0; double ns = 0; std::size_t lanes = 0, released = 0; };
// Step ranges of the driving thread that overlap an earlier one.
struct NestedSteps { std::int64_t count = 0; };
// The stage rules saved in the profile do not parse (`why`) and were left out.
struct InvalidSavedRules { std::string why; };
// Exposed time is time on the critical path.
struct CriticalPathBasis {};
// Waits on the critical path with no produce/consume or GPU link.
struct UnlinkedPathWaits { std::size_t waits = 0; double ns = 0; };
// Dependency edges that pointed back in time and were dropped.
struct DroppedBackwardEdges { std::size_t edges = 0; };
// GPU ops linked to the last op of another stream (no event records).
struct InferredStreamEdges { std::size_t ops = 0; };
// Exposed time is the driving thread's view: the dependency graph could not be used, because
// of `why`, or (`replay_mismatch`) because its unscaled replay gives `replay_ns` for a window of
// `window_ns`.
struct DrivingThreadBasis { std::string why; bool replay_mismatch = false; double replay_ns = 0, window_ns = 0; };
// Waits on the driving thread without a produce/consume link, charged in proportion.
struct UnlinkedDrivingWaits { std::size_t unlinked = 0, waits = 0; double ns = 0; };
// Waits that had no work to charge.
struct UnattributedWaits { double ns = 0; };
// A stage with more exposed than host time (driving thread's view).
struct ExposedOverHost { std::string stage; };
// The profile has no GPU records.
struct NoGpuRecords {};
// GPU ops without a launching stage, attributed by kind.
struct GpuOpsByKind { std::size_t ops = 0; };
// Warm-up steps excluded, automatically or by --warmup.
struct WarmupExcluded { std::size_t steps = 0; bool automatic = true; };

// --- the report's verdict (verdict_line, guard_verdict) ------------------------------------------
// The groups the verdict sums the stages' exposed shares into: input (disk_io, cpu_preprocess,
// data_loading), transfer (h2d, d2h), compute (gpu_compute), communication, launch (the host
// parts of stages with GPU operations and launch calls outside stages), or a user stage alone.
enum class StageGroup { input, transfer, compute, communication, launch, user_stage };
// One row of a group: a stage's share, its host part's, or the launch calls outside stages.
enum class ShareOf { stage, host_part, launch_calls };
struct GroupRow { std::string stage; double share = 0; ShareOf of = ShareOf::stage; };
struct ExposedGroup {
  StageGroup group = StageGroup::user_stage;
  std::string stage;  // the user stage (StageGroup::user_stage)
  double share = 0;
  std::vector<GroupRow> rows;  // shown when there are several
};
// 30% or more of the time is in no stage, more than any group holds.
struct Unannotated { double other_share = 0; bool per_step = true; };
// No stage has time in the window.
struct NoStageTime {};
// One group holds 30% or more (the launch group: "launch bound (host overhead)").
struct GroupBound { ExposedGroup top; bool per_step = true; };
// No group holds 30%: the largest.
struct NoDominantStage { ExposedGroup top; };
// The guard (verdict_guard.hpp): "compute bound" replaced, the GPU being idle `idle_share` of
// the window; the largest host share (`other`, a stage, or a GPU stage's host part) and GPU
// compute's own share.
struct IdleGpuHostBound {
  double idle_share = 0;
  std::string largest_stage;  // told only when largest_share > 0
  ShareOf largest_of = ShareOf::stage;
  bool largest_is_other = false;
  double largest_share = 0, compute_share = 0;
  bool per_step = true;
};

// --- notes of the step selection (select_steps) --------------------------------------------------
// GPU traced in windows of steps: the figures come from window `used_window` (1-based).
struct SampledSteps {
  std::size_t traced_steps = 0, run_steps = 0, windows = 0, used_window = 0;
  std::size_t window_steps = 0;       // steps in the window used, warm-up included
  std::size_t steps_after_warmup = 0;  // of the whole run
  double step_mean_ms = 0, step_median_ms = 0;
  // The windows' cost among those steps (GpuSampling::window_cost_share): unset when too few steps.
  std::size_t touched_steps = 0;
  double touched_median_ms = 0, untouched_median_ms = 0;
  std::optional<double> window_cost_share;
};
// One step only: no warm-up excluded.
struct OneStep {};
// The input pipeline's fill and drain excluded (either may be 0, not both).
struct SteadyState { std::size_t fill = 0; long long backlog = 0; std::size_t drain = 0; };
// Several threads have as many step ranges as the driving thread.
struct SameStepCounts {};
// GPU traced in time windows (no steps): the analysis keeps to the longest.
struct SampledTime { std::size_t windows = 0; double longest_ms = 0; };
// No step ranges: the whole run of the longest-lived thread.
struct NoSteps {};

// --- notes of the what-if ------------------------------------------------------------------------
// No dependency graph: the simulated figures repeat the classic ones.
struct NoReplay {};
// No dependency graph and unlinked waits: the fractions are bounds.
struct NoReplayBounds {};
// Unlinked waits on the critical path make the projections bounds; `direction` is "lower",
// "upper" or "unknown".
struct UnlinkedReplayWaits { std::size_t waits = 0; double ns = 0; std::string direction; };
// No steps: the intervals are the point values.
struct NoStepIntervals {};
// --workers over loading that already ran on loader threads.
struct WorkersFromLanes {
  std::size_t workers = 0, items = 0;
  std::vector<std::string> stages;
  std::size_t from_lanes = 0, released_back = 0;  // released by the consume that many items back
};
// --workers over loading inline on the driving thread.
struct WorkersInline {
  std::size_t workers = 0, batches = 0;
  std::vector<std::string> stages;
  double moved_ns = 0;
  std::size_t ahead = 0;  // batches a worker may run ahead
};
// --workers: loading runs and analysed steps differ.
struct WorkersBatches { std::size_t runs = 0, steps = 0; };
// --workers: a worker's cost per batch relative to the inline time, and where it came from.
struct WorkersCost { std::size_t workers = 0; double low = 1, high = 1, point = 1; bool measured = false, spinning = false; };
// --workers: the cores bound the speedup (`holds`: the bound holds the figure).
struct WorkersCoreBound { std::size_t workers = 0; double bound = 0; std::uint32_t cpus = 0; bool holds = false; };
// --workers: what it assumes.
struct WorkersAssumptions {};

// The guidance's projections are classic Amdahl only: the dependency graph could not be
// replayed (`graph_failure`: the report's DrivingThreadBasis note, when it has one).
struct ClassicOnly { std::optional<DrivingThreadBasis> graph_failure; };

// --- where the bottleneck moves (what-if, --workers, validate, guidance) ------------------------
// "<verb> <change>, <after> holds 61% of the step (the bottleneck moved) (before: <before> 80%)".
// `workers` > 0: the change starts with "N loader workers"; `changes`: (stage, factor), the
// stage already suffixed ":host" where the host part was changed. An empty stage: none holds
// time (before: the clause is left out).
struct BottleneckMove {
  std::string verb;  // "after", "with"
  std::size_t workers = 0;
  std::vector<std::pair<std::string, double>> changes;
  std::string before_stage, after_stage;
  double before_fraction = 0, after_fraction = 0;
  bool per_step = true;  // " of the step", else " of the run"
};

// --- the guidance's next actions (next_actions.hpp) ---------------------------------------------
// `gain`: the whole-run speedup the action stands for, by `basis` ("replay" or "classic");
// `limit`: the stage taking no time (told when finite and at most 1e6).
// No step ranges: the figures cover the whole run.
struct MarkSteps {};
// Fewer analysed steps than the figures need (`imported`: the profile is a PyTorch trace).
struct ProfileMoreSteps { std::size_t steps = 0; bool imported = false; };
// Time in no stage: annotate it first.
struct AnnotateOther { double share = 0; };
// The input stages hold `share`: more loader workers (`moved_off_driver`: the loading ran on the
// training thread).
struct MoreLoaderWorkers {
  std::vector<std::string> stages;
  double share = 0;
  std::size_t workers = 0;
  double gain = 1;
  bool moved_off_driver = false;
};
// The input stages hold `share`: the largest, `stage`, made 2x faster.
struct FasterLoading {
  std::vector<std::string> stages;
  double share = 0;
  std::string stage;
  double gain = 1;
  std::string basis;
  double limit = 0;
};
// The host part of a stage with GPU operations made 2x faster.
struct FasterHostSide { std::string stage; double share = 0, gain = 1; std::string basis; };
// A stage made 2x faster; the advice follows the stage (gpu_compute, h2d/d2h, communication,
// any other).
struct FasterStage { std::string stage; double share = 0, gain = 1; std::string basis; double limit = 0; };
// No stage 2x faster gives 2% or more.
struct Balanced {};

// --- notes of validate ---------------------------------------------------------------------------
// The base run could not be restructured onto loader workers: `problem` when the error was typed
// (problem.hpp), else `why`, its message.
struct RestructureFailed { std::string why; std::optional<Problem> problem; };
// The structural change validated with --workers; the replay with stage factors alone.
struct ValidatedWorkers { std::size_t workers = 0; double stage_factors_only = 1, error = 0; };
// The improved run waits on the GPU more often per step.
struct ExtraSyncs { double improved = 0, base = 0; };
// A stage new in the improved run.
struct NewStage { std::string stage; };
// A stage absent from the improved run.
struct AbsentStage { std::string stage; };
// No stage changed by at least the threshold.
struct NoStageChanged {};
// Why validate left a stage's factor out: absent from the improved run, or changed less than
// `percent` % (its --min-change).
struct AbsentFromImproved {};
struct ChangedTooLittle { int percent = 0; };

// --- the GPU-only report -------------------------------------------------------------------------
struct GpuBound { double busy_share = 0; };
struct LaunchBound { double idle_share = 0, short_gap_share = 0, gap_ns = 0, host_speedup_bound = 1; };
struct HostBound { double idle_share = 0, long_gap_share = 0, gap_ns = 0, host_speedup_bound = 1; };
// PyTorch annotation recorded nothing; `state` is the profile's meta 'torch' ("off", "missing",
// "unavailable: ...", or anything else: it was on).
struct TorchAnnotation { std::string state; };
// The profile has no step and no stage ranges: how to get host stages.
struct NoHostStages {};
// The run's start and end are taken from the records.
struct RunFromRecords {};
// Busy and idle summed over several devices.
struct DevicesSummed { std::size_t devices = 0; };

// --- ranks ---------------------------------------------------------------------------------------
struct NoCollective {};
struct NoStraggler { std::uint32_t rank = 0; std::size_t times_last = 0, collectives = 0; double lateness_ns = 0, lost_ns = 0; };
struct StragglerOutsideStages { std::uint32_t rank = 0; std::size_t times_last = 0, collectives = 0; double lateness_ns = 0; };
struct StragglerStage {
  std::uint32_t rank = 0;
  std::size_t times_last = 0, collectives = 0;
  double lateness_ns = 0;
  std::string stage;
  double stage_ns = 0, others_ns = 0;
};

// --- diff ----------------------------------------------------------------------------------------
struct DiffWithoutSteps {};
// "step 12.00 ms -> 10.00 ms (b takes 0.83x the time of a: 1.20x faster); largest change: <stage>
// -2.00 ms exposed per step (faster)": the mean step (or window) of each run, a / b, and the
// stage whose exposed time changed most (left out when `top_stage` is empty or unchanged).
struct DiffSummary {
  bool per_step = true;
  double step_a_ns = 0, step_b_ns = 0, speedup = 1;
  std::string top_stage, top_verdict;
  double top_change_ns = 0;
};

}  // namespace amdahl::analysis::findings

namespace amdahl::analysis {

using Finding = std::variant<
    findings::ProfileNote, findings::HelperIdleWaits, findings::DriverWaitsOnHelpers, findings::LoaderIdleWaits,
    findings::NestedSteps, findings::InvalidSavedRules, findings::CriticalPathBasis, findings::UnlinkedPathWaits,
    findings::DroppedBackwardEdges, findings::InferredStreamEdges, findings::DrivingThreadBasis,
    findings::UnlinkedDrivingWaits, findings::UnattributedWaits, findings::ExposedOverHost, findings::NoGpuRecords,
    findings::GpuOpsByKind, findings::WarmupExcluded, findings::SampledSteps, findings::OneStep,
    findings::SteadyState, findings::SameStepCounts, findings::SampledTime, findings::NoSteps, findings::NoReplay,
    findings::NoReplayBounds, findings::UnlinkedReplayWaits, findings::NoStepIntervals, findings::WorkersFromLanes,
    findings::WorkersInline, findings::WorkersBatches, findings::WorkersCost, findings::WorkersCoreBound,
    findings::WorkersAssumptions, findings::BottleneckMove, findings::RestructureFailed, findings::ValidatedWorkers,
    findings::ExtraSyncs, findings::NewStage, findings::AbsentStage, findings::NoStageChanged, findings::GpuBound,
    findings::LaunchBound, findings::HostBound, findings::TorchAnnotation, findings::RunFromRecords,
    findings::DevicesSummed, findings::NoCollective, findings::NoStraggler, findings::StragglerOutsideStages,
    findings::StragglerStage, findings::DiffWithoutSteps, findings::DiffSummary, findings::ClassicOnly, findings::Unannotated,
    findings::NoStageTime, findings::GroupBound, findings::NoDominantStage, findings::IdleGpuHostBound,
    findings::MarkSteps, findings::ProfileMoreSteps, findings::AnnotateOther, findings::MoreLoaderWorkers,
    findings::FasterLoading, findings::FasterHostSide, findings::FasterStage, findings::Balanced,
    findings::NoHostStages, findings::AbsentFromImproved, findings::ChangedTooLittle>;

}  // namespace amdahl::analysis
