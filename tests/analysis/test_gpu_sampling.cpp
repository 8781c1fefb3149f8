// Sampled GPU tracing in the analysis (steps.hpp, GpuSampling): a profile whose GPU records
// (and API records: CUPTI is detached between windows) exist only in the traced windows gives
// the stage fractions and GPU figures of the fully traced run where the steps are alike, never
// reads an untraced step as GPU idle, says which figures are sampled, and takes the run's step
// time from every step.
#include <doctest/doctest.h>

#include <string>

#include "amdahl/analysis/report.hpp"
#include "amdahl/render/renderers.hpp"
#include "amdahl/render/finding_text.hpp"
#include "profile_builder.hpp"

using namespace amdahl::analysis;
using namespace amdahl::render;
using amdahl::format::GpuOpKind;
using amdahl::test::ms;
using amdahl::test::ProfileBuilder;

namespace {

constexpr int kSteps = 60;

// Step i: [10i, 10i+10] ms: cpu_preprocess 3 ms, then gpu_compute launches a 5.5 ms kernel and
// waits for it. `traced(i)`: whether step i has its GPU and API records.
template <class Traced>
ProfileBuilder run(Traced traced, double step_ms = 10) {
  ProfileBuilder b;
  std::uint32_t corr = 1;
  for (int i = 0; i < kSteps; ++i) {
    const double t = step_ms * i;
    b.range(1, "amdahl", "step", t, t + step_ms);
    b.stage(1, "cpu_preprocess", t, t + 3);
    b.stage(1, "gpu_compute", t + 3, t + 9.2);
    if (!traced(i)) continue;
    b.api(1, "cudaLaunchKernel", t + 3.1, t + 3.2, corr);
    b.gpu(GpuOpKind::Kernel, t + 3.5, t + 9, corr, amdahl::format::CopyKind::Unknown, "gemm");
    ++corr;
    b.api(1, "cudaStreamSynchronize", t + 3.3, t + 9.1, corr++);
  }
  return b;
}

double fraction(const Report& r, const std::string& name) {
  const StageRow* s = r.find_stage(name);
  return s ? s->fraction : -1;
}

}  // namespace

TEST_CASE("sampled windows: same stage fractions and GPU share as the fully traced run") {
  const Report full = analyze(run([](int) { return true; }).profile, AnalysisOptions{});
  auto in_window = [](int i) { return (i >= 20 && i < 25) || (i >= 40 && i < 45); };
  ProfileBuilder sb = run(in_window);
  for (int on : {20, 40}) {
    sb.mark(1, "gpu_trace_on", 10.0 * on, on);
    sb.mark(1, "gpu_trace_off", 10.0 * (on + 5), on + 5);
  }
  const Report sampled = analyze(sb.profile, AnalysisOptions{});
  INFO("full " << full.steps << " steps, sampled " << sampled.steps);
  CHECK(full.steps == kSteps - 1);
  // Window 2 (steps 40..44; the later of two as large), less its first step as warm-up.
  CHECK(sampled.steps == 4);
  CHECK(sampled.first_step == 41);
  for (const char* st : {"cpu_preprocess", "gpu_compute"}) {
    INFO(st);
    CHECK(fraction(sampled, st) == doctest::Approx(fraction(full, st)).epsilon(0.01));
  }
  const double full_idle = static_cast<double>(full.gpu.idle_ns) / static_cast<double>(full.wall_ns);
  const double sampled_idle = static_cast<double>(sampled.gpu.idle_ns) / static_cast<double>(sampled.wall_ns);
  CHECK(sampled_idle == doctest::Approx(full_idle).epsilon(0.02));
  CHECK(sampled_idle < 0.5);  // untraced steps would read as idle: 45 of 50 ms a window
  REQUIRE(sampled.gpu_sampling);
  CHECK(sampled.gpu_sampling->windows == 2);
  CHECK(sampled.gpu_sampling->traced_steps == 10);
  CHECK(sampled.gpu_sampling->run_steps == kSteps);
  CHECK(sampled.gpu_sampling->used_window == 2);
  CHECK(sampled.gpu_sampling->run_step_mean_ms == doctest::Approx(10.0));
  bool noted = false;
  for (const auto& n : sampled.notes)
    noted |= amdahl::render::to_text(n).rfind("sampled GPU figures: GPU activity was traced for 10 of 60 steps", 0) == 0;
  CHECK(noted);
  CHECK_FALSE(full.gpu_sampling);
  const auto j = report_to_json(sampled);
  CHECK(j["gpu_sampling"]["traced_steps"] == 10);
  CHECK(j["gpu_sampling"]["run_steps"] == kSteps);
}

TEST_CASE("sampled windows: the run's step time comes from every step, the breakdown from a window") {
  // Steps outside the windows are slower (say, an evaluation pass): the run's mean says so.
  ProfileBuilder b;
  for (int i = 0; i < 30; ++i) {
    const double t = 10.0 * i;
    b.range(1, "amdahl", "step", t, t + 10);
    b.stage(1, "cpu_preprocess", t, t + 3);
  }
  for (int i = 30; i < 40; ++i) {
    const double t = 300 + 20.0 * (i - 30);
    b.range(1, "amdahl", "step", t, t + 20);
    b.stage(1, "cpu_preprocess", t, t + 3);
  }
  b.mark(1, "gpu_trace_on", 50, 5).mark(1, "gpu_trace_off", 100, 10);
  const Report r = analyze(b.profile, AnalysisOptions{});
  REQUIRE(r.gpu_sampling);
  CHECK(r.steps == 4);
  CHECK(r.wall_ns == ms(40));
  CHECK(r.gpu_sampling->run_step_mean_ms == doctest::Approx((29 * 10.0 + 10 * 20.0) / 39).epsilon(0.001));
  CHECK(r.gpu_sampling->run_step_median_ms == doctest::Approx(10.0));
}

TEST_CASE("sampled windows: the windows' cost is read from the run's own steps") {
  // 60 steps of 10 ms; a window from step 20's start to step 25's start: its 5 steps take 16 ms
  // (traced launches), step 25 takes 13 ms (the detach at its first launch). Touched: the steps
  // overlapping the window (19..25, 19 and 25 meet its edges) and one either side (18, 26).
  ProfileBuilder b;
  double t = 0, on = 0, off = 0;
  for (int i = 0; i < 60; ++i) {
    const double d = (i >= 20 && i < 25) ? 16 : i == 25 ? 13 : 10;
    if (i == 20) on = t;
    if (i == 25) off = t;
    b.range(1, "amdahl", "step", t, t + d);
    b.stage(1, "cpu_preprocess", t, t + 3);
    t += d;
  }
  b.mark(1, "gpu_trace_on", on, 20).mark(1, "gpu_trace_off", off, 25);
  const Report r = analyze(b.profile, AnalysisOptions{});
  REQUIRE(r.gpu_sampling);
  const GpuSampling& g = *r.gpu_sampling;
  REQUIRE(g.run_warmup < 18);
  CHECK(g.touched_steps == 9);
  CHECK(g.touched_step_median_ms == doctest::Approx(16.0));
  CHECK(g.untouched_step_median_ms == doctest::Approx(10.0));
  REQUIRE(g.window_cost_share);
  const double all = 10.0 * static_cast<double>(60 - g.run_warmup) + 33.0;
  CHECK(*g.window_cost_share == doctest::Approx(33.0 / all).epsilon(1e-6));
  std::string note;
  for (const auto& n : r.notes)
    if (to_text(n).rfind("sampled GPU figures", 0) == 0) note = to_text(n);
  INFO(note);
  CHECK(note.find("the 9 steps in or next to a window took a median 16.0 ms against 10.0 ms for the others, "
                  "so tracing them added about 5.") != std::string::npos);
  const auto j = report_to_json(r);
  CHECK(j["gpu_sampling"]["window_cost_share"].get<double>() == doctest::Approx(33.0 / all).epsilon(1e-6));

  SUBCASE("windows that cost nothing say so; too few other steps give no figure") {
    // `steps` steps of 10 ms, a window over steps [first, last).
    auto even = [](int steps, int first, int last) {
      ProfileBuilder e;
      for (int i = 0; i < steps; ++i) e.range(1, "amdahl", "step", 10.0 * i, 10.0 * i + 10).stage(1, "cpu_preprocess", 10.0 * i, 10.0 * i + 3);
      e.mark(1, "gpu_trace_on", 10.0 * first, first).mark(1, "gpu_trace_off", 10.0 * last, last);
      return analyze(e.profile, AnalysisOptions{});
    };
    const Report f = even(60, 20, 25);
    REQUIRE(f.gpu_sampling);
    REQUIRE(f.gpu_sampling->window_cost_share);
    CHECK(*f.gpu_sampling->window_cost_share == doctest::Approx(0.0));
    bool said = false;
    for (const auto& n : f.notes) said |= to_text(n).find("so tracing them added nothing measurable") != std::string::npos;
    CHECK(said);
    const Report s2 = even(12, 3, 8);
    REQUIRE(s2.gpu_sampling);
    CHECK_FALSE(s2.gpu_sampling->window_cost_share);
    CHECK(report_to_json(s2)["gpu_sampling"].count("window_cost_share") == 0);
  }
}

TEST_CASE("trace windows: a repeated on or off changes nothing; many windows over many steps stay linear" *
          doctest::timeout(20)) {
  ProfileBuilder b;
  for (int i = 0; i < 40; ++i) b.range(1, "amdahl", "step", 10.0 * i, 10.0 * i + 10).stage(1, "cpu_preprocess", 10.0 * i, 10.0 * i + 3);
  // on at 100 and again at 150 (still open), off at 200, off again at 250 (none open).
  b.mark(1, "gpu_trace_on", 100, 10).mark(1, "gpu_trace_on", 150, 15).mark(1, "gpu_trace_off", 200, 20);
  b.mark(1, "gpu_trace_off", 250, 25);
  const auto w = gpu_trace_windows(b.profile.records, 1);
  REQUIRE(w.size() == 1);
  CHECK(w[0].start_ns == ms(100));
  CHECK(w[0].end_ns == ms(200));
  const Report r = analyze(b.profile, AnalysisOptions{});
  REQUIRE(r.gpu_sampling);
  CHECK(r.gpu_sampling->windows == 1);
  CHECK(r.gpu_sampling->traced_steps == 10);
  CHECK(r.gpu_sampling->touched_steps == 14);  // steps 9..20 meet the window (12), 8 and 21 beside them

  // 400 000 steps, a window over every other one: quadratic work (8e10 step-window pairs) would
  // run for minutes.
  std::vector<Interval> steps, windows;
  for (std::int64_t i = 0; i < 400'000; ++i) {
    steps.push_back({10 * i, 10 * i + 10});
    if (i % 2 == 0) windows.push_back({10 * i, 10 * i + 10});
  }
  const WindowSteps ws = steps_in_windows(steps, windows);
  CHECK(ws.groups.size() == 200'000);
  for (const auto& g : ws.groups) REQUIRE(g.size() == 1);
}

TEST_CASE("steps_in_windows: whole steps only, groups per window, the largest (later on a tie) chosen") {
  const std::vector<Interval> steps{{0, 10}, {10, 20}, {20, 30}, {30, 40}, {40, 50}, {50, 60}};
  const WindowSteps ws = steps_in_windows(steps, {{5, 30}, {30, 35}, {40, 60}});
  REQUIRE(ws.groups.size() == 2);  // {30, 35} holds no whole step
  CHECK(ws.groups[0].size() == 2);
  CHECK(ws.groups[1].size() == 2);
  CHECK(ws.chosen == 1);
  CHECK(steps_in_windows(steps, {{100, 200}}).groups.empty());
  // A start-up window (opened before the first step) is used only when no other holds a step.
  const WindowSteps su = steps_in_windows(steps, {{-5, 40}, {50, 60}});
  REQUIRE(su.groups.size() == 2);
  CHECK(su.startup[0]);
  CHECK_FALSE(su.startup[1]);
  CHECK(su.chosen == 1);
  CHECK(steps_in_windows(steps, {{-5, 40}}).chosen == 0);
}
