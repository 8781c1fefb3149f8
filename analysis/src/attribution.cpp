// Exposed / total / hidden time per stage on the driving thread's view, with wait attribution.
#include "amdahl/analysis/attribution.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace amdahl::analysis {
namespace {

std::int64_t overlap(std::int64_t a0, std::int64_t a1, std::int64_t b0, std::int64_t b1) {
  return std::max<std::int64_t>(0, std::min(a1, b1) - std::max(a0, b0));
}

Charge normalise(const std::map<std::size_t, double>& w) {
  double sum = 0;
  for (const auto& [k, v] : w) sum += v;
  Charge c;
  if (sum <= 0) return c;
  for (const auto& [k, v] : w)
    if (v > 0) c.emplace_back(k, v / sum);
  return c;
}

struct ProduceRef {
  std::size_t lane;
  std::size_t index;
  std::int64_t ts;
};

}  // namespace

Charge producer_charge(const Timeline& tl, std::size_t lane_i, std::size_t produce_index) {
  const Lane& lane = tl.lanes[lane_i];
  const std::size_t other = tl.stage_names.size();
  const std::int64_t end = lane.produces[produce_index].ts_ns;
  std::int64_t begin = produce_index > 0 ? lane.produces[produce_index - 1].ts_ns
                                         : (lane.segments.empty() ? end : lane.segments.front().start_ns);
  begin = std::min(begin, end);
  std::map<std::size_t, double> w;
  double waits = 0;
  auto it = std::upper_bound(lane.segments.begin(), lane.segments.end(), begin,
                             [](std::int64_t v, const Segment& s) { return v < s.end_ns; });
  // Time in no range before the item's first segment is the thread waiting for its next task
  // (a thread pool's worker between two tasks), not work on the item: not charged.
  // (An item with no range at all stays `other`.)
  auto first = it;
  while (first != lane.segments.end() && first->start_ns < end && first->label == kLabelOther &&
         first->stage == kLabelOther)
    ++first;
  if (first != lane.segments.end() && first->start_ns < end) {
    it = first;
    begin = std::max(begin, it->start_ns);
  }
  for (; it != lane.segments.end() && it->start_ns < end; ++it) {
    const double len = static_cast<double>(overlap(it->start_ns, it->end_ns, begin, end));
    if (it->label >= 0) w[static_cast<std::size_t>(it->label)] += len;
    else if (it->label == kLabelOther) w[other] += len;
    else waits += len;
  }
  double covered = waits;
  for (const auto& [k, v] : w) covered += v;
  const double gap = static_cast<double>(end - begin) - covered;  // time in no range: other
  if (gap > 0) w[other] += gap;
  return normalise(w);
}

Exposure compute_exposure(const Timeline& tl, const StepSelection& sel,
                          const std::vector<GpuOpStage>& op_stages) {
  const auto& rs = *tl.records;
  const std::size_t n = tl.stage_names.size();
  const Interval win = sel.window;
  Exposure ex;
  ex.other_index = n;
  ex.total_ns.assign(n, 0.0);
  for (const auto& lane : tl.lanes)
    for (const auto& s : lane.segments)
      if (s.label >= 0)
        ex.total_ns[static_cast<std::size_t>(s.label)] +=
            static_cast<double>(overlap(s.start_ns, s.end_ns, win.start_ns, win.end_ns));

  // No-marks rule: the other threads' stage time in the window, in proportion.
  const Lane& drv = tl.lanes[sel.driving_lane];
  Charge fallback;
  {
    std::map<std::size_t, double> w;
    for (std::size_t li = 0; li < tl.lanes.size(); ++li) {
      if (li == sel.driving_lane) continue;
      for (const auto& s : tl.lanes[li].segments)
        if (s.label >= 0)
          w[static_cast<std::size_t>(s.label)] +=
              static_cast<double>(overlap(s.start_ns, s.end_ns, win.start_ns, win.end_ns));
    }
    fallback = normalise(w);
  }

  std::unordered_map<std::int64_t, std::vector<ProduceRef>> produce_of;
  for (std::size_t li = 0; li < tl.lanes.size(); ++li)
    for (std::size_t i = 0; i < tl.lanes[li].produces.size(); ++i)
      produce_of[tl.lanes[li].produces[i].item].push_back({li, i, tl.lanes[li].produces[i].ts_ns});

  // GPU ops of the driving thread's process, by start, for GPU waits.
  std::vector<std::size_t> ops;
  std::int64_t max_op = 0;
  for (std::size_t i = 0; i < rs.gpu_ops.size(); ++i)
    if (rs.gpu_ops[i].pid == drv.pid) {
      ops.push_back(i);
      max_op = std::max(max_op, rs.gpu_ops[i].end_ns - rs.gpu_ops[i].start_ns);
    }
  // (The order among equal starts does not matter: the charges below are sums of integers.)
  auto by_start = [&](std::size_t a, std::size_t b) { return rs.gpu_ops[a].start_ns < rs.gpu_ops[b].start_ns; };
  if (!std::is_sorted(ops.begin(), ops.end(), by_start)) std::sort(ops.begin(), ops.end(), by_start);

  enum class Kind { Linked, Fallback, Gpu, Unattributed };
  std::unordered_map<std::int64_t, std::pair<Charge, Kind>> wait_cache;
  auto wait_charge = [&](const Segment& seg) -> std::pair<Charge, Kind> {
    auto cached = wait_cache.find(seg.range);
    if (cached != wait_cache.end()) return cached->second;
    ++ex.waits.wait_ranges;
    const auto& r = rs.ranges[static_cast<std::size_t>(seg.range)];
    std::pair<Charge, Kind> result{fallback, fallback.empty() ? Kind::Unattributed : Kind::Fallback};
    // The consume that ends this wait: the first at or after its start, before the next wait.
    auto c = std::lower_bound(drv.consumes.begin(), drv.consumes.end(), r.start_ns,
                              [](const ItemMark& m, std::int64_t v) { return m.ts_ns < v; });
    auto next_wait = std::upper_bound(drv.wait_ranges.begin(), drv.wait_ranges.end(), r.start_ns,
                                      [](std::int64_t v, const Interval& w) { return v < w.start_ns; });
    const bool in_reach = c != drv.consumes.end() &&
                          (next_wait == drv.wait_ranges.end() || c->ts_ns < next_wait->start_ns);
    if (in_reach) {
      auto p = produce_of.find(c->item);
      if (p != produce_of.end()) {
        const ProduceRef* best = nullptr;
        for (const auto& ref : p->second)
          if (ref.ts <= c->ts_ns && (!best || ref.ts > best->ts)) best = &ref;
        if (!best) best = &p->second.front();
        Charge ch = producer_charge(tl, best->lane, best->index);
        if (!ch.empty()) {
          result = {std::move(ch), Kind::Linked};
          ++ex.waits.linked_waits;
        }
      }
    }
    wait_cache.emplace(seg.range, result);
    return result;
  };
  auto gpu_charge = [&](const Segment& seg) -> std::pair<Charge, Kind> {
    std::map<std::size_t, double> w;
    auto it = std::lower_bound(ops.begin(), ops.end(), seg.start_ns - max_op, [&](std::size_t i, std::int64_t v) {
      return rs.gpu_ops[i].start_ns < v;
    });
    for (; it != ops.end() && rs.gpu_ops[*it].start_ns < seg.end_ns; ++it) {
      const auto& op = rs.gpu_ops[*it];
      const StageId st = op_stages[*it].stage;
      const std::int64_t o = overlap(op.start_ns, op.end_ns, seg.start_ns, seg.end_ns);
      if (o > 0 && st >= 0) w[static_cast<std::size_t>(st)] += static_cast<double>(o);
    }
    Charge ch = normalise(w);
    return {ch, ch.empty() ? Kind::Unattributed : Kind::Gpu};
  };

  ex.span_ns.reserve(sel.spans.size());
  ex.span_exposed.assign(sel.spans.size(), std::vector<double>(n + 1, 0.0));
  for (const auto& sp : sel.spans) ex.span_ns.push_back(static_cast<double>(sp.end_ns - sp.start_ns));

  for (const Segment& seg : drv.segments) {
    if (seg.end_ns <= win.start_ns || seg.start_ns >= win.end_ns || seg.label == kLabelOther) continue;
    std::pair<Charge, Kind> ch;
    if (seg.label >= 0) ch = {Charge{{static_cast<std::size_t>(seg.label), 1.0}}, Kind::Linked};
    else if (seg.label == kLabelWait) ch = wait_charge(seg);
    else ch = gpu_charge(seg);
    auto sp = std::upper_bound(sel.spans.begin(), sel.spans.end(), seg.start_ns,
                               [](std::int64_t v, const Interval& s) { return v < s.end_ns; });
    for (; sp != sel.spans.end() && sp->start_ns < seg.end_ns; ++sp) {
      const double len = static_cast<double>(overlap(seg.start_ns, seg.end_ns, sp->start_ns, sp->end_ns));
      if (len <= 0) continue;
      auto& row = ex.span_exposed[static_cast<std::size_t>(sp - sel.spans.begin())];
      if (seg.label < 0) {
        switch (ch.second) {
          case Kind::Linked: ex.waits.linked_ns += len; break;
          case Kind::Fallback: ex.waits.fallback_ns += len; break;
          case Kind::Gpu: ex.waits.gpu_wait_ns += len; break;
          case Kind::Unattributed: ex.waits.unattributed_ns += len; break;
        }
      }
      for (const auto& [k, wgt] : ch.first) row[k] += len * wgt;  // Unattributed: empty -> other
    }
  }
  // `other` is the rest of each span, so every row sums to its span exactly.
  ex.exposed_ns.assign(n + 1, 0.0);
  for (std::size_t i = 0; i < ex.span_exposed.size(); ++i) {
    auto& row = ex.span_exposed[i];
    double staged = 0;
    for (std::size_t s = 0; s < n; ++s) staged += row[s];
    row[n] = std::max(0.0, ex.span_ns[i] - staged);
    for (std::size_t s = 0; s <= n; ++s) ex.exposed_ns[s] += row[s];
  }
  ex.bounds = ex.waits.fallback_ns > 0;
  return ex;
}

}  // namespace amdahl::analysis
