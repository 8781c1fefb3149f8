// GPU test of the one clock: a host NVTX range encloses a kernel launch and a synchronize, so the
// kernel's GPU interval (CUPTI, through the timestamp callback) must lie inside the range (NVTX
// collector) and inside the workload's own CLOCK_MONOTONIC readings around it.
#include <doctest/doctest.h>

#include <algorithm>

#include "cupti_gpu_util.hpp"

using namespace amdahl;
using namespace amdahl::gpu_cupti_test;

TEST_CASE("kernel intervals lie inside the host range that launched and awaited them") {
  skip_without_device();
  const std::string dir = make_temp_dir("cupti-clock");
  const int n = 5;
  REQUIRE(profile_workload(dir, "clock", {"--count", std::to_string(n)}) == 0);
  const nlohmann::json ev = read_json(dir + "/events.json");
  const format::Profile p = format::load_profile(dir + "/run.amdahl");
  const format::RecordSet& rs = p.records;

  std::vector<std::size_t> kernels;
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    if (rs.gpu_ops[i].kind == format::GpuOpKind::Kernel) kernels.push_back(i);
  }
  REQUIRE(kernels.size() == static_cast<std::size_t>(n));
  std::sort(kernels.begin(), kernels.end(),
            [&](std::size_t a, std::size_t b) { return rs.gpu_ops[a].start_ns < rs.gpu_ops[b].start_ns; });
  const auto calls = launching_calls(rs);
  for (int k = 0; k < n; ++k) {
    CAPTURE(k);
    const auto& op = rs.gpu_ops[kernels[static_cast<std::size_t>(k)]];
    const std::int64_t ci = calls[kernels[static_cast<std::size_t>(k)]];
    REQUIRE(ci >= 0);
    const auto& call = rs.api_calls[static_cast<std::size_t>(ci)];
    const std::int64_t ri = innermost_amdahl_range(rs, call.pid, call.tid, call.start_ns);
    REQUIRE(ri >= 0);
    const auto& range = rs.ranges[static_cast<std::size_t>(ri)];
    CHECK(rs.str(range.name) == "gpu_compute");
    CHECK(range.start_ns <= call.start_ns);
    CHECK(call.start_ns <= op.start_ns);
    CHECK(op.end_ns <= range.end_ns);
    const auto& it = ev["iterations"][static_cast<std::size_t>(k)];
    CHECK(it["before_ns"].get<std::int64_t>() <= op.start_ns);
    CHECK(op.end_ns <= it["after_ns"].get<std::int64_t>());
    // A 3 ms spin: the interval is real GPU time, not a clock-conversion artefact.
    CHECK(op.end_ns - op.start_ns >= 2'900'000);
    CHECK(op.end_ns - op.start_ns <= 3'600'000);
  }
}
