// Unannotated CUDA helper threads in the replay. PyTorch runs the backward pass on its own
// autograd thread, which makes CUDA calls but carries no ranges: between two backward passes it
// sleeps until the training thread calls backward() again. Replayed as `other` work of fixed
// length, that sleep pinned every later launch to its recorded time, so no change to the
// training thread (faster loading, more loader workers) could move the run's end: the replay
// said 1.0x where the real run was 4.5x faster. Here a gap of at least `min_gap_ns` between
// the CUDA calls of a host lane with no stage, wait, produce or consume records of its own (and
// not the driving lane) is a wait that ends no earlier than the driving-lane node that ended
// last before it, plus the recorded delay: the helper reacts to the training thread. Shorter
// gaps stay work (a helper's own per-launch CPU time, which launch-bound runs are made of).
// The other direction too: a driving-thread stretch of at least `min_gap_ns` with no CUDA call
// of its own that ended within kHelperWakeNs of a helper's CUDA activity is the driving thread
// blocked on the helper (PyTorch's backward()): a wait joined to that activity. And a helper's
// own work and launch calls are the host part of the stage of the GPU work it launched (90% of
// its ops in one stage; else they stay `other`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "amdahl/analysis/replay.hpp"
#include "amdahl/analysis/timeline.hpp"

namespace amdahl::analysis {

inline constexpr std::int64_t kHelperIdleGapNs = 1'000'000;  // 1 ms
// A helper's last CUDA activity ended at most this long before the driving thread went on.
inline constexpr std::int64_t kHelperWakeNs = 1'000'000;  // 1 ms (seen: 0.34 ms from the autograd thread's last call to the training thread going on)

struct HelperIdleStats {
  std::size_t idle_waits = 0;  // gaps turned into waits
  double idle_ns = 0;          // their recorded length
  // Driving-thread work nodes that were the driving thread blocked on a helper (backward()).
  std::size_t driver_waits = 0;
  double driver_wait_ns = 0;   // their recorded length less the driving thread's own work
  // Helper nodes (work, launch calls) given the stage of the GPU work their lane launched.
  std::size_t helper_nodes_attributed = 0;
};

// Per ReplayGraph lane: 1 for a host lane with no stage, wait, produce or consume records of
// its own that is not the driving lane (`driving_lane`: index into Timeline::lanes).
std::vector<char> helper_lane_flags(const ReplayGraph& graph, const Timeline& timeline, std::size_t driving_lane);

// The transform; call before prepare_replay(). With every factor 1 the replay is unchanged
// (each join reproduces the recorded end).
HelperIdleStats link_helper_idle(ReplayGraph& graph, const std::vector<char>& helper, std::size_t driving_lane,
                                 std::int64_t min_gap_ns = kHelperIdleGapNs);

// Loader threads in the replay (issue 17): a thread pool's worker (a ThreadPoolExecutor
// loader) runs annotated tasks (disk_io, cpu_preprocess) and, between two of them, sleeps until
// the driving thread submits the next one. Replayed as `other` work, that sleep made a fully
// annotated run "unannotated" (the critical path ran through it) and pinned every later task to
// its recorded time whatever the driving thread did. A loader lane is a host lane other than the
// driving one with disk_io or cpu_preprocess work and no `wait` ranges of its own (a lane that
// annotates its waits, as PyTorch's workers and cpu_pipeline's loaders do, keeps them). On it, a
// gap of at least `min_gap_ns` in no range between two tasks (after the previous task's produce
// mark when the lane has any) is a wait:
// * joined to the driving lane's last work or CUDA call node that ended inside the gap (the
//   submission that released the task), weight the recorded delay, no length of its own;
// * when no such node ended inside the gap, it keeps its recorded length, no earlier than the
//   driving lane's last such node before the gap ended.
// Shorter gaps (the pool taking a task that was already queued) stay work. A task with no
// release of its own starts no earlier than the latest release of a task of its pool (same
// process) that started before it: the queue is first in, first out.
struct LoaderIdleStats {
  std::size_t lanes = 0;       // loader lanes with idle gaps turned into waits
  std::size_t idle_waits = 0;  // gaps turned into waits
  std::size_t released = 0;    // of them, joined to a driving-thread node that ended inside the gap
  double idle_ns = 0;          // their recorded length
  std::size_t queued_after_release = 0;  // tasks held to an earlier task's release
};

// Per ReplayGraph lane: 1 for a loader lane (above).
std::vector<char> loader_lane_flags(const ReplayGraph& graph, const Timeline& timeline, std::size_t driving_lane);

// The transform; call before prepare_replay() and with the timeline's lanes still present.
// With every factor 1 the replay is unchanged.
LoaderIdleStats link_loader_idle(ReplayGraph& graph, const Timeline& timeline, const std::vector<char>& loader,
                                 std::size_t driving_lane, std::int64_t min_gap_ns = kHelperIdleGapNs);

}  // namespace amdahl::analysis
