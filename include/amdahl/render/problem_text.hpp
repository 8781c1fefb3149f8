// The English of every problem (amdahl/analysis/problem.hpp: why the analysis refused a
// request), in one place, with the CLI flags and commands the user gave: the CLI's error mapping
// prints it as the one error line, and validate's note tells it when the base run could not be
// restructured.
#pragma once

#include <string>

#include "amdahl/analysis/problem.hpp"

namespace amdahl::render {

// One sentence, no trailing newline nor period.
std::string to_text(const analysis::Problem& problem);

}  // namespace amdahl::render
