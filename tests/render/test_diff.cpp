// The diff of two synthetic runs: disk_io made faster, gpu_compute unchanged.
#include <doctest/doctest.h>

#include "amdahl/analysis/profile_diff.hpp"
#include "amdahl/render/finding_text.hpp"
#include "amdahl/render/renderers.hpp"
#include "../support/report_fixture.hpp"

using namespace amdahl;

TEST_CASE("diff: the faster stage, the step change, and the shares of it") {
  const auto a = analysis::analyze(test::report_fixture(3, 4));
  const auto b = analysis::analyze(test::report_fixture(1, 4));
  const auto d = analysis::diff_reports(a, b);
  CHECK(d.per_step);
  CHECK(d.step_a_ns == doctest::Approx(9.5e6).epsilon(1e-3));
  CHECK(d.step_b_ns == doctest::Approx(7.5e6).epsilon(1e-3));
  CHECK(d.speedup == doctest::Approx(9.5 / 7.5).epsilon(1e-3));
  const analysis::StageDiff* disk = nullptr;
  const analysis::StageDiff* gpu = nullptr;
  double shares = 0;
  for (const auto& s : d.stages) {
    if (s.name == "disk_io") disk = &s;
    if (s.name == "gpu_compute") gpu = &s;
    shares += s.share_of_step_change;
  }
  REQUIRE(disk);
  REQUIRE(gpu);
  CHECK(disk->verdict == "faster");
  CHECK(disk->change_ns == doctest::Approx(-2e6).epsilon(0.02));
  REQUIRE(disk->ratio);
  CHECK(*disk->ratio == doctest::Approx(1.0 / 3.0).epsilon(0.02));
  CHECK(gpu->verdict == "unchanged");
  CHECK(shares == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(d.stages.back().name == "other");
  CHECK(render::to_text(d.summary).find("1.27x faster") != std::string::npos);
  CHECK(render::to_text(d.summary).find("disk_io") != std::string::npos);

  const auto j = render::diff_to_json(d);
  CHECK(j["speedup"].get<double>() == doctest::Approx(d.speedup));
  CHECK(j["stages"][0]["exposed_ns"].size() == 2);
  const std::string t = render::diff_to_text(d, "a.amdahl", "b.amdahl");
  CHECK(t.find("faster") != std::string::npos);

  // Reversed: slower.
  const auto r = analysis::diff_reports(b, a);
  for (const auto& s : r.stages)
    if (s.name == "disk_io") CHECK(s.verdict == "slower");
}

TEST_CASE("diff: a stage only in one run is new / gone") {
  auto pa = test::report_fixture(3, 4);
  auto pb = test::report_fixture(3, 4);
  test::ProfileBuilder extra;
  extra.profile = pb;
  for (int i = 0; i < 6; ++i) extra.stage(3, "tokenize", i * 9.0, i * 9.0 + 0.5);
  const auto d = analysis::diff_reports(analysis::analyze(pa), analysis::analyze(extra.profile));
  bool found = false;
  for (const auto& s : d.stages)
    if (s.name == "tokenize") {
      found = true;
      CHECK(s.verdict == "new");
      CHECK(!s.ratio);
    }
  CHECK(found);
}
