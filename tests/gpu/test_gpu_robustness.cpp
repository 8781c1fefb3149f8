// GPU robustness tests of the CUPTI collector: records survive cudaDeviceReset in the middle
// of a run (flushed before the context goes), and exit() called from a second thread while a
// kernel is still running (flushed by the exit handler; exit code passed through).
#include <doctest/doctest.h>

#include <string>

#include "cupti_gpu_util.hpp"

using namespace amdahl;
using namespace amdahl::gpu_cupti_test;

namespace {
int count_kernels(const format::RecordSet& rs, const std::string& part_of_name) {
  int n = 0;
  for (const auto& op : rs.gpu_ops) {
    if (op.kind != format::GpuOpKind::Kernel) continue;
    if (rs.str(op.name).find(part_of_name) == std::string::npos) continue;
    CHECK(op.start_ns > 0);
    CHECK(op.end_ns - op.start_ns >= 900'000);  // 1 ms (or 5 ms) spins, really timed
    ++n;
  }
  return n;
}
}  // namespace

TEST_CASE("cudaDeviceReset mid-run keeps the kernels launched before and after it") {
  skip_without_device();
  const std::string dir = make_temp_dir("cupti-reset");
  REQUIRE(profile_workload(dir, "reset") == 0);
  const format::Profile p = format::load_profile(dir + "/run.amdahl");
  CHECK(count_kernels(p.records, "spin_before_reset") == 3);
  CHECK(count_kernels(p.records, "spin_after_reset") == 3);
  for (const auto& d : p.records.diagnostics) CHECK(p.records.str(d.key) != "cupti.dropped_records");
}

TEST_CASE("exit() from a second thread while a kernel runs still gives a profile with all kernels") {
  skip_without_device();
  const std::string dir = make_temp_dir("cupti-exit");
  CHECK(profile_workload(dir, "thread_exit") == 7);
  const format::Profile p = format::load_profile(dir + "/run.amdahl");
  CHECK(count_kernels(p.records, "spin_kernel") == 4);
}
