// GPU attribution through correlation ids, fallback by kind, busy/idle per stage, launch
// delays, and a blocking sync outside any stage charged to the GPU ops it waited on.
#include <doctest/doctest.h>

#include "amdahl/analysis/gpu_attribution.hpp"
#include "amdahl/analysis/report.hpp"
#include "profile_builder.hpp"

using namespace amdahl::analysis;
using amdahl::format::CopyKind;
using amdahl::format::GpuOpKind;
using amdahl::test::ms;
using amdahl::test::ProfileBuilder;

namespace {

// Exposed ns of a stage in the driving thread's view (the fallback basis, still computed).
[[maybe_unused]] double dv_exposed(const Report& r, const std::string& name) {
  for (std::size_t i = 0; i + 1 < r.stages.size(); ++i)
    if (r.stages[i].name == name) return r.driving_view.exposed_ns[i];
  return -1;
}
ProfileBuilder gpu_run() {
  ProfileBuilder b;
  b.stage(1, "step", 0, 10).stage(1, "step", 10, 20);
  b.stage(1, "h2d", 0, 1).api(1, "cudaMemcpyAsync", 0.1, 0.2, 1);
  b.gpu(GpuOpKind::Memcpy, 0.5, 2, 1, CopyKind::HtoD);
  // A kernel launched inside gpu_compute; its DtoH-looking name must not matter.
  b.stage(1, "gpu_compute", 1, 3).api(1, "cudaLaunchKernel", 1.1, 1.2, 2);
  b.gpu(GpuOpKind::Kernel, 2, 8, 2, CopyKind::Unknown, "gemm_kernel");
  // A blocking sync in no stage: charged to what the GPU was doing meanwhile (the kernel).
  b.api(1, "cudaStreamSynchronize_v3020", 3, 8, 3);
  // Unmatched work: by kind.
  b.gpu(GpuOpKind::Kernel, 8.5, 9, 99, CopyKind::Unknown, "ncclAllReduceRingLLKernel");
  b.gpu(GpuOpKind::Memcpy, 9, 9.5, 0, CopyKind::DtoH);
  b.gpu(GpuOpKind::Memset, 9.5, 9.8, 0);
  // A launch from a thread inside a stage it should inherit (cpu thread doing its own copy).
  b.stage(2, "disk_io", 11, 12).api(2, "cudaMemcpyAsync", 11.5, 11.6, 4);
  b.gpu(GpuOpKind::Memcpy, 12, 13, 4, CopyKind::HtoD, "", 1);
  return b;
}
}  // namespace

TEST_CASE("GPU ops take the launching thread's innermost stage, else their kind's") {
  auto b = gpu_run();
  StageRules rules;
  const Timeline tl = build_timeline(b.profile.records, rules);
  const auto st = attribute_gpu_ops(tl);
  REQUIRE(st.size() == 6);
  CHECK(st[0].stage == tl.stage_id("h2d"));
  CHECK(st[0].by_correlation);
  CHECK(st[0].launch_delay_ns == ms(0.4));
  CHECK(st[1].stage == tl.stage_id("gpu_compute"));
  CHECK(st[1].by_correlation);
  CHECK(st[2].stage == tl.stage_id("communication"));
  CHECK_FALSE(st[2].by_correlation);
  CHECK(st[3].stage == tl.stage_id("d2h"));
  CHECK(st[4].stage == tl.stage_id("gpu_compute"));
  CHECK(st[5].stage == tl.stage_id("disk_io"));  // the stage open at the launch, not the kind
}

TEST_CASE("a correlation id used again (CUPTI attached again per window) matches the latest launch before the op") {
  // Profiles of sampled runs made before the collector kept ids unique reuse them per window.
  ProfileBuilder b;
  b.stage(1, "step", 0, 10).stage(1, "step", 100, 110);
  b.stage(1, "h2d", 0, 2).api(1, "cudaMemcpyAsync", 0.1, 0.2, 5);
  b.gpu(GpuOpKind::Memcpy, 0.5, 1, 5, CopyKind::HtoD);
  b.stage(1, "gpu_compute", 100, 103).api(1, "cudaLaunchKernel", 100.1, 100.2, 5);
  b.gpu(GpuOpKind::Kernel, 101, 105, 5, CopyKind::Unknown, "gemm_kernel");
  StageRules rules;
  const Timeline tl = build_timeline(b.profile.records, rules);
  REQUIRE(tl.api_of_op.size() == 2);
  CHECK(tl.api_of_op[0] == 0);
  CHECK(tl.api_of_op[1] == 1);
  const auto st = attribute_gpu_ops(tl);
  CHECK(st[0].stage == tl.stage_id("h2d"));
  CHECK(st[1].stage == tl.stage_id("gpu_compute"));
  CHECK(st[1].launch_delay_ns == ms(0.9));
}

TEST_CASE("GPU busy per stage, idle, launch delays, and sync waits in the report") {
  AnalysisOptions opt;
  opt.warmup = 0;
  const Report r = analyze(gpu_run().profile, opt);
  CHECK(r.wall_ns == ms(20));
  CHECK(r.gpu.present);
  CHECK(r.gpu.ops_in_window == 6);
  CHECK(r.gpu.by_correlation == 3);
  CHECK(r.gpu.by_fallback == 3);
  CHECK(r.find_stage("h2d")->gpu_busy_ns == ms(1.5));
  CHECK(r.find_stage("gpu_compute")->gpu_busy_ns == ms(6) + ms(0.3));
  CHECK(r.find_stage("communication")->gpu_busy_ns == ms(0.5));
  CHECK(r.find_stage("d2h")->gpu_busy_ns == ms(0.5));
  CHECK(r.find_stage("disk_io")->gpu_busy_ns == ms(1));
  REQUIRE(r.gpu.devices.size() == 2);
  // device 0: [0.5, 8] + [8.5, 9] + [9, 9.5] + [9.5, 9.8] = 8.8 ms busy
  CHECK(r.gpu.devices[0].busy_ns == ms(7.5) + ms(0.5) + ms(0.5) + ms(0.3));
  CHECK(r.gpu.devices[0].idle_ns == ms(20) - r.gpu.devices[0].busy_ns);
  CHECK(r.gpu.devices[1].busy_ns == ms(1));
  const auto ld = r.gpu.launch_delay_ns.summary();
  CHECK(ld.count == 3);
  CHECK(ld.max == doctest::Approx(ms(0.9)));
  // The driving thread: h2d 1 ms, gpu_compute 2 ms + the 5 ms sync charged to the kernel.
  CHECK(r.driving_view.waits.gpu_wait_ns == doctest::Approx(ms(5)));
  CHECK(dv_exposed(r, "h2d") == doctest::Approx(ms(1)));
  CHECK(dv_exposed(r, "gpu_compute") == doctest::Approx(ms(7)));
  CHECK(r.driving_view.exposed_ns.back() == doctest::Approx(ms(12)));
}

TEST_CASE("union_length") {
  CHECK(union_length({{0, 10}, {5, 15}, {20, 30}}, {0, 100}) == 25);
  CHECK(union_length({{0, 10}, {5, 15}, {20, 30}}, {8, 22}) == 9);
  CHECK(union_length({}, {0, 10}) == 0);
}
