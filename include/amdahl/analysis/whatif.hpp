// What-if projections from a Report: parse STAGE=FACTOR requests; project the classic Amdahl
// speedup (exposed fractions) and the overlap-aware one (replay of the dependency graph with
// the stages scaled), each with a bootstrap interval over steps; say where the bottleneck
// moves; speedup-versus-factor curves per stage; for --target, the factor each stage alone
// needs under both models; and which projections are bounds rather than estimates.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/bootstrap.hpp"
#include "amdahl/analysis/report.hpp"

namespace amdahl::analysis {

// A requested stage speed-up (the CLI parses "STAGE=FACTOR" into it: cli/src/option_parse.hpp).
struct SpeedupRequest {
  std::string stage;
  double factor = 1;
  // The host part of a stage with GPU operations (its work and launch calls on the host),
  // which a faster GPU does not shorten; false: the stage itself (its GPU part when it has GPU
  // operations).
  bool host = false;
};

// One stage with time in the window (stages with none have no row): the factor it alone needs.
struct TargetRow {
  std::string stage;
  double fraction = 0;
  std::optional<double> factor;  // classic: nullopt when no factor suffices
  double limit = 1;              // classic: best possible with this stage alone
  std::optional<double> simulated_factor;  // replay: nullopt when no factor suffices
  double simulated_limit = 1;              // replay with the stage removed
};

struct StageShare {
  std::string stage;  // "" when no stage holds any time
  double fraction = 0;
};

struct CurvePoint {
  double factor = 1;
  double naive = 1;
  double simulated = 1;
};

struct StageCurve {
  std::string stage;
  double fraction = 0;         // exposed share at factor 1
  double amdahl_limit = 1;     // classic, s -> infinity
  double simulated_limit = 1;  // replay with the stage's work removed
  std::vector<CurvePoint> points;
};

struct SimulationBounds {
  bool any = false;  // some projection is a bound
  std::size_t unlinked_waits = 0, linked_waits = 0, dropped_backward_edges = 0;
  std::size_t unlinked_waits_on_path = 0;  // base path, or the scaled replay's path
  double unlinked_wait_ns_on_path = 0;
  std::string direction;                 // "lower", "upper", "unknown" (when `any`)
  std::vector<std::string> projections;  // which figures are bounds, each with its direction
};

// A structural what-if (--workers, restructure.hpp): the driving thread's loading moved onto
// synthetic loader workers. What the transform did.
struct WorkersSummary {
  std::size_t workers = 0, prefetch = 0;
  std::size_t from_lanes = 0;           // 0: the loading was inline; else the loader threads it ran on
  std::vector<std::string> stages;      // the loading stages found in the profile
  std::size_t batches = 0;              // loading runs moved (whole driving lane)
  std::size_t batches_in_window = 0;    // of those, starting in the analysis window
  std::size_t steps = 0;                // analysed steps (spans)
  double moved_ns_in_window = 0;        // recorded driving-lane time moved (loading + gaps in it)
  double loading_ns_in_window = 0;      // of it, work of the loading stages
  // Inline loading moved to workers: what a worker pays per batch relative to the driving
  // thread (cost_low .. cost_high, cpu_use.hpp worker_cost_range; the point uses their
  // geometric mean) and the speedups those give (speedup_low from cost_high). NaN when the
  // loading already ran on loader threads (their measured per-item costs are used).
  double cost_low = 1, cost_high = 1, cost_point = 1;
  double intra_op = 1;
  double cpu_bound_speedup = std::numeric_limits<double>::infinity();  // cpu_use.hpp
  bool intra_op_measured = false, intra_op_spinning = false;
  double main_cores_busy = -1;
  std::uint32_t cpus_allowed = 0;
  double speedup_low = std::numeric_limits<double>::quiet_NaN();
  double speedup_high = std::numeric_limits<double>::quiet_NaN();
};

struct WhatIf {
  std::vector<SpeedupRequest> requests;
  double naive_speedup = 1;
  ConfidenceInterval naive_interval;
  double simulated_speedup = 1;
  ConfidenceInterval simulated_interval;
  bool simulation_implemented = false;
  double projected_wall_ns = 0;            // classic
  double simulated_wall_ns = 0;            // replayed window
  StageShare bottleneck_before, bottleneck_after;
  std::vector<StageShare> after_fractions;  // critical path of the scaled replay, `other` last
  // "after gpu_compute 10x, cpu_preprocess holds 61% of the step" (a BottleneckMove); none
  // without requests (and without --workers).
  std::optional<Finding> bottleneck_line;
  std::vector<StageCurve> curves;
  SimulationBounds bounds;
  std::optional<double> target;
  std::vector<TargetRow> target_rows;
  // Whether some stage alone reaches the target (under either model); false also when no
  // stage has time.
  bool target_reachable() const;
  std::vector<Finding> notes;
  // Set by compute_whatif_with_workers: the simulated figures are those of the restructured
  // run, and the classic ones are NaN (no figure for a structural change).
  std::optional<WorkersSummary> workers;
};

struct WhatIfOptions {
  BootstrapOptions bootstrap;
  bool curves = true;  // the per-stage speedup-vs-factor curves (a replay per point)
  std::vector<double> curve_factors = {1, 1.25, 1.5, 2, 3, 4, 6, 8, 10, 20, 50};
};

// Throws InputError for a stage the report does not know (listing the known ones), and
// UsageError for a stage named twice.
// Where the bottleneck moved with a change (findings::BottleneckMove: "<verb> <workers> loader
// workers and <stage> <factor>x, ..."), from w's bottleneck shares.
findings::BottleneckMove bottleneck_move(const std::string& verb, std::size_t workers,
                                         std::vector<std::pair<std::string, double>> changes, const WhatIf& w,
                                         bool per_step);

WhatIf compute_whatif(const Report& report, const std::vector<SpeedupRequest>& requests,
                      std::optional<double> target, const WhatIfOptions& options = {});

// The replayed speedup (recorded window / replayed window) with `factors` per stage index
// (missing: 1). Needs report.graph.
double simulated_speedup(const Report& report, const std::vector<double>& factors);

}  // namespace amdahl::analysis
