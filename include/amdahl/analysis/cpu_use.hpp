// CPU use of the host stages, from the CPU clocks the collector reads at push and pop of
// `amdahl` ranges (format::RangeRec thread_cpu_ns / process_cpu_ns) and the CPUs a process may
// use (ProcessRec cpus_allowed). What it tells: how much of a stage's wall time its thread was
// on a CPU (the rest: waiting for the GIL, IO or a free core), how many cores its process kept
// busy meanwhile (intra-op thread pools), and how many cores the driving process uses while it
// is not loading. `whatif --workers` uses it to bound what a worker process pays per batch.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "amdahl/analysis/timeline.hpp"

namespace amdahl::analysis {

struct StageCpu {
  std::string stage;
  bool driving_process = false;  // in the driving thread's process (else: worker processes)
  std::size_t ranges = 0;        // outermost ranges of the stage with CPU times, in the window
  double wall_ns = 0, thread_cpu_ns = 0, process_cpu_ns = 0;
  double on_cpu() const { return wall_ns > 0 ? thread_cpu_ns / wall_ns : 0; }           // thread CPU / wall
  double cores_busy() const { return wall_ns > 0 ? process_cpu_ns / wall_ns : 0; }      // process CPU / wall
};

struct CpuUse {
  bool known = false;              // some range in the window has CPU times
  std::uint32_t cpus_allowed = 0;  // of the driving process (0: unknown)
  std::uint32_t cpus_online = 0;
  std::vector<StageCpu> stages;    // per (stage, driving process or not), in stage order
  // The driving thread's loading (stages in `loading`), outermost ranges in the window.
  StageCpu loading;
  // Cores the driving process keeps busy in its steps outside loading (training, launching):
  // (process CPU of the steps - of the loading) / (wall of the steps - of the loading); < 0 unknown.
  double main_cores_busy = -1;
  // The driving thread's step ranges in the window: wall and thread CPU (its own work, no
  // other thread's spinning): what bounds a run that spreads the same work over more threads.
  double steps_wall_ns = 0, steps_thread_cpu_ns = 0;
};

// `loading`: the loading stages' names (disk_io, cpu_preprocess); `window`: the analysis window.
CpuUse measure_cpu_use(const Timeline& timeline, std::size_t driving_lane, Interval window,
                       const std::vector<std::string>& loading = {"disk_io", "cpu_preprocess"});

// What a loader worker pays per batch relative to the driving thread's inline loading, as a
// range (docs/analysis.md, "Structural what-if"): low = 1 (as fast as inline); high = the CPU
// the inline loading used on all threads plus its off-CPU time, over its wall time (a worker has
// one intra-op thread: what other threads did inline, it does itself; spinning pool threads
// make this an upper end). Without CPU times, or when the inline loading kept more than 2 cores
// busy (a spinning pool: its clocks say nothing of its work), the high end is `assumed_high` and
// `measured` is false. cpu_bound_speedup: the CPUs allowed times the steps' wall over the driving thread's CPU
// in them (the same work spread over more threads cannot finish faster than the cores allow);
// infinite when unknown.
struct WorkerCostRange {
  double low = 1, high = 1;
  double intra_op = 1;       // (process CPU + wall - thread CPU) / wall of the inline loading
  bool measured = false;     // intra_op from CPU times (else assumed)
  bool spinning = false;     // CPU times there, but the loading kept > 2 cores busy: a spinning
                             // pool hides its useful work, so intra_op is assumed
  double cpu_bound_speedup = std::numeric_limits<double>::infinity();
};
WorkerCostRange worker_cost_range(const CpuUse& cpu, std::size_t workers, double assumed_high = 1.3);

}  // namespace amdahl::analysis
