// The headline verdict must not contradict the GPU's own idle share (issue 19): a run whose GPU
// is idle most of the window is not "compute bound", whatever the critical path charged to GPU
// compute (e.g. an imported trace whose compute ranges are mostly host time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "amdahl/analysis/gpu_attribution.hpp"
#include "amdahl/analysis/report.hpp"

namespace amdahl::analysis {

// Above this idle share of the window (no device busy) the GPU cannot hold most of the step:
// even if all its busy time were on the critical path, the host side holds more of it.
inline constexpr double kGpuIdleGuard = 0.5;

// The share of the window in which no GPU is busy (1 - any_busy / window); -1 without GPU records.
double gpu_idle_share(const GpuSummary& gpu, std::int64_t window_ns);

// `verdict` unchanged unless it says compute bound (a GroupBound of StageGroup::compute) while
// the GPU is idle more than kGpuIdleGuard of the window; then an IdleGpuHostBound ("host bound:
// the GPU is idle X% of the window, so the host side holds the run; the largest host share is S
// (Y% of each step)") naming the largest of: a stage without GPU operations, the host part of a
// stage with them, `other`; then GPU compute's own share, so that nothing is hidden.
Finding guard_verdict(Finding verdict, const std::vector<StageRow>& stages, const GpuSummary& gpu,
                          std::int64_t window_ns, bool per_step);

}  // namespace amdahl::analysis
