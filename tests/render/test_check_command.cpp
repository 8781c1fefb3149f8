// The command lines of the next actions' checks (amdahl/render/check_command.hpp): every check's
// command word for word, the profile quoted for a shell where it needs it, --worker-stages only
// where the default list would not do.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "amdahl/render/check_command.hpp"

using namespace amdahl::analysis;
using namespace amdahl::analysis::checks;
using amdahl::render::shell_arg;
using amdahl::render::to_command;

TEST_CASE("to_command: every check's command, word for word") {
  const std::vector<std::pair<Check, std::string>> expected = {
      {ShowStages{}, "amdahl stages run.amdahl"},
      {Reprofile{false, "python train.py --epochs 1"}, "amdahl profile -o run.amdahl -- python train.py --epochs 1"},
      {Reprofile{false, std::nullopt}, "amdahl profile -o run.amdahl -- COMMAND"},
      {Reprofile{true, "amdahl import trace.json"}, "amdahl import trace.json -o run.amdahl --force"},
      {Reprofile{true, std::nullopt}, "amdahl import TRACE -o run.amdahl"},
      {StageFaster{"gpu_compute", false, 2}, "amdahl whatif run.amdahl --speedup gpu_compute=2"},
      {StageFaster{"gpu_compute", true, 2}, "amdahl whatif run.amdahl --speedup gpu_compute:host=2"},
      {StageFaster{"h2d", false, 1.5}, "amdahl whatif run.amdahl --speedup h2d=1.5"},
      {MoreWorkers{4, {"disk_io", "cpu_preprocess"}}, "amdahl whatif run.amdahl --workers 4"},
      {MoreWorkers{2, {"cpu_preprocess"}}, "amdahl whatif run.amdahl --workers 2"},  // a subset: the defaults do
      {MoreWorkers{6, {"disk_io", "data_loading"}},
       "amdahl whatif run.amdahl --workers 6 --worker-stages disk_io,data_loading"},
      {TargetSpeedup{1.1}, "amdahl whatif run.amdahl --target 1.1"},
  };
  std::set<std::size_t> kinds;
  for (const auto& [check, command] : expected) {
    kinds.insert(check.index());
    CHECK(to_command(check, "run.amdahl") == command);
  }
  CHECK(kinds.size() == std::variant_size_v<Check>);  // a new check needs its lines here
}

TEST_CASE("to_command: the profile and stage names quoted for a shell where they need it") {
  CHECK(shell_arg("runs/a-1.amdahl") == "runs/a-1.amdahl");
  CHECK(shell_arg("") == "''");
  CHECK(shell_arg("my run.amdahl") == "'my run.amdahl'");
  CHECK(shell_arg("it's") == "'it'\\''s'");
  CHECK(to_command(StageFaster{"my stage", false, 2}, "a b.amdahl") ==
        "amdahl whatif 'a b.amdahl' --speedup 'my stage=2'");
  CHECK(to_command(MoreWorkers{3, {"load batch"}}, "p") == "amdahl whatif p --workers 3 --worker-stages 'load batch'");
  NextAction a;
  a.check = ShowStages{};
  a.profile = "x y";
  CHECK(to_command(a) == "amdahl stages 'x y'");
}
