// Driving-thread selection, warm-up exclusion and the analysis window.
#include "amdahl/analysis/steps.hpp"

#include <algorithm>
#include <string>
#include <limits>

#include "amdahl/analysis/errors.hpp"

namespace amdahl::analysis {

std::size_t auto_warmup(const std::vector<std::int64_t>& durations) {
  if (durations.size() < 2) return 0;
  std::vector<std::int64_t> sorted = durations;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 ? static_cast<double>(sorted[n / 2])
                              : (static_cast<double>(sorted[n / 2 - 1]) + static_cast<double>(sorted[n / 2])) / 2.0;
  std::size_t w = 1;
  while (w + 1 < durations.size() && static_cast<double>(durations[w]) > 3.0 * median) ++w;
  return w;
}

PipelineEdges pipeline_edges(const Timeline& tl, std::size_t drv, const std::vector<Interval>& steps) {
  PipelineEdges e;
  if (drv >= tl.lanes.size() || steps.size() < 4) return e;
  std::vector<std::int64_t> produced;
  for (std::size_t i = 0; i < tl.lanes.size(); ++i) {
    if (i == drv) continue;
    for (const ItemMark& m : tl.lanes[i].produces) produced.push_back(m.ts_ns);
  }
  const auto& consumed = tl.lanes[drv].consumes;  // sorted by ts
  if (produced.empty() || consumed.empty()) return e;
  std::sort(produced.begin(), produced.end());
  auto produced_by = [&](std::int64_t t) {
    return static_cast<std::size_t>(std::upper_bound(produced.begin(), produced.end(), t) - produced.begin());
  };
  auto consumed_by = [&](std::int64_t t) {
    return static_cast<std::size_t>(
        std::upper_bound(consumed.begin(), consumed.end(), t, [](std::int64_t v, const ItemMark& m) { return v < m.ts_ns; }) -
        consumed.begin());
  };
  const std::size_t n = steps.size();
  e.backlog_at_start = static_cast<double>(produced_by(steps.front().start_ns)) -
                       static_cast<double>(consumed_by(steps.front().start_ns));
  // Fill: the first step in whose span a consume leaves the backlog empty.
  for (std::size_t i = 0; i < n / 2; ++i) {
    const std::int64_t a = steps[i].start_ns, b = i + 1 < n ? steps[i + 1].start_ns : steps[i].end_ns;
    auto it = std::lower_bound(consumed.begin(), consumed.end(), a, [](const ItemMark& m, std::int64_t v) { return m.ts_ns < v; });
    bool caught_up = false;
    for (; it != consumed.end() && it->ts_ns < b; ++it)
      if (produced_by(it->ts_ns) <= consumed_by(it->ts_ns)) caught_up = true;
    if (caught_up) {
      e.fill = i;
      break;
    }
  }
  // Drain: steps that start after the last produce.
  const std::int64_t last_produce = produced.back();
  std::size_t drain = 0;
  auto consumes_in = [&](std::size_t i) {
    const std::int64_t a = steps[i].start_ns, b = i + 1 < n ? steps[i + 1].start_ns : steps[i].end_ns;
    return consumed_by(b - 1) > consumed_by(a - 1);
  };
  while (drain < n / 4 && steps[n - 1 - drain].start_ns > last_produce && consumes_in(n - 1 - drain)) ++drain;
  e.drain = drain;
  return e;
}

std::vector<Interval> gpu_trace_windows(const format::RecordSet& rs, std::uint32_t pid) {
  format::StrId amdahl = format::kNoString, on = format::kNoString, off = format::kNoString;
  for (std::size_t i = 1; i < rs.strings.size(); ++i) {
    const std::string& t = rs.strings[i];
    if (t == "amdahl") amdahl = static_cast<format::StrId>(i);
    else if (t == "gpu_trace_on") on = static_cast<format::StrId>(i);
    else if (t == "gpu_trace_off") off = static_cast<format::StrId>(i);
  }
  std::vector<Interval> out;
  if (on == format::kNoString || amdahl == format::kNoString) return out;
  std::vector<std::pair<std::int64_t, bool>> events;  // (time, opens)
  for (const auto& m : rs.marks) {
    if (m.pid != pid || m.domain != amdahl) continue;
    if (m.name == on) events.emplace_back(m.ts_ns, true);
    else if (off != format::kNoString && m.name == off) events.emplace_back(m.ts_ns, false);
  }
  std::sort(events.begin(), events.end());
  // An "on" while a window is open changes nothing, so the windows never overlap.
  constexpr std::int64_t open = std::numeric_limits<std::int64_t>::max();
  for (const auto& [t, opens] : events) {
    const bool is_open = !out.empty() && out.back().end_ns == open;
    if (opens && !is_open) out.push_back({t, open});
    else if (!opens && is_open) out.back().end_ns = t;
  }
  return out;
}

WindowSteps steps_in_windows(const std::vector<Interval>& steps, const std::vector<Interval>& windows) {
  WindowSteps out;
  // Steps in start order (the timeline sorts them): each window looks only at the steps that
  // start inside it, so many windows over many steps stay linear.
  for (const Interval& w : windows) {
    std::vector<Interval> g;
    auto it = std::lower_bound(steps.begin(), steps.end(), w.start_ns,
                               [](const Interval& s, std::int64_t t) { return s.start_ns < t; });
    for (; it != steps.end() && it->start_ns <= w.end_ns; ++it)
      if (it->end_ns <= w.end_ns) g.push_back(*it);
    if (g.empty()) continue;
    out.startup.push_back(!steps.empty() && w.start_ns < steps.front().start_ns);
    out.groups.push_back(std::move(g));
  }
  bool found = false;
  for (const bool startup_allowed : {false, true}) {
    for (std::size_t i = 0; i < out.groups.size(); ++i) {
      if (out.startup[i] && !startup_allowed) continue;
      if (!found || out.groups[i].size() >= out.groups[out.chosen].size()) out.chosen = i;
      found = true;
    }
    if (found) break;
  }
  return out;
}

namespace {

double median_ms(std::vector<std::int64_t> d) {
  if (d.empty()) return 0;
  std::sort(d.begin(), d.end());
  const std::size_t n = d.size();
  const double m = n % 2 ? static_cast<double>(d[n / 2]) : (static_cast<double>(d[n / 2 - 1]) + static_cast<double>(d[n / 2])) / 2.0;
  return m / 1e6;
}

// The run's step time over every step after its warm-up (sampled profiles: the host ranges of
// the untraced steps are complete), and the windows' cost among those steps (GpuSampling).
void run_step_time(const std::vector<Interval>& steps, const std::vector<Interval>& windows, GpuSampling& g) {
  std::vector<std::int64_t> d;
  for (const auto& s : steps) d.push_back(s.end_ns - s.start_ns);
  g.run_warmup = std::min(auto_warmup(d), d.size());
  // A step is touched when it overlaps a window or is next to one that does. Steps come in
  // start order and windows in time order without overlap (gpu_trace_windows), so one pass.
  std::vector<bool> touched(steps.size(), false);
  std::size_t j = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    while (j < windows.size() && windows[j].end_ns < steps[i].start_ns) ++j;
    if (j == windows.size()) break;
    if (windows[j].start_ns <= steps[i].end_ns) {
      touched[i] = true;
      if (i > 0) touched[i - 1] = true;
      if (i + 1 < steps.size()) touched[i + 1] = true;
    }
  }
  std::vector<std::int64_t> in, out;
  double sum = 0;
  for (std::size_t i = g.run_warmup; i < steps.size(); ++i) {
    sum += static_cast<double>(d[i]);
    (touched[i] ? in : out).push_back(d[i]);
  }
  d.erase(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(g.run_warmup));
  g.run_step_mean_ms = d.empty() ? 0 : sum / static_cast<double>(d.size()) / 1e6;
  g.run_step_median_ms = median_ms(d);
  g.touched_steps = in.size();
  if (!in.empty() && out.size() >= 10 && sum > 0) {
    g.touched_step_median_ms = median_ms(in);
    g.untouched_step_median_ms = median_ms(out);
    double extra = 0;
    for (const auto v : in) extra += static_cast<double>(v) - g.untouched_step_median_ms * 1e6;
    g.window_cost_share = extra / sum;
  }
}

}  // namespace

StepSelection select_steps(const Timeline& tl, std::optional<std::size_t> warmup) {
  StepSelection sel;
  std::size_t best = tl.lanes.size();
  for (std::size_t i = 0; i < tl.lanes.size(); ++i) {
    if (tl.lanes[i].steps.empty()) continue;
    if (best == tl.lanes.size() || tl.lanes[i].steps.size() > tl.lanes[best].steps.size()) best = i;
  }
  if (best != tl.lanes.size()) {
    const Lane& lane = tl.lanes[best];
    sel.driving_lane = best;
    sel.has_steps = true;
    // `amdahl profile --gpu-sample` / `--gpu-steps FROM:TO`: GPU activity exists only inside the
    // trace windows; the steps of one window are the candidates (warm-up then drops the first of
    // them, whose stream still ran untraced work of earlier steps), so that no untraced step is
    // read as GPU idle. The run's step time comes from every step.
    std::vector<Interval> candidates = lane.steps;
    if (tl.records != nullptr) {
      const auto windows = gpu_trace_windows(*tl.records, lane.pid);
      if (!windows.empty()) {
        const WindowSteps ws = steps_in_windows(lane.steps, windows);
        if (ws.groups.empty())
          throw InputError(problems::NoStepInGpuWindows{});
        candidates = ws.groups[ws.chosen];
        GpuSampling g;
        g.windows = ws.groups.size();
        for (const auto& grp : ws.groups) g.traced_steps += grp.size();
        g.run_steps = lane.steps.size();
        g.used_window = ws.chosen + 1;
        run_step_time(lane.steps, windows, g);
        sel.sampling = g;
        sel.notes.push_back(findings::SampledSteps{g.traced_steps, g.run_steps, g.windows, g.used_window,
                                                   candidates.size(), g.run_steps - g.run_warmup, g.run_step_mean_ms,
                                                   g.run_step_median_ms, g.touched_steps,
                                                   g.touched_step_median_ms, g.untouched_step_median_ms,
                                                   g.window_cost_share});
      }
    }
    sel.total_steps = candidates.size();
    std::vector<std::int64_t> d;
    for (const auto& s : candidates) d.push_back(s.end_ns - s.start_ns);
    if (warmup) {
      sel.warmup_auto = false;
      sel.warmup = *warmup;
      if (sel.warmup >= sel.total_steps)
        throw InputError(problems::WarmupLeavesNoStep{sel.warmup, sel.total_steps});
    } else {
      sel.warmup = auto_warmup(d);
      if (sel.total_steps < 2)
        sel.notes.push_back(findings::OneStep{});
    }
    sel.steps.assign(candidates.begin() + static_cast<std::ptrdiff_t>(sel.warmup), candidates.end());
    if (!warmup) {
      // The steady state: without the loaders' fill (batches prefetched during start-up) and
      // drain (the queue emptied after the loaders stopped).
      const PipelineEdges pe = pipeline_edges(tl, best, sel.steps);
      if (pe.fill + pe.drain > 0 && pe.fill + pe.drain + 2 <= sel.steps.size()) {
        sel.fill_steps = pe.fill;
        sel.drain_steps = pe.drain;
        sel.warmup += pe.fill;
        sel.steps.erase(sel.steps.end() - static_cast<std::ptrdiff_t>(pe.drain), sel.steps.end());
        sel.steps.erase(sel.steps.begin(), sel.steps.begin() + static_cast<std::ptrdiff_t>(pe.fill));
        sel.notes.push_back(findings::SteadyState{pe.fill, static_cast<long long>(pe.backlog_at_start), pe.drain});
      }
    }
    for (std::size_t i = 0; i < sel.steps.size(); ++i) {
      const std::int64_t end = i + 1 < sel.steps.size() ? sel.steps[i + 1].start_ns : sel.steps[i].end_ns;
      sel.spans.push_back({sel.steps[i].start_ns, std::max(end, sel.steps[i].start_ns)});
    }
    sel.first_step = static_cast<std::size_t>(
        std::find_if(lane.steps.begin(), lane.steps.end(),
                     [&](const Interval& s) { return s.start_ns == sel.steps.front().start_ns; }) -
        lane.steps.begin());
    sel.window = {sel.steps.front().start_ns, std::max(sel.steps.back().end_ns, sel.spans.back().end_ns)};
    sel.spans.back().end_ns = sel.window.end_ns;
    if (tl.lanes.size() > 1 && std::count_if(tl.lanes.begin(), tl.lanes.end(), [&](const Lane& l) {
          return l.steps.size() == lane.steps.size();
        }) > 1)
      sel.notes.push_back(findings::SameStepCounts{});
  } else {
    // No steps: the longest-lived lane with stage ranges, over its whole run.
    std::int64_t longest = -1;
    for (std::size_t i = 0; i < tl.lanes.size(); ++i) {
      const Lane& l = tl.lanes[i];
      if (l.stage_ranges == 0) continue;
      if (l.last_ns - l.first_ns > longest) {
        longest = l.last_ns - l.first_ns;
        best = i;
      }
    }
    if (best == tl.lanes.size())
      throw NoRangesError("the profile has no step ranges and no stage ranges: nothing to analyse "
                       "(annotate stages with NVTX ranges, see docs/analysis.md)");
    sel.driving_lane = best;
    sel.window = {tl.lanes[best].first_ns, tl.lanes[best].last_ns};
    // Sampled by time (a program without steps): the longest trace window inside the lane's run,
    // so that untraced time is not read as GPU idle.
    if (tl.records != nullptr) {
      const auto windows = gpu_trace_windows(*tl.records, tl.lanes[best].pid);
      Interval widest{0, 0};
      for (const Interval& w : windows) {
        const Interval c{std::max(w.start_ns, sel.window.start_ns), std::min(w.end_ns, sel.window.end_ns)};
        if (c.end_ns - c.start_ns > widest.end_ns - widest.start_ns) widest = c;
      }
      if (!windows.empty() && widest.end_ns > widest.start_ns) {
        GpuSampling g;
        g.windows = windows.size();
        sel.sampling = g;
        sel.notes.push_back(
            findings::SampledTime{windows.size(), static_cast<double>(widest.end_ns - widest.start_ns) / 1e6});
        sel.window = widest;
      }
    }
    sel.spans = {sel.window};
    sel.warmup_auto = !warmup.has_value();
    sel.notes.push_back(findings::NoSteps{});
  }
  if (sel.window.end_ns <= sel.window.start_ns)
    throw InputError("the analysis window is empty (it starts and ends at the same time)");
  return sel;
}

}  // namespace amdahl::analysis
