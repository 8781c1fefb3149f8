// GPU operations to stages (correlation id, then fallback by kind) and GPU time summaries.
#include "amdahl/analysis/gpu_attribution.hpp"

#include <algorithm>
#include <cctype>
#include <map>

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
  std::vector<std::uint32_t> computed;
  if (tl.api_of_op.size() != rs.gpu_ops.size()) computed = launching_api_calls(rs);
  const std::vector<std::uint32_t>& api_of_op = computed.empty() ? tl.api_of_op : computed;
  std::vector<GpuOpStage> out(rs.gpu_ops.size());
  // The lane of the previous op's API call: launches come from few threads.
  std::pair<std::uint32_t, std::uint64_t> last_key{0, 0};
  const Lane* last_lane = nullptr;
  bool have_last = false;
  constexpr StageId kUnknown = -100;
  std::vector<StageId> kernel_fallback;  // per kernel name id
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    const auto& op = rs.gpu_ops[i];
    GpuOpStage& s = out[i];
    if (op.correlation_id != 0 && api_of_op[i] != kNoApiCall) {
      const auto& api = rs.api_calls[api_of_op[i]];
      s.launch_delay_ns = op.start_ns - api.start_ns;
      if (!have_last || last_key != std::make_pair(api.pid, api.tid)) {
        last_key = {api.pid, api.tid};
        auto lane = tl.lane_of.find(last_key);
        last_lane = lane != tl.lane_of.end() ? &tl.lanes[lane->second] : nullptr;
        have_last = true;
      }
      if (last_lane) {
        const Segment* seg = last_lane->segment_at(api.start_ns);
        if (seg && seg->stage >= 0) {
          s.stage = seg->stage;
          s.by_correlation = true;
          continue;
        }
      }
    }
    // fallback_stage depends on the kind, the copy kind and (kernels) the name: cached per name.
    if (op.kind == format::GpuOpKind::Kernel && op.name < rs.strings.size()) {
      if (kernel_fallback.empty()) kernel_fallback.assign(rs.strings.size(), kUnknown);
      StageId& f = kernel_fallback[op.name];
      if (f == kUnknown) f = fallback_stage(tl, op);
      s.stage = f;
    } else {
      s.stage = fallback_stage(tl, op);
    }
  }
  return out;
}

std::int64_t union_length(std::vector<Interval> v, Interval w) {
  for (auto& i : v) {
    i.start_ns = std::max(i.start_ns, w.start_ns);
    i.end_ns = std::min(i.end_ns, w.end_ns);
  }
  auto by_start = [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; };
  if (!std::is_sorted(v.begin(), v.end(), by_start)) std::sort(v.begin(), v.end(), by_start);
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
  // The map entries of the previous op (ops come in long runs of one device and stage).
  std::vector<Interval>* dev_ops = nullptr;
  DevKey last_dev{};
  std::vector<Interval>* stage_ops = nullptr;
  std::pair<DevKey, StageId> last_stage{};
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i) {
    const auto& op = rs.gpu_ops[i];
    const DevKey dev{op.pid, op.device};
    if (!dev_ops || dev != last_dev) {
      dev_ops = &all[dev];  // every device appears, even when idle in the window
      last_dev = dev;
    }
    if (op.end_ns <= window.start_ns || op.start_ns >= window.end_ns) continue;
    ++g.ops_in_window;
    (op_stages[i].by_correlation ? g.by_correlation : g.by_fallback)++;
    if (op_stages[i].launch_delay_ns >= 0) g.launch_delay_ns.add(static_cast<double>(op_stages[i].launch_delay_ns));
    dev_ops->push_back({op.start_ns, op.end_ns});
    if (op_stages[i].stage >= 0) {
      const std::pair<DevKey, StageId> key{dev, op_stages[i].stage};
      if (!stage_ops || key != last_stage) {
        stage_ops = &per_stage[key];
        last_stage = key;
      }
      stage_ops->push_back({op.start_ns, op.end_ns});
    }
  }
  const std::int64_t wall = window.end_ns - window.start_ns;
  if (all.size() > 1) {  // any GPU busy: the union over devices (one device: its own busy time)
    std::vector<Interval> any;
    for (const auto& [dev, v] : all) any.insert(any.end(), v.begin(), v.end());
    g.any_busy_ns = union_length(std::move(any), window);
  }
  for (auto& [dev, v] : all) {
    GpuDeviceUsage u{dev.first, dev.second, union_length(std::move(v), window), 0};
    u.idle_ns = wall - u.busy_ns;
    g.busy_ns += u.busy_ns;
    g.idle_ns += u.idle_ns;
    g.devices.push_back(u);
  }
  if (all.size() == 1) g.any_busy_ns = g.busy_ns;
  for (auto& [key, v] : per_stage)
    g.busy_ns_by_stage[static_cast<std::size_t>(key.second)] += union_length(std::move(v), window);
  return g;
}

}  // namespace amdahl::analysis
