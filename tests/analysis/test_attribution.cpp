// Wait attribution: produce/consume links charge the consumer's wait to the producer's stages
// for that item; without marks, in proportion to the other threads (a bound).
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "amdahl/analysis/report.hpp"
#include "profile_builder.hpp"

using namespace amdahl::analysis;
using amdahl::test::ms;
using amdahl::test::ProfileBuilder;

namespace {

// Exposed ns of a stage in the driving thread's view (the fallback basis, still computed).
[[maybe_unused]] double dv_exposed(const Report& r, const std::string& name) {
  for (std::size_t i = 0; i + 1 < r.stages.size(); ++i)
    if (r.stages[i].name == name) return r.driving_view.exposed_ns[i];
  return -1;
}
// Driver (tid 1): step k = [10k, 10k+10]: wait [10k, 10k+6], consume k at 10k+6, gpu_compute
// [10k+6, 10k+10]. Producer (tid 2): item k is disk_io then cpu_preprocess in [10k, 10k+6]
// (odd items 4+2 ms, even 2+4 ms), produce k at 10k+6, then a blocked put until 10(k+1).
ProfileBuilder pipeline(bool marks) {
  ProfileBuilder b;
  for (int k = 0; k < 5; ++k) {
    const double t = 10.0 * k;
    const double io = k % 2 ? 4 : 2;
    b.stage(1, "step", t, t + 10).stage(1, "wait", t, t + 6).stage(1, "gpu_compute", t + 6, t + 10);
    b.stage(2, "disk_io", t, t + io).stage(2, "cpu_preprocess", t + io, t + 6).stage(2, "wait", t + 6, t + 10);
    if (marks) b.mark(2, "produce", t + 6, 100 + k).mark(1, "consume", t + 6, 100 + k);
  }
  return b;
}
}  // namespace

TEST_CASE("produce/consume: the consumer's wait is charged to the producer's work on that item") {
  const Report r = analyze(pipeline(true).profile);
  CHECK(r.steps == 4);
  CHECK(r.wall_ns == ms(40));
  CHECK_FALSE(r.driving_view.bounds);
  CHECK(r.driving_view.waits.wait_ranges == 4);
  CHECK(r.driving_view.waits.linked_waits == 4);
  // Items 1..4: disk 4+2+4+2 = 12 ms, cpu 2+4+2+4 = 12 ms; gpu_compute 16 ms.
  CHECK(dv_exposed(r, "disk_io") == doctest::Approx(ms(12)));
  CHECK(dv_exposed(r, "cpu_preprocess") == doctest::Approx(ms(12)));
  CHECK(dv_exposed(r, "gpu_compute") == doctest::Approx(ms(16)));
  CHECK((dv_exposed(r, "disk_io") / static_cast<double>(r.wall_ns)) == doctest::Approx(0.3));
  CHECK(r.driving_view.exposed_ns.back() / static_cast<double>(r.wall_ns) == doctest::Approx(0.0).epsilon(1e-12));
  // Per step the link matters: step 1 (item 1) waited on 4 ms disk_io + 2 ms cpu_preprocess.
  const std::size_t disk = 0, cpu = 1;
  CHECK(r.driving_view.span_exposed[0][disk] == doctest::Approx(ms(4)));
  CHECK(r.driving_view.span_exposed[0][cpu] == doctest::Approx(ms(2)));
  CHECK(r.driving_view.span_exposed[1][disk] == doctest::Approx(ms(2)));
  CHECK(std::max({r.driving_view.span_exposed[0][disk], r.driving_view.span_exposed[1][disk]}) == doctest::Approx(ms(4)));
  // Total is the producer's host time in the window; exposed equals it here (nothing hidden).
  CHECK(r.find_stage("disk_io")->total_ns == doctest::Approx(ms(12)));
  CHECK(r.find_stage("disk_io")->hidden_ns == doctest::Approx(0.0));
}

TEST_CASE("no marks: waits are charged in proportion to other threads, and flagged as bounds") {
  const Report r = analyze(pipeline(false).profile);
  CHECK(r.driving_view.bounds);
  CHECK(r.driving_view.waits.linked_waits == 0);
  CHECK(r.driving_view.waits.fallback_ns == doctest::Approx(ms(24)));
  // Producer totals in the window: disk 12, cpu 12 -> the 6 ms waits split 3/3 in every step.
  CHECK(r.driving_view.span_exposed[0][0] == doctest::Approx(ms(3)));
  CHECK(r.driving_view.span_exposed[0][1] == doctest::Approx(ms(3)));
  bool noted = false;
  for (const auto& n : r.notes)  // the waits without a link make the figures bounds
    noted |= std::holds_alternative<findings::UnlinkedDrivingWaits>(n) ||
             std::holds_alternative<findings::UnlinkedPathWaits>(n);
  CHECK(noted);
}

TEST_CASE("fractions plus other sum to exactly 1, and spans sum to the window") {
  ProfileBuilder b = pipeline(true);
  b.stage(1, "my_stage", 47, 48);  // a user stage inside the last step's gpu_compute range
  b.stage(1, "step", 50, 60).stage(1, "h2d", 52, 53);  // a step with mostly `other`
  const Report r = analyze(b.profile);
  double sum = 0;
  for (const auto& s : r.stages) sum += s.fraction;
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(r.driving_view.exposed_ns.back() / static_cast<double>(r.wall_ns) == doctest::Approx(9.0 / 50.0));
  CHECK(r.find_stage("my_stage") != nullptr);
  CHECK_FALSE(r.find_stage("my_stage")->canonical);
  for (std::size_t i = 0; i < r.driving_view.span_exposed.size(); ++i) {
    const auto& row = r.driving_view.span_exposed[i];
    CHECK(std::accumulate(row.begin(), row.end(), 0.0) == doctest::Approx(r.driving_view.span_ns[i]));
  }
  CHECK(std::accumulate(r.driving_view.span_ns.begin(), r.driving_view.span_ns.end(), 0.0) ==
        doctest::Approx(static_cast<double>(r.wall_ns)));
}
