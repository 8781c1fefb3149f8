// The GPU-only report (issue 19, item 2): what `amdahl report` says about a profile that has GPU
// records but no step and no stage ranges (an unannotated run, `amdahl profile --no-torch`).
// No host stages can be known; the GPU's own records still say how busy it was over the run,
// kernels against copies, whether it waited on the host in short gaps (launch bound) or long
// ones (input, Python, synchronisation), and which kernels took the time. docs/reports.md,
// "Without stage ranges".
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "amdahl/analysis/report.hpp"
#include "amdahl/format/profile.hpp"

namespace amdahl::analysis {

// A GPU-idle gap shorter than this, between two operations of one device, counts as launch
// overhead (the host issuing the next kernel); longer gaps are host work or waiting.
inline constexpr std::int64_t kLaunchGapNs = 100'000;

struct GpuOnlyDevice {
  std::uint32_t pid = 0, device = 0;
  std::size_t ops = 0;
  Interval active;                // its first operation's start to its last one's end
  std::int64_t busy_ns = 0;       // union of its operations, in the run
  std::int64_t kernel_busy_ns = 0;  // union of its kernels
  std::int64_t copy_busy_ns = 0;    // union of its copies and sets
  std::int64_t idle_ns = 0;       // run - busy
  std::int64_t active_idle_ns = 0;  // gaps inside `active`
  std::int64_t short_gap_ns = 0;    // of active_idle_ns: gaps < kLaunchGapNs
  std::size_t short_gaps = 0, long_gaps = 0;
};

struct GpuOnlyOps {  // a kind of operation: kernels, a copy direction, sets
  std::string kind;
  std::size_t count = 0;
  std::int64_t total_ns = 0;  // sum of durations (concurrent ones add up)
  std::uint64_t bytes = 0;
};

struct GpuOnlyKernel {
  std::string name;
  std::size_t count = 0;
  std::int64_t total_ns = 0;
};

struct GpuOnlyReport {
  Interval run;                 // the command's run (meta start_ns/end_ns), else the records' extent
  std::string run_source;       // "command" or "records"
  Interval active;              // first GPU operation's start to the last one's end (all devices)
  std::vector<GpuOnlyDevice> devices;
  std::int64_t busy_ns = 0, idle_ns = 0;                // over the run, summed over devices
  std::int64_t active_ns = 0, active_idle_ns = 0;       // over each device's active span, summed
  std::int64_t short_gap_ns = 0;                         // of active_idle_ns: launch gaps
  double idle_share_run = 0, idle_share_active = 0, short_gap_share = 0;  // short_gap_ns / active_idle_ns
  // The most a faster host alone can give: the active span over the busiest device's busy time
  // in it (the GPU work that stays).
  double host_speedup_bound = 1;
  std::vector<GpuOnlyOps> ops;  // "kernel", then copies by direction ("HtoD", ...), then "memset"
  std::int64_t kernel_ns = 0, copy_ns = 0;  // sums of durations (memsets counted as copies)
  std::size_t distinct_kernels = 0;
  std::vector<GpuOnlyKernel> top_kernels;  // by total time, at most `top`
  std::size_t launch_calls = 0;            // API calls correlated with a GPU operation
  std::int64_t launch_call_ns = 0;
  std::string bound;    // "gpu_bound", "launch_bound" or "host_bound"
  Finding verdict;      // GpuBound, LaunchBound or HostBound (finding.hpp)
  Finding how_to_get_stages = findings::NoHostStages{};
  std::vector<Finding> notes;
  std::vector<ProfileDiagnostic> diagnostics;
  std::map<std::string, std::string> meta;
};

// Whether the profile has GPU operations (what the GPU-only report needs).
bool has_gpu_ops(const format::Profile& profile);

// The GPU-only report; throws InputError when the profile has no GPU operations.
GpuOnlyReport summarize_gpu_only(const format::Profile& profile, std::size_t top = 10);

}  // namespace amdahl::analysis
