// The HTML report's ranks section (data-parallel runs, analysis/ranks.hpp).
#pragma once

#include <string>
#include <vector>

#include "amdahl/analysis/report.hpp"

namespace amdahl::render::detail {

// "" unless the profile has more than one rank; else the ranks side by side: a stacked bar per
// rank of its driving thread's step by stage (the straggler marked), with `colors` indexed as
// report.stages (empty: not shown elsewhere, coloured here), and a table of each rank's
// communication and arrival.
std::string ranks_html(const analysis::Report& r, const std::vector<std::string>& colors);

}  // namespace amdahl::render::detail
