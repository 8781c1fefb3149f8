// The problems' codes (problem.hpp).
#include "amdahl/analysis/problem.hpp"

namespace amdahl::analysis {
namespace {

using namespace problems;

const char* code(const UnknownStage&) { return "unknown_stage"; }
const char* code(const StageGivenTwice&) { return "stage_given_twice"; }
const char* code(const HostPartWithoutGpu&) { return "host_part_without_gpu"; }
const char* code(const NoStepInGpuWindows&) { return "no_step_in_gpu_windows"; }
const char* code(const WarmupLeavesNoStep&) { return "warmup_leaves_no_step"; }
const char* code(const SavedRulesInvalid&) { return "saved_rules_invalid"; }
const char* code(const RanksNeedCommunication&) { return "ranks_need_communication"; }
const char* code(const RanksNeedBytes&) { return "ranks_need_bytes"; }
const char* code(const RanksNeedBandwidth&) { return "ranks_need_bandwidth"; }
const char* code(const WorkersNeedGraph&) { return "workers_need_graph"; }
const char* code(const WorkersNoWindow&) { return "workers_no_window"; }
const char* code(const WorkersStagesAbsent&) { return "workers_stages_absent"; }
const char* code(const WorkersNoLoadingWork&) { return "workers_no_loading_work"; }
const char* code(const WorkersLanesUnlinked&) { return "workers_lanes_unlinked"; }

}  // namespace

const char* problem_code(const Problem& problem) {
  return std::visit([](const auto& p) { return code(p); }, problem);
}

}  // namespace amdahl::analysis
