// The launch library (include/amdahl/launch/) without the amdahl binary: running a command
// (exit status, death by signal, exec failure, the environment it gets) and making the profile
// of a run from the parts in its folder (merge, the launcher's diagnostics, the run's meta).
#include <doctest/doctest.h>

#include <cerrno>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "amdahl/format/part_file.hpp"
#include "amdahl/launch/launcher.hpp"
#include "amdahl/launch/recorded_run.hpp"

namespace launch = amdahl::launch;
namespace format = amdahl::format;

namespace {

launch::LaunchResult run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {}) {
  const launch::SignalScope signals;
  return launch::launch_and_wait(argv, env, {}, signals);
}

std::size_t count_diag(const format::RecordSet& rs, const std::string& key) {
  std::size_t n = 0;
  for (const auto& d : rs.diagnostics) n += rs.str(d.key) == key ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("a command's exit code, its death by a signal and a failed exec come back as a shell gives them") {
  const auto ok = run({"true"});
  CHECK(ok.started);
  CHECK(ok.exit_code == 0);
  CHECK(ok.signal == 0);
  CHECK(ok.pid > 0);
  CHECK(ok.end_ns >= ok.start_ns);

  const auto three = run({"sh", "-c", "exit 3"});
  CHECK(three.exit_code == 3);

  const auto killed = run({"sh", "-c", "kill -TERM $$"});
  CHECK(killed.started);
  CHECK(killed.signal == 15);
  CHECK(killed.exit_code == 128 + 15);

  const auto missing = run({"amdahl-no-such-command-anywhere"});
  CHECK_FALSE(missing.started);
  CHECK(missing.exec_errno == ENOENT);
  CHECK(missing.exit_code == 127);
}

TEST_CASE("the command gets the variables amdahl sets") {
  const launch::PartDir dir;
  const auto r = run({"sh", "-c", "test \"$AMDAHL_PART_DIR\" = \"$1\"", "sh", dir.path()},
                     {{"AMDAHL_PART_DIR", dir.path()}});
  CHECK(r.exit_code == 0);
  const auto other = run({"sh", "-c", "test \"$AMDAHL_PART_DIR\" = \"$1\"", "sh", dir.path() + "x"},
                         {{"AMDAHL_PART_DIR", dir.path()}});
  CHECK(other.exit_code == 1);
}

TEST_CASE("the profile of a run: its parts merged, the launcher's diagnostics and the run's meta") {
  const launch::PartDir dir;
  const auto r = run({"sh", "-c", "exit 3"}, {{"AMDAHL_PART_DIR", dir.path()}});
  REQUIRE(r.started);

  // The command's own part (as the collector would write it), a corrupt one, and the start
  // marker of a process that never wrote its part.
  format::RecordSet part;
  part.strings = {"", "sh", "step"};
  format::ProcessRec p;
  p.pid = r.pid, p.command = 1, p.start_ns = r.start_ns, p.end_ns = r.end_ns;
  part.processes.push_back(p);
  format::RangeRec range;
  range.pid = r.pid, range.tid = range.end_tid = r.pid, range.name = 2;
  range.start_ns = r.start_ns, range.end_ns = r.end_ns;
  part.ranges.push_back(range);
  std::string error;
  REQUIRE(format::write_part(part, dir.path() + "/part-" + std::to_string(r.pid) + "-1.amdpart", &error));
  std::ofstream(dir.path() + "/part-99999-2.amdpart") << "not a part";
  std::ofstream(dir.path() + "/part-77777-3.amdpart.started");

  launch::RunSetup setup;
  setup.command = {"sh", "-c", "exit 3"};
  setup.collector = "/lib/libamdahl_collector.so";
  setup.have_collector = true;
  setup.gpu_api = "all";
  setup.gpu_schedule = "10/200@20";
  setup.stage_rules = "load* -> disk_io\n";
  setup.stage_rules_file = "rules.txt";
  std::vector<std::string> warnings;
  const format::Profile profile =
      launch::record_run(dir.path(), setup, r, [&](const std::string& w) { warnings.push_back(w); });

  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("part-99999-2.amdpart rejected") != std::string::npos);
  const auto& rs = profile.records;
  REQUIRE(rs.processes.size() == 1);
  CHECK(rs.processes[0].pid == r.pid);
  REQUIRE(rs.ranges.size() == 1);
  CHECK(rs.str(rs.ranges[0].name) == "step");
  CHECK(count_diag(rs, "part.unreadable") == 1);
  CHECK(count_diag(rs, "launcher.lost_processes") == 1);
  CHECK(count_diag(rs, "launcher.missing_part") == 0);
  CHECK(count_diag(rs, "launcher.no_collector") == 0);

  const auto& meta = profile.meta;
  CHECK(meta.at("command") == "sh -c 'exit 3'");
  CHECK(meta.at("exit_code") == "3");
  CHECK(meta.count("exit_signal") == 0);
  CHECK(meta.at("pid") == std::to_string(r.pid));
  CHECK(meta.at("wall_ns") == std::to_string(r.end_ns - r.start_ns));
  CHECK(meta.at("parts") == "1");
  CHECK(meta.at("collector") == "/lib/libamdahl_collector.so");
  CHECK(meta.at("exit_hook") == "off");
  CHECK(meta.at("gpu_api") == "all");
  CHECK(meta.count("gpu_steps") == 0);
  CHECK(meta.at("gpu_schedule") == "10/200@20");
  CHECK(meta.at("stage_rules") == "load* -> disk_io\n");
  CHECK(meta.at("stage_rules_file") == "rules.txt");
  CHECK(meta.at("clock") == "CLOCK_MONOTONIC");
}

TEST_CASE("a run without the collector, or whose command left no part, says so in the diagnostics") {
  const launch::PartDir dir;
  const auto r = run({"sh", "-c", "kill -TERM $$"});
  launch::RunSetup setup;
  setup.command = {"sh", "-c", "kill -TERM $$"};
  setup.collector = "/nowhere/libamdahl_collector.so";
  setup.torch_flag = true;
  setup.want_torch = true;
  setup.torch_meta = "missing";

  const format::Profile none = launch::record_run(dir.path(), setup, r);
  CHECK(count_diag(none.records, "launcher.no_collector") == 1);
  CHECK(count_diag(none.records, "launcher.no_torch_package") == 1);
  CHECK(none.meta.count("collector") == 0);
  CHECK(none.meta.at("exit_signal") == "15");
  CHECK(none.meta.at("torch_enabled_by") == "--torch");
  CHECK(none.meta.at("parts") == "0");

  setup.have_collector = true;
  const format::Profile lost = launch::record_run(dir.path(), setup, r);
  CHECK(count_diag(lost.records, "launcher.missing_part") == 1);
  CHECK(count_diag(lost.records, "launcher.no_collector") == 0);
}
