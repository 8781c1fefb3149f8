// The verdict guard (verdict_guard.hpp).
#include "amdahl/analysis/verdict_guard.hpp"

#include <algorithm>
#include <cstdio>

namespace amdahl::analysis {
namespace {

std::string pct(double f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", f * 100.0);
  return buf;
}

}  // namespace

double gpu_idle_share(const GpuSummary& gpu, std::int64_t window_ns) {
  if (!gpu.present || window_ns <= 0) return -1;
  return std::clamp(1.0 - static_cast<double>(gpu.any_busy_ns) / static_cast<double>(window_ns), 0.0, 1.0);
}

std::string guard_verdict(const std::string& verdict, const std::vector<StageRow>& stages, const GpuSummary& gpu,
                          std::int64_t window_ns, bool per_step) {
  const double idle = gpu_idle_share(gpu, window_ns);
  if (idle <= kGpuIdleGuard || verdict.rfind("compute bound", 0) != 0) return verdict;
  std::string label;
  double best = -1, compute = 0;
  for (const auto& s : stages) {
    if (s.is_other) {
      if (s.fraction > best) best = s.fraction, label = "time in no stage ('other')";
      continue;
    }
    const double whole = s.exposed_host_ns + s.exposed_gpu_ns;
    const double host = s.on_gpu ? (whole > 0 ? s.fraction * s.exposed_host_ns / whole : 0.0) : s.fraction;
    if (s.name == "gpu_compute") compute = s.fraction - host;
    if (host > best) best = host, label = s.on_gpu ? s.name + "'s host part" : s.name;
  }
  std::string out = "host bound: the GPU is idle " + pct(idle) + " of the window, so the host side holds the run";
  const std::string of = per_step ? " of each step" : " of the run";
  if (best > 0) out += "; the largest host share is " + label + " (" + pct(best) + of + ")";
  out += "; GPU compute holds " + pct(compute) + of + " on the critical path";
  return out;
}

}  // namespace amdahl::analysis
