// Per-rank breakdown, arrival-time straggler, exposed communication and the fixed-straggler
// estimate of a data-parallel profile (ranks.hpp).
#include "amdahl/analysis/ranks.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace amdahl::analysis {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

double overlap(std::int64_t a0, std::int64_t a1, std::int64_t b0, std::int64_t b1) {
  return static_cast<double>(std::max<std::int64_t>(0, std::min(a1, b1) - std::max(a0, b0)));
}

struct RankLanes {
  std::uint32_t pid = 0;
  std::uint32_t rank = 0;
  std::size_t driving = 0;  // lane index
  std::vector<std::size_t> lanes;
  std::vector<Interval> comm;  // communication ranges, by start
  std::vector<std::int64_t> comm_bytes;
};

}  // namespace

RankAnalysis analyze_ranks(const Timeline& tl, const Interval& window, std::size_t warmup) {
  RankAnalysis out;
  if (tl.records == nullptr) return out;
  const format::RecordSet& rs = *tl.records;
  const StageId comm_id = tl.stage_id("communication");

  // Processes with step ranges: their driving lane is their lane with the most steps.
  std::map<std::uint32_t, RankLanes> by_pid;
  for (std::size_t li = 0; li < tl.lanes.size(); ++li) {
    const Lane& l = tl.lanes[li];
    RankLanes& r = by_pid[l.pid];
    r.pid = l.pid;
    r.lanes.push_back(li);
    if (l.steps.size() > tl.lanes[r.driving].steps.size() || tl.lanes[r.driving].pid != l.pid) {
      if (!l.steps.empty()) r.driving = li;
    }
  }
  std::map<std::uint32_t, std::uint32_t> rank_of;
  for (const auto& p : rs.processes) rank_of[p.pid] = p.rank;
  for (auto it = by_pid.begin(); it != by_pid.end();) {
    const Lane& d = tl.lanes[it->second.driving];
    if (d.pid != it->first || d.steps.size() <= warmup) {
      it = by_pid.erase(it);
    } else {
      it->second.rank = rank_of.count(it->first) ? rank_of[it->first] : 0;
      ++it;
    }
  }
  if (comm_id >= 0) {
    for (std::size_t i = 0; i < rs.ranges.size() && i < tl.range_class.size(); ++i) {
      const RangeClass& c = tl.range_class[i];
      if (c.role != RangeRole::Stage || c.stage != "communication") continue;
      auto it = by_pid.find(rs.ranges[i].pid);
      if (it == by_pid.end()) continue;
      it->second.comm.push_back({rs.ranges[i].start_ns, rs.ranges[i].end_ns});
      const auto& p = rs.ranges[i].payload;
      if (p.kind == format::PayloadKind::Int64 || p.kind == format::PayloadKind::UInt64) {
        it->second.comm_bytes.push_back(p.i);
      }
    }
  }
  bool any_comm = false;
  for (auto& [pid, r] : by_pid) {
    std::sort(r.comm.begin(), r.comm.end(),
              [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
    any_comm = any_comm || !r.comm.empty();
  }
  if (by_pid.size() < 2 && !any_comm) return out;

  std::vector<RankLanes> ranks;
  for (auto& [pid, r] : by_pid) ranks.push_back(std::move(r));
  std::sort(ranks.begin(), ranks.end(), [](const RankLanes& a, const RankLanes& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.pid < b.pid;
  });
  const std::size_t n_stages = tl.stage_names.size();
  out.world = ranks.size();

  for (const RankLanes& r : ranks) {
    RankRow row;
    row.rank = r.rank;
    row.pid = r.pid;
    const Lane& d = tl.lanes[r.driving];
    const std::int64_t ws = d.steps[warmup].start_ns;
    const std::int64_t we = d.steps.back().end_ns;
    row.steps = d.steps.size() - warmup;
    const double steps = static_cast<double>(row.steps);
    row.step_ns = static_cast<double>(we - ws) / steps;
    row.lane_ns.assign(n_stages, 0);
    row.work_ns.assign(n_stages, 0);
    double covered = 0;
    for (const Segment& s : d.segments) {
      const double t = overlap(s.start_ns, s.end_ns, ws, we);
      if (t <= 0) continue;
      covered += t;
      if (s.label >= 0) row.lane_ns[static_cast<std::size_t>(s.label)] += t;
      else if (s.label == kLabelWait || s.label == kLabelGpuWait) row.lane_wait_ns += t;
      else row.lane_other_ns += t;
    }
    row.lane_other_ns += static_cast<double>(we - ws) - covered;  // gaps between segments
    for (const std::size_t li : r.lanes) {
      for (const Segment& s : tl.lanes[li].segments) {
        if (s.label >= 0) row.work_ns[static_cast<std::size_t>(s.label)] += overlap(s.start_ns, s.end_ns, ws, we);
      }
    }
    // Exposed communication: communication time while the driving thread did no stage work.
    double comm = 0, hidden = 0, lengths = 0;
    std::size_t in_window = 0;
    for (const Interval& c : r.comm) {
      const double t = overlap(c.start_ns, c.end_ns, ws, we);
      if (t <= 0) continue;
      comm += t;
      lengths += static_cast<double>(c.end_ns - c.start_ns);
      ++in_window;
      const std::int64_t a = std::max(c.start_ns, ws), b = std::min(c.end_ns, we);
      const auto first = std::lower_bound(d.segments.begin(), d.segments.end(), a,
                                          [](const Segment& s, std::int64_t at) { return s.end_ns <= at; });
      for (auto it = first; it != d.segments.end() && it->start_ns < b; ++it) {
        if (it->label >= 0) hidden += overlap(it->start_ns, it->end_ns, a, b);
      }
    }
    for (auto& v : row.lane_ns) v /= steps;
    for (auto& v : row.work_ns) v /= steps;
    row.lane_wait_ns /= steps;
    row.lane_other_ns /= steps;
    row.comm_ns = comm / steps;
    row.comm_hidden_ns = hidden / steps;
    row.comm_exposed_ns = std::max(0.0, row.comm_ns - row.comm_hidden_ns);
    row.collective_ns = in_window > 0 ? lengths / static_cast<double>(in_window) : 0;
    std::vector<double> bytes(r.comm_bytes.begin(), r.comm_bytes.end());
    row.comm_bytes = static_cast<std::int64_t>(std::llround(median(bytes)));
    out.rows.push_back(std::move(row));
  }

  // Collectives: the k-th communication range of every rank is collective k.
  std::size_t k_max = ranks.empty() ? 0 : ranks[0].comm.size();
  for (const RankLanes& r : ranks) k_max = std::min(k_max, r.comm.size());
  std::vector<double> lateness(ranks.size(), 0), waited(ranks.size(), 0), transfers, bytes;
  for (std::size_t k = 0; k < k_max; ++k) {
    std::int64_t first = INT64_MAX, last = INT64_MIN;
    std::size_t last_rank = 0;
    std::vector<double> arrivals;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const std::int64_t a = ranks[i].comm[k].start_ns;
      arrivals.push_back(static_cast<double>(a));
      first = std::min(first, a);
      if (a > last) {
        last = a;
        last_rank = i;
      }
    }
    if (first < window.start_ns || first > window.end_ns) continue;
    ++out.collectives;
    const double med = median(arrivals);
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const Interval& c = ranks[i].comm[k];
      lateness[i] += static_cast<double>(c.start_ns) - med;
      waited[i] += static_cast<double>(std::min(last, c.end_ns) - c.start_ns);
    }
    ++out.rows[last_rank].times_last;
    const Interval& lc = ranks[last_rank].comm[k];
    transfers.push_back(static_cast<double>(lc.end_ns - lc.start_ns));
  }
  for (const RankRow& row : out.rows) {
    if (row.comm_bytes > 0) bytes.push_back(static_cast<double>(row.comm_bytes));
  }
  out.comm_bytes = static_cast<std::int64_t>(std::llround(median(bytes)));
  out.transfer_ns = median(transfers);
  if (out.collectives == 0) {
    if (out.world >= 2) out.line = findings::NoCollective{};
    return out;
  }
  const double nc = static_cast<double>(out.collectives);
  std::size_t worst = 0;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    out.rows[i].lateness_ns = lateness[i] / nc;
    out.rows[i].waited_for_last_ns = waited[i] / nc;
    if (out.rows[i].lateness_ns > out.rows[worst].lateness_ns) worst = i;
  }
  if (out.world < 2) return out;

  const RankRow& w = out.rows[worst];
  std::vector<double> steps_others;
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    if (i != worst) steps_others.push_back(out.rows[i].step_ns);
  }
  const double step_med = median(steps_others);
  // The others' step less the exposed part of their waiting for the last arrival (the waiting
  // is inside their communication; only what their driving thread saw costs them time).
  std::vector<double> fixed;
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    if (i == worst) continue;
    const RankRow& o = out.rows[i];
    const double per_step = o.waited_for_last_ns * nc / static_cast<double>(o.steps);
    fixed.push_back(o.step_ns - std::min(o.comm_exposed_ns, per_step));
  }
  const double fixed_step = median(fixed);
  // A straggler arrives last at most collectives and costs the others at least 3% of a step.
  // (Ranks whose all-reduce is hidden drift apart in phase at no cost: one of them is always
  // last, and nobody waits for it.)
  const bool late_often = 2 * w.times_last > out.collectives && w.lateness_ns > 0;
  const bool costly = step_med - fixed_step >= 0.03 * step_med;
  if (!late_often || !costly) {
    out.line = findings::NoStraggler{w.rank, w.times_last, out.collectives, w.lateness_ns,
                                     std::max(0.0, step_med - fixed_step)};
    return out;
  }
  out.straggler = worst;
  out.straggler_lateness_ns = w.lateness_ns;
  out.fixed_step_ns = fixed_step;
  // Its late stage: the largest excess of work per step over the other ranks' median,
  // communication aside (it is where the others wait for it).
  double best = 0;
  for (std::size_t s = 0; s < n_stages; ++s) {
    if (static_cast<StageId>(s) == comm_id) continue;
    std::vector<double> others;
    for (std::size_t i = 0; i < out.rows.size(); ++i) {
      if (i != worst) others.push_back(out.rows[i].work_ns[s]);
    }
    const double excess = w.work_ns[s] - median(others);
    if (excess > best) {
      best = excess;
      out.late_stage = tl.stage_names[s];
      out.late_stage_ns = w.work_ns[s];
      out.late_stage_others_ns = median(others);
    }
  }
  if (out.late_stage.empty())
    out.line = findings::StragglerOutsideStages{w.rank, w.times_last, out.collectives, w.lateness_ns};
  else
    out.line = findings::StragglerStage{w.rank,           w.times_last,      out.collectives,
                                        w.lateness_ns,    out.late_stage,    out.late_stage_ns,
                                        out.late_stage_others_ns};
  return out;
}

}  // namespace amdahl::analysis
