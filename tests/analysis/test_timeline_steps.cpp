// Innermost-wins flattening, driving-thread and step detection, warm-up rules, fallbacks.
#include <doctest/doctest.h>

#include "amdahl/analysis/errors.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/steps.hpp"
#include "amdahl/analysis/timeline.hpp"
#include "profile_builder.hpp"

using namespace amdahl::analysis;
using amdahl::test::ms;
using amdahl::test::ProfileBuilder;

TEST_CASE("innermost stage wins; a parent owns only what its children leave") {
  ProfileBuilder b;
  b.stage(1, "step", 0, 100)
      .stage(1, "gpu_compute", 0, 100)
      .stage(1, "h2d", 20, 50)
      .range(1, "", "aten::mm", 60, 70)  // ignored: transparent
      .stage(1, "wait", 80, 90);
  StageRules rules;
  const Timeline tl = build_timeline(b.profile.records, rules);
  REQUIRE(tl.lanes.size() == 1);
  const auto& segs = tl.lanes[0].segments;
  REQUIRE(segs.size() == 5);
  const StageId gc = tl.stage_id("gpu_compute"), h2d = tl.stage_id("h2d");
  CHECK(segs[0].label == gc);
  CHECK(segs[1].label == h2d);
  CHECK(segs[1].start_ns == ms(20));
  CHECK(segs[1].end_ns == ms(50));
  CHECK(segs[2].label == gc);
  CHECK(segs[2].end_ns == ms(80));  // the ignored aten::mm did not cut it
  CHECK(segs[3].label == kLabelWait);
  CHECK(segs[3].stage == gc);  // the enclosing stage is still known
  CHECK(segs[4].label == gc);
  CHECK(tl.lanes[0].segment_at(ms(30))->label == h2d);
  CHECK(tl.lanes[0].segment_at(ms(100)) == nullptr);

  const Report r = analyze(b.profile);
  CHECK(r.find_stage("gpu_compute")->total_ns == doctest::Approx(ms(60)));
  CHECK(r.find_stage("h2d")->total_ns == doctest::Approx(ms(30)));
  CHECK(r.find_stage("h2d")->exposed_ns == doctest::Approx(ms(30)));
}

TEST_CASE("blocking CUDA call names") {
  CHECK(is_blocking_cuda_call("cudaStreamSynchronize"));
  CHECK(is_blocking_cuda_call("cudaStreamSynchronize_v3020"));
  CHECK(is_blocking_cuda_call("cuCtxSynchronize"));
  CHECK(is_blocking_cuda_call("cudaMemcpy"));
  CHECK(is_blocking_cuda_call("cuMemcpyDtoH_v2"));
  CHECK_FALSE(is_blocking_cuda_call("cudaMemcpyAsync"));
  CHECK_FALSE(is_blocking_cuda_call("cudaLaunchKernel"));
}

TEST_CASE("auto warm-up: the first step, plus leading outliers > 3x the median") {
  CHECK(auto_warmup({}) == 0);
  CHECK(auto_warmup({10}) == 0);
  CHECK(auto_warmup({10, 10, 10}) == 1);
  CHECK(auto_warmup({50, 40, 10, 10, 10, 10, 10, 10}) == 2);
  CHECK(auto_warmup({50, 20, 40, 10, 10, 10, 10}) == 1);  // stops at the first non-outlier
  CHECK(auto_warmup({90, 90}) == 1);                       // always leaves one step
}

TEST_CASE("driving thread = most steps; window = analysed steps") {
  ProfileBuilder b;
  for (int k = 0; k < 6; ++k) b.stage(7, "step", 10 * k, 10 * k + 8).stage(7, "gpu_compute", 10 * k, 10 * k + 8);
  b.stage(9, "step", 0, 100).stage(9, "disk_io", 0, 100);  // one step on another thread
  StageRules rules;
  const Timeline tl = build_timeline(b.profile.records, rules);
  auto sel = select_steps(tl, std::nullopt);
  CHECK(tl.lanes[sel.driving_lane].tid == 7);
  CHECK(sel.total_steps == 6);
  CHECK(sel.warmup == 1);
  CHECK(sel.steps.size() == 5);
  CHECK(sel.window.start_ns == ms(10));
  CHECK(sel.window.end_ns == ms(58));
  REQUIRE(sel.spans.size() == 5);
  CHECK(sel.spans[0].end_ns == ms(20));  // spans run to the next step's start
  CHECK(sel.spans[4].end_ns == ms(58));

  sel = select_steps(tl, std::size_t{3});
  CHECK(sel.steps.size() == 3);
  CHECK(sel.window.start_ns == ms(30));
  CHECK_THROWS_AS(select_steps(tl, std::size_t{6}), InputError);

  const Report r = analyze(b.profile);
  CHECK(r.wall_ns == ms(48));
  CHECK(r.steps == 5);
  // 5 steps of 8 ms gpu_compute + 2 ms gaps (other) inside the window's last step end.
  CHECK(r.find_stage("gpu_compute")->exposed_ns == doctest::Approx(ms(40)));
  CHECK(r.find_stage("gpu_compute")->per_step_exposed_ns.mean == doctest::Approx(ms(8)));
  CHECK(r.find_stage("disk_io")->total_ns == doctest::Approx(ms(48)));
  CHECK(r.find_stage("disk_io")->hidden_ns == doctest::Approx(ms(48)));
}

TEST_CASE("--step-name picks another step range") {
  ProfileBuilder b;
  for (int k = 0; k < 3; ++k) b.stage(1, "iter", 10 * k, 10 * k + 10).stage(1, "h2d", 10 * k, 10 * k + 5);
  AnalysisOptions opt;
  opt.step_name = "iter";
  opt.warmup = 0;
  const Report r = analyze(b.profile, opt);
  CHECK(r.steps == 3);
  CHECK(r.find_stage("h2d")->fraction == doctest::Approx(0.5));
  CHECK(r.find_stage("iter") == nullptr);
}

TEST_CASE("no steps: the longest-lived thread with stages, with a note; empty: InputError") {
  ProfileBuilder b;
  b.stage(1, "disk_io", 0, 10).stage(1, "cpu_preprocess", 10, 30);
  b.stage(2, "gpu_compute", 0, 50).stage(2, "h2d", 60, 100);
  const Report r = analyze(b.profile);
  CHECK(r.steps == 0);
  CHECK(r.driving_tid == 2);
  CHECK(r.wall_ns == ms(100));
  CHECK(r.find_stage("gpu_compute")->fraction == doctest::Approx(0.5));
  CHECK(r.find_stage("h2d")->fraction == doctest::Approx(0.4));
  CHECK(r.stages.back().fraction == doctest::Approx(0.1));
  bool noted = false;
  for (const auto& n : r.notes) noted |= std::holds_alternative<findings::NoSteps>(n);
  CHECK(noted);

  ProfileBuilder empty;
  CHECK_THROWS_AS(analyze(empty.profile), InputError);
  ProfileBuilder ignored;
  ignored.range(1, "", "aten::mm", 0, 10);
  CHECK_THROWS_AS(analyze(ignored.profile), InputError);
}
