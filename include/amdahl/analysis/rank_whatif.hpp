// The data-parallel what-ifs of `amdahl whatif`: `--ranks M [--bandwidth GB/s]` (the run
// projected to M ranks through the ring all-reduce model: a communication factor, replayed)
// and `--straggler-fixed` (the straggler's lateness removed; ranks.hpp; the CLI refuses it for a
// profile without a straggler); rendered by render/ (renderers.hpp).
#pragma once

#include <optional>
#include <string>

#include "amdahl/analysis/ranks.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"

namespace amdahl::analysis {

struct RankWhatIf {
  std::optional<RankProjection> projection;  // --ranks M
  bool straggler_fixed = false;               // --straggler-fixed
};

}  // namespace amdahl::analysis
