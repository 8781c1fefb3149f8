// The data-parallel what-ifs of `amdahl whatif`: `--ranks M [--bandwidth GB/s]` (the run
// projected to M ranks through the ring all-reduce model: a communication factor, replayed)
// and `--straggler-fixed` (the straggler's lateness removed; ranks.hpp), with their renderings.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "amdahl/analysis/ranks.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"

namespace amdahl::analysis {

struct RankWhatIf {
  std::optional<RankProjection> projection;  // --ranks M
  bool straggler_fixed = false;               // --straggler-fixed
};

// Throws InputError for --straggler-fixed on a profile with no straggler.
void check_straggler_fixed(const Report& report);

// JSON: `rank_projection` {from_ranks, to_ranks, bytes, bandwidth_gbps, bandwidth_measured,
// measured_collective_ns, fixed_ns, projected_collective_ns, factor, model, step_ns,
// projected_step_ns} and `straggler_fixed` {rank, step_ns, fixed_step_ns, speedup}.
void add_rank_whatif_json(nlohmann::json& j, const Report& report, const RankWhatIf& rw, const WhatIf* w);
std::string rank_whatif_text(const Report& report, const RankWhatIf& rw, const WhatIf* w);

}  // namespace amdahl::analysis
