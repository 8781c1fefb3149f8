// Problems (amdahl/analysis/problem.hpp: why the analysis refused a request) and their English
// (amdahl/render/problem_text.hpp): every code's sentence word for word, as the analysis worded
// it before the flags left it (the CLI's error lines stay byte-identical), and the code an error
// carrying one reports as what().
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/render/problem_text.hpp"
#include "every_code.hpp"

using namespace amdahl::analysis;
using namespace amdahl::analysis::problems;
using amdahl::render::to_text;

namespace {

// One problem of each code with the sentence it must read as.
std::vector<std::pair<Problem, std::string>> expected_sentences() {
  return {
      {UnknownStage{"gpu", {"disk_io", "gpu_compute"}},
       "unknown stage 'gpu' in --speedup; known stages: disk_io, gpu_compute"},
      {StageGivenTwice{"h2d", true}, "stage 'h2d:host' is given twice in --speedup"},
      {HostPartWithoutGpu{"disk_io"},
       "'disk_io:host': stage 'disk_io' has no GPU operations; its host part is the stage (use disk_io=FACTOR)"},
      {NoStepInGpuWindows{},
       "GPU activity was collected for windows of steps (amdahl profile --gpu-sample / --gpu-steps), but no step of "
       "the driving thread lies wholly inside one"},
      {WarmupLeavesNoStep{11, 10}, "--warmup 11 leaves no step to analyse: the profile has 10 step(s)"},
      {SavedRulesInvalid{"profile stage_rules:2: no stage"},
       "the stage rules saved in the profile are invalid (profile stage_rules:2: no stage); pass --stages FILE to "
       "analyse it with rules of your own instead"},
      {RanksNeedCommunication{}, "--ranks needs communication ranges (a collective per step) in the profile"},
      {RanksNeedBytes{}, "--ranks needs the bytes of each collective: an int64 payload on the communication ranges"},
      {RanksNeedBandwidth{},
       "--ranks from a 1-rank profile needs the link bandwidth: --bandwidth GB/s (a 1-rank run sends nothing, so its "
       "bandwidth cannot be measured)"},
      {WorkersNeedGraph{},
       "--workers needs the dependency graph, which could not be built for this profile (see the report's notes)"},
      {WorkersNoWindow{}, "--workers: no analysis window in the graph"},
      {WorkersStagesAbsent{{"nope", "nada"}, {"disk_io", "gpu_compute"}},
       "--workers: the profile has none of the loading stages (nope, nada); known stages: disk_io, gpu_compute"},
      {WorkersNoLoadingWork{{"disk_io"}},
       "--workers: no loading work (disk_io) in the analysis window: nothing to move to workers"},
      {WorkersLanesUnlinked{2},
       "--workers: the loading runs on 2 other thread(s) without produce/consume marks linking it to the driving "
       "thread: its items cannot be redistributed (add the marks, or profile with the loading inline)"},
  };
}

}  // namespace

TEST_CASE("to_text: every problem's sentence, word for word") {
  amdahl::test::check_every_code(expected_sentences(), [](const Problem& p) { return to_text(p); });
}

TEST_CASE("an error carrying a problem: its code as what(), the problem typed; a plain error carries none") {
  std::set<std::string> names;
  for (const auto& [problem, sentence] : expected_sentences()) names.insert(problem_code(problem));
  CHECK(names.size() == std::variant_size_v<Problem>);  // one code per problem

  const InputError in(WarmupLeavesNoStep{3, 2});
  CHECK(std::string(in.what()) == "warmup_leaves_no_step");
  REQUIRE(problem_of(in) != nullptr);
  CHECK(std::get<WarmupLeavesNoStep>(*problem_of(in)).steps == 2);
  const UsageError use(RanksNeedBytes{});
  CHECK(std::string(use.what()) == "ranks_need_bytes");
  REQUIRE(problem_of(use) != nullptr);
  CHECK(std::holds_alternative<RanksNeedBytes>(*problem_of(use)));
  const InputError copied = in;  // copies share the problem
  CHECK(problem_of(copied) == problem_of(in));

  CHECK(problem_of(InputError("plain")) == nullptr);
  CHECK(problem_of(UsageError("plain")) == nullptr);
  CHECK(problem_of(NoRangesError("no ranges")) == nullptr);
  CHECK(problem_of(std::runtime_error("other")) == nullptr);
}
