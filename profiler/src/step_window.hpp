// The GPU trace window of `amdahl profile --gpu-steps FROM:TO` (AMDAHL_GPU_STEPS): CUPTI
// collects from the start of step FROM (0-based) to the start of step TO, so a long run pays
// CUPTI's per-launch cost for those steps only. Parsing and the step-to-action rule are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace amdahl::profiler {

struct StepWindow {
  std::uint64_t from = 0;  // first traced step (0-based)
  std::uint64_t to = 0;    // first step no longer traced; > from
};

// "FROM:TO" with 0 <= FROM < TO (decimal); nullopt for anything else.
std::optional<StepWindow> parse_step_window(std::string_view text) noexcept;

enum class WindowAction { None, Start, Stop };

// What the start of step number `step` (0-based) does to GPU collection.
inline WindowAction window_action(const StepWindow& w, std::uint64_t step) noexcept {
  if (step == w.from) return WindowAction::Start;
  if (step == w.to) return WindowAction::Stop;
  return WindowAction::None;
}

}  // namespace amdahl::profiler
