// Problems: why the analysis refused a request, as typed values (an error code and the values its
// sentence needs), carried by InputError and UsageError (errors.hpp). The analysis never names a
// CLI flag or command: the English, with the flags the user gave, lives in one place,
// render/src/problem_text.cpp (amdahl/render/problem_text.hpp: to_text), which the CLI's error
// mapping (cli/src/error_text.hpp) prints as the one error line.
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace amdahl::analysis::problems {

// --- stage factors (what-if requests) ------------------------------------------------------------
// A factor names a stage the profile does not have.
struct UnknownStage { std::string stage; std::vector<std::string> known; };
// A stage (its host part when `host`) is given a factor twice.
struct StageGivenTwice { std::string stage; bool host = false; };
// A host-part factor for a stage with no GPU operations (its host part is the stage).
struct HostPartWithoutGpu { std::string stage; };

// --- the step window -----------------------------------------------------------------------------
// GPU activity was traced in windows of steps, but no step of the driving thread lies inside one.
struct NoStepInGpuWindows {};
// The warm-up asked for leaves no step of the `steps` there are.
struct WarmupLeavesNoStep { std::size_t warmup = 0, steps = 0; };

// --- stage rules ---------------------------------------------------------------------------------
// The rules saved in the profile do not parse (`why`) and the user gave none of their own.
struct SavedRulesInvalid { std::string why; };

// --- more ranks ----------------------------------------------------------------------------------
// The profile has no communication ranges (a collective per step).
struct RanksNeedCommunication {};
// The communication ranges carry no payload bytes.
struct RanksNeedBytes {};
// A 1-rank profile cannot measure the link bandwidth, and none was given.
struct RanksNeedBandwidth {};

// --- loader workers (restructure.hpp) ------------------------------------------------------------
// The dependency graph could not be built, so there is nothing to restructure.
struct WorkersNeedGraph {};
// The graph has no analysis window.
struct WorkersNoWindow {};
// The profile has none of the loading stages asked for (`wanted`); `known`: its stages.
struct WorkersStagesAbsent { std::vector<std::string> wanted, known; };
// The loading stages (`stages`) have no work in the analysis window.
struct WorkersNoLoadingWork { std::vector<std::string> stages; };
// The loading runs on `lanes` other threads with no produce/consume marks linking it to the
// driving thread.
struct WorkersLanesUnlinked { std::size_t lanes = 0; };

}  // namespace amdahl::analysis::problems

namespace amdahl::analysis {

using Problem = std::variant<problems::UnknownStage, problems::StageGivenTwice, problems::HostPartWithoutGpu,
                             problems::NoStepInGpuWindows, problems::WarmupLeavesNoStep, problems::SavedRulesInvalid,
                             problems::RanksNeedCommunication, problems::RanksNeedBytes, problems::RanksNeedBandwidth,
                             problems::WorkersNeedGraph, problems::WorkersNoWindow, problems::WorkersStagesAbsent,
                             problems::WorkersNoLoadingWork, problems::WorkersLanesUnlinked>;

// The problem's code ("unknown_stage"): what() of an error that carries it, for logs and tests.
const char* problem_code(const Problem& problem);

}  // namespace amdahl::analysis
