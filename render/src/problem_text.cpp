// The English of every problem (problem_text.hpp).
#include "amdahl/render/problem_text.hpp"

#include <string>

#include "words.hpp"

namespace amdahl::render {
namespace {

using namespace analysis::problems;
using detail::joined;

// --- stage factors -------------------------------------------------------------------------------
std::string text(const UnknownStage& p) {
  return "unknown stage '" + p.stage + "' in --speedup; known stages: " + joined(p.known);
}
std::string text(const StageGivenTwice& p) {
  return "stage '" + p.stage + (p.host ? ":host" : "") + "' is given twice in --speedup";
}
std::string text(const HostPartWithoutGpu& p) {
  return "'" + p.stage + ":host': stage '" + p.stage + "' has no GPU operations; its host part is the stage (use " +
         p.stage + "=FACTOR)";
}

// --- the step window -----------------------------------------------------------------------------
std::string text(const NoStepInGpuWindows&) {
  return "GPU activity was collected for windows of steps (amdahl profile --gpu-sample / --gpu-steps), but no step "
         "of the driving thread lies wholly inside one";
}
std::string text(const WarmupLeavesNoStep& p) {
  return "--warmup " + std::to_string(p.warmup) + " leaves no step to analyse: the profile has " +
         std::to_string(p.steps) + " step(s)";
}

// --- stage rules ---------------------------------------------------------------------------------
std::string text(const SavedRulesInvalid& p) {
  return "the stage rules saved in the profile are invalid (" + p.why +
         "); pass --stages FILE to analyse it with rules of your own instead";
}

// --- more ranks ----------------------------------------------------------------------------------
std::string text(const RanksNeedCommunication&) {
  return "--ranks needs communication ranges (a collective per step) in the profile";
}
std::string text(const RanksNeedBytes&) {
  return "--ranks needs the bytes of each collective: an int64 payload on the communication ranges";
}
std::string text(const RanksNeedBandwidth&) {
  return "--ranks from a 1-rank profile needs the link bandwidth: --bandwidth GB/s (a 1-rank run sends nothing, so "
         "its bandwidth cannot be measured)";
}

// --- loader workers ------------------------------------------------------------------------------
std::string text(const WorkersNeedGraph&) {
  return "--workers needs the dependency graph, which could not be built for this profile (see the report's notes)";
}
std::string text(const WorkersNoWindow&) { return "--workers: no analysis window in the graph"; }
std::string text(const WorkersStagesAbsent& p) {
  return "--workers: the profile has none of the loading stages (" + joined(p.wanted) +
         "); known stages: " + joined(p.known);
}
std::string text(const WorkersNoLoadingWork& p) {
  return "--workers: no loading work (" + joined(p.stages) + ") in the analysis window: nothing to move to workers";
}
std::string text(const WorkersLanesUnlinked& p) {
  return "--workers: the loading runs on " + std::to_string(p.lanes) +
         " other thread(s) without produce/consume marks linking it to the driving thread: its items cannot be "
         "redistributed (add the marks, or profile with the loading inline)";
}

}  // namespace

std::string to_text(const analysis::Problem& problem) {
  return std::visit([](const auto& p) { return text(p); }, problem);
}

}  // namespace amdahl::render
