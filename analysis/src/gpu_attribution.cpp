// GPU operations to stages (correlation id, then fallback by kind) and GPU time summaries.
#include "amdahl/analysis/gpu_attribution.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <unordered_map>

namespace amdahl::analysis {

StageId fallback_stage(const Timeline& tl, const format::GpuOpRec& op) {
  using format::CopyKind;
  using format::GpuOpKind;
  if (op.kind == GpuOpKind::Memcpy) {
    if (op.copy_kind == CopyKind::HtoD) return tl.canonical_id("h2d");
    if (op.copy_kind == CopyKind::DtoH) return tl.canonical_id("d2h");
    return tl.canonical_id("gpu_compute");
  }
  if (op.kind == GpuOpKind::Kernel) {
    std::string name = tl.records->str(op.name);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
    if (name.find("nccl") != std::string::npos) return tl.canonical_id("communication");
  }
  return tl.canonical_id("gpu_compute");
}

std::vector<GpuOpStage> attribute_gpu_ops(const Timeline& tl) {
  const auto& rs = *tl.records;
  std::unordered_map<std::uint64_t, std::size_t> api_of;
  api_of.reserve(rs.api_calls.size());
  for (std::size_t i = 0; i < rs.api_calls.size(); ++i) {
    const auto& a = rs.api_calls[i];
    api_of.emplace((static_cast<std::uint64_t>(a.pid) << 32) | a.correlation_id, i);
  }
  std::vector<GpuOpStage> out(rs.gpu_ops.size());
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    const auto& op = rs.gpu_ops[i];
    GpuOpStage& s = out[i];
    auto it = op.correlation_id != 0
                  ? api_of.find((static_cast<std::uint64_t>(op.pid) << 32) | op.correlation_id)
                  : api_of.end();
    if (it != api_of.end()) {
      const auto& api = rs.api_calls[it->second];
      s.launch_delay_ns = op.start_ns - api.start_ns;
      auto lane = tl.lane_of.find({api.pid, api.tid});
      if (lane != tl.lane_of.end()) {
        const Segment* seg = tl.lanes[lane->second].segment_at(api.start_ns);
        if (seg && seg->stage >= 0) {
          s.stage = seg->stage;
          s.by_correlation = true;
          continue;
        }
      }
    }
    s.stage = fallback_stage(tl, op);
  }
  return out;
}

std::int64_t union_length(std::vector<Interval> v, Interval w) {
  for (auto& i : v) {
    i.start_ns = std::max(i.start_ns, w.start_ns);
    i.end_ns = std::min(i.end_ns, w.end_ns);
  }
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  std::int64_t total = 0, cur_s = 0, cur_e = 0;
  bool open = false;
  for (const auto& i : v) {
    if (i.end_ns <= i.start_ns) continue;
    if (!open || i.start_ns > cur_e) {
      if (open) total += cur_e - cur_s;
      cur_s = i.start_ns;
      cur_e = i.end_ns;
      open = true;
    } else {
      cur_e = std::max(cur_e, i.end_ns);
    }
  }
  if (open) total += cur_e - cur_s;
  return total;
}

GpuSummary summarize_gpu(const Timeline& tl, const std::vector<GpuOpStage>& op_stages, Interval window) {
  const auto& rs = *tl.records;
  GpuSummary g;
  g.ops = rs.gpu_ops.size();
  g.present = g.ops > 0;
  g.busy_ns_by_stage.assign(tl.stage_names.size(), 0);
  using DevKey = std::pair<std::uint32_t, std::uint32_t>;
  std::map<DevKey, std::vector<Interval>> all;
  std::map<std::pair<DevKey, StageId>, std::vector<Interval>> per_stage;
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    const auto& op = rs.gpu_ops[i];
    const DevKey dev{op.pid, op.device};
    all[dev];  // every device appears, even when idle in the window
    if (op.end_ns <= window.start_ns || op.start_ns >= window.end_ns) continue;
    ++g.ops_in_window;
    (op_stages[i].by_correlation ? g.by_correlation : g.by_fallback)++;
    if (op_stages[i].launch_delay_ns >= 0) g.launch_delay_ns.add(static_cast<double>(op_stages[i].launch_delay_ns));
    all[dev].push_back({op.start_ns, op.end_ns});
    if (op_stages[i].stage >= 0) per_stage[{dev, op_stages[i].stage}].push_back({op.start_ns, op.end_ns});
  }
  const std::int64_t wall = window.end_ns - window.start_ns;
  for (auto& [dev, v] : all) {
    GpuDeviceUsage u{dev.first, dev.second, union_length(std::move(v), window), 0};
    u.idle_ns = wall - u.busy_ns;
    g.busy_ns += u.busy_ns;
    g.idle_ns += u.idle_ns;
    g.devices.push_back(u);
  }
  for (auto& [key, v] : per_stage)
    g.busy_ns_by_stage[static_cast<std::size_t>(key.second)] += union_length(std::move(v), window);
  return g;
}

}  // namespace amdahl::analysis
