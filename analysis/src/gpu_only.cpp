// The GPU-only report: GPU busy and idle over the run, kernels against copies, launch gaps
// against long gaps, the top kernels, for a profile with GPU records and no ranges.
#include "amdahl/analysis/gpu_only.hpp"

#include <algorithm>
#include <cinttypes>
#include <limits>
#include <set>
#include <unordered_map>

#include "amdahl/analysis/errors.hpp"

namespace amdahl::analysis {
namespace {

using format::GpuOpKind;
using format::GpuOpRec;

std::int64_t meta_int(const std::map<std::string, std::string>& meta, const char* key) {
  const auto it = meta.find(key);
  if (it == meta.end()) return -1;
  try {
    std::size_t used = 0;
    const long long v = std::stoll(it->second, &used);
    return used == it->second.size() ? v : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

// Merged intervals of `v` clipped to `w`, in order.
std::vector<Interval> merged(std::vector<Interval> v, Interval w) {
  for (auto& i : v) {
    i.start_ns = std::max(i.start_ns, w.start_ns);
    i.end_ns = std::min(i.end_ns, w.end_ns);
  }
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  std::vector<Interval> out;
  for (const auto& i : v) {
    if (i.end_ns <= i.start_ns) continue;
    if (out.empty() || i.start_ns > out.back().end_ns) out.push_back(i);
    else out.back().end_ns = std::max(out.back().end_ns, i.end_ns);
  }
  return out;
}

std::int64_t length(const std::vector<Interval>& v) {
  std::int64_t t = 0;
  for (const auto& i : v) t += i.end_ns - i.start_ns;
  return t;
}

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

bool has_gpu_ops(const format::Profile& profile) { return !profile.records.gpu_ops.empty(); }

GpuOnlyReport summarize_gpu_only(const format::Profile& profile, std::size_t top) {
  const auto& rs = profile.records;
  if (rs.gpu_ops.empty())
    throw InputError("the profile has no step ranges, no stage ranges and no GPU records: nothing to analyse");
  GpuOnlyReport r;
  r.meta = profile.meta;

  // The active span and the records' extent.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  r.active = {kMax, kMin};
  for (const GpuOpRec& op : rs.gpu_ops) {
    r.active.start_ns = std::min(r.active.start_ns, op.start_ns);
    r.active.end_ns = std::max(r.active.end_ns, std::max(op.start_ns, op.end_ns));
  }
  Interval extent = r.active;
  for (const auto& c : rs.api_calls) {
    extent.start_ns = std::min(extent.start_ns, c.start_ns);
    extent.end_ns = std::max(extent.end_ns, c.end_ns);
  }
  for (const auto& s : rs.syncs) {
    extent.start_ns = std::min(extent.start_ns, s.start_ns);
    extent.end_ns = std::max(extent.end_ns, s.end_ns);
  }
  const std::int64_t start = meta_int(profile.meta, "start_ns"), end = meta_int(profile.meta, "end_ns");
  if (start >= 0 && end > start && start <= r.active.start_ns && end >= r.active.end_ns) {
    r.run = {start, end};
    r.run_source = "command";
  } else {
    r.run = extent;
    r.run_source = "records";
  }
  const std::int64_t run_ns = r.run.end_ns - r.run.start_ns;

  // Per device: busy, kernels, copies, gaps.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::size_t>> by_device;
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i)
    by_device[{rs.gpu_ops[i].pid, rs.gpu_ops[i].device}].push_back(i);
  std::int64_t floor_ns = 0;  // the busiest device's busy time in the overall active span
  for (const auto& [key, idx] : by_device) {
    GpuOnlyDevice d;
    d.pid = key.first;
    d.device = key.second;
    d.ops = idx.size();
    d.active = {kMax, kMin};
    std::vector<Interval> all, kernels, copies;
    for (std::size_t i : idx) {
      const GpuOpRec& op = rs.gpu_ops[i];
      const Interval iv{op.start_ns, std::max(op.start_ns, op.end_ns)};
      d.active.start_ns = std::min(d.active.start_ns, iv.start_ns);
      d.active.end_ns = std::max(d.active.end_ns, iv.end_ns);
      all.push_back(iv);
      (op.kind == GpuOpKind::Kernel ? kernels : copies).push_back(iv);
    }
    const std::vector<Interval> busy = merged(std::move(all), r.run);
    d.busy_ns = length(busy);
    d.kernel_busy_ns = length(merged(std::move(kernels), r.run));
    d.copy_busy_ns = length(merged(std::move(copies), r.run));
    d.idle_ns = run_ns - d.busy_ns;
    for (std::size_t k = 1; k < busy.size(); ++k) {
      const std::int64_t gap = busy[k].start_ns - busy[k - 1].end_ns;
      d.active_idle_ns += gap;
      if (gap < kLaunchGapNs) {
        d.short_gap_ns += gap;
        ++d.short_gaps;
      } else {
        ++d.long_gaps;
      }
    }
    floor_ns = std::max(floor_ns, d.busy_ns);
    r.busy_ns += d.busy_ns;
    r.idle_ns += d.idle_ns;
    r.active_ns += d.active.end_ns - d.active.start_ns;
    r.active_idle_ns += d.active_idle_ns;
    r.short_gap_ns += d.short_gap_ns;
    r.devices.push_back(d);
  }
  r.idle_share_run = share(r.idle_ns, run_ns * static_cast<std::int64_t>(r.devices.size()));
  r.idle_share_active = share(r.active_idle_ns, r.active_ns);
  r.short_gap_share = share(r.short_gap_ns, r.active_idle_ns);
  const std::int64_t span = r.active.end_ns - r.active.start_ns;
  r.host_speedup_bound = floor_ns > 0 ? static_cast<double>(span) / static_cast<double>(floor_ns) : 1.0;

  // Kernels, copies by direction, sets; kernels by name.
  GpuOnlyOps kernel_ops{"kernel"}, memset_ops{"memset"};
  std::map<std::string, GpuOnlyOps> copy_ops;
  std::unordered_map<format::StrId, GpuOnlyKernel> by_name;
  for (const GpuOpRec& op : rs.gpu_ops) {
    const std::int64_t dur = std::max<std::int64_t>(0, op.end_ns - op.start_ns);
    GpuOnlyOps* o = &kernel_ops;
    if (op.kind == GpuOpKind::Memcpy) {
      const std::string kind = format::copy_kind_name(op.copy_kind, "copy (unknown direction)");
      o = &copy_ops.try_emplace(kind, GpuOnlyOps{kind}).first->second;
    } else if (op.kind == GpuOpKind::Memset) {
      o = &memset_ops;
    }
    ++o->count;
    o->total_ns += dur;
    o->bytes += op.bytes;
    if (op.kind == GpuOpKind::Kernel) {
      r.kernel_ns += dur;
      GpuOnlyKernel& k = by_name[op.name];
      ++k.count;
      k.total_ns += dur;
    } else {
      r.copy_ns += dur;
    }
  }
  if (kernel_ops.count) r.ops.push_back(kernel_ops);
  for (const char* k : {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "copy (unknown direction)"})
    if (const auto it = copy_ops.find(k); it != copy_ops.end()) r.ops.push_back(it->second);
  if (memset_ops.count) r.ops.push_back(memset_ops);
  r.distinct_kernels = by_name.size();
  for (auto& [id, k] : by_name) {
    k.name = rs.str(id);
    if (k.name.empty()) k.name = "(unnamed kernel)";
    r.top_kernels.push_back(std::move(k));
  }
  std::sort(r.top_kernels.begin(), r.top_kernels.end(), [](const GpuOnlyKernel& a, const GpuOnlyKernel& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  if (r.top_kernels.size() > top) r.top_kernels.resize(top);

  // The host's launch calls: API calls whose correlation id is a GPU operation's.
  std::set<std::pair<std::uint32_t, std::uint32_t>> corr;
  for (const GpuOpRec& op : rs.gpu_ops)
    if (op.correlation_id) corr.insert({op.pid, op.correlation_id});
  for (const auto& c : rs.api_calls)
    if (c.correlation_id && corr.count({c.pid, c.correlation_id})) {
      ++r.launch_calls;
      r.launch_call_ns += std::max<std::int64_t>(0, c.end_ns - c.start_ns);
    }

  // Verdict: GPU bound when it is idle less than a fifth of its active span; otherwise launch
  // bound when most of that idle time is in gaps under kLaunchGapNs, else host bound.
  constexpr double gap_ns = static_cast<double>(kLaunchGapNs);
  if (r.idle_share_active < 0.2) {
    r.bound = "gpu_bound";
    r.verdict = findings::GpuBound{1 - r.idle_share_active};
  } else if (r.short_gap_share >= 0.5) {
    r.bound = "launch_bound";
    r.verdict = findings::LaunchBound{r.idle_share_active, r.short_gap_share, gap_ns, r.host_speedup_bound};
  } else {
    r.bound = "host_bound";
    r.verdict = findings::HostBound{r.idle_share_active, 1 - r.short_gap_share, gap_ns, r.host_speedup_bound};
  }

  if (const auto it = profile.meta.find("torch"); it != profile.meta.end())
    r.notes.push_back(findings::TorchAnnotation{it->second});
  if (r.run_source == "records") r.notes.push_back(findings::RunFromRecords{});
  if (r.devices.size() > 1) r.notes.push_back(findings::DevicesSummed{r.devices.size()});
  for (const auto& d : rs.diagnostics)
    r.diagnostics.push_back({d.pid, rs.str(d.key), d.count, rs.str(d.detail)});
  return r;
}

}  // namespace amdahl::analysis
