// The whole analysis of one profile: stage table (exposed, total, hidden, fractions from the
// critical path of the replay graph, or the driving thread's view when no graph can be built;
// per-step statistics, classic Amdahl projections), steps, GPU summary, verdict, notes and
// diagnostics; the graph itself for what-if replays (rendered by render/: renderers.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/finding.hpp"
#include "amdahl/analysis/cpu_use.hpp"
#include "amdahl/analysis/stage_mapping.hpp"
#include "amdahl/analysis/attribution.hpp"
#include "amdahl/analysis/gpu_attribution.hpp"
#include "amdahl/analysis/guidance.hpp"
#include "amdahl/analysis/path_explanation.hpp"
#include "amdahl/analysis/ranks.hpp"
#include "amdahl/analysis/replay.hpp"
#include "amdahl/analysis/stage_rules.hpp"
#include "amdahl/analysis/stage_stats.hpp"
#include "amdahl/analysis/steps.hpp"
#include "amdahl/format/profile.hpp"

namespace amdahl::analysis {

struct AnalysisOptions {
  std::vector<StageRule> user_rules;  // --stages FILE rules (tried before the profile's own)
  std::string step_name = "step";
  std::optional<std::size_t> warmup;  // nullopt: automatic
  // --stages FILE was given (even a file with no rules): it wins over rules saved in the
  // profile that do not parse, which are then left out (the report says so). Last, so that
  // positional initialisers ({rules, step name, warm-up}) keep working.
  bool user_rules_given = false;
};

struct StageRow {
  std::string name;
  bool canonical = false;
  bool is_other = false;
  double exposed_ns = 0, total_ns = 0, hidden_ns = 0, fraction = 0;
  // A stage with GPU operations: its exposed time split into the host part (work and launch
  // calls inside its ranges on the path) and the GPU part (its operations on the path). A host
  // stage has exposed_host_ns = exposed_ns and exposed_gpu_ns = 0.
  double exposed_host_ns = 0, exposed_gpu_ns = 0;
  bool on_gpu = false;
  StatsSummary per_step_exposed_ns;  // over the analysed step spans
  double speedup_2x = 1, speedup_4x = 1, speedup_10x = 1, speedup_limit = 1;
  std::int64_t gpu_busy_ns = 0;
};

struct ProfileDiagnostic {
  std::uint32_t pid = 0;
  std::string key;
  std::uint64_t count = 0;
  std::string detail;
};

struct Report {
  std::int64_t wall_ns = 0;
  Interval window;
  std::size_t steps = 0, total_steps = 0, warmup = 0;
  std::size_t first_step = 0;   // number of the first analysed step, 0-based (steps.hpp)
  std::optional<GpuSampling> gpu_sampling;  // GPU traced in windows (steps.hpp)
  bool warmup_auto = true;
  std::size_t fill_steps = 0;   // of warmup: the input pipeline's fill (steps.hpp, pipeline_edges)
  std::size_t drain_steps = 0;  // trailing steps excluded: the pipeline's drain
  CpuUse cpu;                   // the host stages' CPU use in the window (cpu_use.hpp)
  std::vector<StageMappingRow> stage_mapping;  // which range names went to which stage (stage_mapping.hpp)
  std::string step_name;
  std::uint32_t driving_pid = 0;
  std::uint64_t driving_tid = 0;
  std::string driving_name;
  std::vector<StageRow> stages;  // index = StageId; the last row is `other`
  StatsSummary step_ns;          // step span lengths
  // The figures the stage rows show: the critical path of the replay graph when it could be
  // built ("critical_path"), else the driving thread's view ("driving_thread").
  std::string exposed_basis = "driving_thread";
  Exposure exposure;             // per-span figures of that basis (bootstrap, whatif)
  Exposure driving_view;         // the driving thread's view, always computed
  // The dependency graph (null when it could not be built) and its critical path at factor 1.
  std::shared_ptr<const ReplayGraph> graph;
  CriticalPath path;
  PathExplanation explanation;  // what holds `path` (computed once with it)
  // Work per analysed step, per stage (not `other`): host and GPU work in the window, except
  // on producer threads (lanes with `produce` marks), whose work is counted per item: from the
  // produce before the first item consumed in the window to the produce of the last one (so a
  // loader running ahead of the window is counted for the items the window used). Host work
  // is divided by the number of threads that did it (4 loaders instead of 1 read as a 4x faster
  // stage). What `validate` compares between runs. Empty without a graph or steps.
  std::vector<double> work_per_step_ns;
  // Per stage with GPU operations, its host part per analysed step (work and launch calls in
  // its ranges on every host thread), which a faster GPU does not shorten; 0 for other stages.
  std::vector<double> host_work_per_step_ns;
  GpuSummary gpu;
  RankAnalysis ranks;  // data-parallel ranks (ranks.hpp); rows empty for a one-process run
  Finding verdict;  // Unannotated, NoStageTime, GroupBound, NoDominantStage or IdleGpuHostBound
  std::vector<Finding> notes;  // what the figures are and where they are bounds (finding.hpp)
  std::vector<ProfileDiagnostic> diagnostics;
  std::map<std::string, std::string> meta;
  // Filled by add_guidance (projections.hpp) for `amdahl report`: the replay beside classic
  // Amdahl, targets, the user's what-if, next actions. Empty (computed = false) otherwise.
  Guidance guidance;

  const StageRow* find_stage(const std::string& name) const;  // not `other`
  std::vector<std::string> stage_names() const;                // not `other`
};

// The rules a profile is analysed with: `options.user_rules`, then the profile's meta
// 'stage_rules' text (if any), then the defaults. Saved rules that do not parse: left out when
// `options.user_rules_given`, else an InputError that tells the user to pass --stages FILE.
StageRules rules_for(const format::Profile& profile, const AnalysisOptions& options);

// Why the profile's saved stage rules (meta 'stage_rules') do not parse; nullopt when they do
// or there are none.
std::optional<std::string> invalid_saved_rules(const format::Profile& profile);

// Throws InputError when the profile has nothing to analyse.
Report analyze(const format::Profile& profile, const AnalysisOptions& options = {});
// The same, for a caller that gives the profile up: its big record tables (ranges, marks, API
// calls, GPU ops, syncs) are released once the dependency graph is built, which lowers the
// peak memory of the replays (the profile is left with its meta, strings and small tables).
Report analyze(format::Profile&& profile, const AnalysisOptions& options = {});

// The verdict line from the stage rows (thresholds: docs/analysis.md). `launch_fraction`: the
// share of the window the critical path spends in CUDA launch calls (part of `other`).
Finding verdict_line(const std::vector<StageRow>& stages, bool per_step, double launch_fraction = 0);

}  // namespace amdahl::analysis
