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
  for (const auto& n : r.notes) noted |= n.find("idle gaps") != std::string::npos;
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
