// Validation of the projections against a real improvement: from two analysed runs (base and
// improved) measure each stage's real acceleration (its work per step in base / in improved),
// predict the whole-run speedup from the base run alone with those factors (classic Amdahl and
// the replay), and compare with the measured speedup (base ms/step / improved ms/step).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"

namespace amdahl::analysis {

struct ValidateOptions {
  double min_change = 0.03;  // stages whose work per step changed less than this keep factor 1
  bool all_stages = false;   // true: use every measured factor, however small the change
  WhatIfOptions whatif;      // curves are not computed
  // When the base run loads inline on its driving thread and the improved run loads on N other
  // threads: predict with the base run restructured onto N loader workers (restructure.hpp).
  bool structure = true;
};

struct StageChange {
  std::string stage;
  double base_ms_per_step = 0;
  double improved_ms_per_step = 0;  // 0 when the stage is absent from the improved run
  double factor = 1;                // base / improved (measured)
  bool used = false;                // passed to the predictions
  std::optional<Finding> why;       // why not used (AbsentFromImproved, ChangedTooLittle)
  // A stage with GPU operations: factor is its GPU part's; its host part (work and launch calls
  // in its ranges) is measured and used apart (host_factor 0: not a GPU stage).
  double host_base_ms_per_step = 0, host_improved_ms_per_step = 0;
  double host_factor = 0;
  bool host_used = false;
};

struct Validation {
  double base_ms_per_step = 0, improved_ms_per_step = 0;
  double measured_speedup = 1;
  double predicted_naive = 1, predicted_simulated = 1;
  double naive_error = 0, simulated_error = 0;  // predicted / measured - 1
  ConfidenceInterval naive_interval, simulated_interval;
  bool simulation_implemented = false;
  SimulationBounds bounds;
  std::optional<Finding> bottleneck_line;  // the what-if's (findings::BottleneckMove)
  StageShare bottleneck_before, bottleneck_after;  // critical path of the base run / of its replay
  std::vector<StageChange> stages;
  std::vector<Finding> notes;
  // A change of structure (loading inline -> on `workers` loader threads): predicted_simulated
  // is then the replay of the base run restructured onto that many loader workers (with the
  // per-item factors of the loading stages and the factors of the others), and this is the
  // replay with the measured stage factors alone (which read N loaders as an N-times faster
  // stage, still serial with the driving thread's work).
  std::size_t workers = 0;
  double predicted_stage_factors_only = 1;
  double stage_factors_only_error = 0;
};

// Throws InputError when a run has no steps (ms/step is undefined).
Validation validate_runs(const Report& base, const Report& improved, const ValidateOptions& options = {});

}  // namespace amdahl::analysis
