// CPU use of the host stages (see cpu_use.hpp).
#include "amdahl/analysis/cpu_use.hpp"

#include <algorithm>
#include <map>

namespace amdahl::analysis {
namespace {

constexpr double kMaxMeasurableCores = 2.0;

struct Timed {
  std::int64_t start = 0, end = 0;
  double thread_cpu = 0, process_cpu = 0;
  std::string stage;
  bool step = false;
};

void add(StageCpu& s, const Timed& t) {
  ++s.ranges;
  s.wall_ns += static_cast<double>(t.end - t.start);
  s.thread_cpu_ns += t.thread_cpu;
  s.process_cpu_ns += t.process_cpu;
}

}  // namespace

CpuUse measure_cpu_use(const Timeline& tl, std::size_t drv, Interval window, const std::vector<std::string>& loading) {
  CpuUse out;
  if (tl.records == nullptr || drv >= tl.lanes.size()) return out;
  const format::RecordSet& rs = *tl.records;
  const std::uint32_t drv_pid = tl.lanes[drv].pid;
  const std::uint64_t drv_tid = tl.lanes[drv].tid;
  for (const auto& p : rs.processes)
    if (p.pid == drv_pid) {
      out.cpus_allowed = p.cpus_allowed;
      out.cpus_online = p.cpus_online;
    }
  // Ranges with CPU times inside the window, per thread, in start order.
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<Timed>> by_thread;
  for (std::size_t i = 0; i < rs.ranges.size() && i < tl.range_class.size(); ++i) {
    const format::RangeRec& r = rs.ranges[i];
    if (r.thread_cpu_ns < 0 || r.process_cpu_ns < 0 || r.unclosed) continue;
    if (r.start_ns < window.start_ns || r.end_ns > window.end_ns) continue;
    const RangeClass& c = tl.range_class[i];
    if (c.role != RangeRole::Stage && c.role != RangeRole::Step) continue;
    by_thread[{r.pid, r.tid}].push_back({r.start_ns, r.end_ns, static_cast<double>(r.thread_cpu_ns),
                                         static_cast<double>(r.process_cpu_ns), c.stage, c.role == RangeRole::Step});
  }
  std::map<std::pair<std::string, bool>, StageCpu> rows;
  StageCpu steps;
  auto is_loading = [&](const std::string& s) { return std::find(loading.begin(), loading.end(), s) != loading.end(); };
  for (auto& [key, v] : by_thread) {
    std::sort(v.begin(), v.end(), [](const Timed& a, const Timed& b) {
      return a.start != b.start ? a.start < b.start : a.end > b.end;
    });
    const bool driving_thread = key.first == drv_pid && key.second == drv_tid;
    std::int64_t covered_to = INT64_MIN;  // end of the last outermost stage range
    for (const Timed& t : v) {
      out.known = true;
      if (t.step) {
        if (driving_thread) add(steps, t);
        continue;
      }
      if (t.start < covered_to) continue;  // nested in a stage range: counted there
      covered_to = t.end;
      StageCpu& row = rows[{t.stage, key.first == drv_pid}];
      row.stage = t.stage;
      row.driving_process = key.first == drv_pid;
      add(row, t);
      if (driving_thread && is_loading(t.stage)) {
        out.loading.stage = "loading";
        out.loading.driving_process = true;
        add(out.loading, t);
      }
    }
  }
  for (const auto& name : tl.stage_names)
    for (bool d : {true, false})
      if (auto it = rows.find({name, d}); it != rows.end()) out.stages.push_back(it->second);
  out.steps_wall_ns = steps.wall_ns;
  out.steps_thread_cpu_ns = steps.thread_cpu_ns;
  if (steps.wall_ns > out.loading.wall_ns + 1e6) {
    out.main_cores_busy = std::max(0.0, (steps.process_cpu_ns - out.loading.process_cpu_ns) /
                                            (steps.wall_ns - out.loading.wall_ns));
  }
  return out;
}

WorkerCostRange worker_cost_range(const CpuUse& cpu, std::size_t /*workers*/, double assumed_high) {
  WorkerCostRange w;
  const StageCpu& l = cpu.loading;
  if (l.ranges > 0 && l.wall_ns > 0 && l.cores_busy() <= kMaxMeasurableCores) {
    w.measured = true;
    w.intra_op = std::max(1.0, (l.process_cpu_ns + l.wall_ns - l.thread_cpu_ns) / l.wall_ns);
  } else {
    // No CPU times, or a process that kept more cores busy than a pool doing useful work
    // between its waits would: OpenMP pools (PyTorch's intra-op threads) wait by spinning, so
    // the clocks cannot tell their work from their waiting (15.6 of 16 cores busy during the
    // ImageFolder loading on the H200, where one intra-op thread instead of 16 made it 8% slower).
    w.spinning = l.ranges > 0 && l.wall_ns > 0;
    w.intra_op = std::max(1.0, assumed_high);
  }
  w.high = w.intra_op;
  if (cpu.cpus_allowed > 0 && cpu.steps_thread_cpu_ns > 0)
    w.cpu_bound_speedup = static_cast<double>(cpu.cpus_allowed) * cpu.steps_wall_ns / cpu.steps_thread_cpu_ns;
  return w;
}

}  // namespace amdahl::analysis
