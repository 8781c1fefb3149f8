// Data-parallel runs: one row per rank (a process with step ranges, its rank from the profile's
// processes table), what each rank's driving thread did per step, the communication it ran and
// how much of it was exposed, and the straggler: the rank that arrives last at the collectives
// (the start of its k-th `communication` range against the other ranks' k-th), not the one with
// the longest durations, which an all-reduce equalises; with the stage that made it late.
// Plus the ring all-reduce model behind `whatif --ranks M` and the fixed-straggler estimate.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "amdahl/analysis/finding.hpp"
#include "amdahl/analysis/timeline.hpp"

namespace amdahl::analysis {

struct RankRow {
  std::uint32_t rank = 0;
  std::uint32_t pid = 0;
  std::size_t steps = 0;       // analysed steps of its driving thread
  double step_ns = 0;          // mean step (analysed span) of its driving thread
  // Per step on its driving thread, by stage id (size = stage count), plus waits and `other`;
  // these sum to step_ns (the per-rank stacked bar).
  std::vector<double> lane_ns;
  double lane_wait_ns = 0, lane_other_ns = 0;
  // Per step, work of each stage on all the rank's threads (its communication thread too).
  std::vector<double> work_ns;
  // Communication per step: all of it, the part during which the driving thread did no stage
  // work (exposed) and the rest (hidden behind its work).
  double comm_ns = 0, comm_exposed_ns = 0, comm_hidden_ns = 0;
  // Per collective on average: own arrival minus the median arrival, and the time its
  // communication range spent before the last rank arrived (waiting for the others).
  double lateness_ns = 0, waited_for_last_ns = 0;
  std::size_t times_last = 0;   // collectives at which it arrived last
  std::int64_t comm_bytes = 0;  // median payload of its communication ranges (0: none)
  double collective_ns = 0;     // mean communication range length
};

struct RankAnalysis {
  std::vector<RankRow> rows;    // by rank; empty unless the profile has 2+ ranks or a rank
                                // with communication ranges
  std::size_t world = 0;        // ranks seen
  std::size_t collectives = 0;  // collectives matched across all ranks in the window
  std::optional<std::size_t> straggler;  // index into rows
  std::string late_stage;       // the straggler's stage with the largest excess per step
  double late_stage_ns = 0, late_stage_others_ns = 0;  // that stage per step: it, the others' median
  double straggler_lateness_ns = 0;  // its mean arrival after the median rank
  double transfer_ns = 0;       // per collective: the last arrival's communication range (no waiting)
  std::int64_t comm_bytes = 0;  // bytes per collective (median payload), 0 unknown
  // Fixed straggler (estimate): the other ranks' median step minus the part of their exposed
  // communication they spent waiting for the last arrival.
  double fixed_step_ns = 0;
  // Who is late and why, or that none is (NoCollective, NoStraggler, StragglerOutsideStages or
  // StragglerStage: finding.hpp); none for a one-process run.
  std::optional<Finding> line;
};

// Ranks of a timeline. `window`: the report's analysis window (collectives whose first arrival
// falls in it are matched); `warmup`: leading steps each rank leaves out (as the report).
RankAnalysis analyze_ranks(const Timeline& tl, const Interval& window, std::size_t warmup);

// The ring all-reduce model: a fixed cost per collective plus 2(M-1)/M of the bytes over the
// link bandwidth (reduce-scatter then all-gather, each rank sending M-1 chunks of bytes/M twice).
// 0 for M = 1 (nothing to send) but the fixed cost.
double ring_allreduce_ns(double bytes, std::size_t ranks, double bytes_per_s, double fixed_ns);

// The projection of a profile with `world` ranks to `ranks` ranks: the factor by which the
// communication stage changes (measured collective / modelled collective; < 1: slower).
struct RankProjection {
  std::size_t from_ranks = 0, to_ranks = 0;
  double bytes = 0;              // per collective, from the profile
  double bytes_per_s = 0;        // given, or estimated from a multi-rank profile (fixed cost 0)
  bool bandwidth_measured = false;
  double measured_ns = 0;        // collective in the profile (the last arrival's, no waiting)
  double fixed_ns = 0;           // measured_ns less the modelled transfer at from_ranks
  double projected_ns = 0;       // the model at to_ranks
  double factor = 1;             // measured / projected: --speedup communication=factor
  // The model stated with its figures: render's to_text.
};
// Throws UsageError when it cannot be made (no communication ranges with a byte payload, no
// bandwidth for a 1-rank profile, M < 1).
RankProjection project_ranks(const RankAnalysis& ranks, std::size_t to_ranks,
                             std::optional<double> bytes_per_s);

}  // namespace amdahl::analysis
