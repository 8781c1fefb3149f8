// What checks a next action (guidance.hpp: NextAction), as typed values: which amdahl command to
// run, with which stage, factor, workers or target. The analysis names no CLI flag or command:
// the command line is written in one place, render/src/check_command.cpp
// (amdahl/render/check_command.hpp: to_command), with the profile as the user named it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace amdahl::analysis::checks {

// The stages and steps the profile's ranges make (`amdahl stages`): mark steps, see what is in
// no stage.
struct ShowStages {};
// Profile again, with more steps: `command` is the profile's own command line (meta 'command')
// when it was recorded; `imported`: the profile is an import (meta 'source' kineto), made again
// by its import command.
struct Reprofile { bool imported = false; std::optional<std::string> command; };
// The what-if of a stage (its host part when `host`) made `factor` times faster.
struct StageFaster { std::string stage; bool host = false; double factor = 2; };
// The what-if of `workers` loader workers taking over the loading stages `stages`.
struct MoreWorkers { std::size_t workers = 0; std::vector<std::string> stages; };
// The factors each stage needs for a whole-run speedup of `target`.
struct TargetSpeedup { double target = 1.1; };

}  // namespace amdahl::analysis::checks

namespace amdahl::analysis {

using Check = std::variant<checks::ShowStages, checks::Reprofile, checks::StageFaster, checks::MoreWorkers,
                           checks::TargetSpeedup>;

}  // namespace amdahl::analysis
