// The GPU trace schedule (see gpu_schedule.hpp).
#include "gpu_schedule.hpp"

#include <algorithm>
#include <limits>

namespace amdahl::profiler {

std::optional<GpuSchedule> parse_gpu_schedule(std::string_view text) noexcept {
  GpuSchedule s;
  if (text == "all") return s;
  if (const auto colon = text.find(':'); colon != std::string_view::npos) {
    const auto from = parse_count(text.substr(0, colon));
    const auto to = parse_count(text.substr(colon + 1));
    if (!from || !to || *to <= *from) return std::nullopt;
    s.kind = ScheduleKind::Window;
    s.from = *from;
    s.to = *to;
    return s;
  }
  if (const auto comma = text.find(','); comma != std::string_view::npos) {
    // ",P%": the share cap.
    const std::string_view cap = text.substr(comma + 1);
    if (cap.size() < 2 || cap.back() != '%') return std::nullopt;
    const auto pct = parse_count(cap.substr(0, cap.size() - 1));
    if (!pct || *pct == 0 || *pct > 100) return std::nullopt;
    auto base = parse_gpu_schedule(text.substr(0, comma));
    if (!base || base->kind != ScheduleKind::Sample || base->max_share_pct != 100) return std::nullopt;
    base->max_share_pct = static_cast<std::uint32_t>(*pct);
    return base;
  }
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const auto at = text.find('@', slash);
  const auto k = parse_count(text.substr(0, slash));
  const auto m = parse_count(text.substr(slash + 1, at == std::string_view::npos ? std::string_view::npos : at - slash - 1));
  std::optional<std::uint64_t> skip = s.skip;
  if (at != std::string_view::npos) skip = parse_count(text.substr(at + 1));
  if (!k || !m || !skip || *k == 0 || *k >= *m) return std::nullopt;
  s.kind = ScheduleKind::Sample;
  s.k = *k;
  s.m = *m;
  s.skip = *skip;
  return s;
}

std::string schedule_text(const GpuSchedule& s) {
  switch (s.kind) {
    case ScheduleKind::All: return "all";
    case ScheduleKind::Window: return std::to_string(s.from) + ":" + std::to_string(s.to);
    case ScheduleKind::Sample: break;
  }
  std::string t = std::to_string(s.k) + "/" + std::to_string(s.m) + "@" + std::to_string(s.skip);
  if (s.max_share_pct < 100) {  // appended piece by piece: gcc 12 -Wrestrict misfires on "," + to_string
    t += ',';
    t += std::to_string(s.max_share_pct);
    t += '%';
  }
  return t;
}

TraceAction step_action(const GpuSchedule& s, std::uint64_t step) noexcept {
  switch (s.kind) {
    case ScheduleKind::All: return TraceAction::None;
    case ScheduleKind::Window:
      if (step == s.from) return TraceAction::Open;
      return step == s.to ? TraceAction::Close : TraceAction::None;
    case ScheduleKind::Sample: break;
  }
  if (step < s.skip) return TraceAction::None;
  if (step == s.skip) return TraceAction::Close;  // the end of the start-up window
  const std::uint64_t phase = (step - s.skip) % s.m;
  if (phase == 0) return TraceAction::Open;
  return phase == s.k && step > s.skip + s.m ? TraceAction::Close : TraceAction::None;
}

TraceAction capped_step_action(const GpuSchedule& s, ShareGate& g, std::uint64_t step, std::int64_t now_ns) noexcept {
  const TraceAction a = step_action(s, step);
  if (s.kind != ScheduleKind::Sample || s.max_share_pct >= 100 || s.max_share_pct == 0) return a;
  // The start-up window is measured over its last K steps (or all of them, when SKIP < K).
  if (g.startup && g.open && step == (s.skip > s.k ? s.skip - s.k : 0)) g.opened_ns = now_ns;
  switch (a) {
    case TraceAction::None: return a;
    case TraceAction::Open:
      if (g.open || now_ns < g.next_open_ns) return TraceAction::None;
      g.open = true;
      g.opened_ns = now_ns;
      return a;
    case TraceAction::Close: break;
  }
  if (!g.open) return TraceAction::None;
  g.open = false;
  g.startup = false;
  const std::int64_t lasted = g.opened_ns >= 0 && now_ns > g.opened_ns ? now_ns - g.opened_ns : 0;
  const auto pct = static_cast<std::int64_t>(s.max_share_pct);
  // lasted * (100 - P) / P, without overflow for any realistic duration (< 2^63 / 100 ns).
  g.next_open_ns = now_ns + (lasted / pct) * (100 - pct) + (lasted % pct) * (100 - pct) / pct;
  return a;
}

bool schedule_done_after(const GpuSchedule& s, std::uint64_t step) noexcept {
  switch (s.kind) {
    case ScheduleKind::All: return true;
    case ScheduleKind::Window: return step >= s.to;
    case ScheduleKind::Sample: break;
  }
  return false;
}

std::uint64_t time_window_period_ms(const GpuSchedule& s) noexcept {
  if (s.max_share_pct == 0 || s.max_share_pct >= 100 || s.on_ms == 0) return s.period_ms;
  // The shortest period whose on_ms is at most P% of it: ceil(on_ms * 100 / P), without
  // overflow (on_ms has at most 18 digits when parsed; the default is 1000).
  const std::uint64_t p = s.max_share_pct;
  const std::uint64_t q = s.on_ms / p, r = s.on_ms % p;
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() / 100;
  if (q >= limit) return std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t shortest = q * 100 + (r * 100 + p - 1) / p;
  return std::max(s.period_ms, shortest);
}

bool time_window_open(const GpuSchedule& s, std::uint64_t ms) noexcept {
  if (s.kind != ScheduleKind::Sample) return false;
  if (ms < s.fallback_ms) return true;
  const std::uint64_t period = time_window_period_ms(s);
  if (period == 0) return false;
  return (ms - s.fallback_ms) % period >= period - std::min(s.on_ms, period);
}

}  // namespace amdahl::profiler
