// GPU attribution: each GPU operation gets the innermost stage open on its launching thread at
// the launching API call's start (matched by correlation id within the process); otherwise a
// fallback by kind (HtoD -> h2d, DtoH -> d2h, NCCL kernels -> communication, everything else
// -> gpu_compute). Summaries: busy time per stage (union of intervals per device), idle time
// in the window, and launch delays (op start - API call start).
#pragma once

#include <cstdint>
#include <vector>

#include "amdahl/analysis/stage_stats.hpp"
#include "amdahl/analysis/timeline.hpp"

namespace amdahl::analysis {

struct GpuOpStage {
  StageId stage = kLabelOther;
  bool by_correlation = false;        // false: fallback by kind
  std::int64_t launch_delay_ns = -1;  // op start - API call start; -1 without an API call
};

// The stage a GPU op falls back to by its kind. Needs the canonical ids in `timeline`.
StageId fallback_stage(const Timeline& timeline, const format::GpuOpRec& op);

// One entry per RecordSet::gpu_ops entry.
std::vector<GpuOpStage> attribute_gpu_ops(const Timeline& timeline);

struct GpuDeviceUsage {
  std::uint32_t pid = 0;
  std::uint32_t device = 0;
  std::int64_t busy_ns = 0;  // union of its ops' intervals, clipped to the window
  std::int64_t idle_ns = 0;  // window - busy
};

struct GpuSummary {
  bool present = false;  // any GPU op in the profile
  std::size_t ops = 0, ops_in_window = 0, by_correlation = 0, by_fallback = 0;
  std::vector<std::int64_t> busy_ns_by_stage;  // per StageId: union per device, summed over devices
  std::vector<GpuDeviceUsage> devices;
  std::int64_t busy_ns = 0;  // summed over devices
  std::int64_t idle_ns = 0;  // summed over devices
  std::int64_t any_busy_ns = 0;  // window time in which any device is busy (union over devices)
  StageStats launch_delay_ns;  // ops in the window with a matched API call
};

GpuSummary summarize_gpu(const Timeline& timeline, const std::vector<GpuOpStage>& op_stages,
                         Interval window);

// Total length of the union of intervals (sorted or not), clipped to `window`.
std::int64_t union_length(std::vector<Interval> intervals, Interval window);

}  // namespace amdahl::analysis
