// What the collector core's own files share (collector_core.cpp: load, exit and the part's
// data; thread_registry.cpp; string_table.cpp; recording.cpp; collector_fork.cpp): the
// process-wide tables with their locks, the enabled flag, and each file's entry points for the
// others (configuration at load, reset in a fork child, counters). Not seen by the part writer
// or the NVTX layer (they use collector_state.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collector_config.hpp"
#include "collector_state.hpp"
#include "proc_info.hpp"

namespace amdahl::profiler::detail {

// The process-wide tables (one instance, g_core).
struct Core {
  std::uint32_t pid = 0;
  std::uint32_t ppid = 0;
  std::int64_t start_ns = 0;
  CpuInfo cpu;
  std::string part_dir;
  std::string part_path;

  std::mutex write_mu;  // lock order: write_mu, registry_mu, strings_mu, diag_mu, misc_mu, hooks_mu
  std::mutex registry_mu;
  std::mutex strings_mu;
  std::deque<std::string> strings;
  std::unordered_map<std::string_view, format::StrId> string_ids;
  std::mutex diag_mu;
  std::map<std::string, std::uint64_t, std::less<>> diags;
  std::mutex misc_mu;
  std::vector<format::CategoryRec> categories;
  std::unordered_map<std::uint64_t, format::StrId> thread_names;
  std::mutex hooks_mu;
  std::vector<PartHook> hooks;
  // A forked child keeps its parent's hooks (CUPTI's), but no CUDA work of its own can run in
  // it: a quick exit there loses nothing of theirs (no "quick_exit_without_hooks").
  bool hooks_inherited = false;
};

// Never destroyed: callbacks may still arrive from other threads while the process exits.
extern Core* g_core;
extern bool g_enabled;                // AMDAHL_PART_DIR usable: the collector records
extern std::atomic<bool> g_recording;  // a thread registered since load (or fork)

inline Core& core() noexcept { return *g_core; }

// <dir>/part-<pid>-<start ns>.amdpart
std::string make_part_path(const std::string& dir, std::uint32_t pid, std::int64_t ns);

// thread_registry.cpp: in the fork child (one thread, every lock held by fork_child). The
// forking thread's open push ranges are kept for its first registration in the child; every
// ThreadState of the parent is freed. disabled_fork_child: only the cached thread id is
// forgotten.
void registry_fork_child() noexcept;
void registry_disabled_fork_child() noexcept;

// string_table.cpp: id 0 is "" (at load, before anything is interned).
void string_table_init() noexcept;

// recording.cpp. At load: the GPU trace window from the configuration (AMDAHL_GPU_STEPS; an
// unusable schedule is warned about here), then, once the collector is known to be on, the
// names the hot path watches for ("step" for the window, domain "amdahl" for the CPU times;
// interned in that order).
void recording_configure(const CollectorConfig& cfg) noexcept;
void recording_enable(const CollectorConfig& cfg) noexcept;
// Counters of the recording entry points (lock-free reads).
struct RecordCounters {
  std::uint64_t dropped_ranges = 0;
  std::uint64_t dropped_marks = 0;
  std::uint64_t range_ends = 0;  // successful nvtxRangeEnd calls
};
RecordCounters record_counters() noexcept;
// In the fork child: a new id epoch for start/end ranges, no drops yet.
void recording_fork_child() noexcept;

// collector_fork.cpp: registers the fork handlers (at load).
void install_fork_handlers() noexcept;

}  // namespace amdahl::profiler::detail
