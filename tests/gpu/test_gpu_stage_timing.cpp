// GPU test: the GPU time amdahl gives each stage (h2d, gpu_compute, d2h) is within 2% of the
// CUDA-event timings the workload measured itself; checked on the raw profile (GPU ops
// attributed by correlation id) and on `amdahl report --format json` (stages[].gpu_busy_ns in
// the analysis window).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <string>

#include "cupti_gpu_util.hpp"

using namespace amdahl;
using namespace amdahl::gpu_cupti_test;

namespace {
const char* const kStages[] = {"h2d", "gpu_compute", "d2h"};

double rel_err(double got, double want) { return std::fabs(got - want) / want; }
}  // namespace

TEST_CASE("per-stage GPU time matches CUDA-event timings within 2%") {
  skip_without_device();
  const std::string dir = make_temp_dir("cupti-timing");
  const int steps = 10;
  REQUIRE(profile_workload(dir, "timing", {"--count", std::to_string(steps)}) == 0);
  const nlohmann::json ev = read_json(dir + "/events.json");
  REQUIRE(ev["steps"].size() == static_cast<std::size_t>(steps));

  const format::Profile p = format::load_profile(dir + "/run.amdahl");
  const format::RecordSet& rs = p.records;
  REQUIRE_FALSE(rs.devices.empty());

  // Raw: every op is attributed by correlation to the stage that launched it.
  const auto stages = stages_by_correlation(rs);
  std::map<std::string, double> raw_ns;
  std::map<std::string, int> raw_ops;
  std::uint64_t h2d_bytes = 0, d2h_bytes = 0;
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    const auto& op = rs.gpu_ops[i];
    CAPTURE(i);
    CHECK_FALSE(stages[i].empty());
    raw_ns[stages[i]] += static_cast<double>(op.end_ns - op.start_ns);
    raw_ops[stages[i]] += 1;
    if (stages[i] == "h2d") {
      CHECK(op.kind == format::GpuOpKind::Memcpy);
      CHECK(op.copy_kind == format::CopyKind::HtoD);
      CHECK(op.src_kind == format::MemKind::Pinned);
      CHECK(op.dst_kind == format::MemKind::Device);
      h2d_bytes += op.bytes;
    } else if (stages[i] == "d2h") {
      CHECK(op.copy_kind == format::CopyKind::DtoH);
      CHECK(op.src_kind == format::MemKind::Device);
      CHECK(op.dst_kind == format::MemKind::Pinned);
      d2h_bytes += op.bytes;
    } else if (stages[i] == "gpu_compute") {
      CHECK(op.kind == format::GpuOpKind::Kernel);
    }
  }
  std::map<std::string, double> ev_ns;
  std::map<std::string, int> ev_ops;
  std::uint64_t ev_h2d_bytes = 0, ev_d2h_bytes = 0;
  for (const auto& s : ev["steps"]) {
    for (const char* st : kStages) {
      ev_ns[st] += s[std::string(st) + "_ns"].get<double>();
      ev_ops[st] += s[std::string(st) + "_ops"].get<int>();
    }
    ev_h2d_bytes += s["h2d_bytes"].get<std::uint64_t>();
    ev_d2h_bytes += s["d2h_bytes"].get<std::uint64_t>();
  }
  for (const char* st : kStages) {
    CAPTURE(st);
    CHECK(raw_ops[st] == ev_ops[st]);
    MESSAGE(st << ": profile " << raw_ns[st] / 1e6 << " ms, CUDA events " << ev_ns[st] / 1e6 << " ms");
    CHECK(rel_err(raw_ns[st], ev_ns[st]) < 0.02);
  }
  CHECK(h2d_bytes == ev_h2d_bytes);
  CHECK(d2h_bytes == ev_d2h_bytes);

  // The report: stages[].gpu_busy_ns over the analysis window (warm-up steps excluded).
  REQUIRE(run({build_dir() + "/bin/amdahl", "report", dir + "/run.amdahl", "--format", "json"},
              dir + "/report.json") == 0);
  const nlohmann::json rep = read_json(dir + "/report.json");
  const std::int64_t w0 = rep["window"]["start_ns"].get<std::int64_t>();
  const std::int64_t w1 = rep["window"]["end_ns"].get<std::int64_t>();
  std::map<std::string, double> win_ns;
  int in_window = 0;
  for (const auto& s : ev["steps"]) {
    const std::int64_t mid = (s["start_ns"].get<std::int64_t>() + s["end_ns"].get<std::int64_t>()) / 2;
    if (mid < w0 || mid > w1) continue;
    ++in_window;
    for (const char* st : kStages) win_ns[st] += s[std::string(st) + "_ns"].get<double>();
  }
  CHECK(rep["steps"].get<int>() == in_window);
  REQUIRE(in_window > 0);
  int found = 0;
  for (const auto& s : rep["stages"]) {
    const std::string name = s["name"].get<std::string>();
    if (!win_ns.count(name)) continue;
    CAPTURE(name);
    REQUIRE(s.contains("gpu_busy_ns"));
    const double got = s["gpu_busy_ns"].get<double>();
    MESSAGE(name << ": report gpu_busy " << got / 1e6 << " ms, CUDA events " << win_ns[name] / 1e6 << " ms over "
                 << in_window << " steps");
    CHECK(rel_err(got, win_ns[name]) < 0.02);
    ++found;
  }
  CHECK(found == 3);
}
