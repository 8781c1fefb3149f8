// End to end through the real `amdahl` binary: report/whatif on a profile written with
// format::save_profile; JSON fields, whatif numbers, -o, and exit codes (2 bad input, 1 usage).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../analysis/profile_builder.hpp"
#include "../support/cli_support.hpp"
#include "amdahl/format/profile_store.hpp"

using amdahl::test::ProfileBuilder;

namespace {

struct Fixture {
  amdahl::test::CliTempDir tmp{"amdahl_cli_test"};  // skips (77) when bin/amdahl is not built
  std::string serial, corrupt, faster;
  Fixture() {
    // 11 steps of 50 ms disk_io + 50 ms gpu_compute on the driving thread.
    ProfileBuilder b;
    for (int k = 0; k < 11; ++k) {
      const double t = 100.0 * k;
      b.stage(1, "step", t, t + 100).stage(1, "disk_io", t, t + 50).stage(1, "gpu_compute", t + 50, t + 100);
    }
    b.profile.meta["format_version"] = std::to_string(amdahl::format::kProfileFormatVersion);
    b.profile.meta["command"] = "synthetic";
    serial = tmp.p("serial.amdahl");
    amdahl::format::save_profile(b.profile, serial, true);
    // The same run with disk_io twice as fast: 25 + 50 ms per step.
    ProfileBuilder f;
    for (int k = 0; k < 11; ++k) {
      const double t = 75.0 * k;
      f.stage(1, "step", t, t + 75).stage(1, "disk_io", t, t + 25).stage(1, "gpu_compute", t + 25, t + 75);
    }
    f.profile.meta["format_version"] = std::to_string(amdahl::format::kProfileFormatVersion);
    faster = tmp.p("faster.amdahl");
    amdahl::format::save_profile(f.profile, faster, true);
    corrupt = tmp.p("corrupt.amdahl");
    std::ofstream(corrupt) << "this is not an SQLite database\n";
  }

  // `amdahl ARGS...` run to its end (tests/support's runner, no shell): its exit code (128 + N
  // for signal N) and stdout.
  amdahl::testsupport::ProcessResult run(std::vector<std::string> args) const {
    args.insert(args.begin(), amdahl::test::amdahl_bin());
    return amdahl::testsupport::run_process(args, "", tmp.p("run"));
  }
};

}  // namespace

TEST_CASE_FIXTURE(Fixture, "report --format json has the documented fields and the right numbers") {
  const auto r = run({"report", serial, "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["wall_ns"] == 1'000'000'000LL);  // steps 1..10 after the automatic warm-up
  CHECK(j["steps"] == 10);
  bool disk = false;
  for (const auto& s : j["stages"]) {
    for (const char* k : {"name", "exposed_ns", "fraction", "total_ns", "hidden_ns"}) CHECK_MESSAGE(s.contains(k), k);
    if (s["name"] == "disk_io") {
      disk = true;
      CHECK(s["fraction"].get<double>() == doctest::Approx(0.5));
      CHECK(s["amdahl"]["10x"].get<double>() == doctest::Approx(1.0 / 0.55));
    }
  }
  CHECK(disk);
  const auto t = run({"report", serial});
  CHECK(t.exit_code == 0);
  CHECK(t.out.find("verdict:") != std::string::npos);
  const std::string out = tmp.p("r.json");
  CHECK(run({"report", serial, "--format", "json", "-o", out}).exit_code == 0);
  CHECK(nlohmann::json::parse(std::ifstream(out))["steps"] == 10);
  CHECK(nlohmann::json::parse(run({"report", serial, "--format", "json", "--warmup", "5"}).out)["steps"] == 6);
}

TEST_CASE_FIXTURE(Fixture, "whatif numbers") {
  const auto r = run({"whatif", serial, "--speedup", "disk_io=10x", "--target", "1.5", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["naive_speedup"].get<double>() == doctest::Approx(1.818).epsilon(1e-3));
  // Serial: the replay agrees with classic Amdahl.
  CHECK(j["simulated_speedup"].get<double>() == doctest::Approx(j["naive_speedup"].get<double>()).epsilon(1e-3));
  CHECK(j["simulation"]["implemented"] == true);
  CHECK(j["curves"].is_array());
  CHECK(j["naive_interval"].size() == 2);
  CHECK(j["simulated_interval"].size() == 2);
  for (const auto& row : j["target"]["stages"])
    if (row["stage"] == "gpu_compute") CHECK(row["factor_needed"].get<double>() == doctest::Approx(3.0));
  const auto two = nlohmann::json::parse(
      run({"whatif", serial, "--speedup", "disk_io=2", "--speedup", "gpu_compute=2", "--format", "json"}).out);
  CHECK(two["naive_speedup"].get<double>() == doctest::Approx(2.0));
  const auto text = run({"whatif", serial, "--speedup", "disk_io=0.5"});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("0.667x") != std::string::npos);
}

TEST_CASE_FIXTURE(Fixture, "exit codes: 2 for bad input, 1 for usage errors") {
  CHECK(run({"report", tmp.p("missing.amdahl")}).exit_code == 2);
  CHECK(run({"report", corrupt}).exit_code == 2);
  CHECK(run({"whatif", serial, "--speedup", "nosuchstage=2"}).exit_code == 2);
  CHECK(run({"report", serial, "--stages", tmp.p("no_rules.txt")}).exit_code == 2);
  CHECK(run({"report", serial, "--warmup", "11"}).exit_code == 2);  // leaves no step
  CHECK(run({"whatif", serial, "--speedup", "disk_io"}).exit_code == 1);
  CHECK(run({"whatif", serial, "--speedup", "disk_io=fast"}).exit_code == 1);
  CHECK(run({"whatif", serial, "--speedup", "disk_io=0"}).exit_code == 1);
  CHECK(run({"whatif", serial}).exit_code == 1);
  CHECK(run({"report", serial, "--format", "xml"}).exit_code == 1);
  CHECK(run({"report", serial, "--warmup", "many"}).exit_code == 1);
  CHECK(run({"report"}).exit_code == 1);
  const std::string bad_rules = tmp.p("bad_rules.txt");
  std::ofstream(bad_rules) << "# rules\n*load* disk_io\n";
  CHECK(run({"report", serial, "--stages", bad_rules}).exit_code == 1);
}

TEST_CASE_FIXTURE(Fixture, "validate: measured vs predicted, JSON fields and exit codes") {
  const auto r = run({"validate", serial, faster, "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"measured_speedup", "predicted_naive", "predicted_simulated", "naive_error", "simulated_error"})
    CHECK_MESSAGE(j[k].is_number(), k);
  CHECK(j["measured_speedup"].get<double>() == doctest::Approx(100.0 / 75.0).epsilon(1e-6));
  CHECK(j["predicted_naive"].get<double>() == doctest::Approx(100.0 / 75.0).epsilon(1e-3));
  CHECK(j["predicted_simulated"].get<double>() == doctest::Approx(100.0 / 75.0).epsilon(1e-3));
  CHECK(std::abs(j["simulated_error"].get<double>()) < 1e-3);
  for (const auto& s : j["stages"]) {
    if (s["name"] == "disk_io") {
      CHECK(s["factor"].get<double>() == doctest::Approx(2.0).epsilon(1e-6));
      CHECK(s["used"] == true);
    }
    if (s["name"] == "gpu_compute") CHECK(s["used"] == false);  // unchanged
  }
  // The reverse pair: disk_io twice as slow.
  const auto back = nlohmann::json::parse(run({"validate", faster, serial, "--format", "json"}).out);
  CHECK(back["measured_speedup"].get<double>() == doctest::Approx(0.75).epsilon(1e-6));
  CHECK(back["predicted_simulated"].get<double>() == doctest::Approx(0.75).epsilon(1e-3));
  const auto text = run({"validate", serial, faster});
  CHECK(text.exit_code == 0);
  CHECK(text.out.find("predicted (simulated)") != std::string::npos);
  CHECK(run({"validate", serial}).exit_code == 1);  // missing argument
  CHECK(run({"validate", serial, tmp.p("missing.amdahl")}).exit_code == 2);
  CHECK(run({"validate", corrupt, serial}).exit_code == 2);
}
