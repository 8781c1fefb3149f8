// The verdict guard (verdict_guard.hpp).
#include "amdahl/analysis/verdict_guard.hpp"

#include <algorithm>

namespace amdahl::analysis {

double gpu_idle_share(const GpuSummary& gpu, std::int64_t window_ns) {
  if (!gpu.present || window_ns <= 0) return -1;
  return std::clamp(1.0 - static_cast<double>(gpu.any_busy_ns) / static_cast<double>(window_ns), 0.0, 1.0);
}

Finding guard_verdict(Finding verdict, const std::vector<StageRow>& stages, const GpuSummary& gpu,
                      std::int64_t window_ns, bool per_step) {
  const double idle = gpu_idle_share(gpu, window_ns);
  const auto* bound = std::get_if<findings::GroupBound>(&verdict);
  if (idle <= kGpuIdleGuard || !bound || bound->top.group != findings::StageGroup::compute) return verdict;
  findings::IdleGpuHostBound out;
  out.idle_share = idle;
  out.per_step = per_step;
  double best = -1, compute = 0;
  for (const auto& s : stages) {
    if (s.is_other) {
      if (s.fraction > best) {
        best = s.fraction;
        out.largest_stage = s.name;
        out.largest_is_other = true;
      }
      continue;
    }
    const double whole = s.exposed_host_ns + s.exposed_gpu_ns;
    const double host = s.on_gpu ? (whole > 0 ? s.fraction * s.exposed_host_ns / whole : 0.0) : s.fraction;
    if (s.name == "gpu_compute") compute = s.fraction - host;
    if (host > best) {
      best = host;
      out.largest_stage = s.name;
      out.largest_is_other = false;
      out.largest_of = s.on_gpu ? findings::ShareOf::host_part : findings::ShareOf::stage;
    }
  }
  out.largest_share = best;
  out.compute_share = compute;
  return out;
}

}  // namespace amdahl::analysis
