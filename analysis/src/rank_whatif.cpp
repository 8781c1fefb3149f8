// The data-parallel what-ifs' checks (rank_whatif.hpp); rendered by render/src/rank_whatif_render.cpp.
#include "amdahl/analysis/rank_whatif.hpp"

#include "amdahl/analysis/errors.hpp"

namespace amdahl::analysis {

void check_straggler_fixed(const Report& report) {
  if (!report.ranks.straggler) {
    throw InputError(report.ranks.rows.size() < 2
                         ? "--straggler-fixed needs a profile with two or more ranks"
                         : "--straggler-fixed: this profile has no straggler (" + report.ranks.line + ")");
  }
}

}  // namespace amdahl::analysis
