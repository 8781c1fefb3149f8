// When CUPTI traces GPU activity (`amdahl profile --gpu-steps` / `--gpu-sample`, env
// AMDAHL_GPU_STEPS): everything, one window of steps FROM:TO, or periodic windows of K steps out
// of every M after a start-up window, with a time-based fallback for programs that never start
// a `step` range. Parsing and the step/tick-to-action rules are pure (tests/cupti).
//
// K/M@SKIP: traced from the start (CUDA's initialisation) until step SKIP -- so that a program
// shorter than that, or one without steps, is traced throughout -- then steps SKIP+M*j to
// SKIP+M*j+K-1 for every j >= 1. Without a step in the first fallback_ms, the start-up window
// closes there and on_ms at the end of every period_ms is traced (under a share cap, the period
// is lengthened so that on_ms is at most P% of it).
//
// K/M@SKIP,P%: the same, with the traced share of the run's time after step 0 kept at P% or
// less: a window that closes after lasting D lets the next one open no sooner than D*(100-P)/P
// later; a window due before then is skipped. The start-up window counts as its last K steps
// (steps SKIP-K to SKIP-1): its first steps hold CUDA's and the libraries' one-time start-up
// (seconds on the H100 for BERT), which no later window repeats. Tracing
// slows a launch-bound step by up to ~2x (CUPTI's per-launch records), so the share bounds the
// cost of the windows: at 2% the traced steps cost at most ~2% of the run (docs/cupti.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace amdahl::profiler {

enum class ScheduleKind { All, Window, Sample };

struct GpuSchedule {
  ScheduleKind kind = ScheduleKind::All;
  std::uint64_t from = 0, to = 0;        // Window: steps [from, to)
  std::uint64_t k = 10, m = 200, skip = 20;  // Sample: start-up until step skip, then skip + j*m ... + k - 1, j >= 1
  // Sample, programs without steps: when no step started in the first `fallback_ms`, the
  // start-up window closes and the last `on_ms` of every `period_ms` after it is traced.
  std::uint64_t fallback_ms = 60000, on_ms = 1000, period_ms = 20000;
  // Sample: the largest traced share of the run's time after step 0, in percent (100: no cap).
  std::uint32_t max_share_pct = 100;
};

// A step count or a schedule's number: 1 to 18 decimal digits and nothing else (no sign, no
// space); nullopt otherwise. Shared by parse_gpu_schedule and parse_step_window.
inline std::optional<std::uint64_t> parse_count(std::string_view s) noexcept {
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

// The defaults of `amdahl profile` (no --gpu-steps / --gpu-sample given).
// Measured (docs/benchmarks.md, "Sampled GPU tracing by default"): on a launch-bound BERT a
// traced step costs +60%, so windows every 200 steps alone cost ~+4%; the 2% share keeps them
// near +1% there while a GPU-bound model (ResNet-50) is traced every ~30 s.
inline constexpr std::string_view kDefaultGpuSample = "10/200@20,2%";

// "all"; "FROM:TO" (0 <= FROM < TO); "K/M", "K/M@SKIP", each optionally followed by ",P%"
// (0 < K < M, P a whole number 1 to 100). Decimal, at most 18 digits a number. nullopt for
// anything else.
std::optional<GpuSchedule> parse_gpu_schedule(std::string_view text) noexcept;

// The schedule as parse_gpu_schedule reads it (the profile's meta keeps this text).
std::string schedule_text(const GpuSchedule& s);

enum class TraceAction { None, Open, Close };

// What the start of step `step` (0-based, counted over the process) does to GPU tracing.
TraceAction step_action(const GpuSchedule& s, std::uint64_t step) noexcept;

// The share cap of a Sample schedule (max_share_pct < 100): the state it keeps between steps.
struct ShareGate {
  bool open = true;              // a window is open (the start-up window at first)
  bool startup = true;           // that window is the start-up one
  std::int64_t opened_ns = -1;   // when it opened (the start-up window: step SKIP-K's start)
  std::int64_t next_open_ns = 0; // no window opens before this
};

// step_action under the schedule's share cap: `now_ns` is the start of step `step`. Pure but for
// `g` (one gate per process, called in step order). Without a cap, step_action(s, step).
TraceAction capped_step_action(const GpuSchedule& s, ShareGate& g, std::uint64_t step, std::int64_t now_ns) noexcept;

// Whether the schedule has no action at any step after `step` (the core stops counting steps).
bool schedule_done_after(const GpuSchedule& s, std::uint64_t step) noexcept;

// The period of the time-based fallback's windows: period_ms, lengthened under a share cap
// (max_share_pct P < 100) until on_ms is at most P% of it (the default 1 s every 20 s becomes
// 1 s every 50 s at 2%).
std::uint64_t time_window_period_ms(const GpuSchedule& s) noexcept;

// The time-based fallback of a Sample schedule: whether GPU tracing should be on `ms`
// milliseconds after the process started, when no step has started so far (true before
// fallback_ms: the start-up window). The last on_ms of every time_window_period_ms(s).
bool time_window_open(const GpuSchedule& s, std::uint64_t ms) noexcept;

}  // namespace amdahl::profiler
