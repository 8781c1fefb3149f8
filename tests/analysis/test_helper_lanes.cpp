// Unannotated CUDA helper threads in the replay (analysis/src/helper_lanes.cpp), on a synthetic
// profile shaped like PyTorch's num_workers=0 training: the driving thread loads a batch
// (cpu_preprocess), launches the forward kernel and then sits inside backward() while an
// autograd-like helper thread -- CUDA calls, no ranges -- launches the backward kernel; the
// driving thread then synchronises. Halving the loading must shorten the step by exactly the
// saved time: 30 ms -> 20 ms per step, 1.5x. Before the helper's idle gaps became waits, its
// recorded 29 ms gaps pinned the backward launches to their recorded times: 1.0x.
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include "amdahl/analysis/helper_lanes.hpp"
#include "amdahl/analysis/report.hpp"
#include "amdahl/analysis/whatif.hpp"
#include "profile_builder.hpp"

using namespace amdahl;
using namespace amdahl::analysis;
using amdahl::test::ProfileBuilder;

namespace {

// steps of 30 ms: cpu_preprocess 20 ms, then gpu_compute 10 ms (forward kernel 2 ms launched by
// the driving thread, backward kernel 7.8 ms launched by the helper, a blocking sync).
format::Profile autograd_like(int steps, double helper_delay_ms = 0.5) {
  ProfileBuilder b;
  std::uint32_t corr = 1;
  for (int i = 0; i < steps; ++i) {
    const double t = 30.0 * i;
    b.stage(1, "step", t, t + 30);
    b.stage(1, "cpu_preprocess", t, t + 20);
    b.stage(1, "gpu_compute", t + 20, t + 30);
    b.api(1, "cudaLaunchKernel", t + 20, t + 20.05, corr);
    b.gpu(format::GpuOpKind::Kernel, t + 20.2, t + 22.2, corr++, format::CopyKind::Unknown, "forward");
    b.api(2, "cudaLaunchKernel", t + 20 + helper_delay_ms, t + 20.05 + helper_delay_ms, corr);  // helper thread
    b.gpu(format::GpuOpKind::Kernel, t + 22.2, t + 30, corr++, format::CopyKind::Unknown, "backward");
    b.api(1, "cudaStreamSynchronize", t + 25, t + 30, corr++);
  }
  return b.profile;
}

}  // namespace

TEST_CASE("helper thread idle gaps are waits on the driving thread: the loading what-if is right") {
  AnalysisOptions opt;
  opt.warmup = 1;
  const Report r = analyze(autograd_like(12), opt);
  REQUIRE(r.graph);
  CHECK(r.exposed_basis == "critical_path");
  bool noted = false;
  for (const auto& n : r.notes) noted |= std::holds_alternative<findings::HelperIdleWaits>(n);
  CHECK(noted);
  CHECK(r.find_stage("cpu_preprocess")->fraction == doctest::Approx(20.0 / 30).epsilon(0.02));
  const WhatIf w = compute_whatif(r, {{"cpu_preprocess", 2.0}}, std::nullopt);
  CHECK(w.simulated_speedup == doctest::Approx(1.5).epsilon(0.02));
  CHECK(w.naive_speedup == doctest::Approx(1.5).epsilon(0.02));  // serial here: classic agrees
}

TEST_CASE("helper lanes: the helper's long gaps become joined waits, its launches stay; the driving lane is untouched") {
  AnalysisOptions opt;
  opt.warmup = 1;
  const Report r = analyze(autograd_like(6), opt);
  REQUIRE(r.graph);
  const ReplayGraph& g = *r.graph;
  std::size_t helper_waits = 0, helper_launches = 0, joined = 0, driving_waits = 0;
  for (std::uint32_t n = 0; n < g.nodes.size(); ++n) {
    const ReplayNode& nd = g.nodes[n];
    const ReplayLane& l = g.lanes[nd.lane];
    if (l.gpu) continue;
    if (l.id == 2 && nd.kind == NodeKind::Wait) {
      ++helper_waits;
      CHECK(nd.end_ns - nd.start_ns >= kHelperIdleGapNs);
      for (std::uint32_t e = g.edge_begin[n]; e < g.edge_begin[n + 1]; ++e)
        if (g.edges[e].join && g.lanes[g.nodes[g.edges[e].from].lane].id == 1) ++joined;
    }
    if (l.id == 2 && nd.kind == NodeKind::Launch) ++helper_launches;
    if (l.id == 1 && nd.kind == NodeKind::Wait && nd.stage == kLabelWait) ++driving_waits;
  }
  CHECK(helper_waits == 5);  // one gap before each launch but the first
  CHECK(joined == helper_waits);
  CHECK(helper_launches == 6);
  CHECK(driving_waits == 0);
}

// Loader threads (link_loader_idle): a thread pool's worker (tid 2) loads the step's two items
// (disk_io 4 ms + cpu_preprocess 6 ms each, produce marks) after the driving thread submits
// them at the step's start; the driving thread waits for both (consume marks), then trains
// (gpu_compute 9.6 ms). Between the second item and the next step's submission the worker is
// idle ~10 ms: as `other` work, that idle time was on the critical path ("unannotated") and
// pinned the worker's next task to its recorded time, so a faster training stage bought
// nothing (1.0x for 30 / 25.2 = 1.19x).
namespace {

format::Profile pool_like(int steps, bool worker_waits = false) {
  ProfileBuilder b;
  for (int i = 0; i < steps; ++i) {
    const double t = 30.0 * i;
    b.stage(1, "step", t, t + 30);
    b.stage(1, "wait", t + 0.1, t + 10.3);
    b.mark(1, "consume", t + 10.3, 2 * i);
    b.stage(1, "wait", t + 10.31, t + 20.35);
    b.mark(1, "consume", t + 20.35, 2 * i + 1);
    b.stage(1, "gpu_compute", t + 20.4, t + 30);
    if (worker_waits) b.stage(2, "wait", t - 9.75 < 0 ? t : t - 9.75, t + 0.2);  // a worker that annotates its get
    b.stage(2, "disk_io", t + 0.2, t + 4.2);
    b.stage(2, "cpu_preprocess", t + 4.2, t + 10.2);
    b.mark(2, "produce", t + 10.2, 2 * i);
    b.stage(2, "disk_io", t + 10.25, t + 14.25);
    b.stage(2, "cpu_preprocess", t + 14.25, t + 20.25);
    b.mark(2, "produce", t + 20.25, 2 * i + 1);
  }
  return b.profile;
}

}  // namespace

TEST_CASE("loader lanes: a pool worker's idle gaps are waits released by the driving thread") {
  AnalysisOptions opt;
  opt.warmup = 1;
  const Report r = analyze(pool_like(12), opt);
  REQUIRE(r.graph);
  CHECK(r.exposed_basis == "critical_path");  // the factor-1 replay reproduced the run
  REQUIRE(!r.stages.empty());
  CHECK(r.stages.back().is_other);
  CHECK(r.stages.back().fraction < 0.02);
  CHECK(r.find_stage("gpu_compute")->fraction == doctest::Approx(9.6 / 30).epsilon(0.03));
  // The driving thread's view charges each wait to the producer's item from its first range
  // on, not to the worker's idle time before it.
  const double drv_other = r.driving_view.exposed_ns.back() / static_cast<double>(r.wall_ns);
  CHECK(drv_other < 0.02);
  bool noted = false;
  for (const auto& n : r.notes)
    if (const auto* f = std::get_if<findings::LoaderIdleWaits>(&n)) noted |= f->lanes == 1;
  CHECK(noted);
  // The worker's gaps before each step's first item: waits joined to the driving lane.
  const ReplayGraph& g = *r.graph;
  std::size_t waits = 0, joined = 0, held = 0;
  for (std::uint32_t n = 0; n < g.nodes.size(); ++n) {
    const ReplayNode& nd = g.nodes[n];
    if (g.lanes[nd.lane].gpu || g.lanes[nd.lane].id != 2) continue;
    for (std::uint32_t e = g.edge_begin[n]; e < g.edge_begin[n + 1]; ++e) {
      const ReplayEdge& ed = g.edges[e];
      if (g.lanes[g.nodes[ed.from].lane].id != 1 || ed.edge_kind() != EdgeKind::Inferred) continue;
      if (ed.join) ++joined; else ++held;
    }
    if (nd.kind == NodeKind::Wait && nd.stage == kLabelWait) ++waits;
  }
  CHECK(waits == 11);   // one per step but the first
  CHECK(joined == 11);
  CHECK(held == 12 - 1);  // the second item of a step (queued): not before the step's submission
  // A faster training stage moves the worker's next task with the driving thread.
  const WhatIf w = compute_whatif(r, {{"gpu_compute", 2.0}}, std::nullopt);
  CHECK(w.simulated_speedup == doctest::Approx(30.0 / 25.2).epsilon(0.02));
}

TEST_CASE("loader lanes: a worker that annotates its own waits keeps them (not a loader lane)") {
  AnalysisOptions opt;
  opt.warmup = 1;
  const Report r = analyze(pool_like(6, true), opt);
  REQUIRE(r.graph);
  for (const auto& n : r.notes) CHECK_FALSE(std::holds_alternative<findings::LoaderIdleWaits>(n));
}
