// Findings (amdahl/analysis/finding.hpp) and their English (amdahl/render/finding_text.hpp):
// every code's sentence, word for word, and a stage name of 300 characters that comes through
// the analysis into its notes and lines whole (the sentences were once printf'd into buffers of
// 96 to 512 bytes, which cut it).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/validate.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "amdahl/render/finding_text.hpp"
#include "every_code.hpp"
#include "profile_builder.hpp"

using namespace amdahl::analysis;
using namespace amdahl::analysis::findings;
using amdahl::render::to_text;
using amdahl::test::ProfileBuilder;

namespace {

// One finding of each code with the sentence it must read as.
std::vector<std::pair<Finding, std::string>> expected_sentences() {
  ExposedGroup input{StageGroup::input, "", 0.43, {{"disk_io", 0.30, ShareOf::stage}, {"cpu_preprocess", 0.13, ShareOf::stage}}};
  ExposedGroup launch{StageGroup::launch, "", 0.5, {{"gpu_compute", 0.3, ShareOf::host_part}, {"", 0.2, ShareOf::launch_calls}}};
  ExposedGroup user{StageGroup::user_stage, "tokenize", 0.25, {{"tokenize", 0.25, ShareOf::stage}}};
  return {
      {ProfileNote{"stages are PyTorch profiler ranges"}, "stages are PyTorch profiler ranges"},
      {HelperIdleWaits{3, 12.345e6},
       "3 idle gaps (12.3 ms) of threads with CUDA calls but no ranges (e.g. PyTorch's autograd thread) are replayed "
       "as waits on the driving thread"},
      {DriverWaitsOnHelpers{2, 1.25e6},
       "2 stretches (1.2 ms) of the driving thread with no CUDA call of its own ended as a helper thread's CUDA work "
       "ended (e.g. backward() waiting for PyTorch's autograd thread): replayed as waits on it"},
      {LoaderIdleWaits{10, 40e6, 2, 7},
       "10 idle gaps (40.0 ms) between the tasks of 2 loader thread(s) with no wait ranges of their own (e.g. a thread "
       "pool's workers) are replayed as waits: 7 released by the driving thread's submission, the rest keep their "
       "recorded length"},
      {NestedSteps{4},
       "4 step ranges of the driving thread overlap an earlier step range (two sources of steps, e.g. the program's "
       "own `step` range and the one --torch opens): the first of each overlap is the step"},
      {InvalidSavedRules{"line 2: no stage"},
       "the stage rules saved in the profile are invalid (line 2: no stage); they were left out: --stages FILE and the "
       "defaults decided the stages"},
      {CriticalPathBasis{},
       "exposed time is time on the critical path of the run's dependency graph (replayed at factor 1); the driving "
       "thread's view is in driving_thread_view"},
      {UnlinkedPathWaits{5, 2.05e6},
       "5 waits on the critical path (2.0 ms) have no produce/consume or GPU link: they count as 'other' and keep their "
       "length in replays, so projections through them are bounds, not estimates"},
      {DroppedBackwardEdges{6}, "6 dependency edges pointed back in time (clock noise) and were dropped"},
      {InferredStreamEdges{8},
       "8 GPU ops waited for work on another stream; each is linked to the op that ended last before it on another "
       "stream of its device (inferred: the profile has no event records)"},
      {DrivingThreadBasis{"empty graph"},
       "exposed time is the driving thread's view (its stages plus its waits charged to the work waited on): the "
       "dependency graph could not be used (empty graph)"},
      {UnlinkedDrivingWaits{3, 9, 0.04e6},
       "3 of 9 waits on the driving thread (0.0 ms) have no produce/consume link: charged to the other threads' stages "
       "in proportion to their totals, so those exposed figures and their projections are bounds, not estimates"},
      {UnattributedWaits{7.77e6}, "7.8 ms of waits had no work to charge and count as 'other'"},
      {ExposedOverHost{"h2d"},
       "'h2d' has more exposed than host time (waits on its GPU or producer work were charged to it); its hidden time "
       "shows 0"},
      {NoGpuRecords{}, "no GPU records in the profile"},
      {GpuOpsByKind{12},
       "12 GPU ops in the window had no launching stage and were attributed by kind (HtoD -> h2d, DtoH -> d2h, NCCL -> "
       "communication, else gpu_compute)"},
      {WarmupExcluded{1, false}, "1 warm-up step(s) excluded (--warmup)"},
      {Unannotated{0.57, true}, "unannotated: 57% of each step is in no stage; add stage ranges to see what it is"},
      {NoStageTime{}, "no stage time in the window"},
      {GroupBound{input, true}, "input bound: 43% of each step is exposed data loading (disk_io 30%, cpu_preprocess 13%)"},
      {NoDominantStage{user}, "no dominant stage: the largest exposed share is 'tokenize' at 25%"},
      {IdleGpuHostBound{0.8, "gpu_compute", ShareOf::host_part, false, 0.6, 0.1, false},
       "host bound: the GPU is idle 80% of the window, so the host side holds the run; the largest host share is "
       "gpu_compute's host part (60% of the run); GPU compute holds 10% of the run on the critical path"},
      {SampledSteps{10, 60, 3, 2, 10, 59, 10.04, 9.96, 0, 0, 0, std::nullopt},
       "sampled GPU figures: GPU activity was traced for 10 of 60 steps in 3 window(s) (amdahl profile --gpu-sample / "
       "--gpu-steps); the stage breakdown, GPU figures and step statistics come from window 2 (its 10 steps, less the "
       "warm-up); over all 59 steps after the warm-up a step took 10.0 ms on average (median 10.0 ms)"},
      {OneStep{}, "only one step: no warm-up excluded"},
      {SteadyState{2, 3, 1},
       "steady state: 2 step(s) after the warm-up excluded as the input pipeline's fill (3 batch(es) were ready when the "
       "first step began; the driving thread caught up with its loaders at the next step); 1 final step(s) excluded as "
       "its drain (they started after the loaders' last batch); --warmup N keeps them"},
      {SameStepCounts{}, "several threads have the same number of step ranges; the first is the driving thread"},
      {SampledTime{4, 250.06},
       "sampled GPU figures: GPU activity was traced in 4 time window(s) (amdahl profile --gpu-sample, a program "
       "without steps); the analysis keeps to the longest, 250.1 ms"},
      {NoSteps{},
       "no step ranges found: analysing the whole run of the longest-lived thread with stage ranges; no per-step "
       "statistics or intervals"},
      {NoReplay{}, "no dependency graph could be replayed: simulated_speedup repeats the classic Amdahl figure"},
      {NoReplayBounds{},
       "some waits had no produce/consume link, so the exposed fractions behind these projections are bounds, not "
       "estimates"},
      {UnlinkedReplayWaits{2, 3e6, "lower"},
       "2 waits on the critical path (3.0 ms) are linked to nothing (no produce/consume marks or GPU link): they keep "
       "their recorded length in the replay, so simulated_speedup and naive_speedup are lower bounds, not estimates "
       "(add produce/consume marks to make them estimates)"},
      {NoStepIntervals{}, "no steps: the intervals are the point values (no steps to resample)"},
      {WorkersFromLanes{4, 100, {"disk_io", "cpu_preprocess"}, 2, 8},
       "--workers 4: the 100 items (of disk_io, cpu_preprocess) the window consumed from 2 loader thread(s) dealt "
       "round-robin over 4 synthetic loader lanes in consume order; a worker's wait for its next index is released by "
       "the consume 8 items back, a blocked put keeps its queue; classic Amdahl has no figure for this structural "
       "change (naive_speedup is null)"},
      {WorkersInline{4, 20, {"disk_io"}, 500e6, 8},
       "--workers 4: 20 batches of loading (disk_io; 500.0 ms of the driving thread's time in the window) moved to 4 "
       "synthetic loader workers (batch k on worker k mod 4, up to 8 batches ahead); classic Amdahl has no figure for "
       "this structural change (naive_speedup is null)"},
      {WorkersBatches{22, 20},
       "--workers: 22 loading runs in 20 analysed steps; each run of loading work on the driving thread is treated as "
       "one batch"},
      {WorkersCost{4, 1.0, 1.5, 1.226, true, false},
       "--workers 4: a worker builds a batch in 1.00x .. 1.50x the driving thread's inline time (point: 1.23x): the "
       "high end is the CPU other threads spent during the inline loading, which a worker's one intra-op thread does "
       "itself (measured: process CPU over the loading ranges; pool threads that spin make it an upper end)"},
      {WorkersCost{2, 1.0, 2.0, 1.414, false, false},
       "--workers 2: a worker builds a batch in 1.00x .. 2.00x the driving thread's inline time (point: 1.41x): the "
       "high end is the CPU other threads spent during the inline loading, which a worker's one intra-op thread does "
       "itself (assumed: the profile has no CPU times; workers measured 0.9x to 1.36x the inline time per batch on the "
       "H200, docs/validation.md)"},
      {WorkersCoreBound{8, 2.5, 2, true},
       "--workers 8: the cores bound the speedup to 2.50x (2 CPUs allowed; the driving thread was on a CPU 80% of its "
       "steps: the same work spread over more threads cannot finish faster); this bound holds the figure above"},
      {WorkersAssumptions{},
       "--workers assumes: workers build whole batches; the inter-process cost (pickling, shared memory) is not "
       "modelled beyond the range above"},
      {BottleneckMove{"after", 0, {{"gpu_compute", 10}, {"disk_io:host", 2.5}}, "gpu_compute", "cpu_preprocess", 0.8,
                      0.61, true},
       "after gpu_compute 10x and disk_io:host 2.5x, cpu_preprocess holds 61% of the step (the bottleneck moved) "
       "(before: gpu_compute 80%)"},
      {BottleneckMove{"with", 4, {}, "", "", 0, 0, false}, "with 4 loader workers, no stage holds time on the critical path"},
      {ClassicOnly{DrivingThreadBasis{"", true, 1.5e6, 2e6}},
       "the run's dependency graph could not be replayed (its unscaled replay gives 1.500 ms for a 2.000 ms window)"},
      {RestructureFailed{"no batches", std::nullopt},
       "the improved run loads on other threads, but the base run could not be restructured onto loader workers: no "
       "batches"},
      {RestructureFailed{"workers_no_loading_work", problems::WorkersNoLoadingWork{{"disk_io", "cpu_preprocess"}}},
       "the improved run loads on other threads, but the base run could not be restructured onto loader workers: "
       "--workers: no loading work (disk_io, cpu_preprocess) in the analysis window: nothing to move to workers"},
      {ValidatedWorkers{4, 1.2345, -0.05},
       "the base run loads inline on its driving thread, the improved run on 4 other threads: predicted_simulated is "
       "the base run restructured onto 4 loader workers (whatif --workers 4); with the measured stage factors alone the "
       "replay gives 1.234x (-5.0%); classic Amdahl has no figure for the structural change (predicted_naive uses the "
       "stage factors)"},
      {ExtraSyncs{2, 1},
       "the improved run waits on the GPU 2.0 times per step, the base run 1.0: a synchronization the base run does "
       "not have is not modelled (the prediction keeps the base run's)"},
      {NewStage{"amp"}, "stage 'amp' is new in the improved run: not modelled by the base run"},
      {AbsentStage{"d2h"}, "stage 'd2h' is absent from the improved run: not modelled"},
      {NoStageChanged{}, "no stage changed by at least the threshold: both predictions are 1x"},
      {AbsentFromImproved{}, "absent from the improved run"},
      {ChangedTooLittle{5}, "changed less than 5%"},
      {NoHostStages{},
       "host stages are unknown: the profile has no step and no stage ranges. For a PyTorch script run `amdahl "
       "profile --torch -- python3 train.py` (the default for Python commands); otherwise annotate with NVTX ranges in "
       "domain `amdahl` (docs/annotation-guide.md). Until then the GPU idle time is an upper bound of what input and "
       "host work cost."},
      {MarkSteps{},
       "no step ranges: the figures cover the whole run, set-up included; mark each training step with a `step` range "
       "(docs/annotation-guide.md), or let `amdahl profile` annotate PyTorch"},
      {ProfileMoreSteps{3, true},
       "window too short: only 3 analysed step(s), so one slow step moves every figure; record more steps with the "
       "PyTorch profiler (its schedule's active steps), then import the trace again"},
      {AnnotateOther{0.4},
       "40% of the step time is in no stage: annotate it (stage ranges, or a --stages rule file for the range names it "
       "already has) before trusting the other figures"},
      {MoreLoaderWorkers{{"disk_io", "cpu_preprocess"}, 0.5, 4, 1.8, true},
       "input (disk_io, cpu_preprocess) holds 50% of the step time: more DataLoader workers (4 loader workers give "
       "1.80x by replay, the loading moved off the training thread)"},
      {FasterLoading{{"disk_io"}, 0.5, "disk_io", 1.333, "classic", 2},
       "input (disk_io) holds 50% of the step time: faster loading (disk_io 2x faster gives 1.33x by classic, at most "
       "2.00x with the stage taking no time; more workers, a faster format or caching)"},
      {FasterHostSide{"gpu_compute", 0.3, 1.17, "replay"},
       "the host side of gpu_compute (launching GPU work, library host code) holds 30% of the step time: CUDA graphs, "
       "torch.compile or larger batches cut it (2x less host time gives 1.17x by replay; a faster GPU shortens none of "
       "it)"},
      {FasterStage{"h2d", 0.2, 1.11, "replay", std::numeric_limits<double>::infinity()},
       "h2d holds 20% of the step time: pinned memory and non_blocking copies on a side stream overlap it with compute "
       "(2x faster copies give 1.11x by replay)"},
      {Balanced{}, "no single stage 2x faster gives 2% or more: the time is spread out; see what a target needs"},
      {GpuBound{0.9},
       "GPU bound: the GPU is busy 90% of the time from its first to its last operation; faster or fewer kernels "
       "shorten the run"},
      {LaunchBound{0.5, 0.75, 100000, 1.6},
       "launch bound: the GPU is idle 50% of the time from its first to its last operation, 75% of that in gaps under "
       "100 us between operations (the host issuing work too slowly: Python, dispatch, launches); a faster host gives "
       "at most 1.60x"},
      {HostBound{0.5, 0.75, 100000, 2},
       "host bound: the GPU is idle 50% of the time from its first to its last operation, 75% of that in gaps of 100 us "
       "or more (host work between GPU work: input loading, Python, synchronisation); a faster host gives at most "
       "2.00x"},
      {TorchAnnotation{"unavailable: no CUDA"}, "PyTorch annotation was not possible: unavailable: no CUDA"},
      {RunFromRecords{},
       "the run's start and end are not in the profile: the run is taken from the first to the last GPU or CUDA API "
       "record"},
      {DevicesSummed{2}, "busy and idle are summed over 2 devices (process, device); shares are of their summed time"},
      {NoCollective{}, "no collective (communication range) is matched across the ranks"},
      {NoStraggler{1, 3, 10, 0.5e6, 0.25e6},
       "no straggler: rank 1 was last at 3 of 10 collectives (0.50 ms after the median rank on average), and the other "
       "ranks lost 0.25 ms per step waiting for the last arrival"},
      {StragglerOutsideStages{2, 9, 10, 4e6},
       "rank 2 is the straggler: last to arrive at 9 of 10 collectives, 4.00 ms after the median rank on average; no "
       "stage of it takes longer than the other ranks' (the delay is outside the stages)"},
      {StragglerStage{2, 9, 10, 4e6, "disk_io", 6e6, 2e6},
       "rank 2 is the straggler: last to arrive at 9 of 10 collectives, 4.00 ms after the median rank on average; its "
       "disk_io takes 6.00 ms per step against 2.00 ms on the other ranks (3.00x)"},
      {DiffWithoutSteps{}, "a run has no steps: figures are for the whole analysis window of each run, not per step"},
      {DiffSummary{true, 12e6, 10e6, 1.2, "disk_io", "faster", -2e6},
       "step 12.00 ms -> 10.00 ms (b takes 0.83x the time of a: 1.20x faster); largest change: disk_io -2.00 ms exposed "
       "per step (faster)"},
      {GroupBound{launch, false},
       "launch bound (host overhead): 50% of the run is exposed host time launching GPU work (gpu_compute host part "
       "30%, launch calls outside stages 20%); a faster GPU shortens none of it"},
  };
}

std::string say(const Finding& f) { return to_text(f); }

// Per step: a 60 ms stage named `name`, then 40 ms of disk_io.
ProfileBuilder long_named(const std::string& name, double io_ms = 40, int steps = 8) {
  ProfileBuilder b;
  double t = 0;
  for (int k = 0; k < steps; ++k) {
    b.stage(1, "step", t, t + 60 + io_ms).stage(1, name, t, t + 60).stage(1, "disk_io", t + 60, t + 60 + io_ms);
    t += 60 + io_ms;
  }
  return b;
}

}  // namespace

TEST_CASE("to_text: every finding's sentence, word for word") {
  amdahl::test::check_every_code(expected_sentences(), [](const Finding& f) { return to_text(f); });
}

TEST_CASE("to_text: the variants of a code") {
  CHECK(say(TorchAnnotation{"off"}) == "PyTorch annotation was switched off (--no-torch)");
  CHECK(say(TorchAnnotation{"missing"}) ==
        "PyTorch annotation was asked for, but the amdahl_torch package was missing");
  CHECK(say(TorchAnnotation{"on"}) ==
        "PyTorch annotation was on, but recorded no ranges (did the script import torch?)");
  CHECK(say(SteadyState{0, 0, 2}) ==
        "steady state: 2 final step(s) excluded as its drain (they started after the loaders' last batch); --warmup N "
        "keeps them");
  CHECK(say(UnlinkedReplayWaits{1, 1e6, "unknown"}).find("naive_speedup are bounds, not estimates") !=
        std::string::npos);
  CHECK(say(ClassicOnly{}) == "the run's dependency graph could not be replayed");
  CHECK(say(DiffSummary{false, 5e6, 5.001e6, 0.9998, "", "", 0}) == "window 5.00 ms -> 5.00 ms (unchanged)");
  CHECK(say(FasterStage{"gpu_compute", 0.6, 2.0, "replay", 2.5}) ==
        "GPU compute (60% of the step time): a faster GPU or AMP (2x faster kernels give 2.00x by replay, at most 2.50x "
        "with the stage taking no time)");
  CHECK(say(ProfileMoreSteps{2, false}) ==
        "window too short: only 2 analysed step(s), so one slow step moves every figure; profile more steps");
  CHECK(to_text(std::optional<Finding>{}).empty());
  CHECK(to_text(PathPart{true, "gpu0/stream7", 0, 1, 1}) == "GPU work on gpu0/stream7");
  CHECK(to_text(PathPart{false, "python", 12, 1, 1}) == "host work on thread 'python'");
  CHECK(to_text(PathPart{false, "", 12, 1, 1}) == "host work on thread tid 12");
}

TEST_CASE("a 300-character stage name comes whole through the verdict, the what-if and validate") {
  std::string name = "stage_";
  while (name.size() < 300) name += "abcdefghij";
  name.resize(300);
  const Report r = analyze(long_named(name).profile);
  REQUIRE(r.find_stage(name));
  // The verdict: the user stage holds 60% of each step.
  CHECK(to_text(r.verdict) == name + " bound: 60% of each step is exposed '" + name + "'");

  // The what-if on the stage itself and on another: its name twice in the bottleneck line.
  const WhatIf w = compute_whatif(r, {{name, 2.0}}, std::nullopt);
  REQUIRE(w.bottleneck_line);
  const std::string line = to_text(w.bottleneck_line);
  CHECK(line.rfind("after " + name + " 2x, ", 0) == 0);
  CHECK(line.find("(before: " + name + " 60%)") != std::string::npos);

  // A note of validate: the stage is new in the improved run.
  const Report base = analyze(long_named("other_work").profile);
  const Validation v = validate_runs(base, r);
  bool noted = false;
  for (const auto& n : v.notes) noted |= to_text(n) == "stage '" + name + "' is new in the improved run: not modelled by the base run";
  CHECK(noted);
}
